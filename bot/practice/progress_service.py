"""The learning report (`/quiz progress`, Discord `/progress`): a learner's proof that the bot teaches them, in
counted numbers and a chart. Every count comes from the store in one place (ProgressStore.learner_progress);
the memory forecast from the learner's cards; an interview-date plan adds its figures through PlanFigures."""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from bot.kernel.context import Context
from bot.kernel.drawing import draw_off_loop
from bot.kernel.values import ChannelRef, Question
from bot.practice.progress import ProgressStore, memory_by_topic
from bot.practice.progress_cards import PlanFigures, ProgressCard
from bot.practice.store import PracticeStore


class ProgressServiceStore(ProgressStore, PracticeStore, Protocol):
    """What the report reads: its counts and the learner's memory cards."""


class PracticePool(Protocol):
    async def practice_pool(self, ref: ChannelRef) -> tuple[Question, ...]: ...

    async def space_practice_pool(self, platform: str, space_id: str) -> tuple[Question, ...]: ...


class Progress:
    """One learner's report in a space: measured retention by week, recall of missed daily questions,
    calibration, memory by topic with a 30-day forecast, and the chart of them."""

    def __init__(self, ctx: Context, store: ProgressServiceStore, practice: PracticePool) -> None:
        self.ctx = ctx
        self.store = store
        self.practice = practice
        self.plan: PlanFigures | None = None  # set by the composition root where interview-date plans run

    async def report(self, ref: ChannelRef, user_id: str, *, chart: bool = True) -> ProgressCard:
        """The asker's own report in the channel's space (weeks in the space's timezone; topics of the
        channel's packs), with its chart as a PNG drawn off the event loop (none when there is nothing to
        chart, or without `chart`)."""
        pool = await self.practice.practice_pool(ref)
        return await self._report(ref.platform, ref.space_id, user_id, pool, chart)

    async def space_report(self, platform: str, space_id: str, user_id: str) -> ProgressCard:
        """The report seen from the whole space (the dashboard): topics of the packs of all its quiz
        channels; no chart (the dashboard draws its own)."""
        pool = await self.practice.space_practice_pool(platform, space_id)
        return await self._report(platform, space_id, user_id, pool, False)

    async def _report(
        self, platform: str, space_id: str, user_id: str, pool: tuple[Question, ...], chart: bool
    ) -> ProgressCard:
        now = self.ctx.now()
        _today, tz = await self.ctx.space_today(platform, space_id)
        counts = await self.store.learner_progress(platform, space_id, user_id, tz, now)
        cards = await self.store.learner_cards(platform, space_id, user_id)
        plan = await self.plan.plan_progress(platform, space_id, user_id, now) if self.plan else None
        card = ProgressCard(
            user_id,
            counts,
            memory_by_topic(cards, self.ctx.bank.questions, pool, now),
            tz,
            plan,
            practice_command=self.ctx.commands_of(platform).practice,
        )
        if not chart or card.empty:
            return card
        return replace(card, png=await draw_off_loop(lambda: _draw(card)))


def _draw(card: ProgressCard) -> bytes:
    from bot.practice.progress_chart import draw_progress  # matplotlib: imported on the drawing thread

    return draw_progress(card)
