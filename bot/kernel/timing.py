"""When a channel's daily question is due: pure functions of (local time, weekdays, IANA zone) on zoneinfo.

Every function here is bounded (it looks at most a few weeks of local dates) and never loops on a DST
transition. A local time that does not exist on a day (the spring-forward gap) moves to the first valid
instant after the gap; a local time that happens twice (the fall-back hour) takes its first occurrence.
"""

from __future__ import annotations

import datetime as dt
import functools
from zoneinfo import ZoneInfo

from bot.kernel.values import ChannelConfig

_LOOK = 9  # local dates looked at from an instant: more than a week


def _zone(cfg_or_tz: ChannelConfig | str) -> ZoneInfo:
    return ZoneInfo(cfg_or_tz if isinstance(cfg_or_tz, str) else cfg_or_tz.timezone)


def resolve_local(day: dt.date, at: dt.time, tz: ZoneInfo) -> dt.datetime:
    """The UTC instant of wall time `at` on `day` in `tz`: the first occurrence of an ambiguous time
    (fold=0), the end of the gap for a time that does not exist."""
    return _resolve_wall(day, at.replace(tzinfo=None, fold=0), tz)


@functools.lru_cache(maxsize=4096)
def _resolve_wall(day: dt.date, at: dt.time, tz: ZoneInfo) -> dt.datetime:
    """resolve_local of a naive wall time, kept for the last few thousand (day, time, zone) asked: a
    fan-out asks the same few for every channel (a pure function of immutable values; zoneinfo's rules do
    not change while the process runs). Naive, so two aware times equal in UTC never share an entry."""
    first = dt.datetime.combine(day, at, tzinfo=tz)
    utc = first.astimezone(dt.UTC)
    back = utc.astimezone(tz)
    if back.replace(tzinfo=None) == first.replace(tzinfo=None):
        return utc  # exists (for an ambiguous time, fold=0 is the first occurrence)
    # Nonexistent: fold=0 reads the wall time with the offset before the gap (an instant after the gap),
    # fold=1 with the offset after it (an instant before the gap). The transition lies between them.
    lo = first.replace(fold=1).astimezone(dt.UTC)
    hi = utc
    if lo > hi:
        lo, hi = hi, lo
    after = hi.astimezone(tz).utcoffset()
    # smallest whole second with the after-gap offset: bounded binary search (gaps are hours at most)
    while (hi - lo) > dt.timedelta(seconds=1):
        mid = lo + (hi - lo) / 2
        mid = mid.replace(microsecond=0)
        if mid <= lo:
            break
        if mid.astimezone(tz).utcoffset() == after:
            hi = mid
        else:
            lo = mid
    return hi


def post_instant(cfg: ChannelConfig, local_date: dt.date) -> dt.datetime:
    """The instant (UTC) of the channel's post on a local date, whether or not that date is a weekday."""
    return resolve_local(local_date, cfg.post_time, _zone(cfg))


def _days_from(cfg: ChannelConfig, moment: dt.datetime, step: int) -> list[dt.date]:
    """Local dates from the day before (step 1) or after (step -1) the moment's local date, onwards."""
    center = moment.astimezone(_zone(cfg)).date()
    return [center + dt.timedelta(days=step * i) for i in range(-1, _LOOK)]


def next_post_after(cfg: ChannelConfig, after: dt.datetime) -> dt.datetime | None:
    """The first scheduled post strictly after `after` (aware), as a UTC instant; None without weekdays."""
    for day in _days_from(cfg, after, 1):
        if day.weekday() in cfg.weekdays:
            at = post_instant(cfg, day)
            if at > after:
                return at
    return None


def missed_posts(cfg: ChannelConfig, first: dt.datetime, through: dt.datetime, most: int = 1000) -> list[dt.datetime]:
    """The scheduled posts from `first` (itself one) to `through` included, in order: the posts of the days a
    bot that was down missed (at most `most` of them)."""
    found = [first]
    while len(found) < most:
        after = next_post_after(cfg, found[-1])
        if after is None or after > through:
            break
        found.append(after)
    return found


def last_post_at_or_before(cfg: ChannelConfig, now: dt.datetime) -> dt.datetime | None:
    """The most recent scheduled post that is not in the future (UTC); None without weekdays."""
    for day in _days_from(cfg, now, -1):
        if day.weekday() in cfg.weekdays:
            at = post_instant(cfg, day)
            if at <= now:
                return at
    return None


def next_post_on_later_date(cfg: ChannelConfig, local_date: dt.date) -> dt.datetime | None:
    """The channel's first scheduled post on a local date after `local_date` (UTC); None without weekdays."""
    for i in range(1, 8):
        day = local_date + dt.timedelta(days=i)
        if day.weekday() in cfg.weekdays:
            return post_instant(cfg, day)
    return None


def reveal_instant(cfg: ChannelConfig, local_date: dt.date, opened_at: dt.datetime) -> dt.datetime:
    """The promised reveal of a daily round posted at `opened_at` for `local_date`: the end of its answer
    window, or else the channel's next scheduled post on a later local date (a day later at worst)."""
    if cfg.answer_window:
        return opened_at + cfg.answer_window
    later = next_post_on_later_date(cfg, local_date)
    if later is None or later <= opened_at:
        later = opened_at + dt.timedelta(days=1)
    return later


def local_date_of(cfg: ChannelConfig, moment: dt.datetime) -> dt.date:
    return moment.astimezone(_zone(cfg)).date()


def local_text(moment: dt.datetime, tz: str) -> str:
    """A moment as the channel reads it: 'Tue 08 Dec 09:00'."""
    return f"{moment.astimezone(ZoneInfo(tz)):%a %d %b %H:%M}"
