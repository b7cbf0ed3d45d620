"""Conversions between core values and database rows, shared by the stores."""

from __future__ import annotations

import datetime as dt

from bot.model import ChannelConfig, ChannelRef, Difficulty, Round, RoundKind

# the second to_ts formatted last and its text, replaced as one tuple (so no thread sees half an update)
_last_second: tuple[tuple[int, ...], str] = ((), "")


def to_ts(moment: dt.datetime) -> str:
    """A UTC timestamp as fixed-width ISO text, so text order is time order.

    Runs once per answer: the text up to the second is kept from the last call (answers of one batch
    arrive within the same second), so only the microseconds are formatted."""
    global _last_second
    if moment.tzinfo is not dt.UTC:
        if moment.tzinfo is None:
            raise ValueError("timestamps must be timezone-aware")
        moment = moment.astimezone(dt.UTC)
    second = (moment.year, moment.month, moment.day, moment.hour, moment.minute, moment.second)
    last = _last_second
    if second != last[0]:
        last = _last_second = (second, moment.replace(microsecond=0, tzinfo=None).isoformat())
    return f"{last[1]}.{moment.microsecond:06d}+00:00"


def from_ts(text: str | dt.datetime) -> dt.datetime:
    if isinstance(text, dt.datetime):
        return text.astimezone(dt.UTC)
    return dt.datetime.fromisoformat(text).astimezone(dt.UTC)


def parse_date(value: str | dt.date | None) -> dt.date | None:
    if value is None or isinstance(value, dt.date):
        return value
    return dt.date.fromisoformat(value)


def round_from_row(row) -> Round:
    (rid, kind, platform, space_id, channel_id, user_id, question_id, topic, local_date, opened_at,
     closes_at, revealed_at, message_id) = row
    return Round(
        id=int(rid),
        kind=RoundKind(kind),
        ref=ChannelRef(platform, space_id, channel_id),
        question_id=question_id,
        topic=topic,
        opened_at=from_ts(opened_at),
        local_date=parse_date(local_date),
        user_id=user_id,
        closes_at=from_ts(closes_at) if closes_at else None,
        revealed_at=from_ts(revealed_at) if revealed_at else None,
        message_id=message_id,
    )


def config_to_row(c: ChannelConfig, now: dt.datetime) -> tuple:
    return (
        c.ref.platform, c.ref.channel_id, c.ref.space_id, f"{c.post_time:%H:%M}", c.timezone,
        ",".join(str(d) for d in sorted(c.weekdays)), ",".join(sorted(c.topics)),
        ",".join(sorted(d.value for d in c.difficulties)), int(c.paused), int(c.reactions),
        int(c.answer_window.total_seconds()) if c.answer_window else None, int(c.speed_bonus), to_ts(now),
        int(c.ping_winners),
    )


def config_from_row(row) -> ChannelConfig:
    (platform, channel_id, space_id, post_time, timezone, weekdays, topics, difficulties, paused, reactions,
     window_s, speed_bonus, _updated, ping_winners) = tuple(row)
    hh, mm = (int(x) for x in post_time.split(":"))
    return ChannelConfig(
        ref=ChannelRef(platform, space_id, channel_id),
        post_time=dt.time(hh, mm),
        timezone=timezone,
        weekdays=frozenset(int(d) for d in weekdays.split(",") if d),
        topics=frozenset(t for t in topics.split(",") if t),
        difficulties=frozenset(Difficulty(d) for d in difficulties.split(",") if d),
        paused=bool(paused),
        reactions=bool(reactions),
        answer_window=dt.timedelta(seconds=window_s) if window_s else None,
        speed_bonus=bool(speed_bonus),
        ping_winners=bool(ping_winners),
    )
