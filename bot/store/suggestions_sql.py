"""Suggestions in SQL written once for both engines."""

from __future__ import annotations

import datetime as dt

from bot.kernel.values import (
    ChannelRef,
)
from bot.store.base import SqlBase
from bot.store.rows import (
    SUGGESTION_COLUMNS,
    approved_question,
    pack_full,
    suggestion_from_row,
)
from bot.suggestions.values import Suggestion


class SuggestionSql(SqlBase):
    """Members' suggestions: stored, listed, and approved into a pack or rejected."""

    async def add_suggestion(
        self, ref: ChannelRef, author_id: str, body: str, now: dt.datetime, day: dt.date, limit: int
    ) -> Suggestion | None:
        """The day's count is raised first (its row lock holds off the author's other suggestions until
        commit), and the suggestion is inserted only while the count is within the limit. The counts are
        kept two days, so a forget-me does not reset the limit."""
        key = (ref.platform, ref.space_id, author_id)
        rows = await self._atomic_steps(
            [
                # days before yesterday are over in every timezone: their counts go (a forgotten
                # learner's too), whoever they belong to
                ("DELETE FROM suggestion_quota WHERE day < ?", (self._day(day - dt.timedelta(days=1)),)),
                (
                    "INSERT INTO suggestion_quota (platform, space_id, user_id, day, used) VALUES (?, ?, ?, ?, 1) "
                    "ON CONFLICT (platform, space_id, user_id, day) DO UPDATE SET used = suggestion_quota.used + 1",
                    (*key, self._day(day)),
                ),
                (
                    "INSERT INTO suggestions (platform, space_id, channel_id, author_id, body, created_at) "
                    "SELECT ?, ?, ?, ?, ?, ? WHERE (SELECT used FROM suggestion_quota WHERE platform = ? "
                    f"AND space_id = ? AND user_id = ? AND day = ?) <= ? RETURNING {SUGGESTION_COLUMNS}",
                    (
                        ref.platform,
                        ref.space_id,
                        ref.channel_id,
                        author_id,
                        body,
                        self._ts(now),
                        *key,
                        self._day(day),
                        limit,
                    ),
                ),
            ]
        )
        return suggestion_from_row(rows[0]) if rows else None

    async def get_suggestion(self, platform: str, space_id: str, suggestion_id: int) -> Suggestion | None:
        row = await self._first(
            f"SELECT {SUGGESTION_COLUMNS} FROM suggestions WHERE id = ? AND platform = ? AND space_id = ?",
            (suggestion_id, platform, space_id),
        )
        return suggestion_from_row(row) if row else None

    async def list_suggestions(self, platform: str, space_id: str, status: str, limit: int) -> list[Suggestion]:
        rows = await self._read(
            f"SELECT {SUGGESTION_COLUMNS} FROM suggestions WHERE platform = ? AND space_id = ? AND status = ? "
            "ORDER BY id LIMIT ?",
            (platform, space_id, status, limit),
        )
        return [suggestion_from_row(r) for r in rows]

    async def reject_suggestion(
        self, platform: str, space_id: str, suggestion_id: int, reason: str, decided_by: str, now: dt.datetime
    ) -> Suggestion | None:
        rows = await self._atomic(
            "UPDATE suggestions SET status = 'rejected', reason = ?, decided_by = ?, decided_at = ? "
            "WHERE id = ? AND platform = ? AND space_id = ? AND status = 'pending' "
            f"RETURNING {SUGGESTION_COLUMNS}",
            (reason, decided_by, self._ts(now), suggestion_id, platform, space_id),
        )
        return suggestion_from_row(rows[0]) if rows else None

    async def approve_suggestion(
        self,
        platform: str,
        space_id: str,
        suggestion_id: int,
        pack: str,
        decided_by: str,
        now: dt.datetime,
        *,
        max_packs: int,
        max_questions: int,
    ) -> Suggestion | None:
        """The space's pack lock (the one imports take) is waited for, so approvals and imports into the
        space run one at a time; the suggestion's row lock makes a second approval of it find it decided."""
        async with self._write_tx() as tx:
            await tx.lock_packs(platform, space_id, wait=True)
            found = await tx.rows(
                "SELECT body FROM suggestions WHERE id = ? AND platform = ? AND space_id = ? AND status = 'pending'"
                + tx.for_update,
                (suggestion_id, platform, space_id),
            )
            if not found:
                return None
            row = await tx.rows(
                "SELECT questions FROM packs WHERE platform = ? AND space_id = ? AND name = ?",
                (platform, space_id, pack),
            )
            packs = await self._count_packs(tx, platform, space_id)
            pack_full(pack, packs, int(row[0][0]) if row else None, max_packs, max_questions)
            present = await tx.rows(
                "SELECT question_id, position FROM pack_questions WHERE platform = ? AND space_id = ? AND pack = ?",
                (platform, space_id, pack),
            )
            qid, body = approved_question(suggestion_id, found[0][0], {r[0] for r in present})
            await tx.run(
                "INSERT INTO pack_questions (platform, space_id, pack, position, question_id, body) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (platform, space_id, pack, max((int(r[1]) for r in present), default=-1) + 1, qid, body),
            )
            await tx.run(
                "INSERT INTO packs AS p (platform, space_id, name, version, questions, updated_at) "
                "VALUES (?, ?, ?, 1, 1, ?) ON CONFLICT (platform, space_id, name) DO UPDATE SET "
                "version = p.version + 1, questions = p.questions + 1, updated_at = excluded.updated_at",
                (platform, space_id, pack, self._ts(now)),
            )
            decided = await tx.rows(
                "UPDATE suggestions SET status = 'approved', decided_by = ?, decided_at = ?, question_id = ? "
                f"WHERE id = ? RETURNING {SUGGESTION_COLUMNS}",
                (decided_by, self._ts(now), qid, suggestion_id),
            )
            return suggestion_from_row(decided[0])
