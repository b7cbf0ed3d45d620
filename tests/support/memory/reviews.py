"""Review limits, vacation holds, plans and the questions reviews served (bot.practice.store.ReviewPlanStore):
what bot.store.reviews_sql does on SQL, on the store's tables."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import replace

from bot.kernel.values import ChannelRef, Round
from bot.practice.memory import CardKey
from bot.practice.values import CardMove, LearnerPlan, ReviewPrefs, ServedKind
from tests.support.memory.tables import MemoryTables, Tables, utc


class MemoryReviews(MemoryTables):
    """One settings row and one plan per (platform, space, user); served questions by round."""

    async def review_prefs(self, platform: str, space_id: str, user_id: str) -> ReviewPrefs:
        return (await self._db()).review_prefs.get((platform, space_id, user_id), ReviewPrefs())

    async def set_review_limit(self, platform: str, space_id: str, user_id: str, limit: int) -> None:
        if not 1 <= limit <= 100:  # the table's CHECK
            raise ValueError(f"daily_limit {limit} is not between 1 and 100")
        t = await self._db()
        key = (platform, space_id, user_id)
        t.review_prefs[key] = replace(t.review_prefs.get(key, ReviewPrefs()), daily_limit=limit)

    async def pause_reviews(
        self, platform: str, space_id: str, user_id: str, at: dt.datetime, until: dt.datetime
    ) -> ReviewPrefs:
        t = await self._db()
        key = (platform, space_id, user_id)
        old = t.review_prefs.get(key, ReviewPrefs())
        t.review_prefs[key] = replace(old, paused_at=old.paused_at or utc(at), paused_until=utc(until))
        return t.review_prefs[key]

    async def end_review_pause(
        self,
        platform: str,
        space_id: str,
        user_id: str,
        paused_at: dt.datetime,
        ended_at: dt.datetime,
        moves: Sequence[CardMove],
    ) -> bool:
        t = await self._db()
        key = (platform, space_id, user_id)
        old = t.review_prefs.get(key)
        if old is None or old.paused_at != utc(paused_at):
            return False
        t.review_prefs[key] = replace(old, paused_at=None, paused_until=None, resumed_at=utc(ended_at))
        _move(t, platform, space_id, user_id, moves)
        return True

    async def move_card_dues(self, platform: str, space_id: str, user_id: str, moves: Sequence[CardMove]) -> int:
        return _move(await self._db(), platform, space_id, user_id, moves)

    async def last_reviewed_at(self, platform: str, space_id: str, user_id: str) -> dt.datetime | None:
        await self.settle_learner(platform, space_id, user_id)
        t = await self._db()
        return max(
            (at for (k, at) in t.review_log if (k.platform, k.space_id, k.user_id) == (platform, space_id, user_id)),
            default=None,
        )

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
        round_ = await self.create_practice_round(ref, user_id, question_id, topic, opened_at)
        t = await self._db()
        t.review_days[round_.id] = (ref.platform, ref.space_id, user_id, local_date, question_id, kind)
        return round_

    async def create_practice_round(
        self, ref: ChannelRef, user_id: str, question_id: str, topic: str, opened_at: dt.datetime
    ) -> Round:
        raise NotImplementedError  # tests.support.memory.practice

    async def served_reviews(
        self, platform: str, space_id: str, user_id: str, local_date: dt.date
    ) -> list[tuple[str, ServedKind]]:
        t = await self._db()
        kinds: dict[str, ServedKind] = {}
        for p, s, u, day, qid, kind in t.review_days.values():
            if (p, s, u, day) == (platform, space_id, user_id, local_date):
                kinds[qid] = "review" if "review" in (kind, kinds.get(qid)) else "plan"
        return sorted(kinds.items())

    async def save_plan(self, plan: LearnerPlan) -> None:
        t = await self._db()
        t.plans[(plan.platform, plan.space_id, plan.user_id)] = replace(plan, started_at=utc(plan.started_at))

    async def learner_plan(self, platform: str, space_id: str, user_id: str) -> LearnerPlan | None:
        return (await self._db()).plans.get((platform, space_id, user_id))

    async def drop_plan(self, platform: str, space_id: str, user_id: str) -> bool:
        return (await self._db()).plans.pop((platform, space_id, user_id), None) is not None


def _move(t: Tables, platform: str, space_id: str, user_id: str, moves: Sequence[CardMove]) -> int:
    moved = 0
    for m in moves:
        key = CardKey(platform, space_id, user_id, m.question_id)
        card = t.cards.get(key)
        if card is not None and card.due == utc(m.due):
            t.cards[key] = replace(card, due=utc(m.new_due))
            moved += 1
    return moved
