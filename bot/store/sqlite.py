"""The embedded store: SQLite through aiosqlite, one long-lived connection in WAL mode.

All statements go through one asyncio lock, since a single connection shares one transaction between
every coroutine that uses it. Writes run in BEGIN IMMEDIATE transactions, so a second process on the
same file waits its turn (busy_timeout) and the unique keys decide every race.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import os
import re
import sqlite3
import threading
from collections.abc import AsyncIterator, Callable, Collection, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from bot.daily.values import RevealedRound, SendClaim
from bot.kernel.scoring import Board, LeaderboardRow, Scorer, ScoreRow, ranked
from bot.kernel.values import (
    Answer,
    AnswerWrite,
    ChannelRef,
    DueChannel,
    NewAnswer,
    Period,
    PracticeAnswer,
    Round,
    SpaceFilter,
    StreakState,
)
from bot.practice.memory import CardKey, LearnerCard, PendingAnswer, ReviewEvent
from bot.store import settle
from bot.store.base import PENDING_PRACTICE, Step
from bot.store.migrations import load_migrations
from bot.store.rows import (
    ANSWER_COLUMNS,
    CARD_COLUMNS,
    EVENT_COLUMNS,
    ROUND_COLUMNS,
    answer_from_row,
    card_from_row,
    card_values,
    config_from_row,
    due_channels,
    event_values,
    from_ts,
    ident,
    opened,
    parse_date,
    round_from_row,
    to_ts,
)
from bot.store.settle import reveal
from bot.store.sql import FeatureSql
from bot.store.turns import TurnLock

log = logging.getLogger(__name__)
T = TypeVar("T")

# the column order of rows.config_from_row (named, as migrations may add columns in any order)
CHANNEL_COLUMNS = (
    "platform, channel_id, space_id, post_time, timezone, weekdays, topics, difficulties, paused, reactions, "
    "answer_window_s, speed_bonus, updated_at, ping_winners, recap_day, threads, packs, champion_role"
)
CHECKPOINT_EVERY = 0.25  # seconds between background WAL checkpoints
# Past this much WAL content a checkpoint is finished between two write transactions: it copies what was
# written since the unlocked pass and syncs the database file, a few ms that writes (not reads) wait.
WAL_RESET_AT = 8 * 1024 * 1024
CATCH_UP_PASSES = 4  # unlocked passes before the held one, until one takes less than SHORT_PASS seconds
SHORT_PASS = 0.01
HOLD_AT_MOST = 1.0  # seconds writes wait for a held pass; past it they go on and that pass ends unlocked
WAL_KEEP = 16 * 1024 * 1024  # when the WAL starts over, its file is cut back to this size (journal_size_limit)
ONE_ANSWER = "(?,?,?,?,?)"
INSERT_ANSWER = f"INSERT INTO answers (round_id, user_id, choice, correct, answered_at) VALUES {ONE_ANSWER}"
INSERT_CHUNK = 900  # rows per multi-row INSERT (5 parameters each, under SQLite's variable limit)
IN_CHUNK = 500


def _create_private(path: str) -> None:
    """Create a new database file readable by its owner only (0600): SQLite gives its -wal and -shm files the
    mode of the database file. An existing file keeps the mode its operator gave it."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass


