"""SQLite's settle port for a reveal batch: what the batch's reveals read, read by the batch.

A reveal reads its round's answers, its space's previous daily date and its channel's speed bonus. One
round after another that is three statements a round; `SqliteBatchSettle.read_batch` reads them for every
round of the batch in three statements before the first claim, and the steps answer from those rows as the
same reads one round after another would have: a round sees the daily dates claimed before it in the batch
and its own points as written. The batch's transaction is the file's only writer, so nothing else changes
those rows under it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from sqlite3 import Connection
from typing import Any

from bot.kernel.values import Answer, ChannelRef, Round, RoundKind
from bot.store.rows import ANSWER_COLUMNS, answer_from_row, parse_date, round_from_row, to_ts
from bot.store.settle import latest_date
from bot.store.sqlite_settle import CHANNEL_COLUMNS, CLAIM_REVEAL, SqliteSettle

SPEED_BONUS = CHANNEL_COLUMNS.split(", ").index("speed_bonus")
POINTS = ANSWER_COLUMNS.split(", ").index("points")

# each daily round's latest revealed daily date of its space before its own (`{marks}`: the batch's ids)
PREVIOUS_DATES = (
    "SELECT r.platform, r.space_id, r.local_date, (SELECT MAX(p.local_date) FROM rounds p "
    "WHERE p.platform = r.platform AND p.space_id = r.space_id AND p.kind = 'daily' "
    "AND p.revealed_at IS NOT NULL AND p.local_date < r.local_date) "
    "FROM rounds r WHERE r.id IN ({marks}) AND r.kind = 'daily' AND r.local_date IS NOT NULL"
)
BATCH_ANSWERS = (
    f"SELECT {ANSWER_COLUMNS} FROM answers WHERE round_id IN ({{marks}}) ORDER BY round_id, answered_at, user_id"
)
BATCH_CHANNELS = (
    f"SELECT {CHANNEL_COLUMNS} FROM channels WHERE (platform, channel_id) IN "
    "(SELECT platform, channel_id FROM rounds WHERE id IN ({marks}))"
)


class SqliteBatchSettle(SqliteSettle):
    """SqliteSettle over one reveal batch whose reads were made by read_batch (for the rounds given there;
    other rounds are read one at a time, as SqliteSettle reads them)."""

    def __init__(self, con: Connection) -> None:
        super().__init__(con)
        self.answer_rows: dict[int, list[Any]] = {}  # the batch's answer rows, points as written so far
        self.channel_rows: dict[tuple[str, str], Any] = {}  # (platform, channel id): the channel's row
        self.claimed_rows: dict[int, Any] = {}  # the round rows claimed by this transaction (as revealed)
        self._before: dict[tuple[str, str, dt.date], dt.date | None] = {}  # previous dates before the batch
        self._taken: dict[tuple[str, str], list[dt.date]] = {}  # daily dates claimed in the batch, by space

    def read_batch(self, round_ids: Sequence[int]) -> None:
        """Read what the reveals of these rounds will read, before any of them is claimed."""
        marks = ",".join("?" * len(round_ids))
        self.answer_rows = {rid: [] for rid in round_ids}
        for row in self.con.execute(BATCH_ANSWERS.format(marks=marks), round_ids):
            self.answer_rows[int(row[0])].append(row)
        for row in self.con.execute(BATCH_CHANNELS.format(marks=marks), round_ids):
            self.channel_rows[(str(row[0]), str(row[1]))] = row
        for platform, space_id, day, previous in self.con.execute(PREVIOUS_DATES.format(marks=marks), round_ids):
            self._before[(platform, space_id, dt.date.fromisoformat(day))] = parse_date(previous)

    async def claim_reveal(self, round_id: int, revealed_at: dt.datetime) -> Round | None:
        rows = self.con.execute(CLAIM_REVEAL, (to_ts(revealed_at), round_id)).fetchall()
        if not rows:
            return None
        self.claimed_rows[round_id] = rows[0]
        round_ = round_from_row(rows[0])
        if round_.kind is RoundKind.DAILY and round_.local_date is not None:
            self._taken.setdefault((round_.ref.platform, round_.ref.space_id), []).append(round_.local_date)
        return round_

    async def answers(self, round_id: int) -> tuple[Answer, ...]:
        if round_id not in self.answer_rows:
            return await super().answers(round_id)
        return tuple(answer_from_row(r) for r in self.answer_rows[round_id])

    async def previous_date(self, ref: ChannelRef, before: dt.date) -> dt.date | None:
        key = (ref.platform, ref.space_id, before)
        if key not in self._before:
            return await super().previous_date(ref, before)
        return latest_date(self._taken.get((ref.platform, ref.space_id), ()), before, self._before[key])

    async def speed_bonus(self, ref: ChannelRef) -> bool:
        row = self.channel_rows.get((ref.platform, ref.channel_id))
        if row is None:
            return await super().speed_bonus(ref)
        return bool(row[SPEED_BONUS])

    async def write_points(self, round_id: int, points: dict[str, int]) -> None:
        await super().write_points(round_id, points)
        if round_id in self.answer_rows:
            self.answer_rows[round_id] = [
                (*r[:POINTS], points[r[1]], *r[POINTS + 1 :]) if r[1] in points else r
                for r in self.answer_rows[round_id]
            ]
