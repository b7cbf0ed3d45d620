"""One learner's data in a space, for both SQL stores: the misses `/quiz export` lists, and the statements of
`/quiz forget-me` (run in order in one transaction).

The SQL is written once with numbered parameters (?1 = platform, ?2 = space id, ?3 = user id): SQLite takes
them as they are, PostgreSQL after `bot.store.portable.numbered` turns them into $1, $2, $3.
"""

from __future__ import annotations

from typing import Any

from bot.kernel.values import (
    ChannelRef,
    RoundKind,
)
from bot.mydata.export import Miss
from bot.mydata.forget import Forgotten
from bot.practice.memory import LearnerCard, ReviewEvent
from bot.store.base import PENDING_OF_LEARNER, SqlBase
from bot.store.live_sql import FORGET_LIVE
from bot.store.reminders_sql import FORGET_REMINDERS
from bot.store.reviews_sql import FORGET_REVIEWS
from bot.store.rows import (
    CARD_COLUMNS,
    EVENT_COLUMNS,
    card_from_row,
    event_from_row,
    from_ts,
)
from bot.store.teams_sql import FORGET_TEAMS

# every answer of the learner to a revealed round of the space, numbered newest first per question; a question
# is a miss when any of those answers was wrong
MISSES = (
    "SELECT question_id, topic, round_id, kind, attempts, misses, answered_at, choice, correct FROM ("
    "SELECT r.question_id, r.topic, r.id AS round_id, r.kind, a.answered_at, a.choice, a.correct, "
    "COUNT(*) OVER (PARTITION BY r.question_id) AS attempts, "
    "SUM(CASE WHEN a.correct THEN 0 ELSE 1 END) OVER (PARTITION BY r.question_id) AS misses, "
    "ROW_NUMBER() OVER (PARTITION BY r.question_id ORDER BY a.answered_at DESC, r.id DESC) AS n "
    "FROM answers a JOIN rounds r ON r.id = a.round_id "
    "WHERE a.user_id = ?3 AND r.platform = ?1 AND r.space_id = ?2 AND r.revealed_at IS NOT NULL"
    ") t WHERE n = 1 AND misses > 0 ORDER BY answered_at DESC, question_id"
)

_ROUNDS = "SELECT id FROM rounds WHERE platform = ?1 AND space_id = ?2"
_PRACTICE = f"{_ROUNDS} AND kind = 'practice' AND user_id = ?3"
_MINE = "platform = ?1 AND space_id = ?2 AND user_id = ?3"

# (what the count is of, or "" when not counted; the statement). Scores first: each of the learner's score
# rows leaves its bucket (the rank of everyone else is counted from the buckets), then the rows go.
FORGET: tuple[tuple[str, str], ...] = (
    (
        "",
        "UPDATE score_buckets SET users = users - 1 WHERE platform = ?1 AND space_id = ?2 "
        "AND (period, period_key, points) IN (SELECT period, period_key, points FROM scores WHERE " + _MINE + ")",
    ),
    ("", "DELETE FROM score_buckets WHERE platform = ?1 AND space_id = ?2 AND users <= 0"),
    ("scores", f"DELETE FROM scores WHERE {_MINE}"),
    ("", f"DELETE FROM answer_doubts WHERE user_id = ?3 AND round_id IN ({_ROUNDS})"),
    ("answers", f"DELETE FROM answers WHERE user_id = ?3 AND round_id IN ({_ROUNDS})"),
    ("", f"DELETE FROM round_questions WHERE round_id IN ({_PRACTICE})"),
    ("rounds", "DELETE FROM rounds WHERE platform = ?1 AND space_id = ?2 AND kind = 'practice' AND user_id = ?3"),
    ("cards", f"DELETE FROM learner_cards WHERE {_MINE}"),
    ("reviews", f"DELETE FROM review_log WHERE {_MINE}"),
    ("streaks", f"DELETE FROM streaks WHERE {_MINE}"),
    # their suggested questions (an approved one stays in the pack `suggestions`, which does not name them)
    ("suggestions", "DELETE FROM suggestions WHERE platform = ?1 AND space_id = ?2 AND author_id = ?3"),
    # their reports of problems with questions (a hold an admin chose stays: it does not name them)
    ("reports", "DELETE FROM question_reports WHERE platform = ?1 AND space_id = ?2 AND reporter = ?3"),
    # their places in the space's archived seasons (the season stays, with the others' places)
    ("seasons", f"DELETE FROM season_places WHERE {_MINE}"),
    *FORGET_REMINDERS,
    *FORGET_TEAMS,
    *FORGET_LIVE,
    *FORGET_REVIEWS,
)


