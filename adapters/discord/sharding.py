"""Discord sharding: which shard a guild is on, which shards this process runs, and which channels its
scheduler owns. Standard library only (the composition root asks it before discord.py is imported).

Discord assigns a guild to shard (guild_id >> 22) % shard_count. A process that runs shards S schedules
and posts only for guilds on S. Other platforms are not sharded: every process may schedule them, and
the store's (channel, local date) claim keeps each post to one.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.kernel.errors import StartupError
from bot.kernel.values import ChannelRef, SpaceFilter


def discord_shard_of(guild_id: int, shard_count: int) -> int:
    return (guild_id >> 22) % shard_count


def check_shards(shard_count: int, shard_ids: tuple[int, ...], typed: str | None = None) -> list[int] | None:
    """The shard ids to connect (None: all of them); Discord closes the gateway on an id outside 0..count-1.
    `typed`: STUDYBOT_SHARD_IDS as written, for the error (default: the ids)."""
    if shard_count < 1:
        raise StartupError(
            f"STUDYBOT_SHARD_COUNT={shard_count} is not accepted: use a whole number of shards, 1 or more."
        )
    bad = sorted(i for i in shard_ids if not 0 <= i < shard_count)
    if bad:
        ids = typed or ",".join(map(str, shard_ids))
        raise StartupError(
            f"STUDYBOT_SHARD_IDS={ids} is not accepted: shard {bad[0]} is outside 0..{shard_count - 1} "
            f"(STUDYBOT_SHARD_COUNT={shard_count}); use shard numbers from 0 to {shard_count - 1}."
        )
    return sorted(set(shard_ids)) or None


def channel_owner(shard_count: int | None, shard_ids: tuple[int, ...]) -> Callable[[ChannelRef], bool]:
    """A predicate for DailyScheduler(owns=...): Discord channels by their guild's shard, the rest always.
    No shard_ids means every shard; ids outside the count are refused (StartupError). With shards it is a
    SpaceFilter, which the scheduler passes to the store's claims."""
    if not shard_count:
        return lambda ref: True
    mine = frozenset(check_shards(shard_count, shard_ids) or range(shard_count))
    return SpaceFilter(shard_count=shard_count, shard_ids=tuple(sorted(mine)))
