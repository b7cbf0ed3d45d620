"""The database's clock (bot.kernel.clock.DatabaseClock): read once per tick, carried forward between reads by
the process's elapsed-time clock, and what every due decision of the tick uses."""

from __future__ import annotations

import datetime as dt
import random

import pytest

from bot.app.bootstrap import bootstrap
from bot.app.scheduler import DailyScheduler
from bot.kernel.clock import DatabaseClock, RefreshedClock
from bot.kernel.values import Actor
from tests.support.fakes import REF, FakePlatform, make_bank
from tests.support.memory_store import InMemoryStore

T0 = dt.datetime(2026, 12, 7, 8, 59, 50, tzinfo=dt.UTC)


class Elapsed:
    def __init__(self) -> None:
        self.t = 500.0

    def __call__(self) -> float:
        return self.t


class FakeDatabase:
    """A TimeSource whose time the test sets; each query takes `rtt` seconds of the elapsed clock."""

    def __init__(self, elapsed: Elapsed, at: dt.datetime, rtt: float = 0.0) -> None:
        self.elapsed, self.at, self.rtt = elapsed, at, rtt
        self.reads = 0
        self.down = False

    async def database_time(self, elapsed):
        self.reads += 1
        if self.down:
            raise ConnectionRefusedError("the database is down")
        before = elapsed()
        self.elapsed.t += self.rtt
        after = elapsed()
        return self.at, (before + after) / 2


async def test_the_time_read_is_carried_forward_by_the_elapsed_clock_from_the_query_s_midpoint():
    elapsed = Elapsed()
    db = FakeDatabase(elapsed, T0, rtt=0.5)
    clock = await DatabaseClock.start(db, elapsed)
    assert isinstance(clock, RefreshedClock)
    assert clock.now() == T0 + dt.timedelta(seconds=0.25)  # half the round trip has passed since the read
    elapsed.t += 10
    assert clock.now() == T0 + dt.timedelta(seconds=10.25)
    assert clock.now().tzinfo is dt.UTC


async def test_a_refresh_follows_the_database_and_a_failed_one_keeps_the_last_reading():
    elapsed = Elapsed()
    db = FakeDatabase(elapsed, T0)
    clock = await DatabaseClock.start(db, elapsed)
    db.at = T0 + dt.timedelta(hours=1)  # the database server's clock was stepped
    await clock.refresh()
    assert clock.now() == T0 + dt.timedelta(hours=1)
    db.down = True
    elapsed.t += 30
    await clock.refresh()  # no exception: the tick goes on (and fails on the store itself)
    assert clock.now() == T0 + dt.timedelta(hours=1, seconds=30) and clock.age == 30


async def test_a_clock_that_never_read_the_database_refuses_to_guess():
    elapsed = Elapsed()
    db = FakeDatabase(elapsed, T0)
    db.down = True
    with pytest.raises(ConnectionRefusedError):
        await DatabaseClock.start(db, elapsed)
    with pytest.raises(RuntimeError, match="before the database's time was read"):
        DatabaseClock(db, elapsed).now()


async def test_every_tick_reads_the_database_s_time_before_deciding_what_is_due():
    """The process's own clocks stand still; only the database's time moves: the post goes out at 09:00 by it."""
    elapsed = Elapsed()
    db = FakeDatabase(elapsed, T0)
    clock = await DatabaseClock.start(db, elapsed)
    store = InMemoryStore()
    await store.open()
    platform = FakePlatform()
    service = bootstrap(store, make_bank(), clock, {"fake": platform}, rng=random.Random(1))
    scheduler = DailyScheduler(service, clock, elapsed=elapsed)
    await service.channels.configure(Actor("admin", True), REF)
    await scheduler.tick()
    assert platform.posted == [] and db.reads == 2
    db.at = T0 + dt.timedelta(seconds=15)  # 09:00:05 by the database
    await scheduler.tick()
    assert db.reads == 3 and len(platform.posted) == 1
    round_ = await store.latest_daily_round(REF)
    assert round_.opened_at == T0 + dt.timedelta(seconds=15)
    scheduler.shutdown()
    await service.close()
    await store.close()
