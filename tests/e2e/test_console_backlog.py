"""Issue 31 in the console channel (in process, SQLite, a fake clock): a streak kept by a freeze and broken
without one, `/quiz review limit|pause|resume`, `/quiz plan`, and `/quiz stats` speaking of today's share."""

from __future__ import annotations

import datetime as dt
import io
import random
import re

import pytest

from adapters.console.channel import CONSOLE_REF, ConsoleChannel
from bot.app.bootstrap import bootstrap
from bot.features import Features
from bot.kernel.values import LETTERS, Actor
from bot.settings import ConfigChange
from bot.store.sqlite import SqliteStore
from tests.support.fakes import FixedClock, make_bank, store_of

MONDAY_9 = dt.datetime(2026, 12, 7, 9, 0, tzinfo=dt.UTC)


@pytest.fixture
async def service(tmp_path):
    store = SqliteStore(tmp_path / "console.db")
    await store.open()
    service = bootstrap(store, make_bank(per_topic=4), FixedClock(MONDAY_9), rng=random.Random(5))
    await service.channels.configure(Actor("setup", True), CONSOLE_REF, ConfigChange.of(timezone="UTC"))
    yield service
    await service.close()
    await store.close()


def take(out: io.StringIO) -> str:
    text = out.getvalue()
    out.seek(0)
    out.truncate()
    return text


async def test_a_streak_freeze_review_settings_and_a_plan_in_the_console(service: Features) -> None:
    clock = service.context.clock
    assert isinstance(clock, FixedClock)
    out = io.StringIO()
    me = ConsoleChannel(service, stdout=out)
    store = store_of(service)

    async def day(n: int, play: bool, right: bool = True) -> None:
        clock.set(MONDAY_9 + dt.timedelta(days=n))
        round_ = await service.posting.post_scheduled(CONSOLE_REF)
        assert round_ is not None
        if play:
            answer = service.context.bank.get(round_.question_id).answer  # type: ignore[union-attr]
            await me.handle(f"/quiz answer {LETTERS[answer if right else (answer + 1) % 4]}")
        await service.reveals.reveal_round(round_.id)

    for n in range(7):
        await day(n, True)
    await day(7, False)  # missed: the freeze earned on day 7 keeps the streak
    await day(8, True)
    take(out)
    await me.handle("/quiz stats")
    assert "streak 8 now (1 freeze used), best 8; freezes: 0 held, 1 used" in take(out)
    await day(9, True, right=False)  # a wrong answer, no freeze left: broken
    await day(10, True)
    await me.handle("/quiz stats")
    said = take(out)
    assert "streak 1 now (no freeze used), best 8; freezes: 0 held, 1 used" in said
    assert re.search(r"Reviews: \d+ today \(at most 20 a day\)", said)  # the days' cards fall due

    await me.handle("/quiz review limit 1")
    assert "at most 1 a day from now on. Today: 1 review to go (the rest wait" in take(out)
    await me.handle("/quiz stats")
    assert "Reviews: 1 today (at most 1 a day)" in take(out)
    await me.handle("/quiz review pause 3")
    assert "paused until" in take(out)
    await me.handle("/quiz review")
    assert "Your reviews are paused until" in take(out)
    await me.handle("/quiz review resume")
    assert "Reviews resumed: no due date moved" in take(out)
    await me.handle("/quiz review limit 0")
    assert "'0' is not a number from 1 to 100" in take(out)

    await me.handle("/quiz plan 2026-12-31 autograd,modules")
    said = take(out)
    assert "Plan saved" in said and "Coverage:" in said and "Daily target:" in said
    await me.handle("/quiz plan")
    assert "Plan for Thu 31 Dec 2026 (autograd, modules)" in take(out)
    await me.handle("/quiz plan off")
    assert "Your plan is off." in take(out)
    assert await store.learner_plan(CONSOLE_REF.platform, CONSOLE_REF.space_id, me.user_id) is None