def forget_steps(platform: str, space_id: str, user_id: str) -> list[tuple[str, str, tuple[str, ...]]]:
    """(what is counted, statement, its parameters): each statement gets the parameters it names."""
    values = (platform, space_id, user_id)
    return [(what, sql, values if "?3" in sql else values[:2]) for what, sql in FORGET]


def miss_from_row(row: Any) -> Miss:
    return Miss(
        question_id=row[0],
        topic=row[1],
        round_id=int(row[2]),
        kind=RoundKind(row[3]),
        attempts=int(row[4]),
        misses=int(row[5]),
        last_answered_at=from_ts(row[6]),
        last_choice=int(row[7]),
        last_correct=bool(row[8]),
    )


class LearnerSql(SqlBase):
    """A learner's memory cards, review log and misses, and forgetting them."""

    async def settle_learner(self, platform: str, space_id: str, user_id: str) -> None:
        raise NotImplementedError  # bot.store.settle.SettlingStore

    async def _settled(self, platform: str, space_id: str, user_id: str) -> None:
        """Before a learner's cards are read: their marked daily rounds and practice answers are written into
        them."""
        if await self._read(PENDING_OF_LEARNER, (platform, space_id, user_id)):
            await self.settle_learner(platform, space_id, user_id)

    async def learner_cards(self, platform: str, space_id: str, user_id: str) -> list[LearnerCard]:
        await self._settled(platform, space_id, user_id)
        rows = await self._read(
            f"SELECT {CARD_COLUMNS} FROM learner_cards WHERE platform = ? AND space_id = ? AND user_id = ? "
            "ORDER BY question_id",
            (platform, space_id, user_id),
        )
        return [card_from_row(r) for r in rows]

    async def review_events(self, platform: str, space_id: str, user_id: str) -> list[ReviewEvent]:
        await self._settled(platform, space_id, user_id)
        rows = await self._read(
            f"SELECT {EVENT_COLUMNS} FROM review_log WHERE platform = ? AND space_id = ? AND user_id = ? "
            "ORDER BY reviewed_at, question_id",
            (platform, space_id, user_id),
        )
        return [event_from_row(r) for r in rows]

    async def learner_misses(self, platform: str, space_id: str, user_id: str) -> list[Miss]:
        """The questions the learner answered wrong in the space, newest first (`/quiz export`)."""
        return [miss_from_row(r) for r in await self._read(MISSES, (platform, space_id, user_id))]

    async def forget_learner(self, platform: str, space_id: str, user_id: str) -> Forgotten:
        """One transaction under the space's scoring lock, so no reveal folds scores into it halfway (the
        learner's marked practice updates are written first, so the count of cards is every card)."""
        await self._settled(platform, space_id, user_id)
        counts: dict[str, int] = {}
        async with self._write_tx() as tx:
            await tx.lock_space(ChannelRef(platform, space_id, ""))
            for what, sql, params in forget_steps(platform, space_id, user_id):
                changed = await tx.run(sql, params)
                if what:  # several statements may count one thing
                    counts[what] = counts.get(what, 0) + changed
        return Forgotten(**counts)
