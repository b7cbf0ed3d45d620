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
import sqlite3
from collections.abc import AsyncIterator, Callable, Collection, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from bot.errors import PackError, PackExists
from bot.learning import CardKey, LearnerCard, ReviewEvent
from bot.model import (
    Answer,
    Board,
    ChannelConfig,
    ChannelRef,
    DailyClaim,
    DueChannel,
    DueFinish,
    DuePost,
    LeaderboardRow,
    NewAnswer,
    Period,
    PostFinish,
    RecapRound,
    RecapScorer,
    RevealedRound,
    RevealFinish,
    Round,
    RoundKind,
    Scorer,
    SendClaim,
    SpaceFilter,
    StreakState,
    TopicStats,
)
from bot.scoring import ranked
from bot.store.installs_sql import SqliteInstalls
from bot.store.migrations import load_migrations
from bot.store.rows import (
    ANSWER_COLUMNS,
    CARD_COLUMNS,
    EVENT_COLUMNS,
    ROUND_COLUMNS,
    answer_from_row,
    asked_where,
    card_from_row,
    card_values,
    config_from_row,
    config_to_row,
    event_from_row,
    event_values,
    from_ts,
    ident,
    opened,
    parse_date,
    round_from_row,
    to_ts,
)
from bot.store.settle import SettlingStore, reveal

log = logging.getLogger(__name__)
T = TypeVar("T")

# the column order of rows.config_from_row (named, as migrations may add columns in any order)
CHANNEL_COLUMNS = (
    "platform, channel_id, space_id, post_time, timezone, weekdays, topics, difficulties, paused, reactions, "
    "answer_window_s, speed_bonus, updated_at, ping_winners, recap_day, threads, packs"
)
CHECKPOINT_EVERY = 0.25  # seconds between background WAL checkpoints
# Past this much WAL content a checkpoint is finished between two write transactions: it copies what was
# written since the unlocked pass and syncs the database file, a few ms that writes (not reads) wait.
WAL_RESET_AT = 8 * 1024 * 1024
WAL_KEEP = 16 * 1024 * 1024  # when the WAL starts over, its file is cut back to this size (journal_size_limit)
INSERT_CHUNK = 900  # rows per multi-row INSERT (6 parameters each, under SQLite's variable limit)
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


