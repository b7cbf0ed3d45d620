"""When the bot was running: each process's running spans (bot.daily.uptime)."""

from __future__ import annotations

import datetime as dt

from tests.support.memory.tables import MemoryTables, utc


class MemoryUptime(MemoryTables):
    """Spans by (span, platform): since, seen."""

    async def note_running(
        self,
        span: str,
        platform: str,
        since: dt.datetime,
        now: dt.datetime,
        *,
        forget_before: dt.datetime | None = None,
    ) -> None:
        t = await self._db()
        key = (span, platform)
        since, now = utc(since), utc(now)
        if key in t.running:
            since, seen = t.running[key]
            now = max(seen, now)
        t.running[key] = (since, now)
        if forget_before is not None:
            cutoff = utc(forget_before)
            for old, (_, seen) in list(t.running.items()):
                if seen < cutoff:
                    del t.running[old]

    async def running_at(self, platform: str, at: dt.datetime) -> bool:
        t = await self._db()
        at = utc(at)
        return any(p == platform and since <= at <= seen for (_, p), (since, seen) in t.running.items())
