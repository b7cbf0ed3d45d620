"""SQLite's reveal and answer-batch steps, run whole on the connection's thread inside one transaction.

bot.store.settle writes the reveal and the answer batch once, as coroutines over a port. On SQLite the
whole transaction runs on the connection's own thread in one trip (bot.store.sqlite_in_thread): the port
below calls the raw sqlite3 connection at once, so those coroutines never suspend.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable, Sequence
from sqlite3 import Connection
from typing import Any, TypeVar

from bot.kernel.scoring import Board, BoardMoves, BoardRows, ScoreRow
from bot.kernel.values import Answer, ChannelRef, NewAnswer, Round, StreakState
from bot.practice.memory import CardKey, LearnerCard, PendingAnswer, ReviewEvent
from bot.store.base import PENDING_PRACTICE
from bot.store.rows import (
    ANSWER_COLUMNS,
    CARD_COLUMNS,
    DAILY_DATES_BETWEEN,
    EVENT_COLUMNS,
    ROUND_COLUMNS,
    STREAK_COLUMNS,
    WRITE_STREAK,
    answer_from_row,
    board_key,
    card_from_row,
    card_values,
    event_values,
    from_ts,
    parse_date,
    round_from_row,
    streak_from_row,
    to_ts,
)

T = TypeVar("T")

ONE_ANSWER = "(?,?,?,?,?)"
INSERT_ANSWER = f"INSERT INTO answers (round_id, user_id, choice, correct, answered_at) VALUES {ONE_ANSWER}"
INSERT_CHUNK = 900  # rows per multi-row INSERT (5 parameters each, under SQLite's variable limit)
IN_CHUNK = 500

# the marks through their partial index (without INDEXED BY the planner scans every round for them)
PENDING_ALL = PENDING_PRACTICE.format(rounds="rounds r INDEXED BY rounds_learn_pending", learner="")
PENDING_MINE = PENDING_PRACTICE.format(
    rounds="rounds r INDEXED BY rounds_learn_pending",
    learner="AND r.platform = ? AND r.space_id = ? AND r.user_id = ? ",
)

# the daily rounds of one space marked for their card updates (through their partial index), oldest first;
# the second: only those one user answered
TO_LEARN = (
    f"SELECT {ROUND_COLUMNS} FROM rounds INDEXED BY rounds_cards_pending WHERE cards_pending IS NOT NULL "
    "AND platform = ? AND space_id = ? ORDER BY id LIMIT ?"
)
TO_LEARN_OF = (
    f"SELECT {ROUND_COLUMNS} FROM rounds INDEXED BY rounds_cards_pending WHERE cards_pending IS NOT NULL "
    "AND platform = ? AND space_id = ? AND EXISTS (SELECT 1 FROM answers a WHERE a.round_id = rounds.id "
    "AND a.user_id = ?) ORDER BY id LIMIT ?"
)

# rows to add to one board (`values`: a (?,?,?,?,?) per user), returning each user's new total and answer count
ADD_SCORES_SQL = (
    "INSERT INTO scores (platform, space_id, period, period_key, user_id, points, correct, answered, reached_at) "
    "SELECT ?, ?, ?, ?, column1, column2, column3, column5, column4 FROM (VALUES {values}) WHERE true "
    "ON CONFLICT (platform, space_id, period, period_key, user_id) DO UPDATE SET points = points + excluded.points, "
    "correct = correct + excluded.correct, answered = answered + excluded.answered, "
    "reached_at = COALESCE(excluded.reached_at, reached_at) RETURNING user_id, points, answered"
)


# the column order of rows.config_from_row (named, as migrations may add columns in any order)
CHANNEL_COLUMNS = (
    "platform, channel_id, space_id, post_time, timezone, weekdays, topics, difficulties, paused, reactions, "
    "answer_window_s, speed_bonus, updated_at, ping_winners, recap_day, threads, packs, champion_role, manager_role, "
    "ping_role, ping_group"
)

# a round's reveal claimed once (its row as revealed; none when it was revealed already)
CLAIM_REVEAL = f"UPDATE rounds SET revealed_at = ? WHERE id = ? AND revealed_at IS NULL RETURNING {ROUND_COLUMNS}"


def chunks(items: Sequence[T], size: int) -> Iterable[Sequence[T]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


class SqliteSettle:
    """The reveal and answer-batch steps (bot.store.settle.RevealTransaction, AnswerTransaction) on one open
    BEGIN IMMEDIATE transaction: the only writer of the file until it commits, so no space lock. Used on the
    connection's thread only; each step runs at once (no step suspends)."""

    def __init__(self, con: Connection) -> None:
        self.con = con

    async def _rows_in(self, sql: str, head: Sequence[object], items: Sequence[object]) -> list[Any]:
        """Run `sql` (with `{marks}` for an IN list) once per chunk of items; all the rows."""
        rows: list[Any] = []
        for chunk in chunks(items, IN_CHUNK):
            rows += self.con.execute(sql.format(marks=",".join("?" * len(chunk))), (*head, *chunk)).fetchall()
        return rows

    async def claim_reveal(self, round_id: int, revealed_at: dt.datetime) -> Round | None:
        rows = self.con.execute(CLAIM_REVEAL, (to_ts(revealed_at), round_id)).fetchall()
        return round_from_row(rows[0]) if rows else None

    async def lock_space(self, ref: ChannelRef) -> None:
        pass

    async def answers(self, round_id: int) -> tuple[Answer, ...]:
        rows = self.con.execute(f"SELECT {ANSWER_COLUMNS} FROM answers WHERE round_id = ?", (round_id,)).fetchall()
        return tuple(answer_from_row(r) for r in rows)

    async def previous_date(self, ref: ChannelRef, before: dt.date) -> dt.date | None:
        row = self.con.execute(
            "SELECT MAX(local_date) FROM rounds WHERE platform = ? AND space_id = ? AND kind = 'daily' "
            "AND revealed_at IS NOT NULL AND local_date < ?",
            (ref.platform, ref.space_id, before.isoformat()),
        ).fetchone()
        return parse_date(row[0])

    async def streaks(self, ref: ChannelRef, users: Sequence[str]) -> dict[str, StreakState]:
        rows = await self._rows_in(
            f"SELECT user_id, {STREAK_COLUMNS} FROM streaks WHERE platform = ? AND space_id = ? "
            "AND user_id IN ({marks})",
            (ref.platform, ref.space_id),
            users,
        )
        return {r[0]: streak_from_row(r[1:]) for r in rows}

    async def speed_bonus(self, ref: ChannelRef) -> bool:
        row = self.con.execute(
            "SELECT speed_bonus FROM channels WHERE platform = ? AND channel_id = ?", (ref.platform, ref.channel_id)
        ).fetchone()
        return bool(row and row[0])

    async def write_points(self, round_id: int, points: dict[str, int]) -> None:
        self.con.executemany(
            "UPDATE answers SET points = ? WHERE round_id = ? AND user_id = ?",
            [(p, round_id, uid) for uid, p in points.items()],
        )

    async def write_streaks(self, ref: ChannelRef, streaks: dict[str, StreakState]) -> None:
        self.con.executemany(
            WRITE_STREAK,
            [
                (
                    ref.platform,
                    ref.space_id,
                    uid,
                    s.current,
                    s.best,
                    s.last_date.isoformat() if s.last_date else None,
                    s.kept,
                    s.freezes,
                    s.freezes_used,
                    s.frozen,
                )
                for uid, s in streaks.items()
            ],
        )

    async def daily_dates_between(self, ref: ChannelRef, after: dt.date, before: dt.date, limit: int) -> int:
        rows = self.con.execute(
            DAILY_DATES_BETWEEN, (ref.platform, ref.space_id, after.isoformat(), before.isoformat(), limit)
        ).fetchall()
        return len(rows)

    async def add_scores(self, boards: BoardRows) -> dict[Board, dict[str, tuple[int, int]]]:
        return {board: self._add_scores(board, rows) for board, rows in boards.items()}

    def _add_scores(self, board: Board, rows: Sequence[ScoreRow]) -> dict[str, tuple[int, int]]:
        after: dict[str, tuple[int, int]] = {}
        for chunk in chunks(rows, IN_CHUNK):
            params: list[object] = [*board_key(board)]
            for uid, points, right, at, rounds in chunk:
                params += (uid, points, right, None if at is None else to_ts(at), rounds)
            values = ",".join(["(?,?,?,?,?)"] * len(chunk))
            for uid, total, answered in self.con.execute(ADD_SCORES_SQL.format(values=values), params).fetchall():
                after[uid] = (int(total), int(answered))
        return after

    async def move_buckets(self, moves: BoardMoves) -> None:
        self.con.executemany(
            "INSERT INTO score_buckets (platform, space_id, period, period_key, points, users) VALUES (?,?,?,?,?,?) "
            "ON CONFLICT (platform, space_id, period, period_key, points) DO UPDATE SET users = users + excluded.users",
            [(*board_key(board), *move) for board, changes in moves.items() for move in changes],
        )
        self.con.executemany(
            "DELETE FROM score_buckets WHERE platform = ? AND space_id = ? AND period = ? AND period_key = ? "
            "AND users <= 0",
            [board_key(board) for board in moves],
        )

    async def doubts(self, round_id: int) -> set[str]:
        rows = self.con.execute("SELECT user_id FROM answer_doubts WHERE round_id = ?", (round_id,)).fetchall()
        return {r[0] for r in rows}

    async def cards(
        self, platform: str, space_id: str, question_id: str, users: Sequence[str]
    ) -> dict[str, LearnerCard]:
        rows = await self._rows_in(
            f"SELECT {CARD_COLUMNS} FROM learner_cards WHERE platform = ? AND space_id = ? AND question_id = ? "
            "AND user_id IN ({marks})",
            (platform, space_id, question_id),
            users,
        )
        return {c.key.user_id: c for c in map(card_from_row, rows)}

    async def write_cards(self, updates: Sequence[tuple[LearnerCard, ReviewEvent]]) -> None:
        if not updates:
            return
        latest = {card.key: card for card, _ in updates}
        self.con.executemany(
            f"INSERT OR REPLACE INTO learner_cards ({CARD_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            [_card_row(card) for card in latest.values()],
        )
        self.con.executemany(
            f"INSERT INTO review_log ({EVENT_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?) ON CONFLICT DO NOTHING",
            [_event_row(event) for _, event in updates],
        )

    async def claim_practice(
        self, round_ids: Sequence[int], revealed_at: dt.datetime, *, learn: bool, unsure: Collection[int] = ()
    ) -> set[int]:
        rows = await self._rows_in(
            "UPDATE rounds SET revealed_at = ?, learn_pending = ? WHERE id IN ({marks}) AND revealed_at IS NULL "
            "AND kind = 'practice' RETURNING id",
            (to_ts(revealed_at), 1 if learn else None),
            round_ids,
        )
        claimed = {int(r[0]) for r in rows}
        doubted = sorted(claimed.intersection(unsure))
        if doubted:
            await self._rows_in("UPDATE rounds SET learn_pending = 0 WHERE id IN ({marks})", (), doubted)
        return claimed

    async def lock_learning(self) -> None:
        pass  # BEGIN IMMEDIATE made this transaction the only writer

    async def pending_practice(self, limit: int, learner: tuple[str, str, str] | None) -> list[PendingAnswer]:
        rows = self.con.execute(PENDING_MINE if learner else PENDING_ALL, (*(learner or ()), limit)).fetchall()
        return [
            PendingAnswer(int(r[0]), CardKey(r[1], r[2], r[3], r[4]), bool(r[6]), bool(r[5]), from_ts(r[7]))
            for r in rows
        ]

    async def clear_pending(self, round_ids: Sequence[int]) -> None:
        await self._rows_in("UPDATE rounds SET learn_pending = NULL WHERE id IN ({marks})", (), round_ids)

    async def mark_cards_pending(self, round_id: int) -> None:
        self.con.execute("UPDATE rounds SET cards_pending = 1 WHERE id = ?", (round_id,))

    async def space_to_learn(self) -> tuple[str, str] | None:
        row = self.con.execute(
            "SELECT platform, space_id FROM rounds INDEXED BY rounds_cards_pending WHERE cards_pending IS NOT NULL "
            "LIMIT 1"
        ).fetchone()
        return None if row is None else (row[0], row[1])

    async def rounds_to_learn(self, platform: str, space_id: str, limit: int, user_id: str | None) -> list[Round]:
        if user_id is None:
            rows = self.con.execute(TO_LEARN, (platform, space_id, limit)).fetchall()
        else:
            rows = self.con.execute(TO_LEARN_OF, (platform, space_id, user_id, limit)).fetchall()
        return [round_from_row(r) for r in rows]

    async def clear_cards_pending(self, round_ids: Sequence[int]) -> None:
        await self._rows_in("UPDATE rounds SET cards_pending = NULL WHERE id IN ({marks})", (), round_ids)

    async def cards_of(self, keys: Sequence[CardKey]) -> dict[CardKey, LearnerCard]:
        found: dict[CardKey, LearnerCard] = {}
        for chunk in chunks(keys, IN_CHUNK // 4):
            rows = self.con.execute(
                # a join on the keys (`IN (VALUES ...)` scans the whole table): one primary-key search each
                f"SELECT {', '.join('c.' + c.strip() for c in CARD_COLUMNS.split(','))} "
                f"FROM (VALUES {','.join('(?,?,?,?)' for _ in chunk)}) AS k JOIN learner_cards c "
                "ON c.platform = k.column1 AND c.space_id = k.column2 AND c.user_id = k.column3 "
                "AND c.question_id = k.column4",
                [v for k in chunk for v in (k.platform, k.space_id, k.user_id, k.question_id)],
            ).fetchall()
            found.update((c.key, c) for c in map(card_from_row, rows))
        return found

    async def round_windows(self, round_ids: Sequence[int]) -> dict[int, tuple[dt.datetime | None, dt.datetime | None]]:
        rows = await self._rows_in("SELECT id, revealed_at, closes_at FROM rounds WHERE id IN ({marks})", (), round_ids)
        return {rid: (from_ts(rev) if rev else None, from_ts(closes) if closes else None) for rid, rev, closes in rows}

    async def insert_answers(self, answers: Sequence[NewAnswer]) -> set[tuple[int, str]] | None:
        """One executemany, whose row count tells whether every answer went in (None), as all but a rare
        batch do; only when some were stored already is it undone to a savepoint and the answers inserted
        again, returning the keys of those that went in."""
        rows = [(a.round_id, a.user_id, a.choice, int(a.correct), to_ts(a.answered_at)) for a in answers]
        self.con.execute("SAVEPOINT insert_answers")
        cursor = self.con.executemany(INSERT_ANSWER + " ON CONFLICT DO NOTHING", rows)
        if cursor.rowcount == len(rows):
            self.con.execute("RELEASE insert_answers")
            return None
        self.con.execute("ROLLBACK TO insert_answers")
        self.con.execute("RELEASE insert_answers")
        inserted: set[tuple[int, str]] = set()
        for chunk in chunks(rows, INSERT_CHUNK):
            returned = self.con.execute(
                f"{INSERT_ANSWER[: -len(ONE_ANSWER)]}{','.join(ONE_ANSWER for _ in chunk)} "
                "ON CONFLICT DO NOTHING RETURNING round_id, user_id",
                [v for row in chunk for v in row],
            ).fetchall()
            inserted.update((r[0], r[1]) for r in returned)
        return inserted

    async def stored_choices(self, keys: Sequence[tuple[int, str]]) -> dict[tuple[int, str], int]:
        choices: dict[tuple[int, str], int] = {}
        for key in keys:
            row = self.con.execute("SELECT choice FROM answers WHERE round_id = ? AND user_id = ?", key).fetchone()
            if row:
                choices[key] = int(row[0])
        return choices


def _card_row(card: LearnerCard) -> tuple[object, ...]:
    values = card_values(card)
    return (
        *values[:8],
        to_ts(card.due),
        to_ts(card.last_review) if card.last_review else None,
        card.reviews,
        card.lapses,
        int(card.confident_miss),
    )


def _event_row(event: ReviewEvent) -> tuple[object, ...]:
    values = event_values(event)
    due_before = to_ts(event.due_before) if event.due_before else None
    return (*values[:4], to_ts(event.reviewed_at), event.rating, int(event.sure), due_before, event.recall)