class SqliteStore(SqliteInstalls, SettlingStore):
    """Store port on SQLite (the embedded default)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._db: aiosqlite.Connection | None = None
        self._lock = asyncio.Lock()
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
            self._checkpoint_thread = ThreadPoolExecutor(1, thread_name_prefix="sqlite-checkpoint")
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
        pass are left to copy, and the next write starts the WAL over (cut to WAL_KEEP)."""
        loop = asyncio.get_running_loop()
        assert self._checkpoint_thread is not None
        con = await loop.run_in_executor(self._checkpoint_thread, _checkpoint_connection, self.path)
        page = await loop.run_in_executor(self._checkpoint_thread, _page_size, con)
        try:
            while True:
                await asyncio.sleep(CHECKPOINT_EVERY)
                try:
                    _, logged, copied = await asyncio.shield(
                        loop.run_in_executor(self._checkpoint_thread, _checkpoint, con)
                    )
                    if logged * page > WAL_RESET_AT:  # `logged` is where the WAL ended when this pass began
                        async with self._lock:  # the transaction in progress ends; no new one begins
                            paused = self._writes_paused = loop.create_future()
                        held = loop.time()
                        try:
                            await asyncio.shield(loop.run_in_executor(self._checkpoint_thread, _checkpoint, con))
                        finally:
                            self._writes_paused = None
                            paused.set_result(None)
                            held = loop.time() - held
                            self.checkpoint_holds += 1
                            self.checkpoint_hold_seconds += held
                            self.checkpoint_hold_max = max(self.checkpoint_hold_max, held)
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
        go on during one; see _checkpoint_loop)."""
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
        async with self._lock:
            db = self.db
            return bool(
                await db._execute(  # type: ignore[no-untyped-call]
                    _reveal_in_thread, db._conn, round_id, revealed_at, scorer, learn, tuple(unsure)
                )
            )

    async def _atomic(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """One write statement in its own BEGIN IMMEDIATE transaction, in one trip to the connection's
        thread (BEGIN, statement, fetch and COMMIT together); its rows (RETURNING)."""
        async with self._lock:
            db = self.db
            return list(await db._execute(_in_tx, db._conn, _statement, sql, params))  # type: ignore[no-untyped-call]

    async def _read(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row | tuple[Any, ...]]:
        """One statement, one trip to the connection's thread (execute, fetch and close together)."""
        async with self._lock:
            return list(await self.db.execute_fetchall(sql, params))

    async def migrate(self) -> list[int]:
        """Apply numbered migrations not applied yet; returns the versions applied now."""
        applied_now: list[int] = []
        async with self._lock:
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

    # ---- channels --------------------------------------------------------------------------------

    async def save_channel(self, config: ChannelConfig) -> None:
        row = config_to_row(config, dt.datetime.now(dt.UTC))
        async with self._tx() as db:
            await db.execute(
                "INSERT INTO channels (platform, channel_id, space_id, post_time, timezone, weekdays, topics, "
                "difficulties, paused, reactions, answer_window_s, speed_bonus, updated_at, ping_winners, recap_day, "
                "threads, packs) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
                "ON CONFLICT (platform, channel_id) DO UPDATE SET "
                "space_id=excluded.space_id, post_time=excluded.post_time, timezone=excluded.timezone, "
                "weekdays=excluded.weekdays, topics=excluded.topics, difficulties=excluded.difficulties, "
                "paused=excluded.paused, reactions=excluded.reactions, answer_window_s=excluded.answer_window_s, "
                "speed_bonus=excluded.speed_bonus, updated_at=excluded.updated_at, ping_winners=excluded.ping_winners, "
                "recap_day=excluded.recap_day, threads=excluded.threads, packs=excluded.packs",
                row,
            )

    async def get_channel(self, ref: ChannelRef) -> ChannelConfig | None:
        rows = await self._read(
            f"SELECT {CHANNEL_COLUMNS} FROM channels WHERE platform = ? AND channel_id = ?",
            (ref.platform, ref.channel_id),
        )
        return config_from_row(rows[0]) if rows else None

    async def list_channels(self, platform: str | None = None) -> list[ChannelConfig]:
        if platform is None:
            rows = await self._read(f"SELECT {CHANNEL_COLUMNS} FROM channels ORDER BY platform, channel_id")
        else:
            rows = await self._read(
                f"SELECT {CHANNEL_COLUMNS} FROM channels WHERE platform = ? ORDER BY channel_id", (platform,)
            )
        return [config_from_row(r) for r in rows]

    async def space_timezone(self, platform: str, space_id: str) -> str | None:
        rows = await self._read(
            "SELECT timezone FROM channels WHERE platform = ? AND space_id = ? ORDER BY updated_at DESC LIMIT 1",
            (platform, space_id),
        )
        return rows[0][0] if rows else None

    # ---- rounds ----------------------------------------------------------------------------------

    async def claim_daily_round(
        self,
        ref: ChannelRef,
        local_date: dt.date,
        question_id: str,
        topic: str,
        opened_at: dt.datetime,
        closes_at: dt.datetime | None,
        *,
        lease_until: dt.datetime | None = None,
    ) -> Round | None:
        claim = DailyClaim(ref, local_date, question_id, topic, opened_at, closes_at, lease_until)
        rows = await self._atomic(_CLAIM_DAILY, _daily_claim_row(claim))
        return round_from_row(rows[0]) if rows else None

    async def claim_daily_rounds(self, claims: Sequence[DailyClaim]) -> list[Round | None]:
        if not claims:
            return []
        async with self._lock:
            db = self.db
            found = await db._execute(  # type: ignore[no-untyped-call]
                _in_tx, db._conn, _returning_each, _CLAIM_DAILY, [_daily_claim_row(c) for c in claims]
            )
        return [round_from_row(rows[0]) if rows else None for rows in found]

    async def create_practice_round(
        self, ref: ChannelRef, user_id: str, question_id: str, topic: str, opened_at: dt.datetime
    ) -> Round:
        async with self._tx() as db:
            async with db.execute(
                "INSERT INTO rounds (kind, platform, space_id, channel_id, user_id, question_id, topic, opened_at) "
                f"VALUES ('practice',?,?,?,?,?,?,?) RETURNING {ROUND_COLUMNS}",
                (ref.platform, ref.space_id, ref.channel_id, user_id, question_id, topic, to_ts(opened_at)),
            ) as cur:
                row = await cur.fetchone()
        assert row is not None
        return round_from_row(row)

    async def get_round(self, round_id: int) -> Round | None:
        rows = await self._read(f"SELECT {ROUND_COLUMNS} FROM rounds WHERE id = ?", (round_id,))
        return round_from_row(rows[0]) if rows else None

    async def open_daily_rounds(self, ref: ChannelRef | None = None, *, unpromised: bool = False) -> list[Round]:
        if ref is None:
            rows = await self._read(
                f"SELECT {ROUND_COLUMNS} FROM rounds WHERE revealed_at IS NULL AND kind = 'daily'"
                + (" AND closes_at IS NULL" if unpromised else "")
                + " ORDER BY id"
            )
        else:
            rows = await self._read(
                f"SELECT {ROUND_COLUMNS} FROM rounds WHERE platform = ? AND channel_id = ? "
                "AND revealed_at IS NULL AND kind = 'daily'"
                + (" AND closes_at IS NULL" if unpromised else "")
                + " ORDER BY id",
                (ref.platform, ref.channel_id),
            )
        return [round_from_row(r) for r in rows]

    async def latest_daily_round(self, ref: ChannelRef) -> Round | None:
        rows = await self._read(
            f"SELECT {ROUND_COLUMNS} FROM rounds WHERE platform = ? AND channel_id = ? AND kind = 'daily' "
            "ORDER BY local_date DESC LIMIT 1",
            (ref.platform, ref.channel_id),
        )
        return round_from_row(rows[0]) if rows else None

    async def set_message_id(self, round_id: int, message_id: str) -> None:
        async with self._tx() as db:
            await db.execute("UPDATE rounds SET message_id = ? WHERE id = ?", (message_id, round_id))

    async def round_by_message(self, platform: str, message_id: str) -> Round | None:
        rows = await self._read(
            f"SELECT {ROUND_COLUMNS} FROM rounds WHERE platform = ? AND message_id = ? ORDER BY id DESC LIMIT 1",
            (platform, message_id),
        )
        return round_from_row(rows[0]) if rows else None

    async def question_counts(
        self, platform: str, space_id: str, kind: RoundKind, user_id: str | None = None
    ) -> dict[str, int]:
        where, params = asked_where(platform, space_id, kind, user_id, "?")
        rows = await self._read(f"SELECT question_id, COUNT(*) FROM rounds WHERE {where} GROUP BY question_id", params)
        return {r[0]: int(r[1]) for r in rows}

    async def last_question_id(
        self, platform: str, space_id: str, kind: RoundKind, user_id: str | None = None
    ) -> str | None:
        where, params = asked_where(platform, space_id, kind, user_id, "?")
        rows = await self._read(f"SELECT question_id FROM rounds WHERE {where} ORDER BY id DESC LIMIT 1", params)
        return rows[0][0] if rows else None

    async def question_history(
        self, platform: str, space_id: str, kind: RoundKind, user_id: str | None = None
    ) -> tuple[dict[str, int], str | None]:
        where, params = asked_where(platform, space_id, kind, user_id, "?")
        async with self._lock:
            db = self.db
            counts, last = await db._execute(_history_in_thread, db._conn, where, params)  # type: ignore[no-untyped-call]
        return {r[0]: int(r[1]) for r in counts}, last[0][0] if last else None

    # ---- durable daily work ----------------------------------------------------------------------

    async def set_next_post(self, ref: ChannelRef, at: dt.datetime | None) -> None:
        await self._atomic(
            "UPDATE channels SET next_post_at = ?, claimed_until = NULL WHERE platform = ? AND channel_id = ?",
            (to_ts(at) if at else None, ref.platform, ref.channel_id),
        )

    async def get_next_post(self, ref: ChannelRef) -> dt.datetime | None:
        rows = await self._read(
            "SELECT next_post_at FROM channels WHERE platform = ? AND channel_id = ?", (ref.platform, ref.channel_id)
        )
        return from_ts(rows[0][0]) if rows and rows[0][0] else None

    async def unscheduled_channels(self, spaces: SpaceFilter | None = None) -> list[ChannelConfig]:
        where, params = _space_sql(spaces)
        rows = await self._read(
            f"SELECT {CHANNEL_COLUMNS} FROM channels WHERE paused = 0 AND next_post_at IS NULL{where} "
            "ORDER BY platform, channel_id",
            params,
        )
        return [config_from_row(r) for r in rows]

    async def claim_due_channels(
        self, now: dt.datetime, lease_until: dt.datetime, limit: int, spaces: SpaceFilter | None = None
    ) -> list[DueChannel]:
        return await self._claim_due("next_post_at", "claimed_until", now, lease_until, limit, spaces)

    async def _claim_due(
        self, due: str, lease: str, now: dt.datetime, lease_until: dt.datetime, limit: int, spaces: SpaceFilter | None
    ) -> list[DueChannel]:
        """Claim channels whose `due` column has passed and whose `lease` is free (the daily post, the recap)."""
        return _due_channels(await self._atomic(*_claim_due_sql(due, lease, now, lease_until, limit, spaces)))

    async def finish_due_channel(self, ref: ChannelRef, due_at: dt.datetime, next_at: dt.datetime | None) -> None:
        await self._finish_due("next_post_at", "claimed_until", ref, due_at, next_at)

    async def _finish_due(
        self, due: str, lease: str, ref: ChannelRef, due_at: dt.datetime, next_at: dt.datetime | None
    ) -> None:
        """Move `due` on to next_at (unless a change moved it meanwhile) and free the lease."""
        await self._atomic(
            f"UPDATE channels SET {due} = CASE WHEN {due} = ? THEN ? ELSE {due} END, "
            f"{lease} = NULL WHERE platform = ? AND channel_id = ?",
            (to_ts(due_at), to_ts(next_at) if next_at else None, ref.platform, ref.channel_id),
        )

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
        async with self._lock:
            db = self.db
            before, rows = await db._execute(  # type: ignore[no-untyped-call]
                _in_tx, db._conn, _claim_in_thread, select, args, update, to_ts(lease_until)
            )
        return _send_claims(before, rows)

    async def claim_posts(
        self,
        now: dt.datetime,
        lease_until: dt.datetime,
        limit: int,
        *,
        round_id: int | None = None,
        force: bool = False,
        spaces: SpaceFilter | None = None,
    ) -> list[SendClaim]:
        return await self._claim_sends("post", now, lease_until, limit, round_id, force, spaces)

    async def finish_post(
        self, round_id: int, state: str, *, message_id: str | None = None, retry_at: dt.datetime | None = None
    ) -> None:
        await self._atomic(
            "UPDATE rounds SET post_state = ?, post_due_at = ?, message_id = COALESCE(?, message_id) WHERE id = ?",
            (state, to_ts(retry_at) if retry_at else None, message_id, round_id),
        )

    async def open_daily_question_ids(self, platform: str, space_id: str) -> set[str]:
        rows = await self._read(
            "SELECT question_id FROM rounds WHERE platform = ? AND space_id = ? AND kind = 'daily' "
            "AND revealed_at IS NULL",
            (platform, space_id),
        )
        return {r[0] for r in rows}

    async def set_reveal_at(self, round_id: int, at: dt.datetime) -> None:
        async with self._tx() as db:
            await db.execute(
                "UPDATE rounds SET closes_at = ? WHERE id = ? AND closes_at IS NULL AND revealed_at IS NULL",
                (to_ts(at), round_id),
            )

    async def due_reveals(self, now: dt.datetime, limit: int, spaces: SpaceFilter | None = None) -> list[Round]:
        where, params = _space_sql(spaces)
        rows = await self._read(
            f"SELECT {ROUND_COLUMNS} FROM rounds WHERE kind = 'daily' AND revealed_at IS NULL "
            f"AND closes_at IS NOT NULL AND closes_at <= ?{where} ORDER BY closes_at, id LIMIT ?",
            (to_ts(now), *params, limit),
        )
        return [round_from_row(r) for r in rows]

    async def claim_reveals(
        self,
        now: dt.datetime,
        lease_until: dt.datetime,
        limit: int,
        *,
        round_id: int | None = None,
        spaces: SpaceFilter | None = None,
    ) -> list[SendClaim]:
        return await self._claim_sends("reveal", now, lease_until, limit, round_id, False, spaces)

    async def finish_reveal(self, round_id: int, state: str, *, retry_at: dt.datetime | None = None) -> None:
        await self._atomic(
            "UPDATE rounds SET reveal_state = ?, reveal_due_at = ? WHERE id = ?",
            (state, to_ts(retry_at) if retry_at else None, round_id),
        )

    # ---- the same work by the batch: one trip to the connection's thread each ---------------------

    async def claim_due_posts(
        self, now: dt.datetime, lease_until: dt.datetime, limit: int, spaces: SpaceFilter | None = None
    ) -> list[DuePost]:
        claim = _claim_due_sql("next_post_at", "claimed_until", now, lease_until, limit, spaces)
        async with self._lock:
            db = self.db
            rows, configs, opened = await db._execute(  # type: ignore[no-untyped-call]
                _in_tx, db._conn, _due_posts_in_thread, *claim
            )
        out = []
        for due in _due_channels(rows):
            key = (due.ref.platform, due.ref.channel_id)
            found = configs.get(key)
            rounds = tuple(round_from_row(r) for r in opened.get(key, ()))
            out.append(DuePost(due, config_from_row(found) if found is not None else None, rounds))
        return out

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
        async with self._lock:
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

    async def finish_posts(self, items: Sequence[PostFinish]) -> None:
        await self._atomic_many(
            "UPDATE rounds SET post_state = ?, post_due_at = ?, message_id = COALESCE(?, message_id) WHERE id = ?",
            [(i.state, to_ts(i.retry_at) if i.retry_at else None, i.message_id, i.round_id) for i in items],
        )

    async def finish_reveals(self, items: Sequence[RevealFinish]) -> None:
        await self._atomic_many(
            "UPDATE rounds SET reveal_state = ?, reveal_due_at = ? WHERE id = ?",
            [(i.state, to_ts(i.retry_at) if i.retry_at else None, i.round_id) for i in items],
        )

    async def finish_due_channels(self, items: Sequence[DueFinish]) -> None:
        await self._atomic_many(
            "UPDATE channels SET next_post_at = CASE WHEN next_post_at = ? THEN ? ELSE next_post_at END, "
            "claimed_until = NULL WHERE platform = ? AND channel_id = ?",
            [
                (to_ts(i.due_at), to_ts(i.next_at) if i.next_at else None, i.ref.platform, i.ref.channel_id)
                for i in items
            ],
        )

    async def _atomic_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """One write statement for each row, in one BEGIN IMMEDIATE transaction and one trip."""
        if not rows:
            return
        async with self._lock:
            db = self.db
            await db._execute(_in_tx, db._conn, _many, sql, rows)  # type: ignore[no-untyped-call]

    # ---- the weekly recap --------------------------------------------------------------------------

    async def set_next_recap(self, ref: ChannelRef, at: dt.datetime | None) -> None:
        async with self._tx() as db:
            await db.execute(
                "UPDATE channels SET next_recap_at = ?, recap_claimed_until = NULL "
                "WHERE platform = ? AND channel_id = ?",
                (to_ts(at) if at else None, ref.platform, ref.channel_id),
            )

    async def get_next_recap(self, ref: ChannelRef) -> dt.datetime | None:
        rows = await self._read(
            "SELECT next_recap_at FROM channels WHERE platform = ? AND channel_id = ?", (ref.platform, ref.channel_id)
        )
        return from_ts(rows[0][0]) if rows and rows[0][0] else None

    async def unscheduled_recaps(self, spaces: SpaceFilter | None = None) -> list[ChannelConfig]:
        where, params = _space_sql(spaces)
        rows = await self._read(
            f"SELECT {CHANNEL_COLUMNS} FROM channels WHERE paused = 0 AND recap_day IS NOT NULL "
            f"AND next_recap_at IS NULL{where} ORDER BY platform, channel_id",
            params,
        )
        return [config_from_row(r) for r in rows]

    async def claim_due_recaps(
        self, now: dt.datetime, lease_until: dt.datetime, limit: int, spaces: SpaceFilter | None = None
    ) -> list[DueChannel]:
        return await self._claim_due("next_recap_at", "recap_claimed_until", now, lease_until, limit, spaces)

    async def finish_due_recap(self, ref: ChannelRef, due_at: dt.datetime, next_at: dt.datetime | None) -> None:
        await self._finish_due("next_recap_at", "recap_claimed_until", ref, due_at, next_at)

    async def mark_recap(self, ref: ChannelRef, week_end: dt.date, now: dt.datetime) -> bool:
        async with self._tx() as db:
            async with db.execute(
                "INSERT INTO recaps (platform, channel_id, week_end, posted_at) VALUES (?,?,?,?) "
                "ON CONFLICT DO NOTHING",
                (ref.platform, ref.channel_id, week_end.isoformat(), to_ts(now)),
            ) as cur:
                return cur.rowcount == 1

    async def unmark_recap(self, ref: ChannelRef, week_end: dt.date) -> None:
        async with self._tx() as db:
            await db.execute(
                "DELETE FROM recaps WHERE platform = ? AND channel_id = ? AND week_end = ?",
                (ref.platform, ref.channel_id, week_end.isoformat()),
            )

    async def recap_rounds(
        self, platform: str, space_id: str, start: dt.date, end: dt.date, channel_id: str | None = None
    ) -> list[RecapRound]:
        channel, params = _recap_where(platform, space_id, start, end, channel_id)
        rows = await self._read(
            "SELECT r.id, r.local_date, r.question_id, r.topic, COUNT(a.user_id), COALESCE(SUM(a.correct), 0) "
            "FROM rounds r LEFT JOIN answers a ON a.round_id = r.id WHERE r.platform = ? AND r.space_id = ? "
            "AND r.kind = 'daily' AND r.revealed_at IS NOT NULL AND r.local_date >= ? AND r.local_date <= ?"
            f"{channel} GROUP BY r.id ORDER BY r.local_date, r.id",
            params,
        )
        return [RecapRound(int(r[0]), dt.date.fromisoformat(r[1]), r[2], r[3], int(r[4]), int(r[5])) for r in rows]

    async def recap_scorers(
        self, platform: str, space_id: str, start: dt.date, end: dt.date, limit: int, channel_id: str | None = None
    ) -> list[RecapScorer]:
        channel, params = _recap_where(platform, space_id, start, end, channel_id)
        rows = await self._read(
            "SELECT a.user_id, SUM(COALESCE(a.points, 0)) AS pts, SUM(a.correct), COUNT(*), "
            "COALESCE(MAX(CASE WHEN a.points > 0 THEN a.answered_at END), MIN(a.answered_at)) AS reached "
            "FROM answers a JOIN rounds r ON r.id = a.round_id WHERE r.platform = ? AND r.space_id = ? "
            "AND r.kind = 'daily' AND r.revealed_at IS NOT NULL AND r.local_date >= ? AND r.local_date <= ?"
            f"{channel} GROUP BY a.user_id ORDER BY pts DESC, reached, a.user_id LIMIT ?",
            (*params, limit),
        )
        return [RecapScorer(r[0], int(r[1]), int(r[2]), int(r[3]), from_ts(r[4])) for r in rows]

    # ---- answers ---------------------------------------------------------------------------------

    async def get_answer(self, round_id: int, user_id: str) -> Answer | None:
        rows = await self._read(
            f"SELECT {ANSWER_COLUMNS} FROM answers WHERE round_id = ? AND user_id = ?",
            (round_id, user_id),
        )
        return answer_from_row(rows[0]) if rows else None

    async def round_answers(self, round_id: int) -> list[Answer]:
        rows = await self._read(
            f"SELECT {ANSWER_COLUMNS} FROM answers WHERE round_id = ? ORDER BY answered_at, user_id",
            (round_id,),
        )
        return [answer_from_row(r) for r in rows]

    # ---- reveal and leaderboards -----------------------------------------------------------------

    async def leaderboard(
        self, platform: str, space_id: str, period: Period, period_key: str, limit: int
    ) -> list[LeaderboardRow]:
        rows = await self._read(LEADERBOARD_SQL, (platform, space_id, period.value, period_key, limit))
        return ranked(rows)

    async def rank_of(
        self, platform: str, space_id: str, period: Period, period_key: str, user_id: str
    ) -> LeaderboardRow | None:
        rows = await self._read(
            "SELECT s.points, s.correct, s.answered, (SELECT COALESCE(SUM(b.users), 0) FROM score_buckets b "
            "WHERE b.platform = s.platform AND b.space_id = s.space_id AND b.period = s.period "
            "AND b.period_key = s.period_key AND b.points > s.points) "
            "FROM scores s WHERE s.platform = ? AND s.space_id = ? AND s.period = ? AND s.period_key = ? "
            "AND s.user_id = ?",
            (platform, space_id, period.value, period_key, user_id),
        )
        if not rows:
            return None
        row = rows[0]
        above = int(row[3])
        return LeaderboardRow(above + 1, user_id, int(row[0]), int(row[1]), int(row[2]))

    # ---- stats -----------------------------------------------------------------------------------

    async def user_topic_stats(self, platform: str, space_id: str, user_id: str) -> list[tuple[RoundKind, TopicStats]]:
        rows = await self._read(
            "SELECT r.kind, r.topic, COUNT(*), SUM(a.correct) FROM answers a JOIN rounds r ON r.id = a.round_id "
            "WHERE a.user_id = ? AND r.platform = ? AND r.space_id = ? AND r.revealed_at IS NOT NULL "
            "GROUP BY r.kind, r.topic ORDER BY r.topic",
            (user_id, platform, space_id),
        )
        return [(RoundKind(k), TopicStats(t, int(n), int(c or 0))) for k, t, n, c in rows]

    async def streak(self, platform: str, space_id: str, user_id: str) -> StreakState | None:
        rows = await self._read(
            "SELECT current, best, last_date FROM streaks WHERE platform = ? AND space_id = ? AND user_id = ?",
            (platform, space_id, user_id),
        )
        return StreakState(int(rows[0][0]), int(rows[0][1]), parse_date(rows[0][2])) if rows else None

    async def latest_revealed_date(self, platform: str, space_id: str) -> dt.date | None:
        rows = await self._read(
            "SELECT MAX(local_date) FROM rounds WHERE platform = ? AND space_id = ? AND kind = 'daily' "
            "AND revealed_at IS NOT NULL",
            (platform, space_id),
        )
        return parse_date(rows[0][0]) if rows else None

    # ---- deliveries handled once (shared by every process) ---------------------------------------

    async def remember_once(self, scope: str, key: str, now: dt.datetime, keep: dt.timedelta) -> bool:
        """True the first time (scope, key) is seen within `keep` of `now`; False for a repeat."""
        async with self._tx() as db:
            await db.execute("DELETE FROM seen_once WHERE expires_at <= ?", (to_ts(now),))
            async with db.execute(
                "INSERT INTO seen_once (scope, key, expires_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                (scope, key, to_ts(now + keep)),
            ) as cur:
                return cur.rowcount == 1

    # ---- learner memory -------------------------------------------------------------------------

    async def learner_cards(self, platform: str, space_id: str, user_id: str) -> list[LearnerCard]:
        rows = await self._read(
            f"SELECT {CARD_COLUMNS} FROM learner_cards WHERE platform = ? AND space_id = ? AND user_id = ? "
            "ORDER BY question_id",
            (platform, space_id, user_id),
        )
        return [card_from_row(r) for r in rows]

    async def review_events(self, platform: str, space_id: str, user_id: str) -> list[ReviewEvent]:
        rows = await self._read(
            f"SELECT {EVENT_COLUMNS} FROM review_log WHERE platform = ? AND space_id = ? AND user_id = ? "
            "ORDER BY reviewed_at, question_id",
            (platform, space_id, user_id),
        )
        return [event_from_row(r) for r in rows]

    async def mark_unsure(self, round_id: int, user_id: str) -> None:
        async with self._tx() as db:
            await db.execute(
                "INSERT INTO answer_doubts (round_id, user_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
                (round_id, user_id),
            )

    # ---- question packs (a space's own; see bot.packs) -------------------------------------------

    async def save_pack(
        self,
        platform: str,
        space_id: str,
        name: str,
        questions: Sequence[tuple[str, str]],
        *,
        replace: bool,
        max_packs: int,
        now: dt.datetime,
    ) -> int:
        """Create (or, with replace, replace) a space's pack with (question id, body) rows, all or
        nothing; returns the pack's new version. PackExists / PackError (too many packs) change nothing."""
        async with self._tx() as db:
            async with db.execute(
                "SELECT version FROM packs WHERE platform = ? AND space_id = ? AND name = ?",
                (platform, space_id, name),
            ) as cur:
                row = await cur.fetchone()
            if row is not None and not replace:
                raise PackExists(f"The pack {name} already exists in this space; import with --replace to replace it.")
            if row is None:
                async with db.execute(
                    "SELECT COUNT(*) FROM packs WHERE platform = ? AND space_id = ?", (platform, space_id)
                ) as cur:
                    count = tuple(await cur.fetchone() or (0,))[0]
                if count >= max_packs:
                    raise PackError(f"This space has {count} packs, the most it may hold; remove one first.")
            version = (row[0] if row else 0) + 1
            await db.execute(
                "DELETE FROM pack_questions WHERE platform = ? AND space_id = ? AND pack = ?",
                (platform, space_id, name),
            )
            await db.executemany(
                "INSERT INTO pack_questions (platform, space_id, pack, position, question_id, body) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [(platform, space_id, name, i, qid, body) for i, (qid, body) in enumerate(questions)],
            )
            await db.execute(
                "INSERT INTO packs (platform, space_id, name, version, questions, updated_at) VALUES (?,?,?,?,?,?) "
                "ON CONFLICT (platform, space_id, name) DO UPDATE SET version = excluded.version, "
                "questions = excluded.questions, updated_at = excluded.updated_at",
                (platform, space_id, name, version, len(questions), to_ts(now)),
            )
            return version

    async def list_packs(self, platform: str, space_id: str) -> list[tuple[str, int, int]]:
        """(name, questions, version) of the space's own packs, by name."""
        rows = await self._read(
            "SELECT name, questions, version FROM packs WHERE platform = ? AND space_id = ? ORDER BY name",
            (platform, space_id),
        )
        return [(r[0], int(r[1]), int(r[2])) for r in rows]

    async def pack_questions(self, platform: str, space_id: str, name: str) -> list[tuple[str, str]]:
        """(question id, body) of one of the space's packs in import order ([] when there is no such pack)."""
        rows = await self._read(
            "SELECT question_id, body FROM pack_questions WHERE platform = ? AND space_id = ? AND pack = ? "
            "ORDER BY position",
            (platform, space_id, name),
        )
        return [(r[0], r[1]) for r in rows]

    async def question_answer_counts(self, platform: str, space_id: str) -> list[tuple[str, int, tuple[int, ...], int]]:
        """Per question asked in the space: (question id, rounds, answers per choice A-D, correct answers)."""
        asked = await self._read(
            "SELECT question_id, COUNT(*) FROM rounds WHERE platform = ? AND space_id = ? GROUP BY question_id",
            (platform, space_id),
        )
        chosen = await self._read(
            "SELECT r.question_id, a.choice, COUNT(*), SUM(a.correct) FROM answers a "
            "JOIN rounds r ON r.id = a.round_id WHERE r.platform = ? AND r.space_id = ? "
            "GROUP BY r.question_id, a.choice",
            (platform, space_id),
        )
        return _answer_counts(asked, chosen)

    async def save_round_question(self, round_id: int, body: str) -> None:
        """Keep the question a round posted, as posted (the first one saved stays)."""
        async with self._tx() as db:
            await db.execute(
                "INSERT INTO round_questions (round_id, body) VALUES (?, ?) ON CONFLICT DO NOTHING", (round_id, body)
            )

    async def round_question(self, round_id: int) -> str | None:
        rows = await self._read("SELECT body FROM round_questions WHERE round_id = ?", (round_id,))
        return rows[0][0] if rows else None

    # ---- bulk export and import (`studybot db copy`) ---------------------------------------------

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


