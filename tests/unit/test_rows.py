"""Timestamps as stored: fixed-width ISO text in UTC, whatever the zone given and the call before."""

from __future__ import annotations

import datetime as dt
import random
from zoneinfo import ZoneInfo

import pytest

from bot.store.rows import from_ts, to_ts


def test_to_ts_is_isoformat_in_utc_with_microseconds_for_any_sequence_of_moments():
    rng = random.Random(7)
    base = dt.datetime(2026, 11, 30, 9, tzinfo=dt.UTC)
    moments = [base, base + dt.timedelta(microseconds=1), base - dt.timedelta(microseconds=1), base]
    moments += [base + dt.timedelta(microseconds=rng.randrange(-(10**12), 10**12)) for _ in range(2000)]
    moments += [base + dt.timedelta(seconds=s, microseconds=u) for s in range(3) for u in (0, 999_999, 5)]
    for moment in moments:
        text = to_ts(moment)
        assert text == moment.isoformat(timespec="microseconds"), moment
        assert len(text) == 32 and from_ts(text) == moment


def test_to_ts_converts_other_zones_and_refuses_naive_times():
    paris = dt.datetime(2026, 3, 29, 3, 30, 0, 250, tzinfo=ZoneInfo("Europe/Paris"))
    to_ts(dt.datetime(2026, 3, 29, 1, 30, tzinfo=dt.UTC))  # the same second, cached from UTC
    assert to_ts(paris) == "2026-03-29T01:30:00.000250+00:00"
    assert to_ts(dt.datetime(2026, 1, 1, 23, 59, 59, tzinfo=dt.timezone(dt.timedelta(hours=-2)))) == (
        "2026-01-02T01:59:59.000000+00:00"
    )
    with pytest.raises(ValueError):
        to_ts(dt.datetime(2026, 1, 1))
