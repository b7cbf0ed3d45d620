"""Backlog-safe reviews and interview-date plans in SQL, written once for both engines: a learner's review
limit and vacation hold, their plan, the questions reviews served each day, and moves of due dates."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from bot.kernel.values import ChannelRef, Round
from bot.practice.values import CardMove, LearnerPlan, ReviewPrefs, ServedKind
from bot.store.base import PENDING_OF_LEARNER, SqlBase, SqlTx
from bot.store.rows import ROUND_COLUMNS, from_ts, parse_date, round_from_row

_MINE = "platform = ?1 AND space_id = ?2 AND user_id = ?3"
# forget-me (bot.store.learner_sql): the learner's review settings, plan and served days go too
FORGET_REVIEWS: tuple[tuple[str, str], ...] = (
    ("", f"DELETE FROM review_days WHERE {_MINE}"),  # which reviews they were given a day: their rounds go too
    ("review_settings", f"DELETE FROM learner_plans WHERE {_MINE}"),
    ("review_settings", f"DELETE FROM review_prefs WHERE {_MINE}"),
)
PREFS_COLUMNS = "daily_limit, paused_at, paused_until, resumed_at"
PLAN_COLUMNS = "platform, space_id, user_id, channel_id, plan_date, topics, started_at"
MOVE_DUE = (
    "UPDATE learner_cards SET due = ? WHERE platform = ? AND space_id = ? AND user_id = ? AND question_id = ? "
    "AND due = ?"
)


def prefs_from_row(row: Any) -> ReviewPrefs:
    return ReviewPrefs(
        None if row[0] is None else int(row[0]),
        None if row[1] is None else from_ts(row[1]),
        None if row[2] is None else from_ts(row[2]),
        None if row[3] is None else from_ts(row[3]),
    )


def plan_from_row(row: Any) -> LearnerPlan:
    day = parse_date(row[4])
    assert day is not None
    topics = tuple(t for t in str(row[5]).split(",") if t)
    return LearnerPlan(row[0], row[1], row[2], row[3], day, topics, from_ts(row[6]))


class ReviewSql(SqlBase):
    """A learner's review limit, vacation hold and plan; the questions reviews served; moved due dates."""

    async def settle_learner(self, platform: str, space_id: str, user_id: str) -> None:
        raise NotImplementedError  # bot.store.settle.SettlingStore

    async def review_prefs(self, platform: str, space_id: str, user_id: str) -> ReviewPrefs:
        row = await self._first(
            f"SELECT {PREFS_COLUMNS} FROM review_prefs WHERE platform = ? AND space_id = ? AND user_id = ?",
            (platform, space_id, user_id),
        )
        return prefs_from_row(row) if row else ReviewPrefs()

    async def set_review_limit(self, platform: str, space_id: str, user_id: str, limit: int) -> None:
        await self._atomic(
            "INSERT INTO review_prefs (platform, space_id, user_id, daily_limit) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (platform, space_id, user_id) DO UPDATE SET daily_limit = excluded.daily_limit",
            (platform, space_id, user_id, limit),
        )

    async def pause_reviews(
        self, platform: str, space_id: str, user_id: str, at: dt.datetime, until: dt.datetime
    ) -> ReviewPrefs:
        rows = await self._atomic(
            "INSERT INTO review_prefs (platform, space_id, user_id, paused_at, paused_until) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (platform, space_id, user_id) DO UPDATE SET "
            "paused_at = COALESCE(review_prefs.paused_at, excluded.paused_at), paused_until = excluded.paused_until "
            f"RETURNING {PREFS_COLUMNS}",
            (platform, space_id, user_id, self._ts(at), self._ts(until)),
        )
        return prefs_from_row(rows[0])

    async def end_review_pause(
        self,
        platform: str,
        space_id: str,
        user_id: str,
        paused_at: dt.datetime,
        ended_at: dt.datetime,
        moves: Sequence[CardMove],
    ) -> bool:
        async with self._write_tx() as tx:
            ended = await tx.run(
                "UPDATE review_prefs SET paused_at = NULL, paused_until = NULL, resumed_at = ? "
                "WHERE platform = ? AND space_id = ? AND user_id = ? AND paused_at = ?",
                (self._ts(ended_at), platform, space_id, user_id, self._ts(paused_at)),
            )
            if not ended:
                return False
            await self._move(tx, platform, space_id, user_id, moves)
            return True

    async def move_card_dues(self, platform: str, space_id: str, user_id: str, moves: Sequence[CardMove]) -> int:
        if not moves:
            return 0
        async with self._write_tx() as tx:
            return await self._move(tx, platform, space_id, user_id, moves)

    async def _move(self, tx: SqlTx, platform: str, space_id: str, user_id: str, moves: Sequence[CardMove]) -> int:
        moved = 0
        for m in moves:
            moved += await tx.run(
                MOVE_DUE,
                (self._ts(m.new_due), platform, space_id, user_id, m.question_id, self._ts(m.due)),
            )
        return moved

    async def last_reviewed_at(self, platform: str, space_id: str, user_id: str) -> dt.datetime | None:
        if await self._read(PENDING_OF_LEARNER, (platform, space_id, user_id)):
            await self.settle_learner(platform, space_id, user_id)  # its answers are in the log first
        row = await self._first(
            "SELECT MAX(reviewed_at) FROM review_log WHERE platform = ? AND space_id = ? AND user_id = ?",
            (platform, space_id, user_id),
        )
        return None if row is None or row[0] is None else from_ts(row[0])

    async def open_review_round(
        self,
        ref: ChannelRef,
        user_id: str,
        question_id: str,
        topic: str,
        opened_at: dt.datetime,
        local_date: dt.date,
        kind: ServedKind,
    ) -> Round:
        async with self._write_tx() as tx:
            rows = await tx.rows(
                "INSERT INTO rounds (kind, platform, space_id, channel_id, user_id, question_id, topic, opened_at) "
                f"VALUES ('practice',?,?,?,?,?,?,?) RETURNING {ROUND_COLUMNS}",
                (ref.platform, ref.space_id, ref.channel_id, user_id, question_id, topic, self._ts(opened_at)),
            )
            round_ = round_from_row(rows[0])
            await tx.run(
                "INSERT INTO review_days (round_id, platform, space_id, user_id, local_date, question_id, kind) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (round_.id, ref.platform, ref.space_id, user_id, self._day(local_date), question_id, kind),
            )
            return round_

    async def served_reviews(
        self, platform: str, space_id: str, user_id: str, local_date: dt.date
    ) -> list[tuple[str, ServedKind]]:
        rows = await self._read(
            "SELECT question_id, MAX(kind) FROM review_days WHERE platform = ? AND space_id = ? AND user_id = ? "
            f"AND local_date = ? GROUP BY question_id ORDER BY question_id{self.text_order}",
            (platform, space_id, user_id, self._day(local_date)),
        )
        return [(r[0], "review" if r[1] == "review" else "plan") for r in rows]

    async def save_plan(self, plan: LearnerPlan) -> None:
        await self._atomic(
            f"INSERT INTO learner_plans ({PLAN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (platform, space_id, user_id) DO UPDATE SET channel_id = excluded.channel_id, "
            "plan_date = excluded.plan_date, topics = excluded.topics, started_at = excluded.started_at",
            (
                plan.platform,
                plan.space_id,
                plan.user_id,
                plan.channel_id,
                self._day(plan.plan_date),
                ",".join(plan.topics),
                self._ts(plan.started_at),
            ),
        )

    async def learner_plan(self, platform: str, space_id: str, user_id: str) -> LearnerPlan | None:
        row = await self._first(
            f"SELECT {PLAN_COLUMNS} FROM learner_plans WHERE platform = ? AND space_id = ? AND user_id = ?",
            (platform, space_id, user_id),
        )
        return plan_from_row(row) if row else None

    async def drop_plan(self, platform: str, space_id: str, user_id: str) -> bool:
        rows = await self._atomic(
            "DELETE FROM learner_plans WHERE platform = ? AND space_id = ? AND user_id = ? RETURNING user_id",
            (platform, space_id, user_id),
        )
        return bool(rows)
