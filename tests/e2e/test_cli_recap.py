"""`studybot recap --space ... -o week.png` as a user runs it, on a SQLite file made through the service."""

from __future__ import annotations

import datetime as dt
import io
import os
import random
import subprocess
import sys
from pathlib import Path

from PIL import Image, ImageStat

from bot.app.bootstrap import bootstrap
from bot.kernel.values import Actor, ChannelRef
from bot.settings import ConfigChange
from bot.store.sqlite import SqliteStore
from tests.support.fakes import FakePlatform, FixedClock, make_bank, write_bank_files

REF = ChannelRef("fake", "space-1", "chan-1")
MON = dt.datetime(2026, 11, 16, 9, 0, tzinfo=dt.UTC)


async def _history(path: Path) -> None:
    store = SqliteStore(path)
    await store.open()
    clock = FixedClock(MON)
    bank = make_bank()
    service = bootstrap(store, bank, clock, {"fake": FakePlatform()}, rng=random.Random(2))
    await service.channels.configure(Actor("admin", True), REF, ConfigChange.of(timezone="Europe/Berlin"))
    for day in range(3):
        clock.set(MON + dt.timedelta(days=day))
        round_ = await service.posting.post_scheduled(REF)
        assert round_ is not None
        right = bank.get(round_.question_id).answer
        for i, user in enumerate(("ann", "bob", "cy")):
            clock.advance(seconds=5)
            await service.answers.submit_answer(round_.id, user, right if (i + day) % 2 == 0 else (right + 1) % 4)
        await service.reveals.reveal_round(round_.id)
    await service.close()
    await store.close()


def studybot(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot", *args], capture_output=True, text=True, env=env, timeout=120)


async def test_recap_draws_the_week_by_hand(tmp_path: Path) -> None:
    db = tmp_path / "quiz.db"
    await _history(db)
    env = dict(
        os.environ,
        STUDYBOT_DATABASE_URL=f"sqlite:///{db}",
        STUDYBOT_BANK_DIR=str(write_bank_files(tmp_path / "bank", make_bank())),
    )
    out = tmp_path / "charts" / "week.png"
    done = studybot("recap", "--space", "fake:space-1", "--end", "2026-11-22", "-o", str(out), env=env)
    assert done.returncode == 0, done.stderr
    assert f"wrote {out}" in done.stdout and "Answers per day: Mon 3, Tue 3, Wed 3, Thu 0" in done.stdout
    image = Image.open(io.BytesIO(out.read_bytes()))
    assert image.format == "PNG" and image.size == (1200, 900)
    assert ImageStat.Stat(image.convert("L")).var[0] > 500

    one = studybot(
        "recap",
        "--space",
        "fake:space-1",
        "--channel",
        "chan-1",
        "--end",
        "2026-11-22",
        "-o",
        str(tmp_path / "one.png"),
        env=env,
    )
    assert one.returncode == 0 and (tmp_path / "one.png").exists()

    empty = studybot("recap", "--space", "fake:space-1", "--end", "2026-12-20", "-o", str(tmp_path / "e.png"), env=env)
    assert empty.returncode == 1 and "nothing to chart yet" in empty.stderr
    assert not (tmp_path / "e.png").exists()  # never a blank chart

    unknown = studybot("recap", "--space", "fake:space-1", "--channel", "nope", "-o", str(tmp_path / "u.png"), env=env)
    assert unknown.returncode == 1 and "No quiz channel nope" in unknown.stderr
    bad = studybot("recap", "--space", "space-1", "-o", str(tmp_path / "b.png"), env=env)
    assert bad.returncode == 2 and "PLATFORM:SPACE_ID" in bad.stderr
