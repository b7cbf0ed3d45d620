"""Issue 30 item 3: a day is called missed because of downtime only when the bot really was not running.

Each process's tick records its running span in the store (bot.daily.uptime). A wall clock stepped forward
past a post while the process kept ticking is not downtime: the day is posted late, and the reveal it
overtook says nothing about the bot being offline. A process that really was down (stopped and started
again, or suspended) skips the day and says so, as before. On SQLite, PostgreSQL and the in-memory fake,
with a fake clock (and a fake elapsed-time clock for the process's own sense of time passing).
"""

from __future__ import annotations

import datetime as dt
import random

import pytest

from bot.app.bootstrap import bootstrap
from bot.app.cli import clock_for
from bot.app.scheduler import DailyScheduler
from bot.daily.reveals import LATE_NOTE
from bot.kernel.clock import DatabaseClock, SystemClock
from bot.kernel.values import Actor, ChannelRef
from bot.store.postgres import PostgresStore
from bot.store.sqlite import SqliteStore
from tests.integration.test_postgres_store import throwaway_database
from tests.support.fakes import REF, FakePlatform, FixedClock, make_bank
from tests.support.memory_store import InMemoryStore

ADMIN = Actor("admin", True)
MON = dt.datetime(2026, 12, 7, tzinfo=dt.UTC)  # a Monday; the channel posts at 09:00 UTC
GRACE = dt.timedelta(hours=1)


