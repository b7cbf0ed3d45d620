"""Dashboard access (bot.access.store.AccessStore): the in-memory part of bot.store.access_sql."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from bot.access.values import LinkGrant
from bot.kernel.values import ChannelConfig
from tests.support.memory.tables import MemoryTables, utc

KEEP = dt.timedelta(days=1)


class MemoryAccess(MemoryTables):
    """One-time links by token hash, attempts by (bucket, window); spaces and channels read from the channels."""

    async def save_login_link(
        self, token_hash: str, grant: LinkGrant, now: dt.datetime, expires_at: dt.datetime
    ) -> None:
        t = await self._db()
        for key, row in list(t.login_links.items()):
            if row[4] < utc(now) - KEEP:
                del t.login_links[key]
        if token_hash in t.login_links:
            raise ValueError("UNIQUE constraint failed: login_links.token_hash")
        t.login_links[token_hash] = [
            grant.platform,
            grant.space_id,
            grant.user_id,
            grant.is_admin,
            utc(expires_at),
            None,
        ]

    async def redeem_login_link(self, token_hash: str, now: dt.datetime) -> LinkGrant | None:
        t = await self._db()
        row = t.login_links.get(token_hash)
        if row is None or row[5] is not None or row[4] <= utc(now):
            return None
        row[5] = utc(now)
        return LinkGrant(row[0], row[1], row[2], bool(row[3]))

    async def count_login_attempt(self, bucket: str, window_start: dt.datetime) -> int:
        t = await self._db()
        start = utc(window_start)
        for key in [k for k in t.login_attempts if k[1] < start - KEEP]:
            del t.login_attempts[key]
        t.login_attempts[(bucket, start)] = t.login_attempts.get((bucket, start), 0) + 1
        return t.login_attempts[(bucket, start)]

    async def served_spaces(self, platform: str, space_ids: Sequence[str]) -> set[str]:
        t = await self._db()
        wanted = set(space_ids)
        return {c.ref.space_id for c in t.channels.values() if c.ref.platform == platform and c.ref.space_id in wanted}

    async def space_channels(self, platform: str, space_id: str) -> list[ChannelConfig]:
        t = await self._db()
        return [
            t.channels[key]
            for key in sorted(t.channels)
            if t.channels[key].ref.platform == platform and t.channels[key].ref.space_id == space_id
        ]
