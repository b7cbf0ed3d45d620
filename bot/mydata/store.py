"""What a learner's export and forget-me need of the store."""

from __future__ import annotations

from typing import Protocol

from bot.mydata.export import Miss
from bot.mydata.forget import Forgotten


class MyDataStore(Protocol):
    """A learner's own data: their misses, and forgetting them."""

    # one learner's data in a space: `/quiz export` reads it, `/quiz forget-me` deletes it
    async def learner_misses(self, platform: str, space_id: str, user_id: str) -> list[Miss]:
        """The questions this learner answered wrong at least once in revealed rounds of the space (daily
        or practice), each with their latest attempt; latest first."""
        ...

    async def forget_learner(self, platform: str, space_id: str, user_id: str) -> Forgotten:
        """Delete, in one transaction, the learner's answers, practice rounds, memory cards, review log,
        streak and score rows in the space (their score buckets too, so ranks recount without them)."""
        ...
