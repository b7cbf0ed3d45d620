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
import dataclasses
import datetime as dt
import logging
from collections.abc import AsyncIterator, Collection, Iterable, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from bot.daily.values import RevealedRound, SendClaim
from bot.kernel.scoring import Board, LeaderboardRow, Scorer, ScoreRow, ranked
from bot.kernel.values import (
    Answer,
    AnswerWrite,
    ChannelConfig,
    ChannelRef,
    DueChannel,
    NewAnswer,
    Period,
    Round,
    RoundKind,
    SpaceFilter,
    StreakState,
)
from bot.practice.memory import CardKey, LearnerCard, PendingAnswer, ReviewEvent
from bot.store.base import PENDING_PRACTICE, Step, numbered
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
    ident,
    opened,
    round_from_row,
)
from bot.store.settle import answer_writes, reveal, sort_answers
from bot.store.sql import FeatureSql
from bot.store.turns import BackgroundSlots

log = logging.getLogger(__name__)


# the column order of rows.config_from_row, with the time rendered as HH:MM like the SQLite text
CHANNEL_COLUMNS = (
    "platform, channel_id, space_id, to_char(post_time, 'HH24:MI'), timezone, weekdays, topics, difficulties, "
    "paused, reactions, answer_window_s, speed_bonus, updated_at, ping_winners, recap_day, threads, packs, "
    "champion_role"
)
POOL_MIN, POOL_MAX = 1, 10
FOREGROUND_CONNECTIONS = 3  # of the pool, never taken by background work (answers and reads go on)
# advisory lock keys (two int4 keys): a namespace of ours, then 0 or a hash of the space
LOCK_MIGRATIONS = 0x53420001
LOCK_SPACE = 0x53420002
LOCK_PACKS = 0x53420030  # one pack import per space at a time
LOCK_REPORTS = 0x53420062  # one report decision per (space, reporter) at a time: the daily count holds
LOCK_LEARNING = 0x53420071  # one writer of practice card updates at a time (bot.store.settle.learn_practice)

TableSpec = tuple[str, Sequence[str], Sequence[str]]  # table, columns, ORDER BY columns

ROUND_WIDTH = len(ROUND_COLUMNS.split(","))
# A reveal batch's locks in one statement: its rounds FOR UPDATE in id order, then (the GROUP BY reads them
# all first) each of their spaces' advisory locks in one order (byte order of platform, then space).
LOCK_ROUNDS = (
    "WITH r AS MATERIALIZED (SELECT platform, space_id FROM rounds WHERE id = ANY($2::bigint[]) "
    "ORDER BY id FOR UPDATE) "
    "SELECT s.platform, s.space_id, pg_advisory_xact_lock($1, hashtext(s.platform || chr(31) || s.space_id)) "
    'FROM (SELECT platform, space_id FROM r GROUP BY 1, 2 ORDER BY platform COLLATE "C", space_id COLLATE "C" '
    "OFFSET 0) s"
)
# Claim a reveal batch's rounds and read, per round claimed, what its reveal reads: the space's latest
# revealed daily date before the round's (as it stood before this statement's claims), its answers, their
# streaks, its doubts, their cards ($3: with learning) and its channel's settings (rows.config_from_row).
CLAIM_BATCH = (
    f"WITH c AS (UPDATE rounds SET revealed_at = $1 WHERE id = ANY($2::bigint[]) AND revealed_at IS NULL "
    f"RETURNING {ROUND_COLUMNS}) "
    "SELECT c.*, "
    "(SELECT MAX(p.local_date) FROM rounds p WHERE p.platform = c.platform AND p.space_id = c.space_id "
    "AND p.kind = 'daily' AND p.revealed_at IS NOT NULL AND p.local_date < c.local_date), "
    f"ARRAY(SELECT ROW({', '.join('a.' + col for col in ANSWER_COLUMNS.split(', '))}) FROM answers a "
    "WHERE a.round_id = c.id ORDER BY a.answered_at, a.user_id), "
    "ARRAY(SELECT ROW(s.user_id, s.current, s.best, s.last_date) FROM answers a JOIN streaks s "
    "ON s.platform = c.platform AND s.space_id = c.space_id AND s.user_id = a.user_id "
    "WHERE a.round_id = c.id AND c.kind = 'daily'), "
    "ARRAY(SELECT d.user_id FROM answer_doubts d WHERE d.round_id = c.id), "
    f"ARRAY(SELECT ROW({', '.join('k.' + col for col in CARD_COLUMNS.split(', '))}) FROM answers a "
    "JOIN learner_cards k ON k.platform = c.platform AND k.space_id = c.space_id AND k.user_id = a.user_id "
    "AND k.question_id = c.question_id WHERE $3 AND a.round_id = c.id), "
    "ch.* FROM c LEFT JOIN LATERAL "
    f"(SELECT true AS found, {CHANNEL_COLUMNS} FROM channels WHERE platform = c.platform "
    "AND channel_id = c.channel_id) ch ON true"
)
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


