"""One learner's data in a space, for both SQL stores: the misses `/quiz export` lists, and the statements of
`/quiz forget-me` (run in order in one transaction).

The SQL is written once with numbered parameters (?1 = platform, ?2 = space id, ?3 = user id): SQLite takes
them as they are, PostgreSQL after `bot.store.portable.numbered` turns them into $1, $2, $3.
"""

from __future__ import annotations

from typing import Any

from bot.kernel.values import RoundKind
from bot.mydata.export import Miss
from bot.store.reminders_sql import FORGET_REMINDERS
from bot.store.rows import from_ts

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
    ("", f"DELETE FROM season_places WHERE {_MINE}"),
    *FORGET_REMINDERS,
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
