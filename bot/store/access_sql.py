"""Dashboard access in SQL written once for both engines: one-time sign-in links, sign-in attempts, and the
spaces the bot serves."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from bot.access.values import LinkGrant
from bot.kernel.values import ChannelConfig
from bot.store.base import SqlBase
from bot.store.rows import config_from_row

KEEP = dt.timedelta(days=1)  # ended links and old attempt windows are dropped after this


class AccessSql(SqlBase):
    """Links are redeemed by one conditional UPDATE (used once, before they expire); attempts by one upsert."""

    async def save_login_link(
        self, token_hash: str, grant: LinkGrant, now: dt.datetime, expires_at: dt.datetime
    ) -> None:
        await self._atomic_steps(
            [
                ("DELETE FROM login_links WHERE expires_at < ?", (self._ts(now - KEEP),)),
                (
                    "INSERT INTO login_links (token_hash, platform, space_id, user_id, is_admin, created_at, "
                    "expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        token_hash,
                        grant.platform,
                        grant.space_id,
                        grant.user_id,
                        grant.is_admin,
                        self._ts(now),
                        self._ts(expires_at),
                    ),
                ),
            ]
        )

    async def redeem_login_link(self, token_hash: str, now: dt.datetime) -> LinkGrant | None:
        rows = await self._atomic(
            "UPDATE login_links SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? "
            "RETURNING platform, space_id, user_id, is_admin",
            (self._ts(now), token_hash, self._ts(now)),
        )
        if not rows:
            return None
        platform, space_id, user_id, is_admin = rows[0]
        return LinkGrant(str(platform), str(space_id), str(user_id), bool(is_admin))

    async def count_login_attempt(self, bucket: str, window_start: dt.datetime) -> int:
        rows = await self._atomic_steps(
            [
                ("DELETE FROM login_attempts WHERE window_start < ?", (self._ts(window_start - KEEP),)),
                (
                    "INSERT INTO login_attempts (bucket, window_start, attempts) VALUES (?, ?, 1) "
                    "ON CONFLICT (bucket, window_start) DO UPDATE SET attempts = login_attempts.attempts + 1 "
                    "RETURNING attempts",
                    (bucket, self._ts(window_start)),
                ),
            ]
        )
        return int(rows[0][0])

    async def served_spaces(self, platform: str, space_ids: Sequence[str]) -> set[str]:
        if not space_ids:
            return set()
        marks = ", ".join("?" for _ in space_ids)
        rows = await self._read(
            f"SELECT DISTINCT space_id FROM channels WHERE platform = ? AND space_id IN ({marks})",
            (platform, *space_ids),
        )
        return {str(r[0]) for r in rows}

    async def space_channels(self, platform: str, space_id: str) -> list[ChannelConfig]:
        # sorted here, not by ORDER BY channel_id: for that order SQLite's planner read every channel of the
        # platform instead of the space's own (channels_space); ids compare by code point, as by byte in UTF-8
        rows = await self._read(
            f"SELECT {self.channel_columns} FROM channels WHERE platform = ? AND space_id = ?", (platform, space_id)
        )
        return sorted(map(config_from_row, rows), key=lambda c: c.ref.channel_id)
