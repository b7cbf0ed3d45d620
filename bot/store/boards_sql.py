"""Boards and stats in SQL written once for both engines."""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Sequence
from typing import Any

from bot.kernel.scoring import LeaderboardRow, ranked
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

# the top of a board in its order: user_id, points, correct, answered, reached_at; its ? marks: platform,
# space_id, period, period_key, limit (an engine may name its index: SqliteStore)
TOP_SQL = (
    "SELECT user_id, points, correct, answered, reached_at FROM scores WHERE platform = ? AND space_id = ? "
    "AND period = ? AND period_key = ? ORDER BY points DESC, reached_at NULLS LAST, user_id LIMIT ?"
)


# one user's row of a board, as TOP_SQL's columns, and the users above them, from the buckets (one statement, one
# snapshot); its ? marks: platform, space_id, period, period_key, user_id
RANK_SQL = (
    "SELECT s.user_id, s.points, s.correct, s.answered, s.reached_at, (SELECT COALESCE(SUM(b.users), 0) "
    "FROM score_buckets b WHERE b.platform = s.platform AND b.space_id = s.space_id AND b.period = s.period "
    "AND b.period_key = s.period_key AND b.points > s.points) AS above FROM scores s WHERE s.platform = ? "
    "AND s.space_id = ? AND s.period = ? AND s.period_key = ? AND s.user_id = ?"
)


@functools.cache
def board_and_rank_sql(top: str) -> str:
    """One statement: the top of a board (`top`: as TOP_SQL; part 0), then RANK_SQL's row (part 1)."""
    return (
        f"SELECT 0 AS part, t.*, 0 AS above FROM ({top}) t UNION ALL SELECT 1, r.* FROM ({RANK_SQL}) r "
        "ORDER BY 1, 3 DESC, 6 NULLS LAST, 2"
    )


def _ranked_user(row: Sequence[Any]) -> LeaderboardRow:
    """RANK_SQL's row as a leaderboard row."""
    return LeaderboardRow(int(row[5]) + 1, str(row[0]), int(row[1]), int(row[2]), int(row[3]))


class BoardSql(SqlBase):
    """Leaderboard ranks, streaks and a learner's answers by topic."""

    top_sql = TOP_SQL

    async def leaderboard(
        self, platform: str, space_id: str, period: Period, period_key: str, limit: int
    ) -> list[LeaderboardRow]:
        rows = await self._read(self.top_sql, (platform, space_id, period.value, period_key, limit))
        return ranked(r[:4] for r in rows)

    async def board_and_rank(
        self, platform: str, space_id: str, period: Period, period_key: str, limit: int, user_id: str | None
    ) -> tuple[list[LeaderboardRow], LeaderboardRow | None]:
        if user_id is None:
            return await self.leaderboard(platform, space_id, period, period_key, limit), None
        board = (platform, space_id, period.value, period_key)
        rows = await self._read(board_and_rank_sql(self.top_sql), (*board, limit, *board, user_id))
        mine = [_ranked_user(r[1:]) for r in rows if r[0] == 1]
        return ranked(r[1:5] for r in rows if r[0] == 0), (mine[0] if mine else None)

    async def rank_of(
        self, platform: str, space_id: str, period: Period, period_key: str, user_id: str
    ) -> LeaderboardRow | None:
        row = await self._first(RANK_SQL, (platform, space_id, period.value, period_key, user_id))
        return None if row is None else _ranked_user(row)

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