class Elapsed:
    """A process's elapsed-time clock (CLOCK_BOOTTIME) that only moves when the test moves it."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


@pytest.fixture(params=["memory", "sqlite", "postgres"])
async def open_store(request, tmp_path):
    stores = []

    async def _open(url: str | None = None):
        if request.param == "memory":
            store = InMemoryStore()
        elif request.param == "sqlite":
            store = SqliteStore(tmp_path / "s.db")
        else:
            assert url is not None
            store = PostgresStore(url)
        await store.open()
        stores.append(store)
        return store

    if request.param == "postgres":
        async with throwaway_database("studybot_clock") as url:
            yield lambda: _open(url)
            for store in stores:
                await store.close()
    else:
        yield _open
        for store in stores:
            await store.close()


class Process:
    """One bot process: its features over the shared store, its platforms, its scheduler (its tick)."""

    def __init__(self, store, clock: FixedClock, platforms: dict[str, FakePlatform]) -> None:
        self.elapsed = Elapsed()
        self.service = bootstrap(store, make_bank(), clock, dict(platforms), rng=random.Random(7))
        self.scheduler = DailyScheduler(self.service, clock, misfire_grace=GRACE, elapsed=self.elapsed)

    async def close(self) -> None:
        self.scheduler.shutdown()
        await self.service.close()


async def ticking(process: Process, clock: FixedClock, until: dt.datetime, every: dt.timedelta) -> None:
    """The process ticks every `every` up to `until`, its elapsed clock keeping pace with the wall clock."""
    while clock.now() < until:
        step = min(every, until - clock.now()).total_seconds()
        clock.advance(seconds=step)
        process.elapsed.advance(step)
        await process.scheduler.tick()


async def test_a_clock_stepped_forward_while_running_posts_the_day_late_and_no_offline_note(open_store):
    store = await open_store()
    clock = FixedClock(MON + dt.timedelta(hours=8))
    platform = FakePlatform()
    bot = Process(store, clock, {"fake": platform})
    await bot.service.channels.configure(ADMIN, REF)
    await ticking(bot, clock, MON + dt.timedelta(hours=9, minutes=1), dt.timedelta(minutes=1))
    (monday,) = [card for _, card in platform.posted]
    await ticking(bot, clock, MON + dt.timedelta(days=1, hours=8, minutes=59), dt.timedelta(hours=1))
    # the host's clock steps 3 h forward (an NTP correction) between two ticks 15 s apart
    clock.advance(hours=3)
    bot.elapsed.advance(15)
    await bot.scheduler.tick()
    assert platform.notices == []  # the bot never was offline: no "the bot was offline" note
    assert [c.title for _, c in platform.posted] == [
        "Daily PyTorch question, Mon 07 Dec 2026",
        "Daily PyTorch question, Tue 08 Dec 2026",  # posted late, at the new 11:59, not skipped
    ]
    assert [c.round_id for _, c in platform.reveals] == [monday.round_id]
    assert platform.reveals[0][1].note is None  # revealed late by the step, but not "offline"
    tuesday = await store.latest_daily_round(REF)
    assert tuesday.opened_at == clock.now() and tuesday.local_date == dt.date(2026, 12, 8)
    assert tuesday.closes_at == MON + dt.timedelta(days=2, hours=9)  # its promise: Wednesday's post
    assert await store.get_next_post(REF) == MON + dt.timedelta(days=2, hours=9)
    await bot.close()


@pytest.mark.parametrize("how", ["restarted", "suspended"])
async def test_a_process_that_really_was_down_skips_the_day_and_says_so(open_store, how):
    store = await open_store()
    clock = FixedClock(MON + dt.timedelta(hours=8))
    platform = FakePlatform()
    bot = Process(store, clock, {"fake": platform})
    await bot.service.channels.configure(ADMIN, REF)
    await ticking(bot, clock, MON + dt.timedelta(days=1, hours=8, minutes=59), dt.timedelta(hours=1))
    clock.advance(hours=3)
    if how == "restarted":  # the process stopped at 08:59 and another started at 11:59
        await bot.close()
        bot = Process(store, clock, {"fake": platform})
    else:  # the machine was suspended for those 3 h: its elapsed-time clock counts them
        bot.elapsed.advance(3 * 3600)
    await bot.scheduler.tick()
    assert len(platform.notices) == 1 and "The bot was offline at 09:00 (UTC) on Tue 08 Dec" in platform.notices[0][1]
    assert [c.title for _, c in platform.posted] == ["Daily PyTorch question, Mon 07 Dec 2026"]
    assert platform.reveals[0][1].note == LATE_NOTE
    await bot.close()


async def test_a_process_of_another_platform_running_does_not_hide_this_one_s_downtime(open_store):
    """Spans are per platform: the "other" process that kept running says nothing about the "fake" process
    that was down (processes of one platform share theirs: see the store's UptimeContract)."""
    store = await open_store()
    clock = FixedClock(MON + dt.timedelta(hours=8))
    down_platform, running_platform = FakePlatform("fake"), FakePlatform("other")
    other = ChannelRef("other", "space-2", "chan-2")
    down = Process(store, clock, {"fake": down_platform})
    running = Process(store, clock, {"other": running_platform})
    await down.service.channels.configure(ADMIN, REF)
    await running.service.channels.configure(ADMIN, other)
    await down.scheduler.tick()
    await down.close()  # the "fake" process stops at 08:00 ...
    await ticking(running, clock, MON + dt.timedelta(hours=11), dt.timedelta(minutes=15))  # ... "other" runs on
    restarted = Process(store, clock, {"fake": down_platform})
    await restarted.scheduler.tick()
    assert len(down_platform.notices) == 1 and "offline at 09:00" in down_platform.notices[0][1]
    assert down_platform.posted == []
    assert [c.title for _, c in running_platform.posted] == ["Daily PyTorch question, Mon 07 Dec 2026"]
    assert running_platform.notices == []
    await restarted.close()
    await running.close()


async def test_a_clock_stepped_forward_by_days_posts_only_the_latest_day(open_store):
    store = await open_store()
    clock = FixedClock(MON + dt.timedelta(hours=8))
    platform = FakePlatform()
    bot = Process(store, clock, {"fake": platform})
    await bot.service.channels.configure(ADMIN, REF)
    await bot.scheduler.tick()
    clock.advance(days=2, hours=4)  # Wednesday 12:00, 15 s later by the process's own clock
    bot.elapsed.advance(15)
    await bot.scheduler.tick()
    assert platform.notices == []
    assert [c.title for _, c in platform.posted] == ["Daily PyTorch question, Wed 09 Dec 2026"]
    assert await store.get_next_post(REF) == MON + dt.timedelta(days=3, hours=9)
    await bot.close()


async def test_the_composition_root_gives_postgresql_processes_the_database_s_clock_and_sqlite_the_machine_s(
    tmp_path,
):
    sqlite = SqliteStore(tmp_path / "c.db")
    await sqlite.open()
    assert isinstance(await clock_for(sqlite), SystemClock)
    await sqlite.close()
    async with throwaway_database("studybot_clock") as url:
        store = PostgresStore(url)
        await store.open()
        clock = await clock_for(store)
        assert isinstance(clock, DatabaseClock)
        at, _ = await store.database_time(lambda: 0.0)
        assert abs(clock.now() - at) < dt.timedelta(seconds=1) and clock.now().tzinfo is dt.UTC
        await store.close()
