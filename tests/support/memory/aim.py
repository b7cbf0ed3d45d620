"""Missed daily dates and answer rates per question (bot.daily.store.StreakDates, QuestionRates): what
bot.store.aim_sql does on SQL, on the store's tables."""

from __future__ import annotations

import datetime as dt

from bot.kernel.values import RoundKind
from tests.support.memory.tables import MemoryTables, daily_dates, in_space


class MemoryAim(MemoryTables):
    """Of revealed daily rounds only."""

    async def missed_daily_dates(
        self, platform: str, space_id: str, after: dt.date, through: dt.date, limit: int
    ) -> int:
        t = await self._db()
        return min(limit, len(daily_dates(t, platform, space_id, after, through + dt.timedelta(days=1))))

    async def daily_answer_rates(self, platform: str, space_id: str) -> list[tuple[str, str, int, int]]:
        t = await self._db()
        counts: dict[tuple[str, str], list[int]] = {}
        for r in t.rounds.values():
            if r.kind is not RoundKind.DAILY or r.revealed_at is None or not in_space(r, platform, space_id):
                continue
            for a in t.answers.get(r.id, {}).values():
                tally = counts.setdefault((r.ref.channel_id, r.question_id), [0, 0])
                tally[0] += 1
                tally[1] += int(a.correct)
        return [(c, q, n, right) for (c, q), (n, right) in sorted(counts.items())]
