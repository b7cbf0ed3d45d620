"""Discord sharding: which shard a guild is on, which shards this process runs, and which channels its
scheduler owns. Standard library only (the composition root asks it before discord.py is imported).

Discord assigns a guild to shard (guild_id >> 22) % shard_count. A process that runs shards S schedules
and posts only for guilds on S. Other platforms are not sharded: every process may schedule them, and
the store's (channel, local date) claim keeps each post to one.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.kernel.platform_defaults import check_shards
from bot.kernel.values import ChannelRef, SpaceFilter

__all__ = ["channel_owner", "check_shards", "discord_shard_of"]


def discord_shard_of(guild_id: int, shard_count: int) -> int:
    return (guild_id >> 22) % shard_count


def channel_owner(shard_count: int | None, shard_ids: tuple[int, ...]) -> Callable[[ChannelRef], bool]:
    """A predicate for DailyScheduler(owns=...): Discord channels by their guild's shard, the rest always.
    No shard_ids means every shard; ids outside the count are refused (StartupError). With shards it is a
    SpaceFilter, which the scheduler passes to the store's claims."""
    if not shard_count:
        return lambda ref: True
    mine = frozenset(check_shards(shard_count, shard_ids) or range(shard_count))
    return SpaceFilter(shard_count=shard_count, shard_ids=tuple(sorted(mine)))
