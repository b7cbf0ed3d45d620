"""Boards and stats in SQL written once for both engines."""

from __future__ import annotations

import datetime as dt

from bot.kernel.scoring import LeaderboardRow
from bot.kernel.values import (
    Period,
    RoundKind,
    StreakState,
    TopicStats,
)
from bot.store.base import SqlBase
from bot.store.rows import (
    STREAK_COLUMNS,
    parse_date,
    streak_from_row,
)


class BoardSql(SqlBase):
    """Leaderboard ranks, streaks and a learner's answers by topic."""

    async def rank_of(
        self, platform: str, space_id: str, period: Period, period_key: str, user_id: str
    ) -> LeaderboardRow | None:
        # one statement, one snapshot: the user's score and the users above it in the buckets
        row = await self._first(
            "SELECT s.points, s.correct, s.answered, (SELECT COALESCE(SUM(b.users), 0) FROM score_buckets b "
            "WHERE b.platform = s.platform AND b.space_id = s.space_id AND b.period = s.period "
            "AND b.period_key = s.period_key AND b.points > s.points) "
            "FROM scores s WHERE s.platform = ? AND s.space_id = ? AND s.period = ? AND s.period_key = ? "
            "AND s.user_id = ?",
            (platform, space_id, period.value, period_key, user_id),
        )
        if row is None:
            return None
        return LeaderboardRow(int(row[3]) + 1, user_id, int(row[0]), int(row[1]), int(row[2]))

    async def user_topic_stats(self, platform: str, space_id: str, user_id: str) -> list[tuple[RoundKind, TopicStats]]:
        rows = await self._read(
            "SELECT r.kind, r.topic, COUNT(*), COUNT(*) FILTER (WHERE a.correct) FROM answers a "
            "JOIN rounds r ON r.id = a.round_id WHERE a.user_id = ? AND r.platform = ? AND r.space_id = ? "
            "AND r.revealed_at IS NOT NULL GROUP BY r.kind, r.topic ORDER BY r.topic, r.kind",
            (user_id, platform, space_id),
        )
        return [(RoundKind(k), TopicStats(t, int(n), int(c))) for k, t, n, c in rows]

    async def streak(self, platform: str, space_id: str, user_id: str) -> StreakState | None:
        row = await self._first(
            f"SELECT {STREAK_COLUMNS} FROM streaks WHERE platform = ? AND space_id = ? AND user_id = ?",
            (platform, space_id, user_id),
        )
        return streak_from_row(row) if row else None

    async def latest_revealed_date(self, platform: str, space_id: str) -> dt.date | None:
        row = await self._first(
            "SELECT MAX(local_date) FROM rounds WHERE platform = ? AND space_id = ? AND kind = 'daily' "
            "AND revealed_at IS NOT NULL",
            (platform, space_id),
        )
        return parse_date(row[0]) if row else None
