"""Issue 12's "done when", on the console, on Discord and on Slack: an admin imports a 30-question CSV pack, a channel
switched to that pack (the `packs` setting) posts from it the next day (fake clock), a member reports one of
its questions and the admin sees it in the queue (and on the CLI)."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import os
import random
import subprocess
import sys
from pathlib import Path

from adapters.console.channel import CONSOLE_REF, ConsoleChannel
from adapters.console.render import REPORT_HINT
from adapters.discord.app import StudyBotClient
from adapters.slack.packs import IMPORT_VIEW
from bot.app.bootstrap import bootstrap
from bot.store.sqlite import SqliteStore
from tests.adapters.discord import conftest as loopback
from tests.adapters.discord.conftest import Core, configure_channel
from tests.adapters.discord.fake_discord import FakeDiscord, FakeFile
from tests.adapters.slack import conftest as slack_loopback
from tests.adapters.slack.harness import ADMIN as SLACK_ADMIN
from tests.adapters.slack.harness import BOB, CHANNEL, SlackHarness, buttons, texts
from tests.adapters.slack.test_pack_files import result as import_note
from tests.adapters.slack.test_pack_files import submit as submit_import
from tests.adapters.slack.test_reports import open_form as open_report_form
from tests.adapters.slack.test_reports import submit as submit_report
from tests.e2e.test_console_review import take
from tests.support.fakes import FixedClock, make_bank, write_bank_files

ROOT = Path(__file__).resolve().parents[2]
fake, core, bot = loopback.fake, loopback.core, loopback.bot  # the Discord loopback fixtures
slack_factory, slack = slack_loopback.slack_factory, slack_loopback.slack  # the Slack loopback fixtures
COLUMNS: tuple[str, ...] = (
    "id",
    "topic",
    "difficulty",
    "prompt",
    "code",
    "choice_a",
    "choice_b",
    "choice_c",
    "choice_d",
)
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


def studybot(*args: str, db: str, **env_vars: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, STUDYBOT_DATABASE_URL=db, STUDYBOT_LOG_LEVEL="WARNING", PYTHONPATH=str(ROOT), **env_vars)
    return subprocess.run([sys.executable, "-m", "bot", *args], capture_output=True, text=True, env=env, timeout=120)


async def test_the_clis_queue_shows_a_reported_bank_questions_prompt(tmp_path: Path) -> None:
    path = tmp_path / "bot.db"
    store = SqliteStore(path)
    await store.open()
    bank = make_bank()
    service = bootstrap(store, bank, FixedClock(dt.datetime(2026, 12, 1, 9, 0, tzinfo=dt.UTC)))
    out = io.StringIO()
    console = ConsoleChannel(service, stdout=out)
    try:
        await console.start()  # today's question, from the bank
        await console.handle("/quiz as alice")
        await console.handle("/quiz report unclear which one?")
        latest = await store.latest_daily_round(CONSOLE_REF)
        assert latest is not None and "/" not in latest.question_id  # the bank's, not a pack's
    finally:
        await service.close()
    prompt = next(q.prompt for q in bank.questions if q.id == latest.question_id)
    folder = write_bank_files(tmp_path / "bank", bank)
    listed = studybot(
        "bank", "reports", "--space", "console:local", db=f"sqlite:///{path}", STUDYBOT_BANK_DIR=str(folder)
    )
    assert listed.returncode == 0, listed.stderr
    assert f"#1 {latest.question_id} [unclear]" in listed.stdout and f"\n    Q: {prompt}\n" in listed.stdout


async def test_done_when_on_the_console(tmp_path: Path) -> None:
    path = tmp_path / "bot.db"
    db = f"sqlite:///{path}"
    store = SqliteStore(path)
    await store.open()
    clock = FixedClock(dt.datetime(2026, 12, 1, 8, 0, tzinfo=dt.UTC))  # a Tuesday, before the 09:00 post
    service = bootstrap(store, make_bank(), clock, rng=random.Random(2))
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
        await service.delivery.run_due_work()
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
        assert "\n    Q: Which service owns step" in queue  # the question's prompt, to judge the report by

        listed = studybot("bank", "reports", "--space", "console:local", db=db)
        assert listed.returncode == 0, listed.stderr
        assert listed.stdout.startswith(f"Reports: 1 open\n#1 {latest.question_id} [wrong answer]")
        assert "\n    Q: Which service owns step" in listed.stdout  # the CLI reads the space's packs too
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
    await core.service.delivery.run_due_work()
    latest = await core.store.latest_daily_round(ref)
    assert latest is not None and latest.question_id.startswith("onboarding/onboarding-") and latest.message_id
    assert "Which service owns step" in str(fake.messages[latest.message_id])

    await core.service.reveals.reveal_round(latest.id)
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


async def test_done_when_on_slack(slack: SlackHarness) -> None:
    asked = await slack.reply(await slack.command("admin import onboarding", user=SLACK_ADMIN))
    assert "Choose the YAML or CSV file in the form" in texts(asked)
    [opened] = slack.stub.calls_to("views.open")
    assert opened.args["view"]["callback_id"] == IMPORT_VIEW
    slack.stub.share_file("F0ONBOARD", "onboarding.csv", thirty_question_csv())  # the file the admin picks
    sent = await submit_import(slack, "F0ONBOARD", pack="onboarding")
    assert sent.status == 200 and sent.text == ""  # the form closes; the result comes in direct messages
    imported = await import_note(slack, 1)
    assert imported.args["text"].startswith("Imported pack onboarding: 30 questions.")
    assert slack.stub.downloads == [("F0ONBOARD", len(thirty_question_csv()))]

    config = "config packs onboarding time 09:00 tz UTC days daily window 2h"
    saved = await slack.reply(await slack.command(config, user=SLACK_ADMIN))
    assert "packs onboarding" in texts(saved) and "time 09:00" in texts(saved)
    listed = await slack.reply(await slack.command("packs", user=BOB))
    assert "onboarding" in texts(listed) and "30" in texts(listed)

    slack.clock.set(slack.clock.now().replace(hour=9, minute=0, second=5) + dt.timedelta(days=1))  # the next day
    await slack.service.delivery.run_due_work()
    latest = await slack.store.latest_daily_round(slack.ref)
    assert latest is not None and latest.local_date == slack.clock.now().date() and latest.message_id
    assert latest.question_id.startswith("onboarding/onboarding-")
    posts = [c for c in slack.stub.calls_to("chat.postMessage") if c.args["channel"] == CHANNEL]
    assert len(posts) == 2  # nothing ticked on the first day: a short note says so, then today's question
    assert "The bot was offline at 09:00 (UTC) on Wed 05 Mar" in texts(posts[0])
    number = int(latest.question_id.rsplit("-", 1)[1])
    assert f"Which service owns step {number} of our deploy?" in texts(posts[-1])

    slack.clock.set(slack.clock.now() + dt.timedelta(hours=2))  # the answer window closes: the reveal is due
    await slack.service.delivery.run_due_work()
    reveal = [c for c in slack.stub.calls_to("chat.postMessage") if c.args["channel"] == CHANNEL][-1]
    assert f"report_open.{latest.id}" in buttons(reveal)
    view = await open_report_form(slack, latest.id, BOB)
    sent = await submit_report(slack, view, BOB, "wrong", "the deploy moved, step 3 is the worker's now")
    assert sent.status == 200
    thanks = json.loads(sent.text)["view"]["blocks"][0]["text"]["text"]
    assert f"Thanks: your report #1 (wrong answer) on question {latest.question_id}" in thanks

    refused = await slack.reply(await slack.command("admin reports", user=BOB))
    assert "Only members who can manage this server or workspace can see the reports queue" in texts(refused)
    queue = await slack.reply(await slack.command("admin reports", user=SLACK_ADMIN))
    shown = texts(queue)
    assert "Reports: 1 open" in shown and f"#1 {latest.question_id} [wrong answer]" in shown
    assert f"by <@{BOB}>" in shown and "the deploy moved, step 3 is the worker's now" in shown
