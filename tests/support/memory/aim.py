"""Missed daily dates and answer rates per question (bot.daily.store.StreakDates, QuestionRates): what
bot.store.aim_sql does on SQL, on the store's tables."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from bot.daily.values import PickInputs
from bot.kernel.selection import SpaceRates
from bot.kernel.values import RoundKind
from tests.support.memory.tables import MemoryTables, daily_dates, in_space


class MemoryAim(MemoryTables):
    """Of revealed daily rounds only."""

    async def missed_daily_dates(
        self, platform: str, space_id: str, after: dt.date, through: dt.date, limit: int
    ) -> int:
        t = await self._db()
        return min(limit, len(daily_dates(t, platform, space_id, after, through + dt.timedelta(days=1))))

    async def daily_answer_rates(self, platform: str, space_id: str) -> SpaceRates:
        t = await self._db()
        counts: dict[tuple[str, str], list[int]] = {}
        for r in t.rounds.values():
            if r.kind is not RoundKind.DAILY or r.revealed_at is None or not in_space(r, platform, space_id):
                continue
            for a in t.answers.get(r.id, {}).values():
                tally = counts.setdefault((r.ref.channel_id, r.question_id), [0, 0])
                tally[0] += 1
                tally[1] += int(a.correct)
        return SpaceRates.tally((c, q, n, right) for (c, q), (n, right) in counts.items())

    async def daily_pick_inputs(
        self, spaces: Sequence[tuple[str, str]], hold_at: int
    ) -> dict[tuple[str, str], PickInputs]:
        out = {}
        for platform, space_id in dict.fromkeys(spaces):
            counts, last = await self.question_history(platform, space_id, RoundKind.DAILY)  # type: ignore[attr-defined]
            held = await self.held_question_ids(platform, space_id, hold_at)  # type: ignore[attr-defined]
            out[(platform, space_id)] = PickInputs(
                counts, last, held, await self.daily_answer_rates(platform, space_id)
            )
        return out
