"""What aims the daily game, in SQL written once for both engines: the daily dates a streak missed (streak
freezes) and how each channel of a space answered each question (the daily pick aimed at about 70% right)."""

from __future__ import annotations

import datetime as dt

from bot.store.base import SqlBase

MISSED_DATES = (
    "SELECT COUNT(*) FROM (SELECT DISTINCT local_date FROM rounds WHERE platform = ? AND space_id = ? "
    "AND kind = 'daily' AND revealed_at IS NOT NULL AND local_date > ? AND local_date <= ? "
    "ORDER BY local_date LIMIT ?) d"
)


class AimSql(SqlBase):
    """Missed daily dates and answer rates per question, of revealed daily rounds only."""

    async def missed_daily_dates(
        self, platform: str, space_id: str, after: dt.date, through: dt.date, limit: int
    ) -> int:
        row = await self._first(MISSED_DATES, (platform, space_id, self._day(after), self._day(through), limit))
        return int(row[0]) if row else 0

    async def daily_answer_rates(self, platform: str, space_id: str) -> list[tuple[str, str, int, int]]:
        rows = await self._read(
            "SELECT r.channel_id, r.question_id, COUNT(*), COUNT(*) FILTER (WHERE a.correct) FROM answers a "
            "JOIN rounds r ON r.id = a.round_id WHERE r.platform = ? AND r.space_id = ? AND r.kind = 'daily' "
            "AND r.revealed_at IS NOT NULL GROUP BY r.channel_id, r.question_id "
            f"ORDER BY r.channel_id{self.text_order}, r.question_id{self.text_order}",
            (platform, space_id),
        )
        return [(r[0], r[1], int(r[2]), int(r[3])) for r in rows]
