"""The scale-out store: PostgreSQL through an asyncpg connection pool.

Any number of bot processes can share one database. Unique keys decide every race (one daily round per
(channel, local date), one answer per (round, user)); row locks and a per-space advisory lock give the
same answers the single-writer SQLite store gives:

- add_answers takes a FOR SHARE lock on the batch's rounds, so a reveal (an UPDATE of the round) waits
  for the batch to commit and every recorded answer is scored, and an answer never lands after a reveal;
- reveal_round claims the reveal with UPDATE ... WHERE revealed_at IS NULL, then serializes the scoring
  of a space (streaks, scores, score buckets) behind pg_advisory_xact_lock, all in one transaction;
- migrations run under a transaction-scoped advisory lock, so processes starting together apply each
  migration once.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from bot.daily.values import RevealedRound, SendClaim
from bot.kernel.scoring import Scorer
from bot.kernel.values import AnswerWrite, ChannelRef, DueChannel, NewAnswer, Round, SpaceFilter
from bot.store.base import DueSends, Step, numbered
from bot.store.migrations import load_migrations
from bot.store.postgres_delivery import PgDelivery
from bot.store.postgres_settle import CHANNEL_COLUMNS, PgSettle
from bot.store.rows import ROUND_COLUMNS, ROUND_COLUMNS_OF_R, due_channels, ident, opened, round_from_row
from bot.store.settle import answer_writes, reveal_all, sort_answers
from bot.store.sql import FeatureSql
from bot.store.turns import BackgroundSlots

log = logging.getLogger(__name__)


POOL_MIN, POOL_MAX = 1, 10
APPLICATION_NAME = "studybot"  # a process of role all; the split roles add theirs (bot.app.roles.connection_name)
FOREGROUND_CONNECTIONS = 3  # of the pool, never taken by background work (answers and reads go on)
# advisory lock keys (two int4 keys): a namespace of ours, then 0 or a hash of the space (bot.store.postgres_settle
# has the scoring's)
LOCK_MIGRATIONS = 0x53420001
LOCK_PACKS = 0x53420030  # one pack import per space at a time
LOCK_REPORTS = 0x53420062  # one report decision per (space, reporter) at a time: the daily count holds

TableSpec = tuple[str, Sequence[str], Sequence[str]]  # table, columns, ORDER BY columns

# An answer batch in one statement (one implicit transaction): its rounds locked FOR SHARE in id order
# (all of them, as the aggregate reads them, before any insert), then the answers to the open ones
# inserted. Rows: each round found (kind 0: id, NULL, revealed_at, closes_at), each answer inserted
# (kind 1: round, user).
RECORD_ANSWERS = (
    "WITH w AS MATERIALIZED (SELECT id, revealed_at, closes_at FROM rounds WHERE id = ANY($1::bigint[]) "
    "ORDER BY id FOR SHARE), "
    "o AS (SELECT array_agg(id) AS ids FROM w WHERE revealed_at IS NULL AND (closes_at IS NULL OR closes_at > $7)), "
    "i AS (INSERT INTO answers (round_id, user_id, choice, correct, answered_at) "
    "SELECT u.* FROM unnest($2::bigint[], $3::text[], $4::smallint[], $5::boolean[], $6::timestamptz[]) "
    "AS u(round_id, user_id, choice, correct, answered_at) WHERE u.round_id = ANY((SELECT ids FROM o)::bigint[]) "
    "ORDER BY u.round_id, u.user_id "  # every process inserts in key order: two overlapping batches never deadlock
    "ON CONFLICT DO NOTHING RETURNING round_id, user_id) "
    "SELECT 0, id, NULL::text, revealed_at, closes_at FROM w UNION ALL SELECT 1, round_id, user_id, NULL, NULL FROM i"
)


def redact(url: str) -> str:
    """The URL with its password replaced, for logs and errors."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)
    user = netloc[0].split(":", 1)[0]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc[1]}"))


