"""The pure schedule arithmetic of bot.timing: DST gaps move to the end of the gap, repeated hours take the
first occurrence, and nothing loops (issue 10, observation 3). Every day of whole transition months."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from bot.kernel.timing import (
    last_post_at_or_before,
    next_post_after,
    next_post_on_later_date,
    post_instant,
    resolve_local,
    reveal_instant,
)
from bot.kernel.values import ChannelConfig
from tests.support.fakes import REF

BERLIN, NEW_YORK = ZoneInfo("Europe/Berlin"), ZoneInfo("America/New_York")


def cfg(tz: str, hh: int, mm: int, days: frozenset[int] = frozenset(range(7))) -> ChannelConfig:
    return ChannelConfig(ref=REF, post_time=dt.time(hh, mm), timezone=tz, weekdays=days)


def test_the_reported_fall_back_freeze_returns_the_first_occurrence():
    c = cfg("Europe/Berlin", 2, 30)
    now = dt.datetime(2026, 10, 25, 3, 30, tzinfo=BERLIN)
    last = last_post_at_or_before(c, now)
    # 02:30 happens twice that night; the first one is 02:30 CEST = 00:30 UTC
    assert last == dt.datetime(2026, 10, 25, 0, 30, tzinfo=dt.UTC)
    assert next_post_after(c, now) == dt.datetime(2026, 10, 26, 1, 30, tzinfo=dt.UTC)
    assert next_post_after(c, last) == dt.datetime(2026, 10, 26, 1, 30, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("day", "at", "tz", "expected_utc"),
    [
        (dt.date(2026, 3, 29), dt.time(2, 30), BERLIN, dt.datetime(2026, 3, 29, 1, 0)),  # gap: 03:00 CEST
        (dt.date(2026, 3, 29), dt.time(2, 0), BERLIN, dt.datetime(2026, 3, 29, 1, 0)),
        (dt.date(2026, 10, 25), dt.time(2, 30), BERLIN, dt.datetime(2026, 10, 25, 0, 30)),  # first 02:30
        (dt.date(2026, 3, 8), dt.time(2, 30), NEW_YORK, dt.datetime(2026, 3, 8, 7, 0)),  # gap: 03:00 EDT
        (dt.date(2026, 11, 1), dt.time(1, 30), NEW_YORK, dt.datetime(2026, 11, 1, 5, 30)),  # first 01:30 EDT
        (dt.date(2026, 10, 4), dt.time(2, 15), ZoneInfo("Australia/Lord_Howe"), dt.datetime(2026, 10, 3, 15, 30)),
        (dt.date(2026, 12, 1), dt.time(9, 0), ZoneInfo("Asia/Tokyo"), dt.datetime(2026, 12, 1, 0, 0)),
    ],
)
def test_resolve_local(day, at, tz, expected_utc):
    assert resolve_local(day, at, tz) == expected_utc.replace(tzinfo=dt.UTC)


MONTHS = [
    # (zone, post time inside the shifted hour, first day, days, the transition day)
    ("Europe/Berlin", (2, 30), dt.date(2026, 10, 1), 31, dt.date(2026, 10, 25)),
    ("Europe/Berlin", (2, 30), dt.date(2026, 3, 1), 31, dt.date(2026, 3, 29)),
    ("Europe/Berlin", (2, 0), dt.date(2026, 3, 1), 31, dt.date(2026, 3, 29)),
    ("America/New_York", (1, 30), dt.date(2026, 10, 1), 45, dt.date(2026, 11, 1)),  # falls back 1 Nov
    ("America/New_York", (2, 30), dt.date(2026, 3, 1), 31, dt.date(2026, 3, 8)),
    ("America/New_York", (1, 30), dt.date(2026, 3, 1), 31, None),  # 01:30 exists every March day
]


@pytest.mark.parametrize(("tz", "hhmm", "first", "days", "shift"), MONTHS)
def test_a_whole_transition_month_posts_once_a_day_in_order(tz, hhmm, first, days, shift):
    c = cfg(tz, *hhmm)
    zone = ZoneInfo(tz)
    start = dt.datetime.combine(first, dt.time(0, 0), tzinfo=zone) - dt.timedelta(hours=1)
    posts = []
    t = start
    for _ in range(days):
        t = next_post_after(c, t)
        posts.append(t)
    local = [p.astimezone(zone) for p in posts]
    assert [d.date() for d in local] == [first + dt.timedelta(days=i) for i in range(days)]
    for p, d in zip(posts, local, strict=True):
        assert p.tzinfo is dt.UTC
        if d.date() == shift and hhmm == (2, 30) and first.month == 3:
            assert (d.hour, d.minute) == (3, 0)  # the gap's end
        elif d.date() == shift and hhmm == (2, 0) and first.month == 3:
            assert (d.hour, d.minute) == (3, 0)
        else:
            assert (d.hour, d.minute) == hhmm
            if d.date() == shift:
                assert d.fold == 0 and p == resolve_local(d.date(), dt.time(*hhmm), zone)
                # the first of the two occurrences: the later one is an hour after it
                assert (
                    dt.datetime.combine(d.date(), dt.time(*hhmm), tzinfo=zone).replace(fold=1).astimezone(dt.UTC) - p
                ) == dt.timedelta(hours=1)
    assert all(b > a for a, b in zip(posts, posts[1:], strict=False))
    # every half hour of the month: the last post and the next post bracket the moment, and agree
    moment = posts[0]
    end = posts[-1]
    while moment < end:
        last, nxt = last_post_at_or_before(c, moment), next_post_after(c, moment)
        assert last is not None and nxt is not None
        assert last <= moment < nxt and last in posts and nxt in posts
        assert posts.index(nxt) == posts.index(last) + 1
        moment += dt.timedelta(minutes=30)


def test_weekdays_only_and_later_dates():
    c = cfg("Europe/Berlin", 9, 0, frozenset(range(5)))
    fri = dt.date(2026, 11, 27)
    assert next_post_on_later_date(c, fri) == dt.datetime(2026, 11, 30, 8, 0, tzinfo=dt.UTC)
    assert post_instant(c, dt.date(2026, 11, 28)) == dt.datetime(2026, 11, 28, 8, 0, tzinfo=dt.UTC)  # a Saturday
    assert next_post_after(cfg("UTC", 9, 0, frozenset()), dt.datetime(2026, 1, 1, tzinfo=dt.UTC)) is None


def test_the_promised_reveal_is_the_next_post_on_a_later_local_date():
    c = cfg("UTC", 9, 0)
    early = dt.datetime(2026, 12, 8, 8, 6, tzinfo=dt.UTC)  # posted at 08:06, before the day's 09:00
    assert reveal_instant(c, dt.date(2026, 12, 8), early) == dt.datetime(2026, 12, 9, 9, 0, tzinfo=dt.UTC)
    windowed = ChannelConfig(ref=REF, answer_window=dt.timedelta(hours=2))
    assert reveal_instant(windowed, dt.date(2026, 12, 8), early) == early + dt.timedelta(hours=2)


def test_resolved_instants_are_kept_per_wall_time_never_per_utc_time():
    # 09:00 at UTC+1 and 08:00 at UTC are the same time of day in UTC (equal and hashed alike as aware
    # times), but their wall times differ: each must resolve its own
    day = dt.date(2026, 12, 1)
    nine = dt.time(9, 0, tzinfo=dt.timezone(dt.timedelta(hours=1)))
    eight = dt.time(8, 0, tzinfo=dt.UTC)
    assert nine == eight and hash(nine) == hash(eight)
    assert resolve_local(day, nine, BERLIN) == dt.datetime(2026, 12, 1, 8, 0, tzinfo=dt.UTC)
    assert resolve_local(day, eight, BERLIN) == dt.datetime(2026, 12, 1, 7, 0, tzinfo=dt.UTC)
    # a time in the spring gap, asked twice, moves to the gap's end both times
    gap = dt.date(2026, 3, 29)
    for _ in range(2):
        assert resolve_local(gap, dt.time(2, 30), BERLIN) == dt.datetime(2026, 3, 29, 1, 0, tzinfo=dt.UTC)
