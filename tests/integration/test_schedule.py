"""The daily scheduler with an injected clock: DST keeps local time, downtime catch-up posts once within
the grace and skips after it, and local days roll over per timezone for streaks. No real sleeping."""

from __future__ import annotations

import datetime as dt
import logging
import random
from zoneinfo import ZoneInfo

import pytest

from bot.model import Actor, ChannelConfig, ChannelRef
from bot.quiz import QuizService
from bot.schedule import DailyScheduler, daily_job_id
from bot.settings import ConfigChange
from bot.store.sqlite import SqliteStore
from bot.timing import daily_trigger, last_post_at_or_before, next_post_after
from tests.support.fakes import REF, FakePlatform, FixedClock, make_bank

ADMIN = Actor("admin", True)


def cfg(tz: str, hh: int = 9, mm: int = 0, days: frozenset[int] = frozenset(range(7))) -> ChannelConfig:
    return ChannelConfig(ref=REF, post_time=dt.time(hh, mm), timezone=tz, weekdays=days)


def fires(c: ChannelConfig, start: dt.datetime, n: int) -> list[dt.datetime]:
    out, t = [], start
    for _ in range(n):
        t = next_post_after(c, t)
        out.append(t)
    return out


@pytest.mark.parametrize(
    ("tz", "start", "utc_hours"),
    [
        # from a Friday: Sat, Sun, Mon, Tue. Berlin leaves summer time on Sun 25 Oct 2026 (07:00 -> 08:00 UTC)
        ("Europe/Berlin", dt.datetime(2026, 10, 23, 12, tzinfo=dt.UTC), [7, 8, 8, 8]),
        # ... and enters it on Sun 29 Mar 2026
        ("Europe/Berlin", dt.datetime(2026, 3, 27, 12, tzinfo=dt.UTC), [8, 7, 7, 7]),
        # America/New_York leaves it on Sun 1 Nov 2026 (13:00 UTC -> 14:00 UTC) ...
        ("America/New_York", dt.datetime(2026, 10, 30, 18, tzinfo=dt.UTC), [13, 14, 14, 14]),
        # ... and enters it on Sun 8 Mar 2026
        ("America/New_York", dt.datetime(2026, 3, 6, 18, tzinfo=dt.UTC), [14, 13, 13, 13]),
    ],
)
def test_dst_weeks_keep_nine_local(tz, start, utc_hours):
    c = cfg(tz)
    got = fires(c, start, 4)
    assert [t.astimezone(ZoneInfo(tz)).strftime("%H:%M") for t in got] == ["09:00"] * 4
    assert [t.astimezone(dt.UTC).hour for t in got] == utc_hours
    days = [t.astimezone(ZoneInfo(tz)).date() for t in got]
    assert all((b - a).days == 1 for a, b in zip(days, days[1:], strict=False))


def test_weekdays_only_skip_the_weekend():
    c = cfg("Europe/Berlin", days=frozenset(range(5)))
    got = fires(c, dt.datetime(2026, 11, 26, 12, tzinfo=dt.UTC), 3)  # Thursday afternoon
    assert [t.strftime("%a %d") for t in got] == ["Fri 27", "Mon 30", "Tue 01"]


def test_a_time_inside_the_spring_gap_still_posts_that_day():
    # 02:30 does not exist in Berlin on 29 Mar 2026; the post must not be lost for that day
    got = fires(cfg("Europe/Berlin", 2, 30), dt.datetime(2026, 3, 28, 12, tzinfo=dt.UTC), 2)
    assert [t.astimezone(ZoneInfo("Europe/Berlin")).date().day for t in got] == [29, 30]


def test_last_post_at_or_before():
    c = cfg("Asia/Tokyo")
    now = dt.datetime(2026, 11, 30, 0, 30, tzinfo=dt.UTC)  # 09:30 in Tokyo
    assert last_post_at_or_before(c, now) == dt.datetime(2026, 11, 30, 9, tzinfo=ZoneInfo("Asia/Tokyo"))
    assert last_post_at_or_before(c, dt.datetime(2026, 11, 29, 23, 59, tzinfo=dt.UTC)) == dt.datetime(
        2026, 11, 29, 9, tzinfo=ZoneInfo("Asia/Tokyo")
    )


@pytest.fixture
async def env(tmp_path):
    store = SqliteStore(tmp_path / "s.db")
    await store.open()
    clock = FixedClock(dt.datetime(2026, 11, 30, 7, 0, tzinfo=dt.UTC))
    platform = FakePlatform()
    service = QuizService(store, make_bank(), clock, {"fake": platform}, rng=random.Random(1))
    scheduler = DailyScheduler(service, clock, misfire_grace=dt.timedelta(hours=1))
    service.on_config_change(scheduler.sync_channel)  # as the composition root (bot/cli.py) wires it
    service.on_round_opened(scheduler.plan_reveal)
    yield service, store, clock, platform, scheduler
    scheduler.shutdown()
    await service.close()
    await store.close()


