"""A channel's saved settings and its next due post (bot.daily.store.ChannelStore, with the
kernel's ChannelReads): the in-memory part of bot.store.channels_sql."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

from bot.kernel.values import ChannelConfig, ChannelRef, SpaceFilter
from bot.store.rows import config_from_row, config_to_row
from tests.support.memory.tables import MemoryTables, utc


class MemoryChannels(MemoryTables):
    """Channels by (platform, channel id), as in SQLite: the space id plays no part in the key."""

    async def save_channel(self, config: ChannelConfig) -> None:
        t = await self._db()
        key = (config.ref.platform, config.ref.channel_id)
        # keep what a row keeps: post_time to the minute, whole-second windows (zero means none), ...
        t.channels[key] = config_from_row(config_to_row(config, dt.datetime.now(dt.UTC)))
        t.saves += 1
        t.saved[key] = t.saves

    async def get_channel(self, ref: ChannelRef) -> ChannelConfig | None:
        return (await self._db()).channels.get((ref.platform, ref.channel_id))

    async def list_channels(self, platform: str | None = None) -> list[ChannelConfig]:
        t = await self._db()
        return [t.channels[key] for key in sorted(t.channels) if platform is None or key[0] == platform]

    async def manager_role(self, platform: str, space_id: str) -> str | None:
        t = await self._db()
        mine = [k for k, c in t.channels.items() if (c.ref.platform, c.ref.space_id) == (platform, space_id)]
        roles = [(t.saved[k], t.channels[k].manager_role) for k in mine if t.channels[k].manager_role is not None]
        return max(roles)[1] if roles else None

    async def set_manager_role(self, platform: str, space_id: str, role_id: str | None) -> None:
        t = await self._db()
        for key, c in t.channels.items():
            if (c.ref.platform, c.ref.space_id) == (platform, space_id):
                t.channels[key] = replace(c, manager_role=role_id)

    async def space_timezone(self, platform: str, space_id: str) -> str | None:
        t = await self._db()
        mine = [key for key, c in t.channels.items() if c.ref.platform == platform and c.ref.space_id == space_id]
        return t.channels[max(mine, key=t.saved.__getitem__)].timezone if mine else None

    async def set_next_post(self, ref: ChannelRef, at: dt.datetime | None) -> None:
        t = await self._db()
        key = (ref.platform, ref.channel_id)
        if key not in t.channels:
            return
        t.claimed.pop(key, None)
        if at is None:
            t.next_post.pop(key, None)
        else:
            t.next_post[key] = utc(at)

    async def get_next_post(self, ref: ChannelRef) -> dt.datetime | None:
        return (await self._db()).next_post.get((ref.platform, ref.channel_id))

    async def unscheduled_channels(self, spaces: SpaceFilter | None = None) -> list[ChannelConfig]:
        t = await self._db()
        return [
            t.channels[k]
            for k in sorted(t.channels)
            if not t.channels[k].paused and k not in t.next_post and (spaces is None or spaces(t.channels[k].ref))
        ]