def _recap_where(
    platform: str, space_id: str, start: dt.date, end: dt.date, channel_id: str | None
) -> tuple[str, list[object]]:
    params: list[object] = [platform, space_id, start.isoformat(), end.isoformat()]
    if channel_id is None:
        return "", params
    return " AND r.channel_id = ?", [*params, channel_id]


def _space_sql(spaces: SpaceFilter | None) -> tuple[str, list[object]]:
    """The SQL of a SpaceFilter: its platforms, and on the sharded platform its shards ((id >> 22) % count)."""
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

    async def board_points(self, board: Board, users: Sequence[str]) -> dict[str, int]:
        rows = await self._rows_in(
            "SELECT user_id, points FROM scores WHERE platform = ? AND space_id = ? AND period = ? "
            "AND period_key = ? AND user_id IN ({marks})",
            _board(board),
            users,
        )
        return {r[0]: int(r[1]) for r in rows}

    async def add_scores(self, board: Board, rows: Sequence[tuple[str, int, int]]) -> None:
        await self.db.executemany(
            "INSERT INTO scores (platform, space_id, period, period_key, user_id, points, correct, answered) "
            "VALUES (?,?,?,?,?,?,?,1) ON CONFLICT (platform, space_id, period, period_key, user_id) DO UPDATE SET "
            "points = points + excluded.points, correct = correct + excluded.correct, answered = answered + 1",
            [(*_board(board), *row) for row in rows],
        )

    async def set_reached(self, board: Board, reached: dict[str, dt.datetime]) -> None:
        await self.db.executemany(
            "UPDATE scores SET reached_at = ? WHERE platform = ? AND space_id = ? AND period = ? AND period_key = ? "
            "AND user_id = ?",
            [(to_ts(at), *_board(board), uid) for uid, at in reached.items()],
        )

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

    async def claim_reveals(self, round_ids: Sequence[int], revealed_at: dt.datetime) -> dict[int, Round]:
        rows = await self._rows_in(
            f"UPDATE rounds SET revealed_at = ? WHERE id IN ({{marks}}) AND revealed_at IS NULL AND kind = 'practice' "
            f"RETURNING {ROUND_COLUMNS}",
            (to_ts(revealed_at),),
            round_ids,
        )
        return {r.id: r for r in map(round_from_row, rows)}

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

    async def insert_answers(self, answers: Sequence[NewAnswer]) -> set[tuple[int, str]]:
        inserted: set[tuple[int, str]] = set()
        for chunk in _chunks(answers, INSERT_CHUNK):
            params: list[object] = []
            for a in chunk:
                params += [a.round_id, a.user_id, a.choice, int(a.correct), to_ts(a.answered_at)]
            rows = await self.db.execute_fetchall(
                "INSERT INTO answers (round_id, user_id, choice, correct, answered_at) "
                f"VALUES {','.join('(?,?,?,?,?)' for _ in chunk)} ON CONFLICT DO NOTHING RETURNING round_id, user_id",
                params,
            )
            inserted.update((r[0], r[1]) for r in rows)
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


