"""The embedded store: SQLite, one long-lived connection in WAL mode on a thread of its own (SqliteThread).

All statements go through one asyncio lock, since a single connection shares one transaction between
every coroutine that uses it. Writes run in BEGIN IMMEDIATE transactions, so a second process on the
same file waits its turn (busy_timeout) and the unique keys decide every race. The engine's parts:
bot.store.sqlite_thread (the connection's thread), sqlite_checkpointer (the WAL's background checkpoints),
sqlite_in_thread (whole transactions in one trip to the thread) and sqlite_settle (the reveal's steps there).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import os
import re
import sqlite3
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Sequence
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

from bot.daily.values import RevealedRound, SendClaim
from bot.kernel.scoring import Scorer
from bot.kernel.values import ChannelRef, DueChannel, Round, SpaceFilter
from bot.store import sqlite_in_thread as in_thread
from bot.store.base import DueSends, Step
from bot.store.migrations import load_migrations
from bot.store.rows import (
    ROUND_COLUMNS,
    answer_from_row,
    config_from_row,
    due_channels,
    ident,
    opened,
    round_from_row,
    to_ts,
)
from bot.store.settle import SettleTransaction
from bot.store.sql import FeatureSql
from bot.store.sqlite_checkpointer import Checkpointer
from bot.store.sqlite_settle import CHANNEL_COLUMNS
from bot.store.sqlite_thread import SqliteThread
from bot.store.turns import ConnectionTurns

log = logging.getLogger(__name__)

# The due work is read through its partial indexes, named (INDEXED BY): with a lane's `platform IN (...)` and
# no statistics (a database is never analyzed) the planner took an index on the platform instead, reading
# every round or channel of the platform, the whole history, at each tick (a due-reveal read cost 1.1 ms at
# 4,000 rounds, 0.05 ms through its index; bench.daily_history shows the tick's cost by day).
DUE_INDEX = {"next_post_at": "channels_due", "next_recap_at": "channels_recap_due"}

P = ParamSpec("P")
T = TypeVar("T")

# the top of a board in the index's order (the first rows, then ties sorted): without `INDEXED BY`, a database
# without statistics (just migrated, or bulk-loaded, before an ANALYZE) sorts every row of the period
LEADERBOARD_SQL = (
    "SELECT user_id, points, correct, answered, reached_at FROM scores INDEXED BY scores_top_reached "
    "WHERE platform = ? AND space_id = ? AND period = ? AND period_key = ? "
    "ORDER BY points DESC, reached_at IS NULL, reached_at, user_id LIMIT ?"
)


def _create_private(path: str) -> None:
    """Create a new database file readable by its owner only (0600): SQLite gives its -wal and -shm files the
    mode of the database file. An existing file keeps the mode its operator gave it."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass


