"""Which channels a process schedules when Discord guilds are split across processes (shards).

Discord assigns a guild to shard (guild_id >> 22) % shard_count. A process that runs shards S schedules
and posts only for guilds on S. Other platforms are not sharded: every process may schedule them, and
the store's (channel, local date) claim keeps each post to one.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.model import ChannelRef, SpaceFilter


def discord_shard_of(guild_id: int, shard_count: int) -> int:
    return (guild_id >> 22) % shard_count


def parse_shard_ids(text: str | None, shard_count: int) -> tuple[int, ...]:
    """'0,1' or '0-3'; empty means every shard. Raises ValueError naming what is wrong."""
    if shard_count < 1:
        raise ValueError(f"STUDYBOT_SHARD_COUNT must be at least 1, not {shard_count}")
    if not text or not text.strip():
        return tuple(range(shard_count))
    ids: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        lo, dash, hi = part.partition("-")
        try:
            span = range(int(lo), int(hi) + 1) if dash else range(int(part), int(part) + 1)
        except ValueError:
            raise ValueError(f"STUDYBOT_SHARD_IDS: {part!r} is not a shard number or range like 0-3") from None
        ids.update(span)
    bad = sorted(i for i in ids if not 0 <= i < shard_count)
    if bad:
        raise ValueError(f"STUDYBOT_SHARD_IDS: shard {bad[0]} is outside 0..{shard_count - 1}")
    return tuple(sorted(ids))


def channel_owner(shard_count: int | None, shard_ids: tuple[int, ...]) -> Callable[[ChannelRef], bool]:
    """A predicate for DailyScheduler(owns=...): Discord channels by their guild's shard, the rest always.
    With shards it is a SpaceFilter, which the scheduler passes to the store's claims."""
    if not shard_count:
        return lambda ref: True
    return SpaceFilter(shard_count=shard_count, shard_ids=tuple(sorted(frozenset(shard_ids))))
