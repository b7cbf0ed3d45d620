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
from collections.abc import AsyncIterator, Iterable, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from bot.errors import PackBusy, PackError, PackExists
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
from bot.store.installs_sql import PostgresInstalls
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
    round_from_row,
)
from bot.store.settle import SettlingStore, reveal

log = logging.getLogger(__name__)

# the column order of rows.config_from_row, with the time rendered as HH:MM like the SQLite text
CHANNEL_COLUMNS = (
    "platform, channel_id, space_id, to_char(post_time, 'HH24:MI'), timezone, weekdays, topics, difficulties, "
    "paused, reactions, answer_window_s, speed_bonus, updated_at, ping_winners, recap_day, threads, packs"
)
POOL_MIN, POOL_MAX = 1, 10
# advisory lock keys (two int4 keys): a namespace of ours, then 0 or a hash of the space
LOCK_MIGRATIONS = 0x53420001
LOCK_SPACE = 0x53420002
LOCK_PACKS = 0x53420030  # one pack import per space at a time

TableSpec = tuple[str, Sequence[str], Sequence[str]]  # table, columns, ORDER BY columns


def redact(url: str) -> str:
    """The URL with its password replaced, for logs and errors."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)
    user = netloc[0].split(":", 1)[0]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc[1]}"))


class PostgresStore(PostgresInstalls, SettlingStore):
    """Store port on PostgreSQL (several bot processes may share one database)."""

    dialect = "postgres"

    def __init__(self, url: str, *, min_size: int = POOL_MIN, max_size: int = POOL_MAX) -> None:
        self.url = url
        self._min_size = min_size
        self._max_size = max_size
        self._pool: asyncpg.Pool | None = None

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
    async def _tx(self) -> AsyncIterator[asyncpg.Connection]:
        async with self.pool.acquire() as conn, conn.transaction():
            yield conn

    @contextlib.asynccontextmanager
    async def _settling(self) -> AsyncIterator[_Settle]:
        async with self._tx() as conn:
            yield _Settle(conn)

    async def migrate(self) -> list[int]:
        """Apply numbered migrations not applied yet; returns the versions applied now.

        Each migration runs in its own transaction that first takes an advisory lock, so processes
        migrating at once wait for each other and each migration is applied exactly once."""
        applied_now: list[int] = []
        async with self.pool.acquire() as conn:
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
        return int(await self.pool.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_migrations"))

    # ---- channels --------------------------------------------------------------------------------

    async def save_channel(self, config: ChannelConfig) -> None:
        now = dt.datetime.now(dt.UTC)
        (
            platform,
            channel_id,
            space_id,
            _hhmm,
            timezone,
            weekdays,
            topics,
            difficulties,
            paused,
            reactions,
            window_s,
            speed_bonus,
            _ts,
            ping_winners,
            recap_day,
            threads,
            packs,
        ) = config_to_row(config, now)
        await self.pool.execute(
            "INSERT INTO channels (platform, channel_id, space_id, post_time, timezone, weekdays, topics, "
            "difficulties, paused, reactions, answer_window_s, speed_bonus, updated_at, ping_winners, recap_day, "
            "threads, packs) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17) "
            "ON CONFLICT (platform, channel_id) DO UPDATE SET "
            "space_id=excluded.space_id, post_time=excluded.post_time, timezone=excluded.timezone, "
            "weekdays=excluded.weekdays, topics=excluded.topics, difficulties=excluded.difficulties, "
            "paused=excluded.paused, reactions=excluded.reactions, answer_window_s=excluded.answer_window_s, "
            "speed_bonus=excluded.speed_bonus, updated_at=excluded.updated_at, ping_winners=excluded.ping_winners, "
            "recap_day=excluded.recap_day, threads=excluded.threads, packs=excluded.packs",
            platform,
            channel_id,
            space_id,
            dt.time(config.post_time.hour, config.post_time.minute),
            timezone,
            weekdays,
            topics,
            difficulties,
            bool(paused),
            bool(reactions),
            window_s,
            bool(speed_bonus),
            now,
            bool(ping_winners),
            recap_day,
            bool(threads),
            packs,
        )

    async def get_channel(self, ref: ChannelRef) -> ChannelConfig | None:
        row = await self.pool.fetchrow(
            f"SELECT {CHANNEL_COLUMNS} FROM channels WHERE platform = $1 AND channel_id = $2",
            ref.platform,
            ref.channel_id,
        )
        return config_from_row(row) if row else None

    async def list_channels(self, platform: str | None = None) -> list[ChannelConfig]:
        if platform is None:
            rows = await self.pool.fetch(f"SELECT {CHANNEL_COLUMNS} FROM channels ORDER BY platform, channel_id")
        else:
            rows = await self.pool.fetch(
                f"SELECT {CHANNEL_COLUMNS} FROM channels WHERE platform = $1 ORDER BY channel_id", platform
            )
        return [config_from_row(r) for r in rows]

    async def space_timezone(self, platform: str, space_id: str) -> str | None:
        return await self.pool.fetchval(  # type: ignore[no-any-return]
            "SELECT timezone FROM channels WHERE platform = $1 AND space_id = $2 ORDER BY updated_at DESC LIMIT 1",
            platform,
            space_id,
        )

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
        # ON CONFLICT DO NOTHING covers the partial unique index: a concurrent claimer waits for the
        # winner's commit and then inserts nothing.
        row = await self.pool.fetchrow(
            "INSERT INTO rounds (kind, platform, space_id, channel_id, question_id, topic, local_date, opened_at, "
            "closes_at, post_state, post_attempts, post_due_at) VALUES ('daily',$1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11) "
            f"ON CONFLICT DO NOTHING RETURNING {ROUND_COLUMNS}",
            ref.platform,
            ref.space_id,
            ref.channel_id,
            question_id,
            topic,
            local_date,
            opened_at,
            closes_at,
            "sending" if lease_until else "due",
            1 if lease_until else 0,
            lease_until,
        )
        return round_from_row(row) if row else None

    async def claim_daily_rounds(self, claims: Sequence[DailyClaim]) -> list[Round | None]:
        if not claims:
            return []
        # one statement: the slots taken insert nothing (ON CONFLICT DO NOTHING covers the partial unique index)
        rows = await self.pool.fetch(
            "INSERT INTO rounds (kind, platform, space_id, channel_id, question_id, topic, local_date, opened_at, "
            "closes_at, post_state, post_attempts, post_due_at) "
            "SELECT 'daily', c.platform, c.space_id, c.channel_id, c.question_id, c.topic, c.local_date, c.opened_at, "
            "c.closes_at, c.post_state, c.post_attempts, c.post_due_at "
            "FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::date[], "
            "$7::timestamptz[], $8::timestamptz[], $9::text[], $10::int[], $11::timestamptz[]) WITH ORDINALITY "
            "AS c(platform, space_id, channel_id, question_id, topic, local_date, opened_at, closes_at, post_state, "
            "post_attempts, post_due_at, n) ORDER BY c.n "
            f"ON CONFLICT DO NOTHING RETURNING {ROUND_COLUMNS}",
            [c.ref.platform for c in claims],
            [c.ref.space_id for c in claims],
            [c.ref.channel_id for c in claims],
            [c.question_id for c in claims],
            [c.topic for c in claims],
            [c.local_date for c in claims],
            [c.opened_at for c in claims],
            [c.closes_at for c in claims],
            ["sending" if c.lease_until else "due" for c in claims],
            [1 if c.lease_until else 0 for c in claims],
            [c.lease_until for c in claims],
        )
        won = {(r["platform"], r["channel_id"], r["local_date"]): round_from_row(r) for r in rows}
        return [won.get((c.ref.platform, c.ref.channel_id, c.local_date)) for c in claims]

    async def create_practice_round(
        self, ref: ChannelRef, user_id: str, question_id: str, topic: str, opened_at: dt.datetime
    ) -> Round:
        row = await self.pool.fetchrow(
            "INSERT INTO rounds (kind, platform, space_id, channel_id, user_id, question_id, topic, opened_at) "
            f"VALUES ('practice',$1,$2,$3,$4,$5,$6,$7) RETURNING {ROUND_COLUMNS}",
            ref.platform,
            ref.space_id,
            ref.channel_id,
            user_id,
            question_id,
            topic,
            opened_at,
        )
        assert row is not None
        return round_from_row(row)

    async def get_round(self, round_id: int) -> Round | None:
        row = await self.pool.fetchrow(f"SELECT {ROUND_COLUMNS} FROM rounds WHERE id = $1", round_id)
        return round_from_row(row) if row else None

    async def open_daily_rounds(self, ref: ChannelRef | None = None, *, unpromised: bool = False) -> list[Round]:
        only = " AND closes_at IS NULL" if unpromised else ""
        if ref is None:
            rows = await self.pool.fetch(
                f"SELECT {ROUND_COLUMNS} FROM rounds WHERE revealed_at IS NULL AND kind = 'daily'{only} ORDER BY id"
            )
        else:
            rows = await self.pool.fetch(
                f"SELECT {ROUND_COLUMNS} FROM rounds WHERE platform = $1 AND channel_id = $2 "
                f"AND revealed_at IS NULL AND kind = 'daily'{only} ORDER BY id",
                ref.platform,
                ref.channel_id,
            )
        return [round_from_row(r) for r in rows]

    async def latest_daily_round(self, ref: ChannelRef) -> Round | None:
        row = await self.pool.fetchrow(
            f"SELECT {ROUND_COLUMNS} FROM rounds WHERE platform = $1 AND channel_id = $2 AND kind = 'daily' "
            "ORDER BY local_date DESC LIMIT 1",
            ref.platform,
            ref.channel_id,
        )
        return round_from_row(row) if row else None

    async def set_message_id(self, round_id: int, message_id: str) -> None:
        await self.pool.execute("UPDATE rounds SET message_id = $1 WHERE id = $2", message_id, round_id)

    async def round_by_message(self, platform: str, message_id: str) -> Round | None:
        row = await self.pool.fetchrow(
            f"SELECT {ROUND_COLUMNS} FROM rounds WHERE platform = $1 AND message_id = $2 ORDER BY id DESC LIMIT 1",
            platform,
            message_id,
        )
        return round_from_row(row) if row else None

    async def question_counts(
        self, platform: str, space_id: str, kind: RoundKind, user_id: str | None = None
    ) -> dict[str, int]:
        where, params = asked_where(platform, space_id, kind, user_id, "$")
        sql = f"SELECT question_id, COUNT(*) FROM rounds WHERE {where} GROUP BY question_id"
        return {r[0]: int(r[1]) for r in await self.pool.fetch(sql, *params)}

    async def last_question_id(
        self, platform: str, space_id: str, kind: RoundKind, user_id: str | None = None
    ) -> str | None:
        where, params = asked_where(platform, space_id, kind, user_id, "$")
        sql = f"SELECT question_id FROM rounds WHERE {where} ORDER BY id DESC LIMIT 1"
        question_id: str | None = await self.pool.fetchval(sql, *params)
        return question_id

    async def question_history(
        self, platform: str, space_id: str, kind: RoundKind, user_id: str | None = None
    ) -> tuple[dict[str, int], str | None]:
        where, params = asked_where(platform, space_id, kind, user_id, "$")
        async with self.pool.acquire() as conn:
            counts = await conn.fetch(
                f"SELECT question_id, COUNT(*) FROM rounds WHERE {where} GROUP BY question_id", *params
            )
            last = await conn.fetchval(
                f"SELECT question_id FROM rounds WHERE {where} ORDER BY id DESC LIMIT 1", *params
            )
        return {r[0]: int(r[1]) for r in counts}, last

    # ---- durable daily work ----------------------------------------------------------------------

    async def set_next_post(self, ref: ChannelRef, at: dt.datetime | None) -> None:
        await self.pool.execute(
            "UPDATE channels SET next_post_at = $1, claimed_until = NULL WHERE platform = $2 AND channel_id = $3",
            at,
            ref.platform,
            ref.channel_id,
        )

    async def get_next_post(self, ref: ChannelRef) -> dt.datetime | None:
        at = await self.pool.fetchval(
            "SELECT next_post_at FROM channels WHERE platform = $1 AND channel_id = $2", ref.platform, ref.channel_id
        )
        return from_ts(at) if at else None

    async def unscheduled_channels(self, spaces: SpaceFilter | None = None) -> list[ChannelConfig]:
        where, params = _space_sql(spaces, 1)
        rows = await self.pool.fetch(
            f"SELECT {CHANNEL_COLUMNS} FROM channels WHERE NOT paused AND next_post_at IS NULL{where} "
            "ORDER BY platform, channel_id",
            *params,
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
        where, params = _space_sql(spaces, 4)
        rows = await self.pool.fetch(
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
        return sorted(
            (DueChannel(ChannelRef(r[0], r[1], r[2]), from_ts(r[3])) for r in rows),
            key=lambda d: (d.due_at, d.ref.platform, d.ref.channel_id),
        )

    async def finish_due_channel(self, ref: ChannelRef, due_at: dt.datetime, next_at: dt.datetime | None) -> None:
        await self._finish_due("next_post_at", "claimed_until", ref, due_at, next_at)

    async def _finish_due(
        self, due: str, lease: str, ref: ChannelRef, due_at: dt.datetime, next_at: dt.datetime | None
    ) -> None:
        """Move `due` on to next_at (unless a change moved it meanwhile) and free the lease."""
        await self.pool.execute(
            f"UPDATE channels SET {due} = CASE WHEN {due} = $1 THEN $2 ELSE {due} END, "
            f"{lease} = NULL WHERE platform = $3 AND channel_id = $4",
            due_at,
            next_at,
            ref.platform,
            ref.channel_id,
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
        round_ids: Sequence[int] | None = None,
    ) -> list[SendClaim]:
        """Claim deliveries of `what` (post or reveal) that are due, failed and due for a retry, or whose
        sending lease ran out: FOR UPDATE SKIP LOCKED, so concurrent ticks never take the same round.
        `round_id` or `round_ids`: only that round, or those."""
        where, params = _space_sql(spaces, 5)
        state = "revealed_at IS NULL" if what == "post" else "revealed_at IS NOT NULL"
        rows = await self.pool.fetch(
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
        await self.pool.execute(
            "UPDATE rounds SET post_state = $1, post_due_at = $2, message_id = COALESCE($3, message_id) WHERE id = $4",
            state,
            retry_at,
            message_id,
            round_id,
        )

    async def open_daily_question_ids(self, platform: str, space_id: str) -> set[str]:
        rows = await self.pool.fetch(
            "SELECT question_id FROM rounds WHERE platform = $1 AND space_id = $2 AND kind = 'daily' "
            "AND revealed_at IS NULL",
            platform,
            space_id,
        )
        return {r[0] for r in rows}

    async def set_reveal_at(self, round_id: int, at: dt.datetime) -> None:
        await self.pool.execute(
            "UPDATE rounds SET closes_at = $1 WHERE id = $2 AND closes_at IS NULL AND revealed_at IS NULL", at, round_id
        )

    async def due_reveals(self, now: dt.datetime, limit: int, spaces: SpaceFilter | None = None) -> list[Round]:
        where, params = _space_sql(spaces, 3)
        rows = await self.pool.fetch(
            f"SELECT {ROUND_COLUMNS} FROM rounds WHERE kind = 'daily' AND revealed_at IS NULL "
            f"AND closes_at IS NOT NULL AND closes_at <= $1{where} ORDER BY closes_at, id LIMIT $2",
            now,
            limit,
            *params,
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
        await self.pool.execute(
            "UPDATE rounds SET reveal_state = $1, reveal_due_at = $2 WHERE id = $3", state, retry_at, round_id
        )

    # ---- the same work by the batch: a few statements per batch, not per channel -----------------

    async def claim_due_posts(
        self, now: dt.datetime, lease_until: dt.datetime, limit: int, spaces: SpaceFilter | None = None
    ) -> list[DuePost]:
        dues = await self.claim_due_channels(now, lease_until, limit, spaces)
        if not dues:
            return []
        platforms = [d.ref.platform for d in dues]
        channels = [d.ref.channel_id for d in dues]
        async with self.pool.acquire() as conn:
            configs = {
                (r["platform"], r["channel_id"]): config_from_row(r)
                for r in await conn.fetch(
                    f"SELECT {CHANNEL_COLUMNS} FROM channels WHERE (platform, channel_id) IN "
                    "(SELECT * FROM unnest($1::text[], $2::text[]))",
                    platforms,
                    channels,
                )
            }
            opened: dict[tuple[str, str], list[Round]] = {}
            for r in await conn.fetch(
                f"SELECT {ROUND_COLUMNS} FROM rounds WHERE revealed_at IS NULL AND kind = 'daily' "
                "AND (platform, channel_id) IN (SELECT * FROM unnest($1::text[], $2::text[])) ORDER BY id",
                platforms,
                channels,
            ):
                opened.setdefault((r["platform"], r["channel_id"]), []).append(round_from_row(r))
        return [
            DuePost(
                d,
                configs.get((d.ref.platform, d.ref.channel_id)),
                tuple(opened.get((d.ref.platform, d.ref.channel_id), ())),
            )
            for d in dues
        ]

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
            # the rounds first, in id order as answer batches lock them (FOR SHARE), then their spaces in one
            # order: a batch never waits in a circle with an answer batch or another reveal
            rows = await tx.conn.fetch(
                "SELECT platform, space_id FROM rounds WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE",
                list(round_ids),
            )
            for platform, space_id in sorted({(r["platform"], r["space_id"]) for r in rows}):
                await tx.lock_space(ChannelRef(platform, space_id, ""))
            done = [rid for rid in round_ids if await reveal(tx, rid, revealed_at, scorer, learn=learn)]
        if not done:
            return []
        claims = await self._claim_sends(
            "reveal", revealed_at, lease_until, len(done), None, False, None, round_ids=done
        )
        mine = {c.round.id: c for c in claims}
        async with self.pool.acquire() as conn:
            rounds = {
                r["id"]: round_from_row(r)
                for r in await conn.fetch(f"SELECT {ROUND_COLUMNS} FROM rounds WHERE id = ANY($1::bigint[])", done)
            }
            answers: dict[int, list[Answer]] = {rid: [] for rid in done}
            for r in await conn.fetch(
                f"SELECT {ANSWER_COLUMNS} FROM answers WHERE round_id = ANY($1::bigint[]) "
                "ORDER BY round_id, answered_at, user_id",
                done,
            ):
                answers[r["round_id"]].append(answer_from_row(r))
            refs = sorted({(r.ref.platform, r.ref.channel_id) for r in rounds.values()})
            configs = {
                (r["platform"], r["channel_id"]): config_from_row(r)
                for r in await conn.fetch(
                    f"SELECT {CHANNEL_COLUMNS} FROM channels WHERE (platform, channel_id) IN "
                    "(SELECT * FROM unnest($1::text[], $2::text[]))",
                    [p for p, _ in refs],
                    [c for _, c in refs],
                )
            }
        return [
            RevealedRound(
                rounds[rid],
                tuple(answers[rid]),
                configs.get((rounds[rid].ref.platform, rounds[rid].ref.channel_id)),
                mine.get(rid),
            )
            for rid in done
            if rid in rounds
        ]

    async def finish_posts(self, items: Sequence[PostFinish]) -> None:
        if items:
            async with self._tx() as conn:
                await conn.executemany(
                    "UPDATE rounds SET post_state = $1, post_due_at = $2, message_id = COALESCE($3, message_id) "
                    "WHERE id = $4",
                    [(i.state, i.retry_at, i.message_id, i.round_id) for i in items],
                )

    async def finish_reveals(self, items: Sequence[RevealFinish]) -> None:
        if items:
            async with self._tx() as conn:
                await conn.executemany(
                    "UPDATE rounds SET reveal_state = $1, reveal_due_at = $2 WHERE id = $3",
                    [(i.state, i.retry_at, i.round_id) for i in items],
                )

    async def finish_due_channels(self, items: Sequence[DueFinish]) -> None:
        if items:
            async with self._tx() as conn:
                await conn.executemany(
                    "UPDATE channels SET next_post_at = CASE WHEN next_post_at = $1 THEN $2 ELSE next_post_at END, "
                    "claimed_until = NULL WHERE platform = $3 AND channel_id = $4",
                    [(i.due_at, i.next_at, i.ref.platform, i.ref.channel_id) for i in items],
                )

    # ---- the weekly recap --------------------------------------------------------------------------

    async def set_next_recap(self, ref: ChannelRef, at: dt.datetime | None) -> None:
        await self.pool.execute(
            "UPDATE channels SET next_recap_at = $1, recap_claimed_until = NULL "
            "WHERE platform = $2 AND channel_id = $3",
            at,
            ref.platform,
            ref.channel_id,
        )

    async def get_next_recap(self, ref: ChannelRef) -> dt.datetime | None:
        at = await self.pool.fetchval(
            "SELECT next_recap_at FROM channels WHERE platform = $1 AND channel_id = $2", ref.platform, ref.channel_id
        )
        return from_ts(at) if at else None

    async def unscheduled_recaps(self, spaces: SpaceFilter | None = None) -> list[ChannelConfig]:
        where, params = _space_sql(spaces, 1)
        rows = await self.pool.fetch(
            f"SELECT {CHANNEL_COLUMNS} FROM channels WHERE NOT paused AND recap_day IS NOT NULL "
            f"AND next_recap_at IS NULL{where} ORDER BY platform, channel_id",
            *params,
        )
        return [config_from_row(r) for r in rows]

    async def claim_due_recaps(
        self, now: dt.datetime, lease_until: dt.datetime, limit: int, spaces: SpaceFilter | None = None
    ) -> list[DueChannel]:
        return await self._claim_due("next_recap_at", "recap_claimed_until", now, lease_until, limit, spaces)

    async def finish_due_recap(self, ref: ChannelRef, due_at: dt.datetime, next_at: dt.datetime | None) -> None:
        await self._finish_due("next_recap_at", "recap_claimed_until", ref, due_at, next_at)

    async def mark_recap(self, ref: ChannelRef, week_end: dt.date, now: dt.datetime) -> bool:
        status = await self.pool.execute(
            "INSERT INTO recaps (platform, channel_id, week_end, posted_at) VALUES ($1, $2, $3, $4) "
            "ON CONFLICT DO NOTHING",
            ref.platform,
            ref.channel_id,
            week_end,
            now,
        )
        return bool(status.endswith(" 1"))

    async def unmark_recap(self, ref: ChannelRef, week_end: dt.date) -> None:
        await self.pool.execute(
            "DELETE FROM recaps WHERE platform = $1 AND channel_id = $2 AND week_end = $3",
            ref.platform,
            ref.channel_id,
            week_end,
        )

    async def recap_rounds(
        self, platform: str, space_id: str, start: dt.date, end: dt.date, channel_id: str | None = None
    ) -> list[RecapRound]:
        channel = "" if channel_id is None else " AND r.channel_id = $5"
        rows = await self.pool.fetch(
            "SELECT r.id, r.local_date, r.question_id, r.topic, COUNT(a.user_id), "
            "COUNT(a.user_id) FILTER (WHERE a.correct) FROM rounds r LEFT JOIN answers a ON a.round_id = r.id "
            "WHERE r.platform = $1 AND r.space_id = $2 AND r.kind = 'daily' AND r.revealed_at IS NOT NULL "
            f"AND r.local_date >= $3 AND r.local_date <= $4{channel} GROUP BY r.id ORDER BY r.local_date, r.id",
            platform,
            space_id,
            start,
            end,
            *([] if channel_id is None else [channel_id]),
        )
        return [RecapRound(int(r[0]), r[1], r[2], r[3], int(r[4]), int(r[5])) for r in rows]

    async def recap_scorers(
        self, platform: str, space_id: str, start: dt.date, end: dt.date, limit: int, channel_id: str | None = None
    ) -> list[RecapScorer]:
        channel = "" if channel_id is None else " AND r.channel_id = $6"
        rows = await self.pool.fetch(
            "SELECT a.user_id, COALESCE(SUM(a.points), 0) AS pts, COUNT(*) FILTER (WHERE a.correct), COUNT(*), "
            "COALESCE(MAX(a.answered_at) FILTER (WHERE a.points > 0), MIN(a.answered_at)) AS reached "
            "FROM answers a JOIN rounds r ON r.id = a.round_id WHERE r.platform = $1 AND r.space_id = $2 "
            "AND r.kind = 'daily' AND r.revealed_at IS NOT NULL AND r.local_date >= $3 AND r.local_date <= $4"
            f'{channel} GROUP BY a.user_id ORDER BY pts DESC, reached, a.user_id COLLATE "C" LIMIT $5',
            platform,
            space_id,
            start,
            end,
            limit,
            *([] if channel_id is None else [channel_id]),
        )
        return [RecapScorer(r[0], int(r[1]), int(r[2]), int(r[3]), from_ts(r[4])) for r in rows]

    # ---- answers ---------------------------------------------------------------------------------

    async def get_answer(self, round_id: int, user_id: str) -> Answer | None:
        row = await self.pool.fetchrow(
            f"SELECT {ANSWER_COLUMNS} FROM answers WHERE round_id = $1 AND user_id = $2", round_id, user_id
        )
        return answer_from_row(row) if row else None

    async def round_answers(self, round_id: int) -> list[Answer]:
        rows = await self.pool.fetch(
            f"SELECT {ANSWER_COLUMNS} FROM answers WHERE round_id = $1 ORDER BY answered_at, user_id", round_id
        )
        return [answer_from_row(r) for r in rows]

    # ---- reveal and leaderboards -----------------------------------------------------------------

    async def leaderboard(
        self, platform: str, space_id: str, period: Period, period_key: str, limit: int
    ) -> list[LeaderboardRow]:
        rows = await self.pool.fetch(
            "SELECT user_id, points, correct, answered FROM scores WHERE platform = $1 AND space_id = $2 "
            "AND period = $3 AND period_key = $4 ORDER BY points DESC, reached_at NULLS LAST, user_id LIMIT $5",
            platform,
            space_id,
            period.value,
            period_key,
            limit,
        )
        return ranked(rows)

    async def rank_of(
        self, platform: str, space_id: str, period: Period, period_key: str, user_id: str
    ) -> LeaderboardRow | None:
        # one statement, one snapshot: the user's score and the users above it in the buckets
        row = await self.pool.fetchrow(
            "SELECT s.points, s.correct, s.answered, (SELECT COALESCE(SUM(b.users), 0) FROM score_buckets b "
            "WHERE b.platform = s.platform AND b.space_id = s.space_id AND b.period = s.period "
            "AND b.period_key = s.period_key AND b.points > s.points) "
            "FROM scores s WHERE s.platform = $1 AND s.space_id = $2 AND s.period = $3 AND s.period_key = $4 "
            "AND s.user_id = $5",
            platform,
            space_id,
            period.value,
            period_key,
            user_id,
        )
        if row is None:
            return None
        return LeaderboardRow(int(row[3]) + 1, user_id, int(row[0]), int(row[1]), int(row[2]))

    # ---- stats -----------------------------------------------------------------------------------

    async def user_topic_stats(self, platform: str, space_id: str, user_id: str) -> list[tuple[RoundKind, TopicStats]]:
        rows = await self.pool.fetch(
            "SELECT r.kind, r.topic, COUNT(*), COUNT(*) FILTER (WHERE a.correct) FROM answers a "
            "JOIN rounds r ON r.id = a.round_id WHERE a.user_id = $1 AND r.platform = $2 AND r.space_id = $3 "
            "AND r.revealed_at IS NOT NULL GROUP BY r.kind, r.topic ORDER BY r.topic, r.kind",
            user_id,
            platform,
            space_id,
        )
        return [(RoundKind(k), TopicStats(t, int(n), int(c))) for k, t, n, c in rows]

    async def streak(self, platform: str, space_id: str, user_id: str) -> StreakState | None:
        row = await self.pool.fetchrow(
            "SELECT current, best, last_date FROM streaks WHERE platform = $1 AND space_id = $2 AND user_id = $3",
            platform,
            space_id,
            user_id,
        )
        return StreakState(int(row[0]), int(row[1]), row[2]) if row else None

    async def latest_revealed_date(self, platform: str, space_id: str) -> dt.date | None:
        return await self.pool.fetchval(  # type: ignore[no-any-return]
            "SELECT MAX(local_date) FROM rounds WHERE platform = $1 AND space_id = $2 AND kind = 'daily' "
            "AND revealed_at IS NOT NULL",
            platform,
            space_id,
        )

    # ---- deliveries handled once (shared by every process) ---------------------------------------

    async def remember_once(self, scope: str, key: str, now: dt.datetime, keep: dt.timedelta) -> bool:
        """True the first time (scope, key) is seen within `keep` of `now`; False for a repeat."""
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute("DELETE FROM seen_once WHERE expires_at <= $1", now)
            inserted = await conn.fetchval(
                "INSERT INTO seen_once (scope, key, expires_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1",
                scope,
                key,
                now + keep,
            )
            return inserted is not None

    # ---- learner memory -------------------------------------------------------------------------

    async def learner_cards(self, platform: str, space_id: str, user_id: str) -> list[LearnerCard]:
        rows = await self.pool.fetch(
            f"SELECT {CARD_COLUMNS} FROM learner_cards WHERE platform = $1 AND space_id = $2 AND user_id = $3 "
            "ORDER BY question_id",
            platform,
            space_id,
            user_id,
        )
        return [card_from_row(r) for r in rows]

    async def review_events(self, platform: str, space_id: str, user_id: str) -> list[ReviewEvent]:
        rows = await self.pool.fetch(
            f"SELECT {EVENT_COLUMNS} FROM review_log WHERE platform = $1 AND space_id = $2 AND user_id = $3 "
            "ORDER BY reviewed_at, question_id",
            platform,
            space_id,
            user_id,
        )
        return [event_from_row(r) for r in rows]

    async def mark_unsure(self, round_id: int, user_id: str) -> None:
        await self.pool.execute(
            "INSERT INTO answer_doubts (round_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING", round_id, user_id
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
        """Create (or, with replace, replace) a space's pack, all or nothing; returns its new version.
        One import per space at a time: a second one while the first runs gets PackBusy at once."""
        async with self._tx() as conn:
            if not await conn.fetchval(
                "SELECT pg_try_advisory_xact_lock($1, hashtext($2))", LOCK_PACKS, f"{platform}\x1f{space_id}"
            ):
                raise PackBusy(
                    "Another import into this space is running right now; nothing was imported. "
                    "Try again when it has finished."
                )
            version = await conn.fetchval(
                "SELECT version FROM packs WHERE platform = $1 AND space_id = $2 AND name = $3",
                platform,
                space_id,
                name,
            )
            if version is not None and not replace:
                raise PackExists(f"The pack {name} already exists in this space; import with --replace to replace it.")
            if version is None:
                count = await conn.fetchval(
                    "SELECT COUNT(*) FROM packs WHERE platform = $1 AND space_id = $2", platform, space_id
                )
                if count >= max_packs:
                    raise PackError(f"This space has {count} packs, the most it may hold; remove one first.")
            version = (version or 0) + 1
            await conn.execute(
                "DELETE FROM pack_questions WHERE platform = $1 AND space_id = $2 AND pack = $3",
                platform,
                space_id,
                name,
            )
            await conn.executemany(
                "INSERT INTO pack_questions (platform, space_id, pack, position, question_id, body) "
                "VALUES ($1, $2, $3, $4, $5, $6)",
                [(platform, space_id, name, i, qid, body) for i, (qid, body) in enumerate(questions)],
            )
            await conn.execute(
                "INSERT INTO packs (platform, space_id, name, version, questions, updated_at) "
                "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (platform, space_id, name) DO UPDATE SET "
                "version = excluded.version, questions = excluded.questions, updated_at = excluded.updated_at",
                platform,
                space_id,
                name,
                version,
                len(questions),
                now,
            )
            return int(version)

    async def list_packs(self, platform: str, space_id: str) -> list[tuple[str, int, int]]:
        """(name, questions, version) of the space's own packs, by name."""
        rows = await self.pool.fetch(
            "SELECT name, questions, version FROM packs WHERE platform = $1 AND space_id = $2 ORDER BY name",
            platform,
            space_id,
        )
        return [(r[0], int(r[1]), int(r[2])) for r in rows]

    async def pack_questions(self, platform: str, space_id: str, name: str) -> list[tuple[str, str]]:
        """(question id, body) of one of the space's packs in import order ([] when there is no such pack)."""
        rows = await self.pool.fetch(
            "SELECT question_id, body FROM pack_questions WHERE platform = $1 AND space_id = $2 AND pack = $3 "
            "ORDER BY position",
            platform,
            space_id,
            name,
        )
        return [(r[0], r[1]) for r in rows]

    async def question_answer_counts(self, platform: str, space_id: str) -> list[tuple[str, int, tuple[int, ...], int]]:
        """Per question asked in the space: (question id, rounds, answers per choice A-D, correct answers)."""
        from bot.store.sqlite import _answer_counts

        asked = await self.pool.fetch(
            "SELECT question_id, COUNT(*) FROM rounds WHERE platform = $1 AND space_id = $2 GROUP BY question_id",
            platform,
            space_id,
        )
        chosen = await self.pool.fetch(
            "SELECT r.question_id, a.choice, COUNT(*), SUM(CASE WHEN a.correct THEN 1 ELSE 0 END) FROM answers a "
            "JOIN rounds r ON r.id = a.round_id WHERE r.platform = $1 AND r.space_id = $2 "
            "GROUP BY r.question_id, a.choice",
            platform,
            space_id,
        )
        return _answer_counts([tuple(r) for r in asked], [tuple(r) for r in chosen])

    async def save_round_question(self, round_id: int, body: str) -> None:
        """Keep the question a round posted, as posted (the first one saved stays)."""
        await self.pool.execute(
            "INSERT INTO round_questions (round_id, body) VALUES ($1, $2) ON CONFLICT DO NOTHING", round_id, body
        )

    async def round_question(self, round_id: int) -> str | None:
        body = await self.pool.fetchval("SELECT body FROM round_questions WHERE round_id = $1", round_id)
        return None if body is None else str(body)

    # ---- bulk export and import (`studybot db copy`) ---------------------------------------------

    async def count_rows(self, tables: Iterable[str]) -> dict[str, int]:
        """Rows per table."""
        async with self.pool.acquire() as conn:
            return {t: int(await conn.fetchval(f"SELECT COUNT(*) FROM {ident(t)}")) for t in tables}

    async def export_rows(
        self, tables: Sequence[TableSpec], batch: int = 5000
    ) -> AsyncIterator[tuple[str, list[tuple[Any, ...]]]]:
        """Yield (table, rows) batches, every table read from one snapshot (a read-only repeatable read)."""
        async with self.pool.acquire() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
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
            if "rounds" in given:
                await conn.execute(
                    "SELECT setval(pg_get_serial_sequence('rounds', 'id'), COALESCE(MAX(id), 0) + 1, false) FROM rounds"
                )
            for table, n in given.items():
                have = int(await conn.fetchval(f"SELECT COUNT(*) FROM {ident(table)}"))
                if have != n:
                    raise RuntimeError(f"{table}: {have} rows after the import, {n} given; rolled back")
        # fresh statistics at once (autovacuum would take a minute): the planner picks the right indexes
        if given:
            await self.pool.execute("ANALYZE " + ", ".join(ident(t) for t in given))
        return given


