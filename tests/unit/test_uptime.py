"""A process's heartbeat (bot.daily.uptime): one running span while it beats, a new one after a gap."""

from __future__ import annotations

import datetime as dt
import logging
import random

from bot.app.bootstrap import bootstrap
from bot.app.scheduler import DailyScheduler
from bot.daily.uptime import RUNNING_GAP, RUNNING_KEPT
from tests.support.fakes import FakePlatform, FixedClock, make_bank
from tests.support.memory_store import InMemoryStore

T0 = dt.datetime(2026, 12, 7, 8, 0, tzinfo=dt.UTC)


class Elapsed:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


class Flaky(InMemoryStore):
    """The fake store, unreachable while `down`."""

    down = False

    async def note_running(self, *args, **kwargs):
        if self.down:
            raise ConnectionResetError("the store is unreachable")
        return await super().note_running(*args, **kwargs)


async def make():
    store = Flaky()
    await store.open()
    clock, elapsed = FixedClock(T0), Elapsed()
    service = bootstrap(store, make_bank(), clock, {"fake": FakePlatform()}, rng=random.Random(1))
    return store, clock, elapsed, DailyScheduler(service, clock, elapsed=elapsed)


def later(clock: FixedClock, elapsed: Elapsed, seconds: float) -> None:
    clock.advance(seconds=seconds)
    elapsed.t += seconds


async def test_a_short_store_outage_keeps_the_span_and_is_logged_once(caplog):
    store, clock, elapsed, scheduler = await make()
    await scheduler.tick()
    span = scheduler.heartbeat.span
    store.down = True
    with caplog.at_level(logging.WARNING, logger="bot.app.scheduler"):
        for _ in range(4):  # a minute of failed beats
            later(clock, elapsed, 15)
            await scheduler.tick()
    assert [r.getMessage() for r in caplog.records if "running" in r.getMessage()] == [
        "could not record that this process is running (ConnectionResetError)"
    ]
    store.down = False
    later(clock, elapsed, 15)
    await scheduler.tick()
    assert scheduler.heartbeat.span == span
    assert await store.running_at("fake", T0 + dt.timedelta(seconds=30))  # the outage is inside the span


async def test_an_outage_longer_than_the_gap_begins_a_new_span_and_old_spans_are_forgotten():
    store, clock, elapsed, scheduler = await make()
    await scheduler.tick()
    first = scheduler.heartbeat.span
    store.down = True
    gap = RUNNING_GAP.total_seconds()
    later(clock, elapsed, gap / 2)
    await scheduler.tick()
    later(clock, elapsed, gap)
    store.down = False
    await scheduler.tick()
    assert scheduler.heartbeat.span != first
    assert not await store.running_at("fake", T0 + dt.timedelta(seconds=gap))  # not recorded as running then
    assert await store.running_at("fake", T0)  # the first span is kept ...
    later(clock, elapsed, (RUNNING_KEPT + RUNNING_GAP).total_seconds())
    await scheduler.tick()  # ... until a span begins that long after it was last seen
    assert not await store.running_at("fake", T0)