class PostgresStore(PgDelivery, FeatureSql):
    """Store port on PostgreSQL (several bot processes may share one database)."""

    dialect = "postgres"
    channel_columns = CHANNEL_COLUMNS
    native_values = True  # asyncpg takes datetimes, booleans and times as they are
    text_order = ' COLLATE "C"'  # byte order, as SQLite sorts text
    due_reminders_sql = "reminders WHERE enabled AND next_at IS NOT NULL"

    def __init__(
        self, url: str, *, min_size: int = POOL_MIN, max_size: int = POOL_MAX, application_name: str = APPLICATION_NAME
    ) -> None:
        self.url = url
        self.application_name = application_name  # how pg_stat_activity names this process's connections
        self._min_size = min_size
        self._max_size = max_size
        self._pool: asyncpg.Pool | None = None
        self._slots = BackgroundSlots(max_size - FOREGROUND_CONNECTIONS)

    def __repr__(self) -> str:
        return f"PostgresStore({redact(self.url)!r})"

    # ---- lifecycle -------------------------------------------------------------------------------

    async def open(self, *, migrate: bool = True) -> None:
        """Connect the pool and (by default) apply pending migrations."""
        try:
            self._pool = await asyncpg.create_pool(
                self.url,
                min_size=self._min_size,
                max_size=self._max_size,
                reset=_keep_session,
                server_settings={"application_name": self.application_name, "jit": "off"},
            )
        except (OSError, asyncpg.PostgresError) as exc:
            raise ConnectionError(f"cannot connect to PostgreSQL at {redact(self.url)}: {exc}") from exc
        if migrate:
            try:
                await self.migrate()
            except BaseException:
                await self.close()
                raise

    async def close(self) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            await pool.close()

    @property
    def pool(self) -> asyncpg.Pool:
        return opened(self._pool)

    @contextlib.asynccontextmanager
    async def _conn(self) -> AsyncIterator[asyncpg.Connection]:
        """A pooled connection; background work (bot.priority) first takes one of its slots, so it never
        holds the whole pool and an answer batch or a read always finds a connection soon."""
        async with self._slots.turn(), self.pool.acquire() as conn:
            yield conn

    async def _fetch(self, sql: str, *args: Any) -> list[Any]:
        async with self._conn() as conn:
            return list(await conn.fetch(sql, *args))

    async def _fetchval(self, sql: str, *args: Any) -> Any:
        async with self._conn() as conn:
            return await conn.fetchval(sql, *args)

    async def _execute(self, sql: str, *args: Any) -> None:
        async with self._conn() as conn:
            await conn.execute(sql, *args)

    @contextlib.asynccontextmanager
    async def _tx(self) -> AsyncIterator[asyncpg.Connection]:
        async with self._conn() as conn, conn.transaction():
            yield conn

    @contextlib.asynccontextmanager
    async def _write_tx(self) -> AsyncIterator[_PgTx]:
        async with self._tx() as conn:
            yield _PgTx(conn)

    @contextlib.asynccontextmanager
    async def _settling(self) -> AsyncIterator[PgSettle]:
        async with self._tx() as conn:
            yield PgSettle(conn)

    async def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return await self._fetch(numbered(sql), *params)

    async def _atomic(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return await self._fetch(numbered(sql), *params)

    async def _atomic_steps(self, steps: Sequence[Step]) -> list[Any]:
        rows: list[Any] = []
        async with self._tx() as conn:
            for sql, params in steps:
                rows = list(await conn.fetch(numbered(sql), *params))
        return rows

    async def _atomic_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        # executemany runs the rows in order in one pipeline (one trip, not one per row)
        async with self._tx() as conn:
            await conn.executemany(numbered(sql), rows)

    def _ts(self, moment: dt.datetime) -> object:
        return moment

    def _report_lock(self, key: str) -> list[Step]:
        """The reporter's advisory lock: concurrent reports of one member are decided one after another."""
        return [("SELECT pg_advisory_xact_lock(?, hashtext(?))", (LOCK_REPORTS, key))]

    def _day(self, day: dt.date) -> object:
        return day

    def _space_filter(self, spaces: SpaceFilter | None, first: int) -> tuple[str, list[object]]:
        return _space_sql(spaces, first)

    def _wall(self, at: dt.time) -> object:
        return at

    async def migrate(self) -> list[int]:
        """Apply numbered migrations not applied yet; returns the versions applied now.

        Each migration runs in its own transaction that first takes an advisory lock, so processes
        migrating at once wait for each other and each migration is applied exactly once."""
        applied_now: list[int] = []
        async with self._conn() as conn:
            for version, name, sql in load_migrations("postgres"):
                async with conn.transaction():
                    await conn.execute("SELECT pg_advisory_xact_lock($1, 0)", LOCK_MIGRATIONS)
                    await conn.execute(
                        "CREATE TABLE IF NOT EXISTS schema_migrations "
                        "(version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL)"
                    )
                    if await conn.fetchval("SELECT 1 FROM schema_migrations WHERE version = $1", version):
                        continue
                    await conn.execute(sql)
                    await conn.execute(
                        "INSERT INTO schema_migrations VALUES ($1, $2, $3)", version, name, dt.datetime.now(dt.UTC)
                    )
                applied_now.append(version)
                log.info("applied migration %03d %s", version, name)
        return applied_now

    async def schema_version(self) -> int:
        return int(await self._fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_migrations"))

    async def database_time(self, elapsed: Callable[[], float]) -> tuple[dt.datetime, float]:
        """The server's now() and `elapsed()` at the query's midpoint, measured once the connection is held
        (bot.kernel.clock.DatabaseClock: every process's due decisions on the database's clock)."""
        async with self._conn() as conn:
            before = elapsed()
            at = await conn.fetchval("SELECT now()")
            after = elapsed()
        return at, (before + after) / 2

    # ---- durable daily work ----------------------------------------------------------------------

    async def _claim_due(
        self, due: str, lease: str, now: dt.datetime, lease_until: dt.datetime, limit: int, spaces: SpaceFilter | None
    ) -> list[DueChannel]:
        """Claim channels whose `due` column has passed and whose `lease` is free (the daily post, the recap)."""
        where, params = _space_sql(spaces, 4)
        rows = await self._fetch(
            f"UPDATE channels c SET {lease} = $1 FROM (SELECT platform, channel_id FROM channels "
            f"WHERE {due} IS NOT NULL AND {due} <= $2 AND NOT paused "
            f"AND ({lease} IS NULL OR {lease} <= $2){where} ORDER BY {due}, platform, space_id, channel_id LIMIT $3 "
            "FOR UPDATE SKIP LOCKED) due WHERE c.platform = due.platform AND c.channel_id = due.channel_id "
            f"RETURNING c.platform, c.space_id, c.channel_id, c.{due}",
            lease_until,
            now,
            limit,
            *params,
        )
        return due_channels(rows)

    async def _claim_due_sends(self, due: DueSends) -> list[SendClaim]:
        """One UPDATE of the rounds selected FOR UPDATE SKIP LOCKED: concurrent ticks never take the same round."""
        what = due.what
        where, params = _space_sql(due.spaces, 5)
        rows = await self._fetch(
            f"UPDATE rounds r SET {what}_state = 'sending', {what}_attempts = r.{what}_attempts + 1, "
            f"{what}_due_at = $1, "
            f"{what}_doubts = r.{what}_doubts + (CASE WHEN w.prev_state = 'sending' THEN 1 ELSE 0 END) "
            f"FROM (SELECT id, {what}_state AS prev_state FROM rounds WHERE {due.where('$2')} "
            f"AND ($4::bigint[] IS NULL OR id = ANY($4::bigint[])){where} ORDER BY id LIMIT $3 "
            "FOR UPDATE SKIP LOCKED) w "
            f"WHERE r.id = w.id RETURNING {ROUND_COLUMNS_OF_R}, "
            f"r.{what}_attempts, r.{what}_doubts, w.prev_state",
            due.lease_until,
            due.now,
            due.limit,
            None if due.round_ids is None else list(due.round_ids),
            *params,
        )
        out = [SendClaim(round_from_row(tuple(r)[:-3]), int(r[-3]), r[-1] == "sending", int(r[-2])) for r in rows]
        return sorted(out, key=lambda c: c.round.id)

    async def add_answers(self, answers: Sequence[NewAnswer], now: dt.datetime) -> list[AnswerWrite]:
        """bot.store.settle.add_answers in one statement (RECORD_ANSWERS), and a second only for duplicates."""
        if not answers:
            return []
        firsts: dict[tuple[int, str], NewAnswer] = {}
        for a in answers:
            firsts.setdefault((a.round_id, a.user_id), a)
        rows = await self._fetch(
            RECORD_ANSWERS,
            sorted({a.round_id for a in answers}),
            *(list(column) for column in zip(*firsts.values(), strict=True)),
            now,
        )
        windows = {r[1]: (r[3], r[4]) for r in rows if r[0] == 0}
        inserted = {(r[1], r[2]) for r in rows if r[0] == 1}
        results, pending = sort_answers(answers, windows, now)
        return await answer_writes(answers, results, pending, inserted, self._stored_choices)

    async def _read_among(
        self, sql: str, params: Sequence[Any], column: str, values: Sequence[Any], kind: str
    ) -> list[Any]:
        """RoundSql._read_among in one statement of one shape, however many values (an array, not a list of
        marks: asyncpg's statement cache keeps one statement)."""
        if not values:
            return []
        return await self._read(sql.format(among=f"{column} = ANY(?::{kind}[])"), (*params, list(values)))

    async def _stored_choices(self, keys: Sequence[tuple[int, str]]) -> dict[tuple[int, str], int]:
        async with self._conn() as conn:
            return await PgSettle(conn).stored_choices(keys)

    async def _reveal_batch(
        self, ids: Sequence[int], at: dt.datetime, scorer: Scorer | None, lease_until: dt.datetime, learn: bool
    ) -> list[RevealedRound]:
        """The batch's locks and its claim (with the claim of their reveal posts) in two statements
        (PgSettle.lock_rounds, claim_batch, which also marks the daily rounds for their card updates), then its
        reveals' writes: a statement each for the batch's points and streaks (PgSettle.flush_writes), and its
        boards'."""
        async with self._settling() as tx:
            await tx.lock_rounds(ids)
            await tx.claim_batch(ids, at, lease_until, learn=False, mark_cards=learn)
            done = await reveal_all(tx, ids, at, scorer, learn=learn)
            await tx.flush_writes()
            return [tx.revealed(rid) for rid in done]

    async def due_reveals(self, now: dt.datetime, limit: int, spaces: SpaceFilter | None = None) -> list[Round]:
        where, params = _space_sql(spaces, 3)
        rows = await self._fetch(
            f"SELECT {ROUND_COLUMNS} FROM rounds WHERE kind = 'daily' AND revealed_at IS NULL "
            f"AND closes_at IS NOT NULL AND closes_at <= $1{where} ORDER BY closes_at, id LIMIT $2",
            now,
            limit,
            *params,
        )
        return [round_from_row(r) for r in rows]

    # ---- bulk export and import (`studybot db copy`) ---------------------------------------------

    async def list_tables(self) -> list[str]:
        """The tables of the schema the store uses."""
        async with self._conn() as conn:
            rows = await conn.fetch(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() "
                "AND table_type = 'BASE TABLE' ORDER BY table_name"
            )
        return [str(r[0]) for r in rows]

    async def count_rows(self, tables: Iterable[str]) -> dict[str, int]:
        """Rows per table."""
        async with self._conn() as conn:
            return {t: int(await conn.fetchval(f"SELECT COUNT(*) FROM {ident(t)}")) for t in tables}

    async def export_rows(
        self, tables: Sequence[TableSpec], batch: int = 5000
    ) -> AsyncIterator[tuple[str, list[tuple[Any, ...]]]]:
        """Yield (table, rows) batches, every table read from one snapshot (a read-only repeatable read)."""
        async with self._conn() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
            for table, columns, order in tables:
                cols = ", ".join(ident(c) for c in columns)
                cursor = await conn.cursor(
                    f"SELECT {cols} FROM {ident(table)} ORDER BY {', '.join(ident(c) for c in order)}"
                )
                while rows := await cursor.fetch(batch):
                    yield table, [tuple(r) for r in rows]

    async def import_rows(
        self, batches: AsyncIterator[tuple[str, Sequence[str], list[tuple[Any, ...]]]]
    ) -> dict[str, int]:
        """Insert rows (Python values) with COPY in one transaction, restart the rounds identity after the
        highest id, and check every table holds exactly the rows given before committing."""
        given: dict[str, int] = {}
        async with self._tx() as conn:
            async for table, columns, rows in batches:
                given.setdefault(table, 0)
                if rows:
                    await conn.copy_records_to_table(ident(table), records=rows, columns=[ident(c) for c in columns])
                    given[table] += len(rows)
            for serial in ("rounds", "suggestions", "question_reports", "live_games"):
                if serial in given:
                    await conn.execute(
                        f"SELECT setval(pg_get_serial_sequence('{serial}', 'id'), COALESCE(MAX(id), 0) + 1, false) "
                        f"FROM {serial}"
                    )
            for table, n in given.items():
                have = int(await conn.fetchval(f"SELECT COUNT(*) FROM {ident(table)}"))
                if have != n:
                    raise RuntimeError(f"{table}: {have} rows after the import, {n} given; rolled back")
        # fresh statistics at once (autovacuum would take a minute): the planner picks the right indexes
        if given:
            await self._execute("ANALYZE " + ", ".join(ident(t) for t in given))
        return given


def _space_sql(spaces: SpaceFilter | None, first: int) -> tuple[str, list[object]]:
    """The SQL of a SpaceFilter with parameters numbered from $first: its platforms, and on the sharded
    platform only spaces on its shards ((id >> 22) % count); a non-numeric space id is on shard 0."""
    if spaces is None:
        return "", []
    sql, params = "", list[object]()
    n = first
    if spaces.platforms is not None:
        sql += f" AND platform = ANY(${n}::text[])"
        params.append(list(spaces.platforms))
        n += 1
    if spaces.shard_count:
        sql += (
            f" AND (platform <> ${n} OR CASE WHEN space_id ~ '^[0-9]{{1,19}}$' "
            f"THEN ((space_id::numeric::bigint >> 22) % ${n + 1}) = ANY(${n + 2}::int[]) "
            f"ELSE 0 = ANY(${n + 2}::int[]) END)"
        )
        params += [spaces.shard_platform, spaces.shard_count, list(spaces.shard_ids)]
    return sql, params


async def _keep_session(conn: asyncpg.Connection) -> None:
    """The pool's reset on release: nothing to do. The store leaves no session state behind (no SET, LISTEN,
    session advisory locks or cursors outside a transaction) and asyncpg rolls back any open transaction
    itself, so the default reset query (RESET ALL; UNLISTEN *; ...) would only cost a round trip per call."""


class _PgTx:
    """bot.store.base.SqlTx on one pooled connection inside its transaction."""

    for_update = " FOR UPDATE"

    def __init__(self, conn: asyncpg.Connection) -> None:
        self.conn = conn

    async def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return list(await self.conn.fetch(numbered(sql), *params))

    async def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        status = await self.conn.execute(numbered(sql), *params)  # "DELETE 3", "INSERT 0 1", ...
        return int(str(status).rsplit(" ", 1)[-1])

    async def run_many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        await self.conn.executemany(numbered(sql), rows)

    async def lock_packs(self, platform: str, space_id: str, *, wait: bool) -> bool:
        key = f"{platform}\x1f{space_id}"
        if wait:
            await self.conn.execute("SELECT pg_advisory_xact_lock($1, hashtext($2))", LOCK_PACKS, key)
            return True
        return bool(await self.conn.fetchval("SELECT pg_try_advisory_xact_lock($1, hashtext($2))", LOCK_PACKS, key))

    async def lock_space(self, ref: ChannelRef) -> None:
        await PgSettle(self.conn).lock_space(ref)
