"""Channels in SQL written once for both engines."""

from __future__ import annotations

import datetime as dt

from bot.kernel.values import (
    ChannelConfig,
    ChannelRef,
    SpaceFilter,
)
from bot.store.base import SqlBase
from bot.store.rows import (
    CHANNEL_UPSERT_SQL,
    config_from_row,
    config_to_row,
    from_ts,
)


class ChannelSql(SqlBase):
    """Channels' settings and their next due post."""

    async def save_channel(self, config: ChannelConfig) -> None:
        row = config_to_row(config, dt.datetime.now(dt.UTC), native=self.native_values)
        await self._atomic(CHANNEL_UPSERT_SQL, row)

    async def get_channel(self, ref: ChannelRef) -> ChannelConfig | None:
        row = await self._first(
            f"SELECT {self.channel_columns} FROM channels WHERE platform = ? AND channel_id = ?",
            (ref.platform, ref.channel_id),
        )
        return config_from_row(row) if row else None

    async def list_channels(self, platform: str | None = None) -> list[ChannelConfig]:
        if platform is None:
            rows = await self._read(f"SELECT {self.channel_columns} FROM channels ORDER BY platform, channel_id")
        else:
            rows = await self._read(
                f"SELECT {self.channel_columns} FROM channels WHERE platform = ? ORDER BY channel_id", (platform,)
            )
        return [config_from_row(r) for r in rows]

    async def manager_role(self, platform: str, space_id: str) -> str | None:
        row = await self._first(
            "SELECT manager_role FROM channels WHERE platform = ? AND space_id = ? AND manager_role IS NOT NULL "
            "ORDER BY updated_at DESC LIMIT 1",
            (platform, space_id),
        )
        return str(row[0]) if row else None

    async def set_manager_role(self, platform: str, space_id: str, role_id: str | None) -> None:
        await self._atomic(
            "UPDATE channels SET manager_role = ? WHERE platform = ? AND space_id = ?", (role_id, platform, space_id)
        )

    async def space_timezone(self, platform: str, space_id: str) -> str | None:
        row = await self._first(
            "SELECT timezone FROM channels WHERE platform = ? AND space_id = ? ORDER BY updated_at DESC LIMIT 1",
            (platform, space_id),
        )
        return row[0] if row else None

    async def unscheduled_channels(self, spaces: SpaceFilter | None = None) -> list[ChannelConfig]:
        where, params = self._space_filter(spaces, 1)
        rows = await self._read(
            f"SELECT {self.channel_columns} FROM channels WHERE NOT paused AND next_post_at IS NULL{where} "
            "ORDER BY platform, channel_id",
            params,
        )
        return [config_from_row(r) for r in rows]

    async def set_next_post(self, ref: ChannelRef, at: dt.datetime | None) -> None:
        await self._atomic(
            "UPDATE channels SET next_post_at = ?, claimed_until = NULL WHERE platform = ? AND channel_id = ?",
            (self._maybe_ts(at), ref.platform, ref.channel_id),
        )

    async def get_next_post(self, ref: ChannelRef) -> dt.datetime | None:
        row = await self._first(
            "SELECT next_post_at FROM channels WHERE platform = ? AND channel_id = ?", (ref.platform, ref.channel_id)
        )
        return from_ts(row[0]) if row and row[0] else None