def _chunks(items: Sequence[T], size: int) -> Iterable[Sequence[T]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


class SqliteStore(FeatureSql):
    """Store port on SQLite (the embedded default)."""

    channel_columns = CHANNEL_COLUMNS
    native_values = False  # timestamps as ISO text, flags as 0/1, the time as HH:MM
    text_order = ""  # SQLite compares text byte by byte already

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._db: aiosqlite.Connection | None = None
        self._lock = TurnLock()  # answers and reads go before background work (bot.priority)
        self._checkpointer: asyncio.Task[None] | None = None
        self._checkpoint_thread: ThreadPoolExecutor | None = None
        self._writes_paused: asyncio.Future[None] | None = None  # set while a checkpoint is being finished
        self.checkpoint_holds = 0  # checkpoints finished with writes paused, and for how long in all (s)
        self.checkpoint_hold_seconds = 0.0
        self.checkpoint_hold_max = 0.0

    # ---- lifecycle -------------------------------------------------------------------------------

    async def open(self, *, migrate: bool = True) -> None:
        """Connect, set up WAL and (by default) migrate; on any failure everything opened is closed again."""
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            _create_private(self.path)
        self._db = await aiosqlite.connect(self.path, isolation_level=None)
        try:
            await self._setup(migrate)
        except BaseException:
            await self.close()
            raise

    async def _setup(self, migrate: bool) -> None:
        assert self._db is not None
        await self._db.execute("PRAGMA journal_mode=WAL")
        # NORMAL in WAL mode: a committed transaction survives a process crash (SIGKILL); only a power
        # loss can roll back the last commits.
        await self._db.execute("PRAGMA synchronous=NORMAL")
        await self._db.execute("PRAGMA busy_timeout=10000")
        await self._db.execute("PRAGMA foreign_keys=ON")
        if self.path != ":memory:":
            # Checkpoints move the WAL into the database file. Run inside a commit (SQLite's default) they
            # stall that commit, and every answer waiting on it, for tens of milliseconds; a second
            # connection does them in the background instead, without blocking the writer.
            await self._db.execute("PRAGMA wal_autocheckpoint=0")
            await self._db.execute(f"PRAGMA journal_size_limit={WAL_KEEP}")
            self._checkpoint_thread = ThreadPoolExecutor(
                1, thread_name_prefix="sqlite-checkpoint", initializer=_run_when_idle
            )
            self._checkpointer = asyncio.create_task(self._checkpoint_loop(), name="sqlite-checkpoint")
        if migrate:
            await self.migrate()

    async def close(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._checkpointer
            self._checkpointer = None
        if self._checkpoint_thread is not None:
            self._checkpoint_thread.shutdown(wait=True)
            self._checkpoint_thread = None
        if self._db is not None:
            if self.path != ":memory:":
                async with self._lock:
                    with contextlib.suppress(sqlite3.Error):
                        await self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            await self._db.close()
            self._db = None

    async def _checkpoint_loop(self) -> None:
        """Checkpoint every CHECKPOINT_EVERY seconds on a connection that lives on one worker thread, so a
        checkpoint in progress always finishes before that connection is closed.

        A PASSIVE checkpoint never blocks the writer, but under a steady stream of commits it never catches up
        with the end of the WAL either, and SQLite starts the WAL over only once all of it is in the database:
        the file would grow without end. So once the WAL holds more than WAL_RESET_AT, the checkpoint is
        finished between two write transactions (reads go on): only the frames written since the unlocked
        pass are left to copy, and the next write starts the WAL over (cut to WAL_KEEP).

        The passes run on a thread that gets a CPU only when nothing else wants one (_run_when_idle): a pass
        copying a large WAL otherwise delays the wake-ups of the threads serving learners (leaderboard reads
        right after a bulk load took 3-7 ms instead of 0.2). As such a thread can be starved, writes wait
        for a held pass HOLD_AT_MOST seconds at most; then they go on, and that pass ends unlocked."""
        loop = asyncio.get_running_loop()
        assert self._checkpoint_thread is not None
        con = await loop.run_in_executor(self._checkpoint_thread, _checkpoint_connection, self.path)
        page = await loop.run_in_executor(self._checkpoint_thread, _page_size, con)

        async def one_pass() -> tuple[int, int, int]:
            return await asyncio.shield(loop.run_in_executor(self._checkpoint_thread, _checkpoint, con))

        try:
            while True:
                await asyncio.sleep(CHECKPOINT_EVERY)
                try:
                    _, logged, copied = await one_pass()
                    if logged * page > WAL_RESET_AT:  # `logged` is where the WAL ended when this pass began
                        for _ in range(CATCH_UP_PASSES):  # each copies what came meanwhile: the held pass is short
                            began = loop.time()
                            await one_pass()
                            if loop.time() - began < SHORT_PASS:
                                break
                        async with self._lock:  # the transaction in progress ends; no new one begins
                            paused = self._writes_paused = loop.create_future()
                        held = loop.time()
                        finishing = asyncio.ensure_future(one_pass())
                        try:
                            await asyncio.wait([finishing], timeout=HOLD_AT_MOST)
                        finally:
                            self._writes_paused = None
                            paused.set_result(None)
                            held = loop.time() - held
                            self.checkpoint_holds += 1
                            self.checkpoint_hold_seconds += held
                            self.checkpoint_hold_max = max(self.checkpoint_hold_max, held)
                        await finishing  # unlocked now, if the hold ran out
                except sqlite3.Error as exc:  # busy or locked: the next round catches up
                    log.debug("background checkpoint skipped: %s", exc)
        finally:
            # queued behind any checkpoint still running on that thread
            await asyncio.shield(loop.run_in_executor(self._checkpoint_thread, con.close))

    @property
    def db(self) -> aiosqlite.Connection:
        return opened(self._db)

    @contextlib.asynccontextmanager
    async def _write_turn(self) -> AsyncIterator[None]:
        """The store lock for a write transaction, taken only while no checkpoint is being finished (reads
        go on during one; see _checkpoint_loop). Every write takes its turn here: one that went ahead would
        leave the checkpoint unfinished, and the WAL would not start over."""
        while True:
            paused = self._writes_paused
            if paused is not None:
                await asyncio.shield(paused)
            await self._lock.acquire()
            if self._writes_paused is None:
                break
            self._lock.release()
        try:
            yield
        finally:
            self._lock.release()

    @contextlib.asynccontextmanager
    async def _tx(self) -> AsyncIterator[aiosqlite.Connection]:
        async with self._write_turn():
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

    @contextlib.asynccontextmanager
    async def _settling(self) -> AsyncIterator[_Settle]:
        async with self._tx() as db:
            yield _Settle(db)

    async def reveal_round(
        self,
        round_id: int,
        revealed_at: dt.datetime,
        scorer: Scorer | None,
        *,
        learn: bool = True,
        unsure: Collection[str] = (),
    ) -> bool:
        """The reveal transaction in one trip: every step runs at once on the connection's own thread (a
        reveal is some 20 statements; a trip each would cost more than the statements)."""
        async with self._write_turn():
            db = self.db
            return bool(
                await db._execute(  # type: ignore[no-untyped-call]
                    _reveal_in_thread, db._conn, round_id, revealed_at, scorer, learn, tuple(unsure)
                )
            )

    async def add_answers(self, answers: Sequence[NewAnswer], now: dt.datetime) -> list[AnswerWrite]:
        """The answer batch in one trip to the connection's thread (see _settle_in_thread)."""
        if not answers:
            return []
        return list(await self._settle_in_thread(settle.add_answers, answers, now))

    async def reveal_practice(
        self, answers: Sequence[PracticeAnswer], revealed_at: dt.datetime, *, learn: bool = True
    ) -> list[bool]:
        """The practice reveals (and their card updates) in one trip to the connection's thread."""
        if not answers:
            return []
        return list(await self._settle_in_thread(settle.reveal_practice, answers, revealed_at, learn=learn))

    async def learn_practice(self, limit: int, learner: tuple[str, str, str] | None = None) -> int:
        """The card updates of marked practice answers in one trip to the connection's thread."""
        return int(await self._settle_in_thread(settle.learn_practice, limit, learner))

    async def _settle_in_thread(self, step: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """A bot.store.settle coroutine run whole on the connection's thread, inside one BEGIN IMMEDIATE
        transaction: a trip per batch instead of one per statement (BEGIN, reads, writes, COMMIT)."""
        async with self._write_turn():
            db = self.db
            return await db._execute(  # type: ignore[no-untyped-call]
                _in_tx, db._conn, _settle_whole, step, args, kwargs
            )

    async def _atomic(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """One write statement in its own BEGIN IMMEDIATE transaction, in one trip to the connection's
        thread (BEGIN, statement, fetch and COMMIT together); its rows (RETURNING)."""
        async with self._write_turn():
            db = self.db
            return list(await db._execute(_in_tx, db._conn, _statement, sql, params))  # type: ignore[no-untyped-call]

    async def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """One statement, one trip to the connection's thread (execute, fetch and close together)."""
        async with self._lock:
            return list(await self.db.execute_fetchall(sql, params))

    async def _atomic_steps(self, steps: Sequence[Step]) -> list[Any]:
        """Several statements in one BEGIN IMMEDIATE transaction, in one trip; the rows of the last."""
        async with self._write_turn():
            db = self.db
            return list(await db._execute(_in_tx, db._conn, _steps, steps))  # type: ignore[no-untyped-call]

    def _ts(self, moment: dt.datetime) -> object:
        return to_ts(moment)

    def _day(self, day: dt.date) -> object:
        return day.isoformat()

    def _space_filter(self, spaces: SpaceFilter | None, first: int) -> tuple[str, list[object]]:
        sql, params = _space_sql(spaces)
        marks = iter(range(first, first + len(params)))
        return re.sub(r"\?", lambda _m: f"?{next(marks)}", sql), params  # numbered, as the statement's own

    async def migrate(self) -> list[int]:
        """Apply numbered migrations not applied yet; returns the versions applied now."""
        applied_now: list[int] = []
        async with self._write_turn():
            await self.db.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations "
                "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
            )
        for version, name, sql in load_migrations("sqlite"):
            async with self._tx() as db:
                async with db.execute("SELECT 1 FROM schema_migrations WHERE version = ?", (version,)) as cur:
                    if await cur.fetchone():
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
        where, params = _space_sql(spaces)
        rows = await self._atomic(
            f"UPDATE channels SET {lease} = ? WHERE rowid IN (SELECT rowid FROM channels "
            f"WHERE {due} IS NOT NULL AND {due} <= ? AND paused = 0 "
            f"AND ({lease} IS NULL OR {lease} <= ?){where} ORDER BY {due} LIMIT ?) "
            f"RETURNING platform, space_id, channel_id, {due}",
            (to_ts(lease_until), to_ts(now), to_ts(now), *params, limit),
        )
        return due_channels(rows)

    async def _claim_sends(
        self,
        what: str,
        now: dt.datetime,
        lease_until: dt.datetime,
        limit: int,
        round_id: int | None,
        force: bool,
        spaces: SpaceFilter | None,
    ) -> list[SendClaim]:
        """One conditional UPDATE in one (single-writer) transaction: claim deliveries of `what`
        (post or reveal) that are due, failed and due for a retry, or whose sending lease ran out."""
        select, args, update = _claim_sends_sql(
            what, now, limit, None if round_id is None else (round_id,), force, spaces
        )
        async with self._write_turn():
            db = self.db
            before, rows = await db._execute(  # type: ignore[no-untyped-call]
                _in_tx, db._conn, _claim_in_thread, select, args, update, to_ts(lease_until)
            )
        return _send_claims(before, rows)

    async def due_reveals(self, now: dt.datetime, limit: int, spaces: SpaceFilter | None = None) -> list[Round]:
        where, params = _space_sql(spaces)
        rows = await self._read(
            f"SELECT {ROUND_COLUMNS} FROM rounds WHERE kind = 'daily' AND revealed_at IS NULL "
            f"AND closes_at IS NOT NULL AND closes_at <= ?{where} ORDER BY closes_at, id LIMIT ?",
            (to_ts(now), *params, limit),
        )
        return [round_from_row(r) for r in rows]

    async def reveal_due_rounds(
        self,
        round_ids: Sequence[int],
        revealed_at: dt.datetime,
        scorer: Scorer | None,
        lease_until: dt.datetime,
        *,
        learn: bool = True,
    ) -> list[RevealedRound]:
        if not round_ids:
            return []
        async with self._write_turn():
            db = self.db
            revealed, before, claims, answers, configs = await db._execute(  # type: ignore[no-untyped-call]
                _in_tx, db._conn, _reveal_batch_in_thread, tuple(round_ids), revealed_at, scorer, learn, lease_until
            )
        mine = {c.round.id: c for c in _send_claims(before, claims)}
        return [
            RevealedRound(
                round_from_row(row),
                tuple(answer_from_row(a) for a in answers[int(row[0])]),
                config_from_row(configs[int(row[0])]) if configs.get(int(row[0])) else None,
                mine.get(int(row[0])),
            )
            for row in revealed
        ]

    # ---- leaderboards ----------------------------------------------------------------------------

    async def leaderboard(
        self, platform: str, space_id: str, period: Period, period_key: str, limit: int
    ) -> list[LeaderboardRow]:
        rows = await self._read(LEADERBOARD_SQL, (platform, space_id, period.value, period_key, limit))
        return ranked(rows)

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
        async with self._lock:
            await self.db.execute("BEGIN")
            try:
                for table, columns, order in tables:
                    async with self.db.execute(
                        f"SELECT {', '.join(columns)} FROM {table} ORDER BY {', '.join(order)}"
                    ) as cur:
                        while rows := await cur.fetchmany(batch):
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
                async with db.execute(f"SELECT COUNT(*) FROM {table}") as cur:
                    row = await cur.fetchone()
                    have = int(row[0]) if row is not None else 0
                if have != n:
                    raise RuntimeError(f"{table}: {have} rows after the import, {n} given; rolled back")
        return given


def _space_sql(spaces: SpaceFilter | None) -> tuple[str, list[object]]:
    """The SQL of a SpaceFilter: its platforms, and on the sharded platform its shards ((id >> 22) % count;
    CAST makes a non-numeric space id 0, so it is on shard 0)."""
    if spaces is None:
        return "", []
    sql, params = "", list[object]()
    if spaces.platforms is not None:
        names = list(spaces.platforms) or [""]
        sql += f" AND platform IN ({','.join('?' * len(names))})"
        params += names
    if spaces.shard_count:
        ids = list(spaces.shard_ids) or [-1]
        sql += f" AND (platform <> ? OR ((CAST(space_id AS INTEGER) >> 22) % ?) IN ({','.join('?' * len(ids))}))"
        params += [spaces.shard_platform, spaces.shard_count, *ids]
    return sql, params


class _SqliteTx:
    """bot.store.base.SqlTx on the store's connection, inside its BEGIN IMMEDIATE (the single writer)."""

    for_update = ""

    def __init__(self, db: aiosqlite.Connection) -> None:
        self.db = db

    async def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return list(await self.db.execute_fetchall(sql, params))

    async def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        async with self.db.execute(sql, params) as cur:
            return int(cur.rowcount)

    async def run_many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        await self.db.executemany(sql, rows)

    async def lock_packs(self, platform: str, space_id: str, *, wait: bool) -> bool:
        return True  # BEGIN IMMEDIATE made this transaction the only writer

    async def lock_space(self, ref: ChannelRef) -> None:
        return None


class _Settle:
    """The reveal and answer-batch steps (bot.ports.RevealTransaction, AnswerTransaction) on one open
    BEGIN IMMEDIATE transaction: the only writer of the file until it commits, so no space lock."""

    def __init__(self, db: aiosqlite.Connection) -> None:
        self.db = db

    async def _rows_in(self, sql: str, head: Sequence[object], items: Sequence[object]) -> list[Any]:
        """Run `sql` (with `{marks}` for an IN list) once per chunk of items; all the rows."""
        rows: list[Any] = []
        for chunk in _chunks(items, IN_CHUNK):
            rows += await self.db.execute_fetchall(sql.format(marks=",".join("?" * len(chunk))), (*head, *chunk))
        return rows

    async def claim_reveal(self, round_id: int, revealed_at: dt.datetime) -> Round | None:
        rows = list(
            await self.db.execute_fetchall(
                f"UPDATE rounds SET revealed_at = ? WHERE id = ? AND revealed_at IS NULL RETURNING {ROUND_COLUMNS}",
                (to_ts(revealed_at), round_id),
            )
        )
        return round_from_row(rows[0]) if rows else None

    async def lock_space(self, ref: ChannelRef) -> None:
        pass

    async def answers(self, round_id: int) -> tuple[Answer, ...]:
        rows = await self.db.execute_fetchall(f"SELECT {ANSWER_COLUMNS} FROM answers WHERE round_id = ?", (round_id,))
        return tuple(answer_from_row(r) for r in rows)

    async def previous_date(self, ref: ChannelRef, before: dt.date) -> dt.date | None:
        rows = list(
            await self.db.execute_fetchall(
                "SELECT MAX(local_date) FROM rounds WHERE platform = ? AND space_id = ? AND kind = 'daily' "
                "AND revealed_at IS NOT NULL AND local_date < ?",
                (ref.platform, ref.space_id, before.isoformat()),
            )
        )
        return parse_date(rows[0][0])

    async def streaks(self, ref: ChannelRef, users: Sequence[str]) -> dict[str, StreakState]:
        rows = await self._rows_in(
            "SELECT user_id, current, best, last_date FROM streaks WHERE platform = ? AND space_id = ? "
            "AND user_id IN ({marks})",
            (ref.platform, ref.space_id),
            users,
        )
        return {uid: StreakState(cur, best, parse_date(last)) for uid, cur, best, last in rows}

    async def speed_bonus(self, ref: ChannelRef) -> bool:
        rows = list(
            await self.db.execute_fetchall(
                "SELECT speed_bonus FROM channels WHERE platform = ? AND channel_id = ?", (ref.platform, ref.channel_id)
            )
        )
        return bool(rows and rows[0][0])

    async def write_points(self, round_id: int, points: dict[str, int]) -> None:
        await self.db.executemany(
            "UPDATE answers SET points = ? WHERE round_id = ? AND user_id = ?",
            [(p, round_id, uid) for uid, p in points.items()],
        )

    async def write_streaks(self, ref: ChannelRef, streaks: dict[str, StreakState]) -> None:
        await self.db.executemany(
            "INSERT INTO streaks (platform, space_id, user_id, current, best, last_date) VALUES (?,?,?,?,?,?) "
            "ON CONFLICT (platform, space_id, user_id) DO UPDATE SET current = excluded.current, "
            "best = excluded.best, last_date = excluded.last_date",
            [
                (ref.platform, ref.space_id, uid, s.current, s.best, s.last_date.isoformat() if s.last_date else None)
                for uid, s in streaks.items()
            ],
        )

    async def add_scores(self, board: Board, rows: Sequence[ScoreRow]) -> dict[str, tuple[int, int]]:
        after: dict[str, tuple[int, int]] = {}
        for chunk in _chunks(rows, IN_CHUNK):
            params: list[object] = [*_board(board)]
            for uid, points, right, at in chunk:
                params += (uid, points, right, None if at is None else to_ts(at))
            values = ",".join(["(?,?,?,?)"] * len(chunk))
            for uid, total, answered in await self.db.execute_fetchall(ADD_SCORES_SQL.format(values=values), params):
                after[uid] = (int(total), int(answered))
        return after

    async def move_buckets(self, board: Board, moves: Sequence[tuple[int, int]]) -> None:
        await self.db.executemany(
            "INSERT INTO score_buckets (platform, space_id, period, period_key, points, users) VALUES (?,?,?,?,?,?) "
            "ON CONFLICT (platform, space_id, period, period_key, points) DO UPDATE SET users = users + excluded.users",
            [(*_board(board), *move) for move in moves],
        )
        await self.db.execute(
            "DELETE FROM score_buckets WHERE platform = ? AND space_id = ? AND period = ? AND period_key = ? "
            "AND users <= 0",
            _board(board),
        )

    async def doubts(self, round_id: int) -> set[str]:
        rows = await self.db.execute_fetchall("SELECT user_id FROM answer_doubts WHERE round_id = ?", (round_id,))
        return {r[0] for r in rows}

    async def cards(
        self, platform: str, space_id: str, question_id: str, users: Sequence[str]
    ) -> dict[str, LearnerCard]:
        rows = await self._rows_in(
            f"SELECT {CARD_COLUMNS} FROM learner_cards WHERE platform = ? AND space_id = ? AND question_id = ? "
            "AND user_id IN ({marks})",
            (platform, space_id, question_id),
            users,
        )
        return {c.key.user_id: c for c in map(card_from_row, rows)}

    async def write_cards(self, updates: Sequence[tuple[LearnerCard, ReviewEvent]]) -> None:
        if not updates:
            return
        latest = {card.key: card for card, _ in updates}
        await self.db.executemany(
            f"INSERT OR REPLACE INTO learner_cards ({CARD_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            [_card_row(card) for card in latest.values()],
        )
        await self.db.executemany(
            f"INSERT INTO review_log ({EVENT_COLUMNS}) VALUES (?,?,?,?,?,?,?) ON CONFLICT DO NOTHING",
            [_event_row(event) for _, event in updates],
        )

    async def claim_practice(
        self, round_ids: Sequence[int], revealed_at: dt.datetime, *, learn: bool, unsure: Collection[int] = ()
    ) -> set[int]:
        rows = await self._rows_in(
            "UPDATE rounds SET revealed_at = ?, learn_pending = ? WHERE id IN ({marks}) AND revealed_at IS NULL "
            "AND kind = 'practice' RETURNING id",
            (to_ts(revealed_at), 1 if learn else None),
            round_ids,
        )
        claimed = {int(r[0]) for r in rows}
        doubted = sorted(claimed.intersection(unsure))
        if doubted:
            await self._rows_in("UPDATE rounds SET learn_pending = 0 WHERE id IN ({marks})", (), doubted)
        return claimed

    async def lock_learning(self) -> None:
        pass  # BEGIN IMMEDIATE made this transaction the only writer

    async def pending_practice(self, limit: int, learner: tuple[str, str, str] | None) -> list[PendingAnswer]:
        rows = await self.db.execute_fetchall(PENDING_MINE if learner else PENDING_ALL, (*(learner or ()), limit))
        return [
            PendingAnswer(int(r[0]), CardKey(r[1], r[2], r[3], r[4]), bool(r[6]), bool(r[5]), from_ts(r[7]))
            for r in rows
        ]

    async def clear_pending(self, round_ids: Sequence[int]) -> None:
        await self._rows_in("UPDATE rounds SET learn_pending = NULL WHERE id IN ({marks})", (), round_ids)

    async def cards_of(self, keys: Sequence[CardKey]) -> dict[CardKey, LearnerCard]:
        found: dict[CardKey, LearnerCard] = {}
        for chunk in _chunks(keys, IN_CHUNK // 4):
            rows = await self.db.execute_fetchall(
                # a join on the keys (`IN (VALUES ...)` scans the whole table): one primary-key search each
                f"SELECT {', '.join('c.' + c.strip() for c in CARD_COLUMNS.split(','))} "
                f"FROM (VALUES {','.join('(?,?,?,?)' for _ in chunk)}) AS k JOIN learner_cards c "
                "ON c.platform = k.column1 AND c.space_id = k.column2 AND c.user_id = k.column3 "
                "AND c.question_id = k.column4",
                [v for k in chunk for v in (k.platform, k.space_id, k.user_id, k.question_id)],
            )
            found.update((c.key, c) for c in map(card_from_row, rows))
        return found

    async def round_windows(self, round_ids: Sequence[int]) -> dict[int, tuple[dt.datetime | None, dt.datetime | None]]:
        rows = await self._rows_in("SELECT id, revealed_at, closes_at FROM rounds WHERE id IN ({marks})", (), round_ids)
        return {rid: (from_ts(rev) if rev else None, from_ts(closes) if closes else None) for rid, rev, closes in rows}

    async def insert_answers(self, answers: Sequence[NewAnswer]) -> set[tuple[int, str]] | None:
        """One executemany, whose row count tells whether every answer went in (None), as all but a rare
        batch do; only when some were stored already is it undone to a savepoint and the answers inserted
        again, returning the keys of those that went in."""
        rows = [(a.round_id, a.user_id, a.choice, int(a.correct), to_ts(a.answered_at)) for a in answers]
        await self.db.execute("SAVEPOINT insert_answers")
        cursor = await self.db.executemany(INSERT_ANSWER + " ON CONFLICT DO NOTHING", rows)
        if cursor.rowcount == len(rows):
            await self.db.execute("RELEASE insert_answers")
            return None
        await self.db.execute("ROLLBACK TO insert_answers")
        await self.db.execute("RELEASE insert_answers")
        inserted: set[tuple[int, str]] = set()
        for chunk in _chunks(rows, INSERT_CHUNK):
            returned = await self.db.execute_fetchall(
                f"{INSERT_ANSWER[: -len(ONE_ANSWER)]}{','.join(ONE_ANSWER for _ in chunk)} "
                "ON CONFLICT DO NOTHING RETURNING round_id, user_id",
                [v for row in chunk for v in row],
            )
            inserted.update((r[0], r[1]) for r in returned)
        return inserted

    async def stored_choices(self, keys: Sequence[tuple[int, str]]) -> dict[tuple[int, str], int]:
        choices: dict[tuple[int, str], int] = {}
        for key in keys:
            rows = list(
                await self.db.execute_fetchall("SELECT choice FROM answers WHERE round_id = ? AND user_id = ?", key)
            )
            if rows:
                choices[key] = int(rows[0][0])
        return choices


def _card_row(card: LearnerCard) -> tuple[object, ...]:
    values = card_values(card)
    return (
        *values[:8],
        to_ts(card.due),
        to_ts(card.last_review) if card.last_review else None,
        card.reviews,
        card.lapses,
        int(card.confident_miss),
    )


def _event_row(event: ReviewEvent) -> tuple[object, ...]:
    values = event_values(event)
    return (*values[:4], to_ts(event.reviewed_at), event.rating, int(event.sure))


def _claim_sends_sql(
    what: str,
    now: dt.datetime,
    limit: int,
    round_ids: Sequence[int] | None,
    force: bool,
    spaces: SpaceFilter | None,
) -> tuple[str, tuple[object, ...], str]:
    """The select of due deliveries of `what` (its args) and the update that claims them (see _claim_sends)."""
    where, params = _space_sql(spaces)
    state = "revealed_at IS NULL" if what == "post" else "revealed_at IS NOT NULL"
    cond = (
        f"kind = 'daily' AND {state} AND {what}_state IN ('due', 'sending', 'failed') "
        f"AND ({what}_due_at IS NULL OR {what}_due_at <= ?"
        + (f" OR {what}_state = 'failed'" if force else "")
        + ")"
        + where
    )
    args: list[object] = [to_ts(now), *params]
    if round_ids is not None:
        cond += f" AND id IN ({','.join('?' * len(round_ids))})"
        args += round_ids
    select = f"SELECT id, {what}_state FROM rounds WHERE {cond} ORDER BY id LIMIT ?"
    update = (
        f"UPDATE rounds SET {what}_state = 'sending', {what}_attempts = {what}_attempts + 1, "
        f"{what}_due_at = ?, {what}_doubts = {what}_doubts + ({what}_state = 'sending') "
        f"WHERE id IN ({{marks}}) RETURNING {ROUND_COLUMNS}, {what}_attempts, {what}_doubts"
    )
    return select, (*args, limit), update


def _send_claims(before: dict[int, str], rows: Iterable[Any]) -> list[SendClaim]:
    if not before:
        return []
    out = [SendClaim(round_from_row(r[:-2]), int(r[-2]), before[int(r[0])] == "sending", int(r[-1])) for r in rows]
    return sorted(out, key=lambda c: c.round.id)


_CHANNEL_ROW = f"SELECT {CHANNEL_COLUMNS} FROM channels WHERE platform = ? AND channel_id = ?"


def _settle_now(con: sqlite3.Connection, coro: Any) -> Any:
    """Run a bot.store.settle coroutine to its end on the raw connection (its steps never suspend)."""
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value
    coro.close()
    raise RuntimeError("a reveal step waited on something other than the connection")


# the marks through their partial index (without INDEXED BY the planner scans every round for them)
PENDING_ALL = PENDING_PRACTICE.format(rounds="rounds r INDEXED BY rounds_learn_pending", learner="")
PENDING_MINE = PENDING_PRACTICE.format(
    rounds="rounds r INDEXED BY rounds_learn_pending",
    learner="AND r.platform = ? AND r.space_id = ? AND r.user_id = ? ",
)


def _settle_whole(
    con: sqlite3.Connection, step: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """step(tx, *args, **kwargs), a bot.store.settle coroutine, to its end on the raw connection."""
    return _settle_now(con, step(_Settle(_InThread(con)), *args, **kwargs))  # type: ignore[arg-type]


def _reveal_batch_in_thread(
    con: sqlite3.Connection,
    round_ids: tuple[int, ...],
    revealed_at: dt.datetime,
    scorer: Scorer | None,
    learn: bool,
    lease_until: dt.datetime,
) -> tuple[list[Any], dict[int, str], list[Any], dict[int, list[Any]], dict[int, Any]]:
    """Reveal each round (bot.store.settle.reveal), then claim the reveal posts of those revealed and read
    their rows, answers and channels; inside the caller's transaction."""
    tx = _Settle(_InThread(con))  # type: ignore[arg-type]
    done = [rid for rid in round_ids if _settle_now(con, reveal(tx, rid, revealed_at, scorer, learn=learn))]
    if not done:
        return [], {}, [], {}, {}
    marks = ",".join("?" * len(done))
    revealed = con.execute(f"SELECT {ROUND_COLUMNS} FROM rounds WHERE id IN ({marks})", done).fetchall()
    order = {rid: i for i, rid in enumerate(done)}
    revealed.sort(key=lambda r: order[int(r[0])])
    select, args, update = _claim_sends_sql("reveal", revealed_at, len(done), done, False, None)
    before, claims = _claim_in_thread(con, select, args, update, to_ts(lease_until))
    answers = {
        rid: con.execute(
            f"SELECT {ANSWER_COLUMNS} FROM answers WHERE round_id = ? ORDER BY answered_at, user_id", (rid,)
        ).fetchall()
        for rid in done
    }
    configs = {int(r[0]): con.execute(_CHANNEL_ROW, (r[2], r[4])).fetchone() for r in revealed}
    return revealed, before, claims, answers, configs


# a round's rows on one board (`values`: a (?,?,?,?) per user), returning each user's new total and answer count
ADD_SCORES_SQL = (
    "INSERT INTO scores (platform, space_id, period, period_key, user_id, points, correct, answered, reached_at) "
    "SELECT ?, ?, ?, ?, column1, column2, column3, 1, column4 FROM (VALUES {values}) WHERE true "
    "ON CONFLICT (platform, space_id, period, period_key, user_id) DO UPDATE SET points = points + excluded.points, "
    "correct = correct + excluded.correct, answered = answered + 1, "
    "reached_at = COALESCE(excluded.reached_at, reached_at) RETURNING user_id, points, answered"
)

# the top of a board in the index's order (the first rows, then ties sorted): without `INDEXED BY`, a database
# without statistics (just migrated, or bulk-loaded, before an ANALYZE) sorts every row of the period
LEADERBOARD_SQL = (
    "SELECT user_id, points, correct, answered FROM scores INDEXED BY scores_top_reached "
    "WHERE platform = ? AND space_id = ? AND period = ? AND period_key = ? "
    "ORDER BY points DESC, reached_at IS NULL, reached_at, user_id LIMIT ?"
)


def _in_tx(con: sqlite3.Connection, fn: Callable[..., T], *args: Any) -> T:
    """fn(con, *args) in one BEGIN IMMEDIATE transaction, on the connection's thread."""
    con.execute("BEGIN IMMEDIATE")
    try:
        out = fn(con, *args)
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")
    return out


def _statement(con: sqlite3.Connection, sql: str, params: Sequence[Any]) -> list[Any]:
    return con.execute(sql, params).fetchall()


def _steps(con: sqlite3.Connection, steps: Sequence[Step]) -> list[Any]:
    rows: list[Any] = []
    for sql, params in steps:
        rows = con.execute(sql, params).fetchall()
    return rows


def _claim_in_thread(
    con: sqlite3.Connection, select: str, args: Sequence[Any], update: str, lease: str
) -> tuple[dict[int, str], list[Any]]:
    """The due deliveries (id -> their state before), then the claim of them (rows RETURNING)."""
    before = {int(r[0]): r[1] for r in con.execute(select, args).fetchall()}
    if not before:
        return before, []
    rows = con.execute(update.format(marks=",".join("?" * len(before))), (lease, *before)).fetchall()
    return before, rows


class _InThread:
    """The three aiosqlite calls _Settle makes, done at once on the raw sqlite3 connection: for a
    transaction that runs whole on aiosqlite's thread (its coroutines then never suspend)."""

    def __init__(self, con: sqlite3.Connection) -> None:
        self.con = con

    async def execute_fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return self.con.execute(sql, params).fetchall()

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> sqlite3.Cursor:
        return self.con.executemany(sql, rows)

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        self.con.execute(sql, params)


def _reveal_in_thread(
    con: sqlite3.Connection,
    round_id: int,
    revealed_at: dt.datetime,
    scorer: Scorer | None,
    learn: bool,
    unsure: tuple[str, ...],
) -> bool:
    """bot.store.settle.reveal in one BEGIN IMMEDIATE transaction, run on the connection's thread."""
    con.execute("BEGIN IMMEDIATE")
    try:
        tx = _Settle(_InThread(con))  # type: ignore[arg-type]
        coro = reveal(tx, round_id, revealed_at, scorer, learn=learn, unsure=unsure)
        try:
            coro.send(None)
        except StopIteration as stop:
            done = bool(stop.value)
        else:
            coro.close()
            raise RuntimeError("a reveal step waited on something other than the connection")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")
    return done


def _board(board: Board) -> tuple[str, str, str, str]:
    return board.platform, board.space_id, board.period.value, board.period_key


def _run_when_idle() -> None:
    """Give the calling thread Linux's SCHED_IDLE policy: it runs only when a CPU would otherwise be idle.
    Elsewhere, or where it is refused, the thread keeps its priority."""
    if hasattr(os, "sched_setscheduler") and hasattr(os, "SCHED_IDLE"):
        try:
            os.sched_setscheduler(threading.get_native_id(), os.SCHED_IDLE, os.sched_param(0))
        except OSError as exc:
            log.debug("the checkpoint thread keeps its priority: %s", exc)


def _checkpoint_connection(path: str) -> sqlite3.Connection:
    return sqlite3.connect(path, check_same_thread=False)


def _page_size(con: sqlite3.Connection) -> int:
    return int(con.execute("PRAGMA page_size").fetchone()[0])


def _checkpoint(con: sqlite3.Connection) -> tuple[int, int, int]:
    """A PASSIVE checkpoint (it never waits for a writer or a reader): (busy, frames in the WAL, frames copied)."""
    busy, logged, copied = con.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    return int(busy), int(logged), int(copied)


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