class SqliteStore(FeatureSql):
    """Store port on SQLite (the embedded default)."""

    channel_columns = CHANNEL_COLUMNS
    top_sql = LEADERBOARD_SQL
    native_values = False  # timestamps as ISO text, flags as 0/1, the time as HH:MM
    text_order = ""  # SQLite compares text byte by byte already
    due_reminders_sql = "reminders INDEXED BY reminders_due WHERE enabled = 1 AND next_at IS NOT NULL"

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._db: SqliteThread | None = None
        self._turns = ConnectionTurns()  # answers and reads go before background work (bot.priority)
        self.checkpointer = Checkpointer(self.path, self._turns)

    # ---- lifecycle -------------------------------------------------------------------------------

    async def open(self, *, migrate: bool = True) -> None:
        """Connect, set up WAL and (by default) migrate; on any failure everything opened is closed again."""
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            _create_private(self.path)
        self._db = await SqliteThread.connect(self.path, isolation_level=None)
        try:
            await self._setup(migrate)
        except BaseException:
            await self.close()
            raise

    async def _setup(self, migrate: bool) -> None:
        db = self.db
        await db.execute("PRAGMA journal_mode=WAL")
        # NORMAL in WAL mode: a committed transaction survives a process crash (SIGKILL); only a power
        # loss can roll back the last commits.
        await db.execute("PRAGMA synchronous=NORMAL")
        await db.execute("PRAGMA busy_timeout=10000")
        await db.execute("PRAGMA foreign_keys=ON")
        if self.path != ":memory:":
            await self.checkpointer.start(db)
        if migrate:
            await self.migrate()

    async def close(self) -> None:
        await self.checkpointer.stop()
        if self._db is not None:
            if self.path != ":memory:":
                async with self._turns.lock:
                    with contextlib.suppress(sqlite3.Error):
                        await self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            await self._db.close()
            self._db = None

    @property
    def db(self) -> SqliteThread:
        return opened(self._db)

    @contextlib.asynccontextmanager
    async def _tx(self) -> AsyncIterator[SqliteThread]:
        async with self._turns.write():
            await self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                await self.db.execute("ROLLBACK")
                raise
            else:
                await self.db.execute("COMMIT")

    @contextlib.asynccontextmanager
    async def _write_tx(self) -> AsyncIterator[_SqliteTx]:
        async with self._tx() as db:
            yield _SqliteTx(db)

    async def _settle(
        self,
        step: Callable[Concatenate[SettleTransaction, P], Coroutine[Any, Any, T]],
        /,
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> T:
        """A bot.store.settle step (the reveal, an answer batch, ...) run whole on the connection's thread,
        inside one BEGIN IMMEDIATE transaction: a trip per batch instead of one per statement."""
        async with self._turns.write():
            return await self.db.call(in_thread.settle, step, args, kwargs)

    async def _atomic(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """One write statement in its own BEGIN IMMEDIATE transaction, in one trip to the connection's
        thread (BEGIN, statement, fetch and COMMIT together); its rows (RETURNING)."""
        async with self._turns.write():
            return await self.db.call(in_thread.write, sql, params)

    async def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """One statement, one trip to the connection's thread (execute, fetch and close together)."""
        async with self._turns.lock:
            return await self.db.execute_fetchall(sql, params)

    async def _atomic_steps(self, steps: Sequence[Step]) -> list[Any]:
        """Several statements in one BEGIN IMMEDIATE transaction, in one trip; the rows of the last."""
        async with self._turns.write():
            return await self.db.call(in_thread.write_steps, steps)

    def _ts(self, moment: dt.datetime) -> object:
        return to_ts(moment)

    def _day(self, day: dt.date) -> object:
        return day.isoformat()

    def _space_filter(self, spaces: SpaceFilter | None, first: int) -> tuple[str, list[object]]:
        sql, params = in_thread.space_sql(spaces)
        marks = iter(range(first, first + len(params)))
        return re.sub(r"\?", lambda _m: f"?{next(marks)}", sql), params  # numbered, as the statement's own

    async def migrate(self) -> list[int]:
        """Apply numbered migrations not applied yet; returns the versions applied now."""
        applied_now: list[int] = []
        async with self._turns.write():
            await self.db.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations "
                "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
            )
        for version, name, sql in load_migrations("sqlite"):
            async with self._tx() as db:
                if await db.execute_fetchall("SELECT 1 FROM schema_migrations WHERE version = ?", (version,)):
                    continue
                for statement in split_sql(sql):
                    await db.execute(statement)
                await db.execute(
                    "INSERT INTO schema_migrations VALUES (?, ?, ?)", (version, name, to_ts(dt.datetime.now(dt.UTC)))
                )
                applied_now.append(version)
                log.info("applied migration %03d %s", version, name)
        return applied_now

    async def schema_version(self) -> int:
        rows = await self._read("SELECT COALESCE(MAX(version), 0) FROM schema_migrations")
        return int(rows[0][0])

    # ---- durable daily work ----------------------------------------------------------------------

    async def _claim_due(
        self, due: str, lease: str, now: dt.datetime, lease_until: dt.datetime, limit: int, spaces: SpaceFilter | None
    ) -> list[DueChannel]:
        """Claim channels whose `due` column has passed and whose `lease` is free (the daily post, the recap)."""
        where, params = in_thread.space_sql(spaces)
        rows = await self._atomic(
            f"UPDATE channels SET {lease} = ? WHERE rowid IN (SELECT rowid FROM channels INDEXED BY {DUE_INDEX[due]} "
            f"WHERE {due} IS NOT NULL AND {due} <= ? AND paused = 0 "
            f"AND ({lease} IS NULL OR {lease} <= ?){where} ORDER BY {due}, platform, space_id, channel_id LIMIT ?) "
            f"RETURNING platform, space_id, channel_id, {due}",
            (to_ts(lease_until), to_ts(now), to_ts(now), *params, limit),
        )
        return due_channels(rows)

    async def _claim_due_sends(self, due: DueSends) -> list[SendClaim]:
        """A select and a conditional UPDATE in one (single-writer) transaction, in one trip."""
        async with self._turns.write():
            return await self.db.call(in_thread.claim_sends, due)

    async def due_reveals(self, now: dt.datetime, limit: int, spaces: SpaceFilter | None = None) -> list[Round]:
        where, params = in_thread.space_sql(spaces)
        rows = await self._read(
            f"SELECT {ROUND_COLUMNS} FROM rounds INDEXED BY rounds_reveal_due WHERE kind = 'daily' "
            f"AND revealed_at IS NULL AND closes_at IS NOT NULL AND closes_at <= ?{where} "
            "ORDER BY closes_at, id LIMIT ?",
            (to_ts(now), *params, limit),
        )
        return [round_from_row(r) for r in rows]

    async def _reveal_batch(
        self, ids: Sequence[int], at: dt.datetime, scorer: Scorer | None, lease_until: dt.datetime, learn: bool
    ) -> list[RevealedRound]:
        """The reveals, the claim and the reads of what they return in one trip (in_thread.reveal_batch)."""
        async with self._turns.write():
            revealed, claims, answers, configs = await self.db.call(
                in_thread.reveal_batch, tuple(ids), at, scorer, learn, lease_until
            )
        mine = {c.round.id: c for c in claims}
        return [
            RevealedRound(
                round_from_row(row),
                tuple(answer_from_row(a) for a in answers[int(row[0])]),
                config_from_row(configs[int(row[0])]) if configs.get(int(row[0])) else None,
                mine.get(int(row[0])),
            )
            for row in revealed
        ]

    # ---- bulk export and import (`studybot db copy`) ---------------------------------------------

    async def list_tables(self) -> list[str]:
        """The database's tables (SQLite's own sqlite_* tables left out)."""
        rows = await self._read(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite~_%' ESCAPE '~' ORDER BY name"
        )
        return [str(r[0]) for r in rows]

    async def count_rows(self, tables: Iterable[str]) -> dict[str, int]:
        """Rows per table."""
        counts: dict[str, int] = {}
        for table in tables:
            counts[table] = int((await self._read(f"SELECT COUNT(*) FROM {ident(table)}"))[0][0])
        return counts

    async def export_rows(
        self, tables: Sequence[tuple[str, Sequence[str], Sequence[str]]], batch: int = 5000
    ) -> AsyncIterator[tuple[str, list[tuple[Any, ...]]]]:
        """Yield (table, rows) batches of stored values, every table read from one snapshot."""
        for name in [t for t, cols, order in tables] + [c for _, cols, order in tables for c in (*cols, *order)]:
            ident(name)
        async with self._turns.lock:
            await self.db.execute("BEGIN")
            try:
                for table, columns, order in tables:
                    cursor = await self.db.call(
                        sqlite3.Connection.execute,
                        f"SELECT {', '.join(columns)} FROM {table} ORDER BY {', '.join(order)}",
                    )
                    while rows := await self.db.call(_fetch_many, cursor, batch):
                        yield table, [tuple(r) for r in rows]
            finally:
                await self.db.execute("ROLLBACK")

    async def import_rows(
        self, batches: AsyncIterator[tuple[str, Sequence[str], list[tuple[Any, ...]]]]
    ) -> dict[str, int]:
        """Insert rows of stored values in one transaction and check every table holds exactly the rows
        given before committing (AUTOINCREMENT follows the highest round id by itself)."""
        given: dict[str, int] = {}
        async with self._tx() as db:
            async for table, columns, rows in batches:
                for name in (table, *columns):
                    ident(name)
                given.setdefault(table, 0)
                if rows:
                    marks = ",".join("?" * len(columns))
                    await db.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)
                    given[table] += len(rows)
            for table, n in given.items():
                [(have,)] = await db.execute_fetchall(f"SELECT COUNT(*) FROM {table}")
                if have != n:
                    raise RuntimeError(f"{table}: {have} rows after the import, {n} given; rolled back")
        return given


