"""The Store: the composition of every feature's store Protocol, which each engine implements.

A feature's service is handed the store typed as its own narrow Protocol (bot/<feature>/store.py); only the
composition root and the engines see the whole of it.
"""

from __future__ import annotations

from typing import Protocol

from bot.access.store import AccessStore
from bot.daily.store import ChannelStore, DeliveryStore, PastRounds, QuestionRates, RoundStore, StreakDates
from bot.installs.store import InstallStore
from bot.kernel.store import BoardReads, OnceStore
from bot.live.store import LiveStore
from bot.mydata.store import MyDataStore
from bot.packs.store import PackStore
from bot.practice.progress import ProgressStore
from bot.practice.store import PracticeStore, ReviewPlanStore
from bot.recap.store import RecapStore
from bot.reminders.store import ReminderStore
from bot.reports.store import ReportStore
from bot.seasons.store import SeasonStore
from bot.suggestions.store import SuggestionStore
from bot.teams.store import TeamStore


class StoreLifecycle(Protocol):
    """Opening, closing and migrating a database."""

    async def open(self, *, migrate: bool = True) -> None:
        """Connect and (unless told not to) apply pending migrations."""
        ...

    async def close(self) -> None: ...

    async def migrate(self) -> list[int]: ...

    async def schema_version(self) -> int: ...


class Store(
    StoreLifecycle,
    OnceStore,
    ChannelStore,
    RoundStore,
    DeliveryStore,
    BoardReads,
    PracticeStore,
    PackStore,
    ReportStore,
    SuggestionStore,
    ReminderStore,
    SeasonStore,
    RecapStore,
    MyDataStore,
    InstallStore,
    AccessStore,
    TeamStore,
    LiveStore,
    ReviewPlanStore,
    StreakDates,
    QuestionRates,
    PastRounds,
    ProgressStore,
    Protocol,
):
    """Persistence. Unique keys do the correctness work: one daily round per (channel, local date), one
    answer per (round, user); leaderboard aggregates are derived from the answer log at reveal."""
