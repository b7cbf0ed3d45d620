"""The weekly recap in SQL written once for both engines."""

from __future__ import annotations

import datetime as dt

from bot.kernel.values import (
    ChannelConfig,
    ChannelRef,
    DueChannel,
    SpaceFilter,
)
from bot.recap.values import RecapRound, RecapScorer
from bot.store.base import SqlBase
from bot.store.rows import (
    config_from_row,
    from_ts,
    parse_date,
)


class RecapSql(SqlBase):
    """Weekly recaps: when each channel's is due, marks of sent ones and the week's figures."""

    async def set_next_recap(self, ref: ChannelRef, at: dt.datetime | None) -> None:
        await self._atomic(
            "UPDATE channels SET next_recap_at = ?, recap_claimed_until = NULL WHERE platform = ? AND channel_id = ?",
            (self._maybe_ts(at), ref.platform, ref.channel_id),
        )

    async def get_next_recap(self, ref: ChannelRef) -> dt.datetime | None:
        row = await self._first(
            "SELECT next_recap_at FROM channels WHERE platform = ? AND channel_id = ?", (ref.platform, ref.channel_id)
        )
        return from_ts(row[0]) if row and row[0] else None

    async def unscheduled_recaps(self, spaces: SpaceFilter | None = None) -> list[ChannelConfig]:
        where, params = self._space_filter(spaces, 1)
        rows = await self._read(
            f"SELECT {self.channel_columns} FROM channels WHERE NOT paused AND recap_day IS NOT NULL "
            f"AND next_recap_at IS NULL{where} ORDER BY platform, channel_id",
            params,
        )
        return [config_from_row(r) for r in rows]

    async def claim_due_recaps(
        self, now: dt.datetime, lease_until: dt.datetime, limit: int, spaces: SpaceFilter | None = None
    ) -> list[DueChannel]:
        return await self._claim_due("next_recap_at", "recap_claimed_until", now, lease_until, limit, spaces)

    async def finish_due_recap(self, ref: ChannelRef, due_at: dt.datetime, next_at: dt.datetime | None) -> None:
        await self._finish_due("next_recap_at", "recap_claimed_until", ref, due_at, next_at)

    async def mark_recap(self, ref: ChannelRef, week_end: dt.date, now: dt.datetime) -> bool:
        rows = await self._atomic(
            "INSERT INTO recaps (platform, channel_id, week_end, posted_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT DO NOTHING RETURNING 1",
            (ref.platform, ref.channel_id, self._day(week_end), self._ts(now)),
        )
        return bool(rows)

    async def unmark_recap(self, ref: ChannelRef, week_end: dt.date) -> None:
        await self._atomic(
            "DELETE FROM recaps WHERE platform = ? AND channel_id = ? AND week_end = ?",
            (ref.platform, ref.channel_id, self._day(week_end)),
        )

    async def recap_rounds(
        self, platform: str, space_id: str, start: dt.date, end: dt.date, channel_id: str | None = None
    ) -> list[RecapRound]:
        channel = "" if channel_id is None else " AND r.channel_id = ?"
        rows = await self._read(
            "SELECT r.id, r.local_date, r.question_id, r.topic, COUNT(a.user_id), "
            "COUNT(a.user_id) FILTER (WHERE a.correct) FROM rounds r LEFT JOIN answers a ON a.round_id = r.id "
            "WHERE r.platform = ? AND r.space_id = ? AND r.kind = 'daily' AND r.revealed_at IS NOT NULL "
            f"AND r.local_date >= ? AND r.local_date <= ?{channel} GROUP BY r.id ORDER BY r.local_date, r.id",
            (platform, space_id, self._day(start), self._day(end), *(() if channel_id is None else (channel_id,))),
        )
        return [RecapRound(int(r[0]), parse_date(r[1]), r[2], r[3], int(r[4]), int(r[5])) for r in rows]  # type: ignore[arg-type]

    async def recap_scorers(
        self, platform: str, space_id: str, start: dt.date, end: dt.date, limit: int, channel_id: str | None = None
    ) -> list[RecapScorer]:
        channel = "" if channel_id is None else " AND r.channel_id = ?"
        rows = await self._read(
            "SELECT a.user_id, COALESCE(SUM(a.points), 0) AS pts, COUNT(*) FILTER (WHERE a.correct), COUNT(*), "
            "COALESCE(MAX(a.answered_at) FILTER (WHERE a.points > 0), MIN(a.answered_at)) AS reached "
            "FROM answers a JOIN rounds r ON r.id = a.round_id WHERE r.platform = ? AND r.space_id = ? "
            "AND r.kind = 'daily' AND r.revealed_at IS NOT NULL AND r.local_date >= ? AND r.local_date <= ?"
            f"{channel} GROUP BY a.user_id ORDER BY pts DESC, reached, a.user_id{self.text_order} LIMIT ?",
            (
                platform,
                space_id,
                self._day(start),
                self._day(end),
                *(() if channel_id is None else (channel_id,)),
                limit,
            ),
        )
        return [RecapScorer(r[0], int(r[1]), int(r[2]), int(r[3]), from_ts(r[4])) for r in rows]
