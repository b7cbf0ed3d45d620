"""What reminders need of the store."""

from __future__ import annotations

import datetime as dt
from typing import Protocol

from bot.kernel.store import ChannelReads, RoundReads
from bot.kernel.values import (
    SpaceFilter,
)
from bot.practice.store import PracticeStore
from bot.reminders.values import Reminder


class ReminderStore(Protocol):
    """Learners' daily reminders, one send a day decided here."""

    # reminders (bot.reminders): one row per (platform, space, user); the day's send is claimed once
    async def save_reminder(self, reminder: Reminder) -> None:
        """Insert or replace the learner's reminder (every field, its next due instant too)."""
        ...

    async def get_reminder(self, platform: str, space_id: str, user_id: str) -> Reminder | None: ...

    async def due_reminders(self, now: dt.datetime, limit: int, spaces: SpaceFilter | None = None) -> list[Reminder]:
        """Enabled reminders whose next due instant is not after `now`, the earliest first."""
        ...

    async def advance_reminder(
        self, platform: str, space_id: str, user_id: str, due_at: dt.datetime, next_at: dt.datetime
    ) -> None:
        """Move the reminder's next due instant from `due_at` to `next_at` (unless it was changed meanwhile)."""
        ...

    async def claim_reminder_day(
        self, platform: str, space_id: str, user_id: str, local_date: dt.date, now: dt.datetime
    ) -> bool:
        """True the first time the learner's reminder of `local_date` is claimed (once per day, ever)."""
        ...

    async def disable_reminder(self, platform: str, space_id: str, user_id: str) -> bool:
        """Switch the learner's reminder off; True when it was on (so the caller logs it once)."""
        ...


class ReminderServiceStore(ReminderStore, RoundReads, ChannelReads, PracticeStore, Protocol):
    """What reminders read and write: reminders, and what a reminder tells (due cards, today's round)."""
