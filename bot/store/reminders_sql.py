"""Reminder rows, written once for both SQL stores (mixed into SqliteStore and PostgresStore over the
bot.store.base hooks): the learner's reminder, and the claim of one (learner, local date) that makes sure
a day's reminder is sent once, by one process.

Statements use numbered `?N` marks (SQLite takes them as they are, PostgreSQL after `numbered`); a store adds
its space filter (`_space_filter`, marks from a given number) and its encoding of a wall time (`_wall`).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from bot.kernel.values import SpaceFilter
from bot.reminders.values import Reminder
from bot.store.base import SqlBase
from bot.store.rows import from_ts

REMINDER_COLUMNS = "platform, space_id, user_id, channel_id, remind_at, timezone, enabled, next_at"
_MINE = "platform = ?1 AND space_id = ?2 AND user_id = ?3"
# forget-me (bot.store.learner_sql): the learner's reminder and the days it was sent go too
FORGET_REMINDERS: tuple[tuple[str, str], ...] = (
    ("", f"DELETE FROM reminder_days WHERE {_MINE}"),
    ("reminders", f"DELETE FROM reminders WHERE {_MINE}"),
)


def reminder_from_row(row: Any) -> Reminder:
    """A reminder from its columns (SQLite text or PostgreSQL's own types)."""
    at = row[4]
    if isinstance(at, str):
        hh, mm = (int(x) for x in at.split(":")[:2])
        at = dt.time(hh, mm)
    return Reminder(
        platform=row[0],
        space_id=row[1],
        user_id=row[2],
        channel_id=row[3],
        at=at,
        timezone=row[5],
        enabled=bool(row[6]),
        next_at=from_ts(row[7]) if row[7] is not None else None,
    )


class ReminderSql(SqlBase):
    """The reminder methods of the Store port."""

    def _wall(self, at: dt.time) -> object:
        """A wall time as the store keeps it (SQLite: HH:MM text)."""
        return f"{at:%H:%M}"

    async def save_reminder(self, reminder: Reminder) -> None:
        r = reminder
        await self._atomic(
            f"INSERT INTO reminders ({REMINDER_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) "
            "ON CONFLICT (platform, space_id, user_id) DO UPDATE SET channel_id = excluded.channel_id, "
            "remind_at = excluded.remind_at, timezone = excluded.timezone, enabled = excluded.enabled, "
            "next_at = excluded.next_at",
            (
                r.platform,
                r.space_id,
                r.user_id,
                r.channel_id,
                self._wall(dt.time(r.at.hour, r.at.minute)),
                r.timezone,
                r.enabled,
                None if r.next_at is None else self._ts(r.next_at),
            ),
        )

    async def get_reminder(self, platform: str, space_id: str, user_id: str) -> Reminder | None:
        rows = await self._read(
            f"SELECT {REMINDER_COLUMNS} FROM reminders WHERE {_MINE}", (platform, space_id, user_id)
        )
        return reminder_from_row(rows[0]) if rows else None

    async def due_reminders(self, now: dt.datetime, limit: int, spaces: SpaceFilter | None = None) -> list[Reminder]:
        where, params = self._space_filter(spaces, 3)
        rows = await self._read(
            f"SELECT {REMINDER_COLUMNS} FROM {self.due_reminders_sql} AND next_at <= ?1"
            f"{where} ORDER BY next_at, platform, space_id, user_id LIMIT ?2",
            (self._ts(now), limit, *params),
        )
        return [reminder_from_row(r) for r in rows]

    async def advance_reminder(
        self, platform: str, space_id: str, user_id: str, due_at: dt.datetime, next_at: dt.datetime
    ) -> None:
        await self._atomic(
            f"UPDATE reminders SET next_at = ?4 WHERE {_MINE} AND next_at = ?5",
            (platform, space_id, user_id, self._ts(next_at), self._ts(due_at)),
        )

    async def claim_reminder_day(
        self, platform: str, space_id: str, user_id: str, local_date: dt.date, now: dt.datetime
    ) -> bool:
        rows = await self._atomic(
            "INSERT INTO reminder_days (platform, space_id, user_id, local_date, claimed_at) "
            "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT DO NOTHING RETURNING 1",
            (platform, space_id, user_id, self._day(local_date), self._ts(now)),
        )
        return bool(rows)

    async def disable_reminder(self, platform: str, space_id: str, user_id: str) -> bool:
        rows = await self._atomic(
            f"UPDATE reminders SET enabled = ?4, next_at = NULL WHERE {_MINE} AND enabled RETURNING 1",
            (platform, space_id, user_id, False),
        )
        return bool(rows)
