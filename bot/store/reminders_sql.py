"""Reminder rows for the SQL stores (mixed into SqliteStore and PostgresStore): the learner's reminder, and the
claim of one (learner, local date) that makes sure a day's reminder is sent once by one process."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from bot.model import SpaceFilter
from bot.reminders import Reminder
from bot.store.rows import from_ts, to_ts

if TYPE_CHECKING:
    import asyncpg

REMINDER_COLUMNS = "platform, space_id, user_id, channel_id, remind_at, timezone, enabled, next_at"
_KEY = "platform = {0} AND space_id = {1} AND user_id = {2}"


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


class SqliteReminders:
    """The reminder methods of the Store port on aiosqlite."""

    if TYPE_CHECKING:

        async def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]: ...
        async def _atomic(self, sql: str, params: Sequence[Any] = ()) -> list[Any]: ...

    async def save_reminder(self, reminder: Reminder) -> None:
        r = reminder
        await self._atomic(
            f"INSERT OR REPLACE INTO reminders ({REMINDER_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                r.platform,
                r.space_id,
                r.user_id,
                r.channel_id,
                f"{r.at:%H:%M}",
                r.timezone,
                int(r.enabled),
                to_ts(r.next_at) if r.next_at is not None else None,
            ),
        )

    async def get_reminder(self, platform: str, space_id: str, user_id: str) -> Reminder | None:
        rows = await self._read(
            f"SELECT {REMINDER_COLUMNS} FROM reminders WHERE {_KEY.format('?', '?', '?')}",
            (platform, space_id, user_id),
        )
        return reminder_from_row(rows[0]) if rows else None

    async def due_reminders(self, now: dt.datetime, limit: int, spaces: SpaceFilter | None = None) -> list[Reminder]:
        from bot.store.sqlite import _space_sql  # the store module imports this one

        where, params = _space_sql(spaces)
        rows = await self._read(
            f"SELECT {REMINDER_COLUMNS} FROM reminders WHERE enabled = 1 AND next_at IS NOT NULL AND next_at <= ?"
            f"{where} ORDER BY next_at, platform, space_id, user_id LIMIT ?",
            (to_ts(now), *params, limit),
        )
        return [reminder_from_row(r) for r in rows]

    async def advance_reminder(
        self, platform: str, space_id: str, user_id: str, due_at: dt.datetime, next_at: dt.datetime
    ) -> None:
        await self._atomic(
            f"UPDATE reminders SET next_at = ? WHERE {_KEY.format('?', '?', '?')} AND next_at = ?",
            (to_ts(next_at), platform, space_id, user_id, to_ts(due_at)),
        )

    async def claim_reminder_day(
        self, platform: str, space_id: str, user_id: str, local_date: dt.date, now: dt.datetime
    ) -> bool:
        rows = await self._atomic(
            "INSERT INTO reminder_days (platform, space_id, user_id, local_date, claimed_at) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT DO NOTHING RETURNING 1",
            (platform, space_id, user_id, local_date.isoformat(), to_ts(now)),
        )
        return bool(rows)

    async def disable_reminder(self, platform: str, space_id: str, user_id: str) -> bool:
        rows = await self._atomic(
            f"UPDATE reminders SET enabled = 0, next_at = NULL WHERE {_KEY.format('?', '?', '?')} AND enabled = 1 "
            "RETURNING 1",
            (platform, space_id, user_id),
        )
        return bool(rows)


class PostgresReminders:
    """The same on asyncpg."""

    if TYPE_CHECKING:

        @property
        def pool(self) -> asyncpg.Pool: ...

    async def save_reminder(self, reminder: Reminder) -> None:
        r = reminder
        await self.pool.execute(
            f"INSERT INTO reminders ({REMINDER_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) "
            "ON CONFLICT (platform, space_id, user_id) DO UPDATE SET channel_id = excluded.channel_id, "
            "remind_at = excluded.remind_at, timezone = excluded.timezone, enabled = excluded.enabled, "
            "next_at = excluded.next_at",
            r.platform,
            r.space_id,
            r.user_id,
            r.channel_id,
            r.at,
            r.timezone,
            r.enabled,
            r.next_at,
        )

    async def get_reminder(self, platform: str, space_id: str, user_id: str) -> Reminder | None:
        row = await self.pool.fetchrow(
            f"SELECT {REMINDER_COLUMNS} FROM reminders WHERE {_KEY.format('$1', '$2', '$3')}",
            platform,
            space_id,
            user_id,
        )
        return reminder_from_row(row) if row else None

    async def due_reminders(self, now: dt.datetime, limit: int, spaces: SpaceFilter | None = None) -> list[Reminder]:
        from bot.store.postgres import _space_sql  # the store module imports this one

        where, params = _space_sql(spaces, 3)
        rows = await self.pool.fetch(
            f"SELECT {REMINDER_COLUMNS} FROM reminders WHERE enabled AND next_at IS NOT NULL AND next_at <= $1"
            f"{where} ORDER BY next_at, platform, space_id, user_id LIMIT $2",
            now,
            limit,
            *params,
        )
        return [reminder_from_row(r) for r in rows]

    async def advance_reminder(
        self, platform: str, space_id: str, user_id: str, due_at: dt.datetime, next_at: dt.datetime
    ) -> None:
        await self.pool.execute(
            f"UPDATE reminders SET next_at = $4 WHERE {_KEY.format('$1', '$2', '$3')} AND next_at = $5",
            platform,
            space_id,
            user_id,
            next_at,
            due_at,
        )

    async def claim_reminder_day(
        self, platform: str, space_id: str, user_id: str, local_date: dt.date, now: dt.datetime
    ) -> bool:
        won = await self.pool.fetchval(
            "INSERT INTO reminder_days (platform, space_id, user_id, local_date, claimed_at) "
            "VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING 1",
            platform,
            space_id,
            user_id,
            local_date,
            now,
        )
        return won is not None

    async def disable_reminder(self, platform: str, space_id: str, user_id: str) -> bool:
        was = await self.pool.fetchval(
            f"UPDATE reminders SET enabled = false, next_at = NULL WHERE {_KEY.format('$1', '$2', '$3')} "
            "AND enabled RETURNING 1",
            platform,
            space_id,
            user_id,
        )
        return was is not None
