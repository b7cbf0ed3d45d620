"""De-duplication of platform deliveries (the kernel's OnceStore)."""

from __future__ import annotations

import datetime as dt

from tests.support.memory.tables import MemoryTables, utc


class MemoryOnce(MemoryTables):
    """Keys remembered per scope until they expire."""

    async def remember_once(self, scope: str, key: str, now: dt.datetime, keep: dt.timedelta) -> bool:
        t = await self._db()
        now = utc(now)
        for seen, expires in list(t.seen_once.items()):
            if expires <= now:
                del t.seen_once[seen]
        if (scope, key) in t.seen_once:
            return False
        t.seen_once[(scope, key)] = now + keep
        return True
