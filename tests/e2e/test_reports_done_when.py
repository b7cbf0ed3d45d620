"""Issue 12's "done when", on the console and on Discord: an admin imports a 30-question CSV pack, a channel
switched to that pack (the `packs` setting) posts from it the next day (fake clock), a member reports one of
its questions and the admin sees it in the queue (and on the CLI)."""

from __future__ import annotations

import csv
import datetime as dt
import io
import os
import random
import subprocess
import sys
from pathlib import Path

from adapters.console.channel import CONSOLE_REF, ConsoleChannel
from adapters.console.render import REPORT_HINT
from adapters.discord.app import StudyBotClient
from bot.quiz import QuizService
from bot.store.sqlite import SqliteStore
from tests.adapters.discord import conftest as loopback
from tests.adapters.discord.conftest import Core, configure_channel
from tests.adapters.discord.fake_discord import FakeDiscord, FakeFile
from tests.e2e.test_console_review import take
from tests.support.fakes import FixedClock, make_bank

ROOT = Path(__file__).resolve().parents[2]
fake, core, bot = loopback.fake, loopback.core, loopback.bot  # the Discord loopback fixtures
COLUMNS = ("id", "topic", "difficulty", "prompt", "code", "choice_a", "choice_b", "choice_c", "choice_d")
COLUMNS += ("answer", "explanation", "reference")


def thirty_question_csv() -> bytes:
    """A team's own pack as an admin would write it: 30 rows, one per question."""
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for i in range(1, 31):
        writer.writerow(
            [
                f"onboarding-{i:02d}",
                "onboarding",
                ("easy", "medium", "hard")[i % 3],
                f"Which service owns step {i} of our deploy?",
                "",
                f"api-{i}",
                f"worker-{i}",
                f"cron-{i}",
                f"proxy-{i}",
                "ABCD"[i % 4],
                f"Step {i} belongs to that service since the 2026 move.",
                f"https://wiki.example.org/deploy#{i}",
            ]
        )
    return out.getvalue().encode("utf-8")


def studybot(*args: str, db: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, STUDYBOT_DATABASE_URL=db, STUDYBOT_LOG_LEVEL="WARNING", PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "bot", *args], capture_output=True, text=True, env=env, timeout=120)


async def test_done_when_on_the_console(tmp_path: Path) -> None:
    path = tmp_path / "bot.db"
    db = f"sqlite:///{path}"
    store = SqliteStore(path)
    await store.open()
    clock = FixedClock(dt.datetime(2026, 12, 1, 8, 0, tzinfo=dt.UTC))  # a Tuesday, before the 09:00 post
    service = QuizService(store, make_bank(), clock, rng=random.Random(2))
    out = io.StringIO()
    console = ConsoleChannel(service, stdout=out)
    try:
        await console.start()  # today's question, from the shipped bank
        take(out)
        pack = tmp_path / "onboarding.csv"
        pack.write_bytes(thirty_question_csv())
        imported = studybot("bank", "import", str(pack), "--space", "console:local", "--pack", "onboarding", db=db)
        assert imported.returncode == 0, imported.stderr
        assert imported.stdout == "created pack onboarding in console:local: 30 question(s) (version 1)\n"

        await console.handle("/quiz config packs onboarding")  # "you" own the terminal: an admin
        assert "packs onboarding" in take(out)

        clock.set(dt.datetime(2026, 12, 2, 9, 0, 5, tzinfo=dt.UTC))  # the next day's post is due
        await service.run_due_work()
        posted = take(out)
        latest = await store.latest_daily_round(CONSOLE_REF)
        assert latest is not None and latest.local_date == dt.date(2026, 12, 2)
        assert latest.question_id.startswith("onboarding/onboarding-")
        assert "Which service owns step" in posted
        assert "== Reveal #1" in posted and REPORT_HINT in posted  # yesterday's reveal says how to report

        await console.handle("/quiz as alice")
        await console.handle("/quiz report wrong the deploy moved, step 3 is the worker's now")
        said = take(out)
        assert f"(private to alice) Thanks: your report #1 (wrong answer) on question {latest.question_id}" in said
        await console.handle("/quiz admin reports")
        assert "Only members who can manage this server or workspace can see the reports queue" in take(out)

        await console.handle("/quiz as you")
        await console.handle("/quiz admin reports")
        queue = take(out)
        assert "Reports: 1 open" in queue
        assert f"#1 {latest.question_id} [wrong answer], 1 open on it, 2026-12-02, by alice: the deploy moved" in queue

        listed = studybot("bank", "reports", "--space", "console:local", db=db)
        assert listed.returncode == 0, listed.stderr
        assert listed.stdout.startswith(f"Reports: 1 open\n#1 {latest.question_id} [wrong answer]")
        edited = studybot("bank", "reports", "--space", "console:local", "--resolve", "1", "--action", "edit", db=db)
        assert edited.returncode == 0 and "export the pack onboarding" in edited.stdout
        assert await service.reports.held("console", "local") == {latest.question_id}
        half = studybot("bank", "reports", "--space", "console:local", "--resolve", "1", db=db)
        assert half.returncode == 2 and "--action" in half.stderr
    finally:
        await service.close()
        await store.close()


async def test_done_when_on_discord(bot: StudyBotClient, fake: FakeDiscord, core: Core) -> None:
    ref = await configure_channel(core, fake)
    imported = await fake.reply(
        await fake.slash(
            fake.ada, "quizadmin", "import", pack="onboarding", file=FakeFile("onboarding.csv", thirty_question_csv())
        )
    )
    assert "Imported pack onboarding: 30 questions" in imported.text
    saved = await fake.reply(await fake.slash(fake.ada, "quizconfig", "filters", packs="onboarding"))
    assert "packs onboarding" in saved.text

    core.clock.set(core.clock.now().replace(hour=9, minute=0, second=5) + dt.timedelta(days=1))  # the next day
    await core.service.run_due_work()
    latest = await core.store.latest_daily_round(ref)
    assert latest is not None and latest.question_id.startswith("onboarding/onboarding-") and latest.message_id
    assert "Which service owns step" in str(fake.messages[latest.message_id])

    await core.service.reveal_round(latest.id)
    reveal = fake.channel_messages()[-1]
    opened = await fake.click(fake.bob, reveal, f"studybot:report:{latest.id}")
    await fake.wait_for(lambda: opened.callback is not None, "the report form")
    sent = await fake.submit_modal(
        fake.bob, fake.modal_of(opened), {"report_reason": ["unclear"], "report_text": "Which deploy? We have two."}
    )
    assert "Thanks: your report #1 (unclear)" in (await fake.reply(sent)).text

    queue = await fake.reply(await fake.slash(fake.ada, "quizadmin", "reports"))
    assert queue.ephemeral and "Reports: 1 open" in queue.text
    assert f"#1 {latest.question_id} [unclear]" in queue.text and "Which deploy? We have two." in queue.text
