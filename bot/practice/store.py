"""What practice and reviews need of the store."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Protocol

from bot.kernel.store import ChannelReads, RoundReads
from bot.kernel.values import (
    ChannelRef,
    PracticeAnswer,
    Round,
)
from bot.practice.memory import LearnerCard, ReviewEvent


class PracticeStore(Protocol):
    """Practice rounds and each learner's memory cards."""

    async def create_practice_round(
        self, ref: ChannelRef, user_id: str, question_id: str, topic: str, opened_at: dt.datetime
    ) -> Round: ...

    async def reveal_practice(
        self, answers: Sequence[PracticeAnswer], revealed_at: dt.datetime, *, learn: bool = True
    ) -> list[bool]:
        """Reveal these practice rounds in one transaction, each once, and with `learn` mark each for its
        card update (learn_practice writes it); per answer, whether its round was revealed now (never a
        daily round)."""
        ...

    async def learn_practice(self, limit: int, learner: tuple[str, str, str] | None = None) -> int:
        """Write the card updates of up to `limit` marked practice answers (oldest first; `learner`:
        (platform, space, user) only) in one transaction, and unmark them; how many were written."""
        ...

    # learner memory (bot.learning): cards are written by reveal_round and learn_practice, read here (a
    # learner's marked practice answers are written first, so a read always sees every acknowledged answer)
    async def learner_cards(self, platform: str, space_id: str, user_id: str) -> list[LearnerCard]:
        """Every memory card of one learner in a space, by question id."""
        ...

    async def review_events(self, platform: str, space_id: str, user_id: str) -> list[ReviewEvent]:
        """One learner's review log in a space, oldest first."""
        ...


class PracticeServiceStore(PracticeStore, RoundReads, ChannelReads, Protocol):
    """What practice and reviews read and write: their own rows, and rounds and channels."""
