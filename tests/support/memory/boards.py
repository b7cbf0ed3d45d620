"""Leaderboards, streaks and answers by topic (the kernel's BoardReads), written only by the reveal
(bot.store.settle); the in-memory part of bot.store.boards_sql."""

from __future__ import annotations

import datetime as dt

from bot.kernel.scoring import LeaderboardRow
from bot.kernel.values import Period, RoundKind, StreakState, TopicStats
from tests.support.memory.tables import MemoryTables, in_space


class MemoryBoards(MemoryTables):
    """Boards ranked as SQL ranks them: points, then who reached the total first, then user id."""

    async def leaderboard(
        self, platform: str, space_id: str, period: Period, period_key: str, limit: int
    ) -> list[LeaderboardRow]:
        t = await self._db()
        key = (platform, space_id, period, period_key)
        times = t.reached.get(key, {})
        never = dt.datetime.max.replace(tzinfo=dt.UTC)
        ordered = sorted(
            t.scores.get(key, {}).items(), key=lambda item: (-item[1][0], times.get(item[0], never), item[0])
        )
        if limit >= 0:  # SQLite reads a negative LIMIT as no limit at all
            ordered = ordered[:limit]
        out: list[LeaderboardRow] = []
        for i, (uid, (points, correct, answered)) in enumerate(ordered):
            rank = out[-1].rank if out and out[-1].points == points else i + 1
            out.append(LeaderboardRow(rank, uid, points, correct, answered))
        return out

    async def rank_of(
        self, platform: str, space_id: str, period: Period, period_key: str, user_id: str
    ) -> LeaderboardRow | None:
        t = await self._db()
        board = t.scores.get((platform, space_id, period, period_key), {})
        if user_id not in board:
            return None
        points, correct, answered = board[user_id]
        buckets = t.buckets.get((platform, space_id, period, period_key), {})
        above = sum(n for total, n in buckets.items() if total > points)
        return LeaderboardRow(above + 1, user_id, points, correct, answered)

    async def board_and_rank(
        self, platform: str, space_id: str, period: Period, period_key: str, limit: int, user_id: str | None
    ) -> tuple[list[LeaderboardRow], LeaderboardRow | None]:
        board = await self.leaderboard(platform, space_id, period, period_key, limit)
        return board, await self.rank_of(platform, space_id, period, period_key, user_id) if user_id else None

    async def user_topic_stats(self, platform: str, space_id: str, user_id: str) -> list[tuple[RoundKind, TopicStats]]:
        t = await self._db()
        counts: dict[tuple[str, RoundKind], tuple[int, int]] = {}
        for r in t.rounds.values():
            answer = t.answers.get(r.id, {}).get(user_id)
            if answer is not None and r.revealed_at is not None and in_space(r, platform, space_id):
                answered, correct = counts.get((r.topic, r.kind), (0, 0))
                counts[(r.topic, r.kind)] = (answered + 1, correct + answer.correct)
        return [(kind, TopicStats(topic, n, c)) for (topic, kind), (n, c) in sorted(counts.items())]

    async def streak(self, platform: str, space_id: str, user_id: str) -> StreakState | None:
        return (await self._db()).streaks.get((platform, space_id, user_id))

    async def latest_revealed_date(self, platform: str, space_id: str) -> dt.date | None:
        t = await self._db()
        return max(
            (
                r.local_date
                for r in t.rounds.values()
                if in_space(r, platform, space_id)
                and r.kind is RoundKind.DAILY
                and r.revealed_at is not None
                and r.local_date is not None
            ),
            default=None,
        )