class PostgresStore(FeatureSql):
    """Store port on PostgreSQL (several bot processes may share one database)."""

    dialect = "postgres"
    channel_columns = CHANNEL_COLUMNS
    native_values = True  # asyncpg takes datetimes, booleans and times as they are
    text_order = ' COLLATE "C"'  # byte order, as SQLite sorts text

    def __init__(self, url: str, *, min_size: int = POOL_MIN, max_size: int = POOL_MAX) -> None:
        self.url = url
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
                server_settings={"application_name": "studybot", "jit": "off"},
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
    async def _settling(self) -> AsyncIterator[_Settle]:
        async with self._tx() as conn:
            yield _Settle(conn)

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

    # ---- durable daily work ----------------------------------------------------------------------

    async def _claim_due(
        self, due: str, lease: str, now: dt.datetime, lease_until: dt.datetime, limit: int, spaces: SpaceFilter | None
    ) -> list[DueChannel]:
        """Claim channels whose `due` column has passed and whose `lease` is free (the daily post, the recap)."""
        where, params = _space_sql(spaces, 4)
        rows = await self._fetch(
            f"UPDATE channels c SET {lease} = $1 FROM (SELECT platform, channel_id FROM channels "
            f"WHERE {due} IS NOT NULL AND {due} <= $2 AND NOT paused "
            f"AND ({lease} IS NULL OR {lease} <= $2){where} ORDER BY {due} LIMIT $3 "
            "FOR UPDATE SKIP LOCKED) due WHERE c.platform = due.platform AND c.channel_id = due.channel_id "
            f"RETURNING c.platform, c.space_id, c.channel_id, c.{due}",
            lease_until,
            now,
            limit,
            *params,
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
        round_ids: Sequence[int] | None = None,
    ) -> list[SendClaim]:
        """Claim deliveries of `what` (post or reveal) that are due, failed and due for a retry, or whose
        sending lease ran out: FOR UPDATE SKIP LOCKED, so concurrent ticks never take the same round.
        `round_id` or `round_ids`: only that round, or those."""
        where, params = _space_sql(spaces, 5)
        state = "revealed_at IS NULL" if what == "post" else "revealed_at IS NOT NULL"
        rows = await self._fetch(
            f"UPDATE rounds r SET {what}_state = 'sending', {what}_attempts = r.{what}_attempts + 1, "
            f"{what}_due_at = $1, "
            f"{what}_doubts = r.{what}_doubts + (CASE WHEN w.prev_state = 'sending' THEN 1 ELSE 0 END) "
            f"FROM (SELECT id, {what}_state AS prev_state FROM rounds WHERE kind = 'daily' AND {state} "
            f"AND {what}_state IN ('due', 'sending', 'failed') AND ({what}_due_at IS NULL OR {what}_due_at <= $2"
            + (f" OR {what}_state = 'failed'" if force else "")
            + f") AND ($4::bigint[] IS NULL OR id = ANY($4::bigint[])){where} ORDER BY id LIMIT $3 "
            "FOR UPDATE SKIP LOCKED) w "
            f"WHERE r.id = w.id RETURNING {', '.join('r.' + c.strip() for c in ROUND_COLUMNS.split(','))}, "
            f"r.{what}_attempts, r.{what}_doubts, w.prev_state",
            lease_until,
            now,
            limit,
            list(round_ids) if round_ids is not None else None if round_id is None else [round_id],
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

    async def _stored_choices(self, keys: Sequence[tuple[int, str]]) -> dict[tuple[int, str], int]:
        async with self._conn() as conn:
            return await _Settle(conn).stored_choices(keys)

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
        async with self._settling() as tx:
            await tx.lock_rounds(round_ids)
            await tx.claim_batch(round_ids, revealed_at, learn=learn)
            done = [rid for rid in round_ids if await reveal(tx, rid, revealed_at, scorer, learn=learn)]
            revealed = [tx.revealed(rid) for rid in done]
        if not done:
            return []
        claims = await self._claim_sends(
            "reveal", revealed_at, lease_until, len(done), None, False, None, round_ids=done
        )
        mine = {c.round.id: c for c in claims}
        return [RevealedRound(round_, answers, config, mine.get(round_.id)) for round_, answers, config in revealed]

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

    # ---- leaderboards ----------------------------------------------------------------------------

    async def leaderboard(
        self, platform: str, space_id: str, period: Period, period_key: str, limit: int
    ) -> list[LeaderboardRow]:
        rows = await self._fetch(
            "SELECT user_id, points, correct, answered FROM scores WHERE platform = $1 AND space_id = $2 "
            "AND period = $3 AND period_key = $4 ORDER BY points DESC, reached_at NULLS LAST, user_id LIMIT $5",
            platform,
            space_id,
            period.value,
            period_key,
            limit,
        )
        return ranked(rows)

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
            for serial in ("rounds", "suggestions", "question_reports"):
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
        await _Settle(self.conn).lock_space(ref)


class _Settle:
    """The reveal and answer-batch steps (bot.ports.RevealTransaction, AnswerTransaction) on one open
    transaction. Batches lock their rounds FOR SHARE and a reveal takes the space's advisory lock.

    A reveal batch (`lock_rounds`, then `claim_batch`) claims all its rounds in one statement that also reads
    what their reveals will read; the steps then answer from those rows, as the same reads one round after
    another would have (a round sees the daily dates claimed before it in the batch, and the streaks and
    cards written before it), so each round's reveal costs trips only for its writes."""

    def __init__(self, conn: asyncpg.Connection) -> None:
        self.conn = conn
        self._locked: set[tuple[str, str]] = set()  # spaces whose lock this transaction holds already
        self._batch: set[int] = set()  # the rounds of claim_batch
        self._claimed: dict[int, Round] = {}  # those it claimed (as revealed now)
        self._untaken: set[int] = set()  # those claimed but not yet taken by claim_reveal
        self._taken: dict[tuple[str, str], list[dt.date]] = {}  # daily dates taken so far, by space
        self._before: dict[tuple[str, str, dt.date], dt.date | None] = {}  # previous dates before the batch
        self._answers: dict[int, tuple[Answer, ...]] = {}
        self._configs: dict[int, ChannelConfig | None] = {}
        self._speed: dict[tuple[str, str], bool] = {}  # (platform, channel): speed bonus on
        self._streaks: dict[tuple[str, str, str], StreakState | None] = {}  # None: known to have none
        self._doubts: dict[int, set[str]] = {}
        self._cards: dict[CardKey, LearnerCard | None] = {}

    async def lock_rounds(self, round_ids: Sequence[int]) -> None:
        """Lock a reveal batch's rounds in id order (as answer batches do, FOR SHARE), then their spaces in
        one order, all in one statement: a batch never waits in a circle with an answer batch or another
        reveal."""
        rows = await self.conn.fetch(LOCK_ROUNDS, LOCK_SPACE, list(round_ids))
        self._locked.update((r[0], r[1]) for r in rows)

    async def claim_batch(self, round_ids: Sequence[int], revealed_at: dt.datetime, *, learn: bool) -> None:
        """Claim these rounds' reveals and read their reveals' inputs (after lock_rounds)."""
        self._batch.update(round_ids)
        for r in await self.conn.fetch(CLAIM_BATCH, revealed_at, list(round_ids), learn):
            round_ = round_from_row(r[:ROUND_WIDTH])
            previous, answers, streaks, doubts, cards, found, *config = r[ROUND_WIDTH:]
            ref = round_.ref
            self._claimed[round_.id] = round_
            self._untaken.add(round_.id)
            if round_.local_date is not None:
                self._before[(ref.platform, ref.space_id, round_.local_date)] = previous
            self._answers[round_.id] = tuple(answer_from_row(a) for a in answers)
            users = {a[1] for a in answers}
            if round_.kind is RoundKind.DAILY:  # (the statement reads streaks for daily rounds only)
                self._streaks.update({(ref.platform, ref.space_id, u): None for u in users})
                self._streaks.update(
                    {(ref.platform, ref.space_id, u): StreakState(int(c), int(b), d) for u, c, b, d in streaks}
                )
            self._doubts[round_.id] = set(doubts)
            if learn:
                self._cards.update({CardKey(ref.platform, ref.space_id, u, round_.question_id): None for u in users})
                self._cards.update({c.key: c for c in map(card_from_row, cards)})
            channel = config_from_row(config) if found else None
            self._configs[round_.id] = channel
            self._speed[(ref.platform, ref.channel_id)] = channel is not None and channel.speed_bonus

    def revealed(self, round_id: int) -> tuple[Round, tuple[Answer, ...], ChannelConfig | None]:
        """A round revealed by this batch as the transaction leaves it: its row, its answers (scored, in the
        order they came) and its channel's settings."""
        return self._claimed[round_id], self._answers[round_id], self._configs[round_id]

    async def claim_reveal(self, round_id: int, revealed_at: dt.datetime) -> Round | None:
        if round_id in self._batch:  # claimed (or found revealed already) by claim_batch
            if round_id not in self._untaken:
                return None
            self._untaken.discard(round_id)
            round_ = self._claimed[round_id]
            if round_.kind is RoundKind.DAILY and round_.local_date is not None:
                self._taken.setdefault((round_.ref.platform, round_.ref.space_id), []).append(round_.local_date)
            return round_
        row = await self.conn.fetchrow(
            f"UPDATE rounds SET revealed_at = $1 WHERE id = $2 AND revealed_at IS NULL RETURNING {ROUND_COLUMNS}",
            revealed_at,
            round_id,
        )
        return round_from_row(row) if row else None

    async def lock_space(self, ref: ChannelRef) -> None:
        # a transaction-scoped lock is held to the commit: taking it again in the same transaction (each
        # round of a reveal batch) would be a trip that changes nothing
        space = (ref.platform, ref.space_id)
        if space in self._locked:
            return
        await self.conn.execute(
            "SELECT pg_advisory_xact_lock($1, hashtext($2))", LOCK_SPACE, f"{ref.platform}\x1f{ref.space_id}"
        )
        self._locked.add(space)

    async def answers(self, round_id: int) -> tuple[Answer, ...]:
        if round_id in self._answers:
            return self._answers[round_id]
        rows = await self.conn.fetch(f"SELECT {ANSWER_COLUMNS} FROM answers WHERE round_id = $1", round_id)
        return tuple(answer_from_row(r) for r in rows)

    async def previous_date(self, ref: ChannelRef, before: dt.date) -> dt.date | None:
        space = (ref.platform, ref.space_id)
        taken = [d for d in self._taken.get(space, ()) if d < before]  # claimed by this batch so far
        key = (*space, before)
        if key in self._before:
            day = self._before[key]
        else:  # as it stood before the batch: its rounds not taken yet are left out
            day = await self.conn.fetchval(
                "SELECT MAX(local_date) FROM rounds WHERE platform = $1 AND space_id = $2 AND kind = 'daily' "
                "AND revealed_at IS NOT NULL AND local_date < $3 AND NOT (id = ANY($4::bigint[]))",
                ref.platform,
                ref.space_id,
                before,
                list(self._untaken),
            )
        return max([*taken, day] if day is not None else taken, default=None)

    async def streaks(self, ref: ChannelRef, users: Sequence[str]) -> dict[str, StreakState]:
        keys = [(ref.platform, ref.space_id, u) for u in users]
        if all(k in self._streaks for k in keys):
            return {k[2]: s for k in keys if (s := self._streaks[k]) is not None}
        # a join with unnest, not `user_id = ANY($3)`: a filter on a 10,000-element array is checked row by row
        return {
            r[0]: StreakState(int(r[1]), int(r[2]), r[3])
            for r in await self.conn.fetch(
                "SELECT s.user_id, s.current, s.best, s.last_date FROM streaks s "
                "JOIN unnest($3::text[]) AS u(user_id) ON s.user_id = u.user_id "
                "WHERE s.platform = $1 AND s.space_id = $2",
                ref.platform,
                ref.space_id,
                list(users),
            )
        }

    async def speed_bonus(self, ref: ChannelRef) -> bool:
        if (ref.platform, ref.channel_id) in self._speed:
            return self._speed[(ref.platform, ref.channel_id)]
        return bool(
            await self.conn.fetchval(
                "SELECT speed_bonus FROM channels WHERE platform = $1 AND channel_id = $2", ref.platform, ref.channel_id
            )
        )

    async def write_points(self, round_id: int, points: dict[str, int]) -> None:
        if round_id in self._answers:
            self._answers[round_id] = tuple(
                dataclasses.replace(a, points=points[a.user_id]) if a.user_id in points else a
                for a in self._answers[round_id]
            )
        users = sorted(points)
        await self.conn.execute(
            "UPDATE answers AS a SET points = u.points FROM unnest($2::text[], $3::integer[]) "
            "AS u(user_id, points) WHERE a.round_id = $1 AND a.user_id = u.user_id",
            round_id,
            users,
            [points[u] for u in users],
        )

    async def write_streaks(self, ref: ChannelRef, streaks: dict[str, StreakState]) -> None:
        self._streaks.update({(ref.platform, ref.space_id, u): s for u, s in streaks.items()})
        users = sorted(streaks)
        states = [streaks[u] for u in users]
        await self.conn.execute(
            "INSERT INTO streaks (platform, space_id, user_id, current, best, last_date) "
            "SELECT $1, $2, u.* FROM unnest($3::text[], $4::integer[], $5::integer[], $6::date[]) AS u "
            "ON CONFLICT (platform, space_id, user_id) DO UPDATE SET current = excluded.current, "
            "best = excluded.best, last_date = excluded.last_date",
            ref.platform,
            ref.space_id,
            users,
            [s.current for s in states],
            [s.best for s in states],
            [s.last_date for s in states],
        )

    async def add_scores(self, board: Board, rows: Sequence[ScoreRow]) -> dict[str, tuple[int, int]]:
        written = await self.conn.fetch(
            "INSERT INTO scores (platform, space_id, period, period_key, user_id, points, correct, answered, "
            "reached_at) SELECT $1, $2, $3, $4, u.user_id, u.points, u.correct, 1, u.at FROM "
            "unnest($5::text[], $6::integer[], $7::integer[], $8::timestamptz[]) AS u(user_id, points, correct, at) "
            "ON CONFLICT (platform, space_id, period, period_key, user_id) DO UPDATE SET "
            "points = scores.points + excluded.points, correct = scores.correct + excluded.correct, "
            "answered = scores.answered + 1, reached_at = COALESCE(excluded.reached_at, scores.reached_at) "
            "RETURNING user_id, points, answered",
            *_board(board),
            *(list(column) for column in zip(*rows, strict=True)),
        )
        return {r[0]: (int(r[1]), int(r[2])) for r in written}

    async def move_buckets(self, board: Board, moves: Sequence[tuple[int, int]]) -> None:
        await self.conn.execute(
            "INSERT INTO score_buckets (platform, space_id, period, period_key, points, users) "
            "SELECT $1, $2, $3, $4, u.* FROM unnest($5::integer[], $6::integer[]) AS u "
            "ON CONFLICT (platform, space_id, period, period_key, points) DO UPDATE SET "
            "users = score_buckets.users + excluded.users",
            *_board(board),
            [m[0] for m in moves],
            [m[1] for m in moves],
        )
        await self.conn.execute(
            "DELETE FROM score_buckets WHERE platform = $1 AND space_id = $2 AND period = $3 AND period_key = $4 "
            "AND users <= 0",
            *_board(board),
        )

    async def doubts(self, round_id: int) -> set[str]:
        if round_id in self._doubts:
            return set(self._doubts[round_id])
        rows = await self.conn.fetch("SELECT user_id FROM answer_doubts WHERE round_id = $1", round_id)
        return {r[0] for r in rows}

    async def cards(
        self, platform: str, space_id: str, question_id: str, users: Sequence[str]
    ) -> dict[str, LearnerCard]:
        keys = [CardKey(platform, space_id, u, question_id) for u in users]
        if all(k in self._cards for k in keys):
            return {k.user_id: c for k in keys if (c := self._cards[k]) is not None}
        rows = await self.conn.fetch(
            f"SELECT {', '.join('c.' + c for c in CARD_COLUMNS.split(', '))} FROM learner_cards c "
            "JOIN unnest($4::text[]) AS u(user_id) ON c.user_id = u.user_id "
            "WHERE c.platform = $1 AND c.space_id = $2 AND c.question_id = $3",
            platform,
            space_id,
            question_id,
            list(users),
        )
        return {c.key.user_id: c for c in map(card_from_row, rows)}

    async def write_cards(self, updates: Sequence[tuple[LearnerCard, ReviewEvent]]) -> None:
        if not updates:
            return
        latest = {card.key: card for card, _ in updates}
        self._cards.update(latest)
        cols = list(zip(*(card_values(card) for card in latest.values()), strict=True))
        await self.conn.execute(
            f"INSERT INTO learner_cards ({CARD_COLUMNS}) SELECT * FROM unnest($1::text[], $2::text[], "
            "$3::text[], $4::text[], $5::smallint[], $6::integer[], $7::float8[], $8::float8[], $9::timestamptz[], "
            "$10::timestamptz[], $11::integer[], $12::integer[], $13::boolean[]) "
            "ON CONFLICT (platform, space_id, user_id, question_id) DO UPDATE SET state = excluded.state, "
            "step = excluded.step, stability = excluded.stability, difficulty = excluded.difficulty, "
            "due = excluded.due, last_review = excluded.last_review, reviews = excluded.reviews, "
            "lapses = excluded.lapses, confident_miss = excluded.confident_miss",
            *(list(c) for c in cols),
        )
        events = list(zip(*(event_values(event) for _, event in updates), strict=True))
        await self.conn.execute(
            f"INSERT INTO review_log ({EVENT_COLUMNS}) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], "
            "$4::text[], $5::timestamptz[], $6::smallint[], $7::boolean[]) ON CONFLICT DO NOTHING",
            *(list(c) for c in events),
        )

    async def claim_practice(
        self, round_ids: Sequence[int], revealed_at: dt.datetime, *, learn: bool, unsure: Collection[int] = ()
    ) -> set[int]:
        rows = await self.conn.fetch(
            "UPDATE rounds SET revealed_at = $1, learn_pending = CASE WHEN $3 THEN "
            "CASE WHEN id = ANY($4::bigint[]) THEN 0 ELSE 1 END END "
            "WHERE id = ANY($2::bigint[]) AND revealed_at IS NULL AND kind = 'practice' RETURNING id",
            revealed_at,
            list(round_ids),
            learn,
            sorted(unsure),
        )
        return {int(r[0]) for r in rows}

    async def lock_learning(self) -> None:
        await self.conn.execute("SELECT pg_advisory_xact_lock($1, 0)", LOCK_LEARNING)

    async def pending_practice(self, limit: int, learner: tuple[str, str, str] | None) -> list[PendingAnswer]:
        mine = "AND r.platform = ? AND r.space_id = ? AND r.user_id = ? " if learner else ""
        # FOR UPDATE: a forget-me deleting these rounds waits, then deletes the cards written here
        sql = numbered(PENDING_PRACTICE.format(rounds="rounds r", learner=mine)) + " FOR UPDATE OF r"
        rows = await self.conn.fetch(sql, *(learner or ()), limit)
        return [PendingAnswer(int(r[0]), CardKey(r[1], r[2], r[3], r[4]), bool(r[6]), bool(r[5]), r[7]) for r in rows]

    async def clear_pending(self, round_ids: Sequence[int]) -> None:
        await self.conn.execute("UPDATE rounds SET learn_pending = NULL WHERE id = ANY($1::bigint[])", list(round_ids))

    async def cards_of(self, keys: Sequence[CardKey]) -> dict[CardKey, LearnerCard]:
        rows = await self.conn.fetch(
            f"SELECT {', '.join('c.' + c for c in CARD_COLUMNS.split(', '))} FROM learner_cards c "
            "JOIN unnest($1::text[], $2::text[], $3::text[], $4::text[]) "
            "AS k(platform, space_id, user_id, question_id) "
            "ON c.platform = k.platform AND c.space_id = k.space_id AND c.user_id = k.user_id "
            "AND c.question_id = k.question_id",
            [k.platform for k in keys],
            [k.space_id for k in keys],
            [k.user_id for k in keys],
            [k.question_id for k in keys],
        )
        return {c.key: c for c in map(card_from_row, rows)}

    async def round_windows(self, round_ids: Sequence[int]) -> dict[int, tuple[dt.datetime | None, dt.datetime | None]]:
        # FOR SHARE: batches run side by side, but a reveal (UPDATE of the round) waits for them, and a
        # batch that waited for a reveal reads the revealed row; no answer slips in after a reveal.
        rows = await self.conn.fetch(
            "SELECT id, revealed_at, closes_at FROM rounds WHERE id = ANY($1::bigint[]) ORDER BY id FOR SHARE",
            list(round_ids),
        )
        return {r[0]: (r[1], r[2]) for r in rows}

    async def insert_answers(self, answers: Sequence[NewAnswer]) -> set[tuple[int, str]]:
        rows = await self.conn.fetch(
            "INSERT INTO answers (round_id, user_id, choice, correct, answered_at) "
            "SELECT * FROM unnest($1::bigint[], $2::text[], $3::smallint[], $4::boolean[], "
            "$5::timestamptz[]) ON CONFLICT DO NOTHING RETURNING round_id, user_id",
            *(list(column) for column in zip(*answers, strict=True)),
        )
        return {(r[0], r[1]) for r in rows}

    async def stored_choices(self, keys: Sequence[tuple[int, str]]) -> dict[tuple[int, str], int]:
        # read inside the batch's transaction, so it sees the batch's own rows
        return {
            (r[0], r[1]): int(r[2])
            for r in await self.conn.fetch(
                "SELECT a.round_id, a.user_id, a.choice FROM answers a "
                "JOIN unnest($1::bigint[], $2::text[]) AS k(round_id, user_id) "
                "ON a.round_id = k.round_id AND a.user_id = k.user_id",
                [k[0] for k in keys],
                [k[1] for k in keys],
            )
        }


def _board(board: Board) -> tuple[str, str, str, str]:
    return board.platform, board.space_id, board.period.value, board.period_key