async def test_jobs_are_rebuilt_from_the_store_and_follow_config_changes(env):
    service, store, clock, platform, scheduler = env
    await store.save_channel(cfg("Europe/Berlin"))
    paused = ChannelConfig(ref=ChannelRef("fake", "space-1", "quiet"), paused=True)
    await store.save_channel(paused)
    clock.set(dt.datetime(2026, 11, 30, 6, 0, tzinfo=dt.UTC))  # 07:00 Berlin: nothing due yet
    await scheduler.start()
    job = scheduler.scheduler.get_job(daily_job_id(REF))
    assert job is not None and scheduler.scheduler.get_job(daily_job_id(paused.ref)) is None
    assert job.misfire_grace_time == 3600 and job.coalesce is True
    assert repr(job.trigger) == repr(daily_trigger(cfg("Europe/Berlin")))
    assert "timezone='Europe/Berlin'" in repr(job.trigger)
    assert platform.posted == []
    await service.configure(ADMIN, REF, ConfigChange.of(post_time=dt.time(17, 15), timezone="Asia/Tokyo"))
    job = scheduler.scheduler.get_job(daily_job_id(REF))
    assert repr(job.trigger) == repr(daily_trigger(cfg("Asia/Tokyo", 17, 15)))
    await service.configure(ADMIN, REF, ConfigChange.of(paused=True))
    assert scheduler.scheduler.get_job(daily_job_id(REF)) is None


async def test_a_post_missed_by_downtime_goes_out_late_within_the_grace_and_only_once(env):
    service, store, clock, platform, scheduler = env
    await store.save_channel(cfg("Europe/Berlin"))
    clock.set(dt.datetime(2026, 11, 30, 8, 40, tzinfo=dt.UTC))  # 09:40 Berlin: 40 minutes late
    posted = await scheduler.catch_up()
    assert [r.local_date for r in posted] == [dt.date(2026, 11, 30)] and len(platform.posted) == 1
    # a second start (restart, or a second process) finds the slot taken
    assert await scheduler.catch_up() == []
    second = DailyScheduler(service, clock, misfire_grace=dt.timedelta(hours=1))
    assert await second.catch_up() == []
    assert await scheduler.fire(REF) is None  # the regular job firing late as well
    assert len(platform.posted) == 1


async def test_a_post_missed_by_more_than_the_grace_is_skipped_and_logged(env, caplog):
    service, store, clock, platform, scheduler = env
    await store.save_channel(cfg("Europe/Berlin"))
    clock.set(dt.datetime(2026, 11, 30, 9, 30, tzinfo=dt.UTC))  # 10:30 Berlin: 90 minutes late
    with caplog.at_level(logging.WARNING, logger="bot.schedule"):
        assert await scheduler.catch_up() == []
    assert platform.posted == []
    assert any("skipped the daily post" in r.getMessage() for r in caplog.records)


async def test_rounds_whose_window_passed_during_downtime_are_revealed_at_start(env):
    service, store, clock, platform, scheduler = env
    await store.save_channel(ChannelConfig(ref=REF, timezone="UTC", answer_window=dt.timedelta(hours=2)))
    clock.set(dt.datetime(2026, 11, 30, 9, 0, tzinfo=dt.UTC))
    round_ = await service.post_scheduled(REF)
    clock.advance(hours=3)
    await scheduler.catch_up()
    assert [c.round_id for _, c in platform.reveals] == [round_.id]


async def test_an_open_window_gets_a_reveal_job(env):
    service, store, clock, platform, scheduler = env
    await store.save_channel(ChannelConfig(ref=REF, timezone="UTC", answer_window=dt.timedelta(hours=2)))
    clock.set(dt.datetime(2026, 11, 30, 9, 0, tzinfo=dt.UTC))
    scheduler.scheduler.start(paused=True)
    round_ = await service.post_scheduled(REF)
    job = scheduler.scheduler.get_job(f"reveal:{round_.id}")
    assert job is not None and job.trigger.run_date == round_.closes_at


@pytest.mark.parametrize(
    ("tz", "utc_post"),
    [("Asia/Tokyo", dt.time(0, 0)), ("Pacific/Kiritimati", dt.time(19, 0))],  # 09:00 local in UTC
)
async def test_local_days_roll_over_for_streaks(env, tz, utc_post):
    service, store, clock, platform, scheduler = env
    await service.configure(ADMIN, REF, ConfigChange.of(timezone=tz))
    # Kiritimati (UTC+14) starts its 09:00 the previous UTC evening
    first_utc = dt.datetime.combine(dt.date(2026, 11, 30), utc_post, tzinfo=dt.UTC)
    if utc_post.hour >= 14:
        first_utc -= dt.timedelta(days=1)
    dates = []
    for day in range(4):
        clock.set(first_utc + dt.timedelta(days=day, minutes=1))
        round_ = await scheduler.fire(REF)
        assert round_ is not None
        dates.append(round_.local_date)
        right = service.bank.get(round_.question_id).answer
        clock.advance(hours=12)  # answer late in the local day: still that day's round
        await service.submit_answer(round_.id, "ada", right)
    await service.reveal_round(round_.id)
    assert dates == [dt.date(2026, 11, 30) + dt.timedelta(days=i) for i in range(4)]
    stats = await service.stats("fake", "space-1", "ada")
    assert stats.current_streak == 4 and stats.points == 10 + 11 + 12 + 13
