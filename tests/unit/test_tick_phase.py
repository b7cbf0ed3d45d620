"""The tick's phase (bot.app.scheduler.until_next_beat): every process ticks on the clock's whole multiples of
the interval, so with the default 15 s a tick starts at each whole minute, when daily questions are due."""

from __future__ import annotations

import datetime as dt
import random
from pathlib import Path

import pytest

from bot.app.bootstrap import bootstrap
from bot.app.scheduler import TICK, TICK_JOB_ID, DailyScheduler, until_next_beat
from bot.store.sqlite import SqliteStore
from tests.support.fakes import FakePlatform, FixedClock, make_bank

NINE = dt.datetime(2026, 12, 8, 9, 0, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("now", "tick", "wait"),
    [
        (NINE - dt.timedelta(seconds=10), TICK, 10.0),  # started 08:59:50: the next tick at 09:00:00
        (NINE + dt.timedelta(seconds=0.25), TICK, 14.75),
        (NINE + dt.timedelta(seconds=44), TICK, 1.0),
        (NINE, TICK, 15.0),  # on a beat: the next one (the start's own tick has just run)
        (NINE + dt.timedelta(seconds=59), dt.timedelta(seconds=60), 1.0),
        (NINE + dt.timedelta(milliseconds=300), dt.timedelta(seconds=1), 0.7),
    ],
)
def test_the_next_beat_is_the_next_whole_multiple_of_the_interval(
    now: dt.datetime, tick: dt.timedelta, wait: float
) -> None:
    assert until_next_beat(now, tick).total_seconds() == pytest.approx(wait)


@pytest.mark.parametrize("zone", ["Europe/Berlin", "America/New_York", "Asia/Kolkata"])
def test_the_beat_is_the_same_instant_in_any_timezone(zone: str) -> None:
    from zoneinfo import ZoneInfo

    now = NINE - dt.timedelta(seconds=7)
    assert until_next_beat(now.astimezone(ZoneInfo(zone)), TICK) == until_next_beat(now, TICK)


async def test_the_interval_job_first_runs_on_the_clock_s_next_beat(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "bot.db")
    await store.open()
    clock = FixedClock(NINE - dt.timedelta(seconds=6))  # the process starts at 08:59:54 by its clock
    service = bootstrap(store, make_bank(), clock, {"fake": FakePlatform()}, rng=random.Random(1))
    scheduler = DailyScheduler(service, clock)
    try:
        before = dt.datetime.now(dt.UTC)
        await scheduler.start()
        after = dt.datetime.now(dt.UTC)
        job = scheduler.scheduler.get_job(TICK_JOB_ID)
        assert job is not None
        # 6 s after the start by the host's time: 09:00:00 by the clock (not one whole interval later)
        assert before + dt.timedelta(seconds=6) <= job.next_run_time <= after + dt.timedelta(seconds=6)
    finally:
        await scheduler.stop()
        await service.close()
        await store.close()


async def test_a_clock_stepped_back_does_not_hold_the_tick_back(tmp_path: Path, caplog) -> None:
    """APScheduler sets the next tick an interval after the last one by the host's clock, so a clock stepped
    back an hour would leave the next tick an hour away. The scheduler moves it back to the next beat, once,
    and says so; a job an interval away (the usual case) is left alone."""
    store = SqliteStore(tmp_path / "bot.db")
    await store.open()
    clock = FixedClock(NINE - dt.timedelta(seconds=6))
    service = bootstrap(store, make_bank(), clock, {"fake": FakePlatform()}, rng=random.Random(1))
    scheduler = DailyScheduler(service, clock)
    try:
        await scheduler.start()
        job = scheduler.scheduler.get_job(TICK_JOB_ID)
        assert job is not None
        usual = job.next_run_time
        assert scheduler.rearm_after_step_back() is False
        assert scheduler.scheduler.get_job(TICK_JOB_ID).next_run_time == usual
        # the state a tick leaves when the host's clock then steps back an hour: its next run an hour ahead
        scheduler.scheduler.modify_job(TICK_JOB_ID, next_run_time=dt.datetime.now(dt.UTC) + dt.timedelta(hours=1))
        before = dt.datetime.now(dt.UTC)
        with caplog.at_level("WARNING", logger="bot.app.scheduler"):
            assert scheduler.rearm_after_step_back() is True
        after = dt.datetime.now(dt.UTC)
        moved = scheduler.scheduler.get_job(TICK_JOB_ID).next_run_time
        # the clock reads 08:59:54: the next beat is 09:00:00, 6 s on by the host's clock
        assert before + dt.timedelta(seconds=6) <= moved <= after + dt.timedelta(seconds=6)
        assert len([r for r in caplog.records if "clock stepped back" in r.getMessage()]) == 1
        assert scheduler.rearm_after_step_back() is False  # once: the job is an interval away again
    finally:
        await scheduler.stop()
        await service.close()
        await store.close()
    assert scheduler.rearm_after_step_back() is False  # a stopped scheduler is left alone
