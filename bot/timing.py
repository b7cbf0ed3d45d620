"""When a channel's daily question is due: APScheduler cron triggers in the channel's IANA timezone."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

from apscheduler.triggers.cron import CronTrigger

from bot.model import ChannelConfig
from bot.parsing import DAY_NAMES


def daily_trigger(cfg: ChannelConfig) -> CronTrigger:
    """A cron trigger at the channel's local time on its weekdays; DST is handled by zoneinfo."""
    return CronTrigger(
        day_of_week=",".join(DAY_NAMES[d] for d in sorted(cfg.weekdays)),
        hour=cfg.post_time.hour,
        minute=cfg.post_time.minute,
        timezone=ZoneInfo(cfg.timezone),
    )


def next_post_after(cfg: ChannelConfig, after: dt.datetime) -> dt.datetime | None:
    """The first scheduled post strictly after `after` (aware), in the channel's timezone."""
    return daily_trigger(cfg).get_next_fire_time(None, after + dt.timedelta(microseconds=1))


def last_post_at_or_before(cfg: ChannelConfig, now: dt.datetime) -> dt.datetime | None:
    """The most recent scheduled post time that is not in the future (looks back up to 8 days)."""
    trigger = daily_trigger(cfg)
    candidate = trigger.get_next_fire_time(None, now - dt.timedelta(days=8))
    last = None
    while candidate is not None and candidate <= now:
        last = candidate
        candidate = trigger.get_next_fire_time(candidate, candidate + dt.timedelta(seconds=1))
    return last


def local_date_of(cfg: ChannelConfig, moment: dt.datetime) -> dt.date:
    return moment.astimezone(ZoneInfo(cfg.timezone)).date()
