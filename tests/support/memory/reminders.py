"""Learners' daily reminders, one send a day decided here (bot.reminders.store.ReminderStore): what
bot.store.reminders_sql does on SQL, on two dicts of the store's tables."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

from bot.kernel.values import ChannelRef, SpaceFilter
from bot.reminders.values import Reminder
from tests.support.memory.tables import MemoryTables, utc

Key = tuple[str, str, str]  # platform, space, user


class MemoryReminders(MemoryTables):
    """One reminder per (platform, space, user), and the days already claimed."""

    async def save_reminder(self, reminder: Reminder) -> None:
        t = await self._db()
        at = reminder.at.replace(second=0, microsecond=0)  # a row keeps HH:MM
        next_at = utc(reminder.next_at) if reminder.next_at is not None else None
        t.reminders[(reminder.platform, reminder.space_id, reminder.user_id)] = replace(
            reminder, at=at, next_at=next_at
        )

    async def get_reminder(self, platform: str, space_id: str, user_id: str) -> Reminder | None:
        return (await self._db()).reminders.get((platform, space_id, user_id))

    async def due_reminders(self, now: dt.datetime, limit: int, spaces: SpaceFilter | None = None) -> list[Reminder]:
        t = await self._db()
        now = utc(now)
        due = [
            r
            for r in t.reminders.values()
            if r.enabled
            and r.next_at is not None
            and r.next_at <= now
            and (spaces is None or spaces(ChannelRef(r.platform, r.space_id, r.channel_id)))
        ]
        due.sort(key=lambda r: (r.next_at, r.platform, r.space_id, r.user_id))
        return due[:limit]

    async def advance_reminder(
        self, platform: str, space_id: str, user_id: str, due_at: dt.datetime, next_at: dt.datetime
    ) -> None:
        t = await self._db()
        key: Key = (platform, space_id, user_id)
        found = t.reminders.get(key)
        if found is not None and found.next_at == utc(due_at):
            t.reminders[key] = replace(found, next_at=utc(next_at))

    async def claim_reminder_day(
        self, platform: str, space_id: str, user_id: str, local_date: dt.date, now: dt.datetime
    ) -> bool:
        t = await self._db()
        utc(now)
        key = (platform, space_id, user_id, local_date)
        if key in t.reminder_days:
            return False
        t.reminder_days.add(key)
        return True

    async def disable_reminder(self, platform: str, space_id: str, user_id: str) -> bool:
        t = await self._db()
        key: Key = (platform, space_id, user_id)
        found = t.reminders.get(key)
        if found is None or not found.enabled:
            return False
        t.reminders[key] = replace(found, enabled=False, next_at=None)
        return True
