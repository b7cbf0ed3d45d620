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
from bot.practice.values import CardMove, LearnerPlan, ReviewPrefs, ServedKind


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

    async def learn_rounds(self, limit: int, learner: tuple[str, str, str] | None = None) -> int:
        """Write the card updates of up to `limit` daily rounds marked at their reveal by the tick (all of one
        space, oldest first; `learner`: only rounds that (platform, space, user) answered) in one transaction,
        and unmark them; how many rounds."""
        ...

    # learner memory (bot.learning): cards are written by reveal_round, learn_rounds and learn_practice, read
    # here (a learner's marked rounds and practice answers are written first, so a read always sees every
    # acknowledged answer)
    async def learner_cards(self, platform: str, space_id: str, user_id: str) -> list[LearnerCard]:
        """Every memory card of one learner in a space, by question id."""
        ...

    async def review_events(self, platform: str, space_id: str, user_id: str) -> list[ReviewEvent]:
        """One learner's review log in a space, oldest first."""
        ...


class ReviewPlanStore(Protocol):
    """A learner's review limit, vacation hold and plan, and the questions reviews served each day."""

    async def review_prefs(self, platform: str, space_id: str, user_id: str) -> ReviewPrefs:
        """The learner's review settings (the defaults when none were set)."""
        ...

    async def set_review_limit(self, platform: str, space_id: str, user_id: str, limit: int) -> None: ...

    async def pause_reviews(
        self, platform: str, space_id: str, user_id: str, at: dt.datetime, until: dt.datetime
    ) -> ReviewPrefs:
        """Hold the learner's reviews until `until` (a hold already running keeps its start); the settings after."""
        ...

    async def end_review_pause(
        self,
        platform: str,
        space_id: str,
        user_id: str,
        paused_at: dt.datetime,
        ended_at: dt.datetime,
        moves: Sequence[CardMove],
    ) -> bool:
        """End the hold that began at `paused_at` (as of `ended_at`, kept as resumed_at) and move these cards'
        due dates, in one transaction; False (nothing changed) when that hold was ended already (by another
        process). A card whose due date changed meanwhile keeps it."""
        ...

    async def move_card_dues(self, platform: str, space_id: str, user_id: str, moves: Sequence[CardMove]) -> int:
        """Move these cards' due dates (each only if it is still the one given), in one transaction; how many."""
        ...

    async def last_reviewed_at(self, platform: str, space_id: str, user_id: str) -> dt.datetime | None:
        """When the learner last answered anything in the space (their review log's latest)."""
        ...

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
        """create_practice_round, and the question counted as served by a review on the learner's local date,
        in one transaction."""
        ...

    async def served_reviews(
        self, platform: str, space_id: str, user_id: str, local_date: dt.date
    ) -> list[tuple[str, ServedKind]]:
        """The questions reviews served the learner on that local date, each once: (question id, kind)."""
        ...

    async def save_plan(self, plan: LearnerPlan) -> None:
        """Insert or replace the learner's plan."""
        ...

    async def learner_plan(self, platform: str, space_id: str, user_id: str) -> LearnerPlan | None: ...

    async def drop_plan(self, platform: str, space_id: str, user_id: str) -> bool:
        """Remove the learner's plan; True when there was one."""
        ...


class PracticeServiceStore(PracticeStore, ReviewPlanStore, RoundReads, ChannelReads, Protocol):
    """What practice and reviews read and write: their own rows, and rounds and channels."""
