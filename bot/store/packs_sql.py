"""Packs in SQL written once for both engines."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from bot.kernel.errors import PackBusy, PackError, PackExists
from bot.store.base import SqlBase
from bot.store.rows import (
    answer_counts,
)


class PackSql(SqlBase):
    """A space's question packs and the question each round asked."""

    async def save_round_question(self, round_id: int, body: str) -> None:
        """Keep the question a round posted, as posted (the first one saved stays)."""
        await self._atomic(
            "INSERT INTO round_questions (round_id, body) VALUES (?, ?) ON CONFLICT DO NOTHING", (round_id, body)
        )

    async def round_question(self, round_id: int) -> str | None:
        row = await self._first("SELECT body FROM round_questions WHERE round_id = ?", (round_id,))
        return row[0] if row else None

    async def list_packs(self, platform: str, space_id: str) -> list[tuple[str, int, int]]:
        """(name, questions, version) of the space's own packs, by name."""
        rows = await self._read(
            "SELECT name, questions, version FROM packs WHERE platform = ? AND space_id = ? ORDER BY name",
            (platform, space_id),
        )
        return [(r[0], int(r[1]), int(r[2])) for r in rows]

    async def pack_questions(self, platform: str, space_id: str, name: str) -> list[tuple[str, str]]:
        """(question id, body) of one of the space's packs in import order ([] when there is no such pack)."""
        rows = await self._read(
            "SELECT question_id, body FROM pack_questions WHERE platform = ? AND space_id = ? AND pack = ? "
            "ORDER BY position",
            (platform, space_id, name),
        )
        return [(r[0], r[1]) for r in rows]

    async def question_answer_counts(self, platform: str, space_id: str) -> list[tuple[str, int, tuple[int, ...], int]]:
        """Per question asked in the space, of its revealed rounds only (an open round shows nothing before its
        reveal): (question id, rounds, answers per choice A-D, correct answers)."""
        asked = await self._read(
            "SELECT question_id, COUNT(*) FROM rounds WHERE platform = ? AND space_id = ? "
            "AND revealed_at IS NOT NULL GROUP BY question_id",
            (platform, space_id),
        )
        chosen = await self._read(
            "SELECT r.question_id, a.choice, COUNT(*), COUNT(*) FILTER (WHERE a.correct) FROM answers a "
            "JOIN rounds r ON r.id = a.round_id WHERE r.platform = ? AND r.space_id = ? "
            "AND r.revealed_at IS NOT NULL GROUP BY r.question_id, a.choice",
            (platform, space_id),
        )
        return answer_counts(asked, chosen)

    async def save_pack(
        self,
        platform: str,
        space_id: str,
        name: str,
        questions: Sequence[tuple[str, str]],
        *,
        replace: bool,
        max_packs: int,
        now: dt.datetime,
    ) -> int:
        """Create (or, with replace, replace) a space's pack with (question id, body) rows, all or nothing;
        returns its new version. One import per space at a time: a second one while the first runs gets
        PackBusy at once; PackExists / PackError (too many packs) change nothing."""
        async with self._write_tx() as tx:
            if not await tx.lock_packs(platform, space_id, wait=False):
                raise PackBusy(
                    "Another import into this space is running right now; nothing was imported. "
                    "Try again when it has finished."
                )
            found = await tx.rows(
                "SELECT version FROM packs WHERE platform = ? AND space_id = ? AND name = ?", (platform, space_id, name)
            )
            if found and not replace:
                raise PackExists(f"The pack {name} already exists in this space; import with --replace to replace it.")
            if not found:
                count = await self._count_packs(tx, platform, space_id)
                if count >= max_packs:
                    raise PackError(f"This space has {count} packs, the most it may hold; remove one first.")
            version = (int(found[0][0]) if found else 0) + 1
            await tx.run(
                "DELETE FROM pack_questions WHERE platform = ? AND space_id = ? AND pack = ?",
                (platform, space_id, name),
            )
            await tx.run_many(
                "INSERT INTO pack_questions (platform, space_id, pack, position, question_id, body) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [(platform, space_id, name, i, qid, body) for i, (qid, body) in enumerate(questions)],
            )
            await tx.run(
                "INSERT INTO packs (platform, space_id, name, version, questions, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (platform, space_id, name) DO UPDATE SET version = excluded.version, "
                "questions = excluded.questions, updated_at = excluded.updated_at",
                (platform, space_id, name, version, len(questions), self._ts(now)),
            )
            return version