def _answer_counts(asked: Iterable[Any], chosen: Iterable[Any]) -> list[tuple[str, int, tuple[int, ...], int]]:
    counts: dict[str, list[int]] = {}
    for qid, choice, n, correct in chosen:
        row = counts.setdefault(qid, [0, 0, 0, 0, 0])
        if 0 <= int(choice) < 4:
            row[int(choice)] += int(n)
        row[4] += int(correct or 0)
    out = []
    for qid, n in asked:
        row = counts.get(qid, [0, 0, 0, 0, 0])
        out.append((str(qid), int(n), tuple(row[:4]), row[4]))
    return sorted(out)


_CLAIM_DAILY = (
    "INSERT INTO rounds (kind, platform, space_id, channel_id, question_id, topic, local_date, "
    "opened_at, closes_at, post_state, post_attempts, post_due_at) "
    f"VALUES ('daily',?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT DO NOTHING RETURNING {ROUND_COLUMNS}"
)


def _daily_claim_row(c: DailyClaim) -> tuple[object, ...]:
    return (
        c.ref.platform,
        c.ref.space_id,
        c.ref.channel_id,
        c.question_id,
        c.topic,
        c.local_date.isoformat(),
        to_ts(c.opened_at),
        to_ts(c.closes_at) if c.closes_at else None,
        "sending" if c.lease_until else "due",
        1 if c.lease_until else 0,
        to_ts(c.lease_until) if c.lease_until else None,
    )


