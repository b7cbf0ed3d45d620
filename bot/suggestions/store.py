"""What suggestions need of the store."""

from __future__ import annotations

import datetime as dt
from typing import Protocol

from bot.kernel.values import (
    ChannelRef,
)
from bot.suggestions.values import Suggestion


class SuggestionStore(Protocol):
    """Members' suggestions and their review."""

    # members' question suggestions (bot.suggestions)
    async def add_suggestion(
        self, ref: ChannelRef, author_id: str, body: str, now: dt.datetime, day: dt.date, limit: int
    ) -> Suggestion | None:
        """Store a pending suggestion, unless the author already made `limit` in the space on `day` (then
        None, nothing stored): the count is raised atomically with the insert."""
        ...

    async def get_suggestion(self, platform: str, space_id: str, suggestion_id: int) -> Suggestion | None: ...

    async def list_suggestions(self, platform: str, space_id: str, status: str, limit: int) -> list[Suggestion]:
        """The space's suggestions with this status, oldest first, at most `limit`."""
        ...

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
        """In one transaction: a pending suggestion of the space joins `pack` (created if missing; a new
        version) under an id unique in the pack, and is marked approved. None: unknown here or decided
        already. PackError (too many packs or questions): nothing changed."""
        ...

    async def reject_suggestion(
        self, platform: str, space_id: str, suggestion_id: int, reason: str, decided_by: str, now: dt.datetime
    ) -> Suggestion | None:
        """Mark a pending suggestion of the space rejected with `reason`; None: unknown here or decided."""
