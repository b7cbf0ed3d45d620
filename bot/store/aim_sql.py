"""What aims the daily game, in SQL written once for both engines: the daily dates a streak missed (streak
freezes) and how each channel of a space answered each question (the daily pick aimed at about 70% right)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from bot.daily.values import PickInputs
from bot.kernel.selection import SpaceRates
from bot.store.base import SqlBase
from bot.store.reports_sql import held_sql

PICK_BATCH = 100  # spaces read in one statement at most

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

    async def daily_answer_rates(self, platform: str, space_id: str) -> SpaceRates:
        return (await self._pick_inputs([(platform, space_id)], None))[(platform, space_id)].rates

    async def daily_pick_inputs(
        self, spaces: Sequence[tuple[str, str]], hold_at: int
    ) -> dict[tuple[str, str], PickInputs]:
        wanted = list(dict.fromkeys(spaces))
        out: dict[tuple[str, str], PickInputs] = {}
        for i in range(0, len(wanted), PICK_BATCH):
            out.update(await self._pick_inputs(wanted[i : i + PICK_BATCH], hold_at))
        return out

    async def _pick_inputs(
        self, spaces: list[tuple[str, str]], hold_at: int | None
    ) -> dict[tuple[str, str], PickInputs]:
        """The pick inputs of `spaces` in one statement (hold_at None: the answer rates alone)."""
        params = [value for space in spaces for value in space]
        rounds = " OR ".join(["(platform = ? AND space_id = ?)"] * len(spaces))
        parts, values = [], []
        if hold_at is not None:
            # 0 how often each question was asked as a daily (and its latest round), 1 the questions held
            parts += [
                "SELECT 0 AS part, platform, space_id, question_id AS k, COUNT(*) AS n, MAX(id) AS m FROM rounds "
                f"WHERE kind = 'daily' AND ({rounds}) GROUP BY platform, space_id, question_id",
                f"SELECT 1, platform, space_id, question_id, 0, 0 FROM ({held_sql(rounds)}) h",
            ]
            values += [*params, *params, hold_at, *params]  # (held_sql: the spaces, the threshold, the spaces)
        # 2 the answer rates per question, 3 per channel (kept by the reveals: rows per question and channel, not
        # per answer of the space's history)
        parts += [
            "SELECT 2 AS part, platform, space_id, question_id AS k, answers AS n, right_answers AS m "
            f"FROM daily_question_rates WHERE answers > 0 AND ({rounds})",
            f"SELECT 3, platform, space_id, channel_id, answers, right_answers FROM daily_channel_rates "
            f"WHERE answers > 0 AND ({rounds})",
        ]
        values += [*params, *params]
        union = " UNION ALL ".join(parts)
        rows = await self._read(f"SELECT * FROM ({union}) x ORDER BY part, k{self.text_order}", values)
        out = {space: PickInputs({}, None, set(), SpaceRates()) for space in spaces}
        latest: dict[tuple[str, str], int] = {}
        for part, platform, space_id, key, n, m in rows:
            inputs, space = out[(platform, space_id)], (platform, space_id)
            if part == 0:
                inputs.counts[key] = int(n)
                if space not in latest or int(m) > latest[space]:
                    latest[space] = int(m)
                    out[space] = PickInputs(inputs.counts, key, inputs.held, inputs.rates)
            elif part == 1:
                inputs.held.add(key)
            elif part == 2:
                inputs.rates.questions[key] = (int(n), int(m))
            else:
                inputs.rates.channels[key] = (int(n), int(m))
        return out