def _fetch_many(con: sqlite3.Connection, cursor: sqlite3.Cursor, size: int) -> list[Any]:
    """The next `size` rows of a cursor of `con` (on the connection's thread)."""
    return cursor.fetchmany(size)


class _SqliteTx:
    """bot.store.base.SqlTx on the store's connection, inside its BEGIN IMMEDIATE (the single writer)."""

    for_update = ""

    def __init__(self, db: SqliteThread) -> None:
        self.db = db

    async def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return await self.db.execute_fetchall(sql, params)

    async def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        return await self.db.execute(sql, params)

    async def run_many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        await self.db.executemany(sql, rows)

    async def lock_packs(self, platform: str, space_id: str, *, wait: bool) -> bool:
        return True  # BEGIN IMMEDIATE made this transaction the only writer

    async def lock_space(self, ref: ChannelRef) -> None:
        return None


def split_sql(script: str) -> list[str]:
    """Split a migration into complete statements (comments and blank lines dropped)."""
    statements, buf = [], ""
    for line in script.splitlines(keepends=True):
        if not buf and (not line.strip() or line.lstrip().startswith("--")):
            continue
        buf += line
        if sqlite3.complete_statement(buf):
            statements.append(buf.strip())
            buf = ""
    if buf.strip():
        statements.append(buf.strip())
    return statements
