"""A space's own question packs and what each round asked (bot.packs.store.PackStore)."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Sequence

from bot.kernel.errors import PackError, PackExists
from tests.support.memory.tables import MemoryTables, in_space, utc


class MemoryPacks(MemoryTables):
    """Packs per (platform, space, name), all or nothing, versioned."""

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
        t = await self._db()
        utc(now)
        key = (platform, space_id, name)
        if key in t.packs and not replace:
            raise PackExists(f"The pack {name} already exists in this space; import with --replace to replace it.")
        if key not in t.packs:
            count = sum(1 for p, s, _ in t.packs if (p, s) == (platform, space_id))
            if count >= max_packs:
                raise PackError(f"This space has {count} packs, the most it may hold; remove one first.")
        version = (t.packs[key][0] if key in t.packs else 0) + 1
        t.packs[key] = (version, [(str(q), str(b)) for q, b in questions])
        return version

    async def list_packs(self, platform: str, space_id: str) -> list[tuple[str, int, int]]:
        t = await self._db()
        return [(n, len(rows), v) for (p, s, n), (v, rows) in sorted(t.packs.items()) if (p, s) == (platform, space_id)]

    async def pack_questions(self, platform: str, space_id: str, name: str) -> list[tuple[str, str]]:
        t = await self._db()
        found = t.packs.get((platform, space_id, name))
        return list(found[1]) if found else []

    async def save_round_question(self, round_id: int, body: str) -> None:
        (await self._db()).round_questions.setdefault(round_id, body)

    async def round_question(self, round_id: int) -> str | None:
        return (await self._db()).round_questions.get(round_id)

    async def question_answer_counts(self, platform: str, space_id: str) -> list[tuple[str, int, tuple[int, ...], int]]:
        t = await self._db()
        asked: Counter[str] = Counter()
        chosen: dict[str, list[int]] = {}
        for r in t.rounds.values():
            if in_space(r, platform, space_id) and r.revealed_at is not None:  # revealed rounds only
                asked[r.question_id] += 1
                row = chosen.setdefault(r.question_id, [0, 0, 0, 0, 0])
                for a in t.answers.get(r.id, {}).values():
                    row[a.choice] += 1
                    row[4] += int(a.correct)
        return sorted((q, n, tuple(chosen[q][:4]), chosen[q][4]) for q, n in asked.items())