def _returning_each(con: sqlite3.Connection, sql: str, rows: Sequence[Sequence[Any]]) -> list[list[Any]]:
    """`sql` once per row of parameters; the rows each returned (RETURNING)."""
    return [con.execute(sql, row).fetchall() for row in rows]


# the top of a board in the index's order (the first rows, then ties sorted): without `INDEXED BY`, a database
# without statistics (just migrated, or bulk-loaded, before an ANALYZE) sorts every row of the period
LEADERBOARD_SQL = (
    "SELECT user_id, points, correct, answered FROM scores INDEXED BY scores_top_reached "
    "WHERE platform = ? AND space_id = ? AND period = ? AND period_key = ? "
    "ORDER BY points DESC, reached_at IS NULL, reached_at, user_id LIMIT ?"
)


def _claim_due_sql(
    due: str, lease: str, now: dt.datetime, lease_until: dt.datetime, limit: int, spaces: SpaceFilter | None
) -> tuple[str, tuple[object, ...]]:
    where, params = _space_sql(spaces)
    return (
        f"UPDATE channels SET {lease} = ? WHERE rowid IN (SELECT rowid FROM channels "
        f"WHERE {due} IS NOT NULL AND {due} <= ? AND paused = 0 "
        f"AND ({lease} IS NULL OR {lease} <= ?){where} ORDER BY {due} LIMIT ?) "
        f"RETURNING platform, space_id, channel_id, {due}",
        (to_ts(lease_until), to_ts(now), to_ts(now), *params, limit),
    )


