"""Leaderboards and a learner's stats in a space (daily points only count on the boards)."""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from bot.daily import cards as daily_cards
from bot.daily.cards import LearningStats, StatsCard
from bot.daily.store import StreakDates
from bot.kernel import cards
from bot.kernel.cards import LeaderboardCard
from bot.kernel.context import Context
from bot.kernel.scoring import FREEZES_MAX, needs_missed, period_keys
from bot.kernel.store import BoardReads
from bot.kernel.values import Period

LEADERBOARD_SIZE = 10


class LearnerMemory(Protocol):
    """What the stats card shows of a learner's memory (the practice feature provides it)."""

    async def learning(self, platform: str, space_id: str, user_id: str, tz: str) -> LearningStats: ...


class BoardsStore(BoardReads, StreakDates, Protocol):
    """What leaderboards and stats read."""


class Boards:
    """Leaderboards (this week, this month, all time in the space's timezone) and personal stats."""

    def __init__(self, ctx: Context, store: BoardsStore) -> None:
        self.ctx = ctx
        self.store = store
        self.memory: LearnerMemory | None = None  # set by the composition root (the practice feature)

    async def leaderboard(
        self, platform: str, space_id: str, period: Period, asker: str | None = None, *, public: bool = False
    ) -> LeaderboardCard:
        """Top 10 for this week, this month or all time (in the space's timezone), plus the asker's rank;
        `public`: to be posted in the channel (the adapter shows names without notifying anyone)."""
        today, _tz = await self.ctx.space_today(platform, space_id)
        key = dict(period_keys(today))[period]
        rows, me = await self.store.board_and_rank(platform, space_id, period, key, LEADERBOARD_SIZE, asker)
        card = cards.leaderboard_card(period, today, key, rows, me)
        return replace(card, public=True) if public else card

    async def stats(self, platform: str, space_id: str, user_id: str) -> StatsCard:
        """Answered, correct, accuracy by topic (daily and practice), streaks, all-time points and the
        learner's memory (reviews due, recall by topic, calibration)."""
        card = await self.stats_without_memory(platform, space_id, user_id)
        if self.memory is None:
            return card
        _today, tz = await self.ctx.space_today(platform, space_id)
        return replace(card, learning=await self.memory.learning(platform, space_id, user_id, tz))

    async def stats_without_memory(self, platform: str, space_id: str, user_id: str) -> StatsCard:
        rows = await self.store.user_topic_stats(platform, space_id, user_id)
        state = await self.store.streak(platform, space_id, user_id)
        latest = await self.store.latest_revealed_date(platform, space_id)
        mine = await self.store.rank_of(platform, space_id, Period.ALL, "all", user_id)
        missed = 0
        if needs_missed(state, latest) and state is not None and state.last_date is not None and latest is not None:
            # the daily dates since their last right one, which held freezes bridge (as the next reveal will)
            missed = await self.store.missed_daily_dates(platform, space_id, state.last_date, latest, FREEZES_MAX + 1)
        return daily_cards.stats_card(user_id, rows, state, latest, mine.points if mine else 0, missed)
