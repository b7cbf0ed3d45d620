"""What packs need of the store."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Protocol


class PackStore(Protocol):
    """A space's own question packs and what each round asked."""

    # question packs (bot.packs): a space's own, all or nothing
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
        """Create or (replace) replace a pack with (question id, body) rows; its new version. PackExists,
        PackBusy (another import into the space is running) or PackError (too many packs): nothing changed."""
        ...

    async def list_packs(self, platform: str, space_id: str) -> list[tuple[str, int, int]]:
        """(name, questions, version) of the space's own packs, by name."""
        ...

    async def pack_questions(self, platform: str, space_id: str, name: str) -> list[tuple[str, str]]: ...

    async def save_round_question(self, round_id: int, body: str) -> None: ...

    async def question_answer_counts(self, platform: str, space_id: str) -> list[tuple[str, int, tuple[int, ...], int]]:
        """Per question asked in the space, of its revealed rounds only (an open round's question, answers and
        share right show nowhere before its reveal): (question id, rounds, answers per choice A-D, correct)."""
        ...

    async def round_question(self, round_id: int) -> str | None: ...