def _due_channels(rows: Iterable[Any]) -> list[DueChannel]:
    return sorted(
        (DueChannel(ChannelRef(r[0], r[1], r[2]), from_ts(r[3])) for r in rows),
        key=lambda d: (d.due_at, d.ref.platform, d.ref.channel_id),
    )


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
_OPEN_DAILY = (
    f"SELECT {ROUND_COLUMNS} FROM rounds WHERE platform = ? AND channel_id = ? "
    "AND revealed_at IS NULL AND kind = 'daily' ORDER BY id"
)


def _due_posts_in_thread(
    con: sqlite3.Connection, claim: str, params: Sequence[Any]
) -> tuple[list[Any], dict[tuple[str, str], Any], dict[tuple[str, str], list[Any]]]:
    """The claim of due channels, then each claimed channel's settings and open daily rounds."""
    rows = con.execute(claim, params).fetchall()
    configs: dict[tuple[str, str], Any] = {}
    opened: dict[tuple[str, str], list[Any]] = {}
    for r in rows:
        key = (r[0], r[2])
        found = con.execute(_CHANNEL_ROW, key).fetchone()
        if found is not None:
            configs[key] = found
        opened[key] = con.execute(_OPEN_DAILY, key).fetchall()
    return rows, configs, opened


def _settle_now(con: sqlite3.Connection, coro: Any) -> Any:
    """Run a bot.store.settle coroutine to its end on the raw connection (its steps never suspend)."""
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value
    coro.close()
    raise RuntimeError("a reveal step waited on something other than the connection")


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


def _history_in_thread(con: sqlite3.Connection, where: str, params: Sequence[Any]) -> tuple[list[Any], list[Any]]:
    """The questions asked (with their counts) and the last one asked, read in one trip."""
    counts = con.execute(f"SELECT question_id, COUNT(*) FROM rounds WHERE {where} GROUP BY question_id", params)
    last = con.execute(f"SELECT question_id FROM rounds WHERE {where} ORDER BY id DESC LIMIT 1", params)
    return counts.fetchall(), last.fetchall()


def _many(con: sqlite3.Connection, sql: str, rows: Sequence[Sequence[Any]]) -> None:
    con.executemany(sql, rows)


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

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        self.con.executemany(sql, rows)

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
