"""Practice rounds and learners' memory cards (bot.practice.store.PracticeStore); the reveals and card
updates themselves are bot.store.settle's (MemoryTables)."""

from __future__ import annotations

import datetime as dt

from bot.kernel.values import ChannelRef, Round, RoundKind
from bot.practice.memory import LearnerCard, ReviewEvent
from tests.support.memory.tables import MemoryTables, utc


class MemoryPractice(MemoryTables):
    """A learner's marked practice updates are written before their cards are read."""

    async def create_practice_round(
        self, ref: ChannelRef, user_id: str, question_id: str, topic: str, opened_at: dt.datetime
    ) -> Round:
        t = await self._db()
        round_ = Round(
            id=t.last_id + 1,
            kind=RoundKind.PRACTICE,
            ref=ref,
            question_id=question_id,
            topic=topic,
            opened_at=utc(opened_at),
            user_id=user_id,
        )
        t.last_id = round_.id
        t.rounds[round_.id] = round_
        return round_

    async def learner_cards(self, platform: str, space_id: str, user_id: str) -> list[LearnerCard]:
        await self.settle_learner(platform, space_id, user_id)
        t = await self._db()
        mine = [c for k, c in t.cards.items() if (k.platform, k.space_id, k.user_id) == (platform, space_id, user_id)]
        return sorted(mine, key=lambda c: c.key.question_id)

    async def review_events(self, platform: str, space_id: str, user_id: str) -> list[ReviewEvent]:
        await self.settle_learner(platform, space_id, user_id)
        t = await self._db()
        mine = [
            e
            for (k, _), e in t.review_log.items()
            if (k.platform, k.space_id, k.user_id) == (platform, space_id, user_id)
        ]
        return sorted(mine, key=lambda e: (e.reviewed_at, e.key.question_id))
