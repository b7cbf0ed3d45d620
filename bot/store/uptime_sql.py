"""When the bot was running (bot.daily.uptime): each process's running spans, in SQL written once."""

from __future__ import annotations

import datetime as dt

from bot.store.base import SqlBase, Step

NOTE_RUNNING = (
    "INSERT INTO running_spans (span, platform, since_at, seen_at) VALUES (?, ?, ?, ?) "
    "ON CONFLICT (span, platform) DO UPDATE SET seen_at = CASE WHEN excluded.seen_at > running_spans.seen_at "
    "THEN excluded.seen_at ELSE running_spans.seen_at END"
)


class UptimeSql(SqlBase):
    """Running spans: one row per (process run, platform), from its first tick to its latest."""

    async def note_running(
        self,
        span: str,
        platform: str,
        since: dt.datetime,
        now: dt.datetime,
        *,
        forget_before: dt.datetime | None = None,
    ) -> None:
        steps: list[Step] = [(NOTE_RUNNING, (span, platform, self._ts(since), self._ts(now)))]
        if forget_before is not None:
            steps.append(("DELETE FROM running_spans WHERE seen_at < ?", (self._ts(forget_before),)))
        await self._atomic_steps(steps)

    async def running_at(self, platform: str, at: dt.datetime) -> bool:
        row = await self._first(
            "SELECT 1 FROM running_spans WHERE platform = ? AND seen_at >= ? AND since_at <= ? LIMIT 1",
            (platform, self._ts(at), self._ts(at)),
        )
        return row is not None
