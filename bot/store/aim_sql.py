"""What aims the daily game, in SQL written once for both engines: the daily dates a streak missed (streak
freezes) and how each channel of a space answered each question (the daily pick aimed at about 70% right)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from bot.daily.values import PickInputs
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

    async def daily_answer_rates(self, platform: str, space_id: str) -> list[tuple[str, str, int, int]]:
        rows = await self._read(
            "SELECT r.channel_id, r.question_id, COUNT(*), COUNT(*) FILTER (WHERE a.correct) FROM answers a "
            "JOIN rounds r ON r.id = a.round_id WHERE r.platform = ? AND r.space_id = ? AND r.kind = 'daily' "
            "AND r.revealed_at IS NOT NULL GROUP BY r.channel_id, r.question_id "
            f"ORDER BY r.channel_id{self.text_order}, r.question_id{self.text_order}",
            (platform, space_id),
        )
        return [(r[0], r[1], int(r[2]), int(r[3])) for r in rows]

    async def daily_pick_inputs(
        self, spaces: Sequence[tuple[str, str]], hold_at: int
    ) -> dict[tuple[str, str], PickInputs]:
        wanted = list(dict.fromkeys(spaces))
        out: dict[tuple[str, str], PickInputs] = {}
        for i in range(0, len(wanted), PICK_BATCH):
            out.update(await self._pick_inputs(wanted[i : i + PICK_BATCH], hold_at))
        return out

    async def _pick_inputs(self, spaces: list[tuple[str, str]], hold_at: int) -> dict[tuple[str, str], PickInputs]:
        params = [value for space in spaces for value in space]
        rounds = " OR ".join(["(platform = ? AND space_id = ?)"] * len(spaces))
        prefixed = " OR ".join(["(r.platform = ? AND r.space_id = ?)"] * len(spaces))
        # one statement, its three parts told apart by the first column: 0 how often each question was asked
        # (and its latest round), 1 the questions held, 2 the answer rates by channel (in channel order)
        rows = await self._read(
            "SELECT * FROM ("
            f"SELECT 0 AS part, platform, space_id, CAST(NULL AS TEXT) AS channel_id, question_id, COUNT(*) AS n, "
            f"MAX(id) AS m FROM rounds WHERE kind = 'daily' AND ({rounds}) GROUP BY platform, space_id, question_id "
            f"UNION ALL SELECT 1, platform, space_id, NULL, question_id, 0, 0 FROM ({held_sql(rounds)}) h "
            "UNION ALL SELECT 2, r.platform, r.space_id, r.channel_id, r.question_id, COUNT(*), "
            "COUNT(*) FILTER (WHERE a.correct) FROM answers a JOIN rounds r ON r.id = a.round_id "
            f"WHERE r.kind = 'daily' AND r.revealed_at IS NOT NULL AND ({prefixed}) "
            "GROUP BY r.platform, r.space_id, r.channel_id, r.question_id"
            f") x ORDER BY part, channel_id{self.text_order}, question_id{self.text_order}",
            [*params, *params, hold_at, *params, *params],
        )
        asked = [(r[1], r[2], r[4], r[5], r[6]) for r in rows if r[0] == 0]
        held = [(r[1], r[2], r[4]) for r in rows if r[0] == 1]
        rates = [(r[1], r[2], r[3], r[4], r[5], r[6]) for r in rows if r[0] == 2]
        out = {space: PickInputs({}, None, set(), []) for space in spaces}
        latest: dict[tuple[str, str], int] = {}
        for platform, space_id, question_id, count, max_id in asked:
            inputs, key = out[(platform, space_id)], (platform, space_id)
            inputs.counts[question_id] = int(count)
            if key not in latest or int(max_id) > latest[key]:
                latest[key] = int(max_id)
                out[key] = PickInputs(inputs.counts, question_id, inputs.held, inputs.rates)
        for platform, space_id, question_id in held:
            out[(platform, space_id)].held.add(question_id)
        for platform, space_id, channel_id, question_id, answers, right in rates:
            out[(platform, space_id)].rates.append((channel_id, question_id, int(answers), int(right)))
        return out