def _space_sql(spaces: SpaceFilter | None, first: int) -> tuple[str, list[object]]:
    """The SQL of a SpaceFilter with parameters numbered from $first: its platforms, and on the sharded
    platform only spaces on its shards ((id >> 22) % count); a non-numeric space id is on no shard."""
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
            f"THEN ((space_id::numeric::bigint >> 22) % ${n + 1}) = ANY(${n + 2}::int[]) ELSE false END)"
        )
        params += [spaces.shard_platform, spaces.shard_count, list(spaces.shard_ids)]
    return sql, params


async def _keep_session(conn: asyncpg.Connection) -> None:
    """The pool's reset on release: nothing to do. The store leaves no session state behind (no SET, LISTEN,
    session advisory locks or cursors outside a transaction) and asyncpg rolls back any open transaction
    itself, so the default reset query (RESET ALL; UNLISTEN *; ...) would only cost a round trip per call."""


class _Settle:
    """The reveal and answer-batch steps (bot.ports.RevealTransaction, AnswerTransaction) on one open
    transaction. Batches lock their rounds FOR SHARE and a reveal takes the space's advisory lock."""

    def __init__(self, conn: asyncpg.Connection) -> None:
        self.conn = conn

    async def claim_reveal(self, round_id: int, revealed_at: dt.datetime) -> Round | None:
        row = await self.conn.fetchrow(
            f"UPDATE rounds SET revealed_at = $1 WHERE id = $2 AND revealed_at IS NULL RETURNING {ROUND_COLUMNS}",
            revealed_at,
            round_id,
        )
        return round_from_row(row) if row else None

    async def lock_space(self, ref: ChannelRef) -> None:
        await self.conn.execute(
            "SELECT pg_advisory_xact_lock($1, hashtext($2))", LOCK_SPACE, f"{ref.platform}\x1f{ref.space_id}"
        )

    async def answers(self, round_id: int) -> tuple[Answer, ...]:
        rows = await self.conn.fetch(f"SELECT {ANSWER_COLUMNS} FROM answers WHERE round_id = $1", round_id)
        return tuple(answer_from_row(r) for r in rows)

    async def previous_date(self, ref: ChannelRef, before: dt.date) -> dt.date | None:
        day: dt.date | None = await self.conn.fetchval(
            "SELECT MAX(local_date) FROM rounds WHERE platform = $1 AND space_id = $2 AND kind = 'daily' "
            "AND revealed_at IS NOT NULL AND local_date < $3",
            ref.platform,
            ref.space_id,
            before,
        )
        return day

    async def streaks(self, ref: ChannelRef, users: Sequence[str]) -> dict[str, StreakState]:
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
        return bool(
            await self.conn.fetchval(
                "SELECT speed_bonus FROM channels WHERE platform = $1 AND channel_id = $2", ref.platform, ref.channel_id
            )
        )

    async def write_points(self, round_id: int, points: dict[str, int]) -> None:
        users = sorted(points)
        await self.conn.execute(
            "UPDATE answers AS a SET points = u.points FROM unnest($2::text[], $3::integer[]) "
            "AS u(user_id, points) WHERE a.round_id = $1 AND a.user_id = u.user_id",
            round_id,
            users,
            [points[u] for u in users],
        )

    async def write_streaks(self, ref: ChannelRef, streaks: dict[str, StreakState]) -> None:
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

    async def board_points(self, board: Board, users: Sequence[str]) -> dict[str, int]:
        return {
            r[0]: int(r[1])
            for r in await self.conn.fetch(
                "SELECT s.user_id, s.points FROM scores s "
                "JOIN unnest($5::text[]) AS u(user_id) ON s.user_id = u.user_id "
                "WHERE s.platform = $1 AND s.space_id = $2 AND s.period = $3 AND s.period_key = $4",
                *_board(board),
                list(users),
            )
        }

    async def add_scores(self, board: Board, rows: Sequence[tuple[str, int, int]]) -> None:
        await self.conn.execute(
            "INSERT INTO scores (platform, space_id, period, period_key, user_id, points, correct, answered) "
            "SELECT $1, $2, $3, $4, u.user_id, u.points, u.correct, 1 "
            "FROM unnest($5::text[], $6::integer[], $7::integer[]) AS u(user_id, points, correct) "
            "ON CONFLICT (platform, space_id, period, period_key, user_id) DO UPDATE SET "
            "points = scores.points + excluded.points, correct = scores.correct + excluded.correct, "
            "answered = scores.answered + 1",
            *_board(board),
            *(list(column) for column in zip(*rows, strict=True)),
        )

    async def set_reached(self, board: Board, reached: dict[str, dt.datetime]) -> None:
        users = sorted(reached)
        await self.conn.execute(
            "UPDATE scores s SET reached_at = u.at FROM unnest($5::text[], $6::timestamptz[]) AS u(user_id, at) "
            "WHERE s.platform = $1 AND s.space_id = $2 AND s.period = $3 AND s.period_key = $4 "
            "AND s.user_id = u.user_id",
            *_board(board),
            users,
            [reached[u] for u in users],
        )

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
        rows = await self.conn.fetch("SELECT user_id FROM answer_doubts WHERE round_id = $1", round_id)
        return {r[0] for r in rows}

    async def cards(
        self, platform: str, space_id: str, question_id: str, users: Sequence[str]
    ) -> dict[str, LearnerCard]:
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

    async def claim_reveals(self, round_ids: Sequence[int], revealed_at: dt.datetime) -> dict[int, Round]:
        rows = await self.conn.fetch(
            f"UPDATE rounds SET revealed_at = $1 WHERE id = ANY($2::bigint[]) AND revealed_at IS NULL "
            "AND kind = 'practice' "
            f"RETURNING {ROUND_COLUMNS}",
            revealed_at,
            list(round_ids),
        )
        return {r.id: r for r in map(round_from_row, rows)}

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
