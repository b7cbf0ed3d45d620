"""The learning report's reads (`/quiz progress`, the weekly recap's line on missed questions), written once for
both engines. SQL gathers the rows; bot.practice.progress counts them (local weeks and local dates need the
timezone, which SQLite cannot apply), so every store counts in one place.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from bot.practice.memory import ReviewEvent
from bot.practice.progress import MissFact, ProgressCounts, count_misses, count_progress
from bot.recap.values import RecalledMisses
from bot.store.base import SqlBase
from bot.store.rows import from_ts

# each member's first miss of each daily question (revealed rounds only), with every later answer of theirs to
# the same question (any round kind, revealed) or NULL; {user}: one member's only (?3)
MISS_FACTS = (
    "SELECT m.user_id, m.question_id, m.missed_at, l.answered_at, l.correct FROM ("
    "SELECT a.user_id, r.question_id, MIN(a.answered_at) AS missed_at "
    "FROM answers a JOIN rounds r ON r.id = a.round_id "
    "WHERE r.platform = ?1 AND r.space_id = ?2 AND r.kind = 'daily' AND r.revealed_at IS NOT NULL AND NOT a.correct"
    "{user} GROUP BY a.user_id, r.question_id) m LEFT JOIN ("
    "SELECT a.user_id, r.question_id, a.answered_at, a.correct FROM answers a JOIN rounds r ON r.id = a.round_id "
    "WHERE r.platform = ?1 AND r.space_id = ?2 AND r.revealed_at IS NOT NULL{user}"
    ") l ON l.user_id = m.user_id AND l.question_id = m.question_id AND l.answered_at > m.missed_at "
    "ORDER BY m.user_id, m.question_id, l.answered_at"
)

LEARNER = " AND a.user_id = ?3"


def miss_from_row(row: Any) -> MissFact:
    user_id, question_id, missed_at, later_at, later_correct = tuple(row)
    return MissFact(
        user_id,
        question_id,
        from_ts(missed_at),
        from_ts(later_at) if later_at else None,
        None if later_correct is None else bool(later_correct),
    )


class ProgressSql(SqlBase):
    """A learner's progress report and the space's recalled misses."""

    async def review_events(self, platform: str, space_id: str, user_id: str) -> list[ReviewEvent]:
        raise NotImplementedError  # bot.store.learner_sql.LearnerSql (after writing the marked practice answers)

    async def learner_progress(
        self, platform: str, space_id: str, user_id: str, tz: str, now: dt.datetime
    ) -> ProgressCounts:
        events = await self.review_events(platform, space_id, user_id)
        rows = await self._read(MISS_FACTS.format(user=LEARNER), (platform, space_id, user_id))
        return count_progress(events, map(miss_from_row, rows), tz, now)

    async def space_miss_recall(self, platform: str, space_id: str, tz: str, through: dt.date) -> RecalledMisses:
        rows = await self._read(MISS_FACTS.format(user=""), (platform, space_id))
        counted = count_misses(map(miss_from_row, rows), tz, through)
        return RecalledMisses(counted.missed, counted.came_back, counted.right)
