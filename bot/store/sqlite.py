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
import sqlite3
from collections import Counter
from collections.abc import AsyncIterator, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import aiosqlite

from bot.model import (
    Answer,
    ChannelConfig,
    ChannelRef,
    LeaderboardRow,
    Period,
    Round,
    RoundKind,
    TopicStats,
)
from bot.ports import AnswerWrite, NewAnswer, RevealInput, Scorer, StreakState, period_keys
from bot.store.migrations import load_migrations
from bot.store.rows import (
    config_from_row,
    config_to_row,
    from_ts,
    parse_date,
    round_from_row,
    to_ts,
)

log = logging.getLogger(__name__)

ROUND_COLUMNS = (
    "id, kind, platform, space_id, channel_id, user_id, question_id, topic, local_date, opened_at, "
    "closes_at, revealed_at, message_id"
)
CHECKPOINT_EVERY = 0.25  # seconds between background WAL checkpoints
WAL_RESET_AT = 4 * 1024 * 1024  # past this much WAL content, a checkpoint finishes in a gap between transactions
WAL_KEEP = 8 * 1024 * 1024  # when the WAL starts over, its file is cut back to this size (journal_size_limit)
INSERT_CHUNK = 900  # rows per multi-row INSERT (6 parameters each, under SQLite's variable limit)
IN_CHUNK = 500


def _chunks(items: Sequence, size: int) -> Iterable[Sequence]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


class SqliteStore:
    """Store port on SQLite (the embedded default)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._db: aiosqlite.Connection | None = None
        self._lock = asyncio.Lock()
        self._checkpointer: asyncio.Task[None] | None = None
        self._checkpoint_thread: ThreadPoolExecutor | None = None
        self.checkpoint_holds = 0  # checkpoints finished inside the store lock, and for how long in all (s)
        self.checkpoint_hold_seconds = 0.0
        self.checkpoint_hold_max = 0.0

    # ---- lifecycle -------------------------------------------------------------------------------

    async def open(self, *, migrate: bool = True) -> None:
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._db = await aiosqlite.connect(self.path, isolation_level=None)
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
        finished inside the store's lock, between two transactions: only the frames written since the
        unlocked pass are left to copy, and the next write starts the WAL over (cut to WAL_KEEP)."""
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
                        async with self._lock:
                            held = loop.time()
                            try:
                                await asyncio.shield(loop.run_in_executor(self._checkpoint_thread, _checkpoint, con))
                            finally:
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
        if self._db is None:
            raise RuntimeError("the store is not open")
        return self._db

    @contextlib.asynccontextmanager
    async def _tx(self) -> AsyncIterator[aiosqlite.Connection]:
        async with self._lock:
            await self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                await self.db.execute("ROLLBACK")
                raise
            else:
                await self.db.execute("COMMIT")

    async def _read(self, sql: str, params: Sequence = ()) -> list[sqlite3.Row | tuple]:
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
                "difficulties, paused, reactions, answer_window_s, speed_bonus, updated_at, ping_winners) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT (platform, channel_id) DO UPDATE SET "
                "space_id=excluded.space_id, post_time=excluded.post_time, timezone=excluded.timezone, "
                "weekdays=excluded.weekdays, topics=excluded.topics, difficulties=excluded.difficulties, "
                "paused=excluded.paused, reactions=excluded.reactions, answer_window_s=excluded.answer_window_s, "
                "speed_bonus=excluded.speed_bonus, updated_at=excluded.updated_at, ping_winners=excluded.ping_winners",
                row,
            )

    async def get_channel(self, ref: ChannelRef) -> ChannelConfig | None:
        rows = await self._read(
            "SELECT * FROM channels WHERE platform = ? AND channel_id = ?", (ref.platform, ref.channel_id)
        )
        return config_from_row(rows[0]) if rows else None

    async def list_channels(self, platform: str | None = None) -> list[ChannelConfig]:
        if platform is None:
            rows = await self._read("SELECT * FROM channels ORDER BY platform, channel_id")
        else:
            rows = await self._read("SELECT * FROM channels WHERE platform = ? ORDER BY channel_id", (platform,))
        return [config_from_row(r) for r in rows]

    async def space_timezone(self, platform: str, space_id: str) -> str | None:
        rows = await self._read(
            "SELECT timezone FROM channels WHERE platform = ? AND space_id = ? ORDER BY updated_at DESC LIMIT 1",
            (platform, space_id),
        )
        return rows[0][0] if rows else None

    # ---- rounds ----------------------------------------------------------------------------------

    async def claim_daily_round(
        self, ref: ChannelRef, local_date: dt.date, question_id: str, topic: str, opened_at: dt.datetime,
        closes_at: dt.datetime | None,
    ) -> Round | None:
        async with self._tx() as db:
            async with db.execute(
                "INSERT INTO rounds (kind, platform, space_id, channel_id, question_id, topic, local_date, "
                "opened_at, closes_at) VALUES ('daily',?,?,?,?,?,?,?,?) ON CONFLICT DO NOTHING "
                f"RETURNING {ROUND_COLUMNS}",
                (ref.platform, ref.space_id, ref.channel_id, question_id, topic, local_date.isoformat(),
                 to_ts(opened_at), to_ts(closes_at) if closes_at else None),
            ) as cur:
                row = await cur.fetchone()
        return round_from_row(row) if row else None

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

    async def open_daily_rounds(self, ref: ChannelRef | None = None) -> list[Round]:
        if ref is None:
            rows = await self._read(
                f"SELECT {ROUND_COLUMNS} FROM rounds WHERE revealed_at IS NULL AND kind = 'daily' ORDER BY id"
            )
        else:
            rows = await self._read(
                f"SELECT {ROUND_COLUMNS} FROM rounds WHERE platform = ? AND channel_id = ? "
                "AND revealed_at IS NULL AND kind = 'daily' ORDER BY id",
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
        sql = "SELECT question_id, COUNT(*) FROM rounds WHERE platform = ? AND space_id = ? AND kind = ?"
        params: list = [platform, space_id, kind.value]
        if user_id is not None:
            sql += " AND user_id = ?"
            params.append(user_id)
        rows = await self._read(sql + " GROUP BY question_id", params)
        return {r[0]: int(r[1]) for r in rows}

    async def last_question_id(
        self, platform: str, space_id: str, kind: RoundKind, user_id: str | None = None
    ) -> str | None:
        sql = "SELECT question_id FROM rounds WHERE platform = ? AND space_id = ? AND kind = ?"
        params: list = [platform, space_id, kind.value]
        if user_id is not None:
            sql += " AND user_id = ?"
            params.append(user_id)
        rows = await self._read(sql + " ORDER BY id DESC LIMIT 1", params)
        return rows[0][0] if rows else None

    # ---- answers ---------------------------------------------------------------------------------

    async def add_answers(self, answers: Sequence[NewAnswer], now: dt.datetime) -> list[AnswerWrite]:
        if not answers:
            return []
        results: list[AnswerWrite | None] = [None] * len(answers)
        async with self._tx() as db:
            round_ids = sorted({a.round_id for a in answers})
            state: dict[int, bool] = {}
            for chunk in _chunks(round_ids, IN_CHUNK):
                marks = ",".join("?" * len(chunk))
                for rid, revealed, closes in await db.execute_fetchall(
                    f"SELECT id, revealed_at, closes_at FROM rounds WHERE id IN ({marks})", chunk
                ):
                    state[rid] = revealed is None and (closes is None or from_ts(closes) > now)
            pending: list[int] = []
            seen: set[tuple[int, str]] = set()
            for i, a in enumerate(answers):
                if a.round_id not in state:
                    results[i] = AnswerWrite("unknown")
                elif not state[a.round_id]:
                    results[i] = AnswerWrite("closed")
                elif (a.round_id, a.user_id) in seen:
                    results[i] = AnswerWrite("duplicate")  # settled below with the stored choice
                else:
                    seen.add((a.round_id, a.user_id))
                    pending.append(i)
            inserted: set[tuple[int, str]] = set()
            for chunk in _chunks(pending, INSERT_CHUNK):
                values = ",".join("(?,?,?,?,?)" for _ in chunk)
                params: list = []
                for i in chunk:
                    a = answers[i]
                    params += [a.round_id, a.user_id, a.choice, int(a.correct), to_ts(a.answered_at)]
                rows = await db.execute_fetchall(
                    "INSERT INTO answers (round_id, user_id, choice, correct, answered_at) "
                    f"VALUES {values} ON CONFLICT DO NOTHING RETURNING round_id, user_id",
                    params,
                )
                inserted.update((r[0], r[1]) for r in rows)
            for i, a in enumerate(answers):
                if results[i] is None and (a.round_id, a.user_id) in inserted:
                    results[i] = AnswerWrite("recorded")
                elif results[i] is None or results[i].status == "duplicate":
                    found = await db.execute_fetchall(
                        "SELECT choice FROM answers WHERE round_id = ? AND user_id = ?", (a.round_id, a.user_id)
                    )
                    results[i] = AnswerWrite("duplicate", int(found[0][0]) if found else None)
        return [r for r in results if r is not None]

    async def get_answer(self, round_id: int, user_id: str) -> Answer | None:
        rows = await self._read(
            "SELECT round_id, user_id, choice, correct, answered_at, points FROM answers "
            "WHERE round_id = ? AND user_id = ?",
            (round_id, user_id),
        )
        return _answer(rows[0]) if rows else None

    async def round_answers(self, round_id: int) -> list[Answer]:
        rows = await self._read(
            "SELECT round_id, user_id, choice, correct, answered_at, points FROM answers WHERE round_id = ? "
            "ORDER BY answered_at, user_id",
            (round_id,),
        )
        return [_answer(r) for r in rows]

    # ---- reveal and leaderboards -----------------------------------------------------------------

    async def reveal_round(self, round_id: int, revealed_at: dt.datetime, scorer: Scorer | None) -> bool:
        async with self._tx() as db:
            cur = await db.execute(
                "UPDATE rounds SET revealed_at = ? WHERE id = ? AND revealed_at IS NULL", (to_ts(revealed_at), round_id)
            )
            if cur.rowcount == 0:
                return False
            if scorer is None:
                return True
            async with db.execute(f"SELECT {ROUND_COLUMNS} FROM rounds WHERE id = ?", (round_id,)) as c:
                round_ = round_from_row(await c.fetchone())
            if round_.kind is not RoundKind.DAILY or round_.local_date is None:
                return True
            async with db.execute(
                "SELECT round_id, user_id, choice, correct, answered_at, points FROM answers WHERE round_id = ?",
                (round_id,),
            ) as c:
                answers = tuple(_answer(r) for r in await c.fetchall())
            ref = round_.ref
            async with db.execute(
                "SELECT MAX(local_date) FROM rounds WHERE platform = ? AND space_id = ? AND kind = 'daily' "
                "AND revealed_at IS NOT NULL AND local_date < ?",
                (ref.platform, ref.space_id, round_.local_date.isoformat()),
            ) as c:
                prev = (await c.fetchone())[0]
            users = [a.user_id for a in answers]
            streaks: dict[str, StreakState] = {}
            for chunk in _chunks(users, IN_CHUNK):
                marks = ",".join("?" * len(chunk))
                async with db.execute(
                    f"SELECT user_id, current, best, last_date FROM streaks WHERE platform = ? AND space_id = ? "
                    f"AND user_id IN ({marks})",
                    (ref.platform, ref.space_id, *chunk),
                ) as c:
                    for uid, cur_s, best, last in await c.fetchall():
                        streaks[uid] = StreakState(cur_s, best, parse_date(last))
            settings = await (await db.execute(
                "SELECT speed_bonus FROM channels WHERE platform = ? AND channel_id = ?", (ref.platform, ref.channel_id)
            )).fetchone()
            result = scorer(RevealInput(round_, answers, parse_date(prev), streaks, bool(settings and settings[0])))
            await db.executemany(
                "UPDATE answers SET points = ? WHERE round_id = ? AND user_id = ?",
                [(p, round_id, uid) for uid, p in result.points.items()],
            )
            await db.executemany(
                "INSERT INTO streaks (platform, space_id, user_id, current, best, last_date) VALUES (?,?,?,?,?,?) "
                "ON CONFLICT (platform, space_id, user_id) DO UPDATE SET current = excluded.current, "
                "best = excluded.best, last_date = excluded.last_date",
                [(ref.platform, ref.space_id, uid, s.current, s.best, s.last_date.isoformat() if s.last_date else None)
                 for uid, s in result.streaks.items()],
            )
            correct = {a.user_id: a.correct for a in answers}
            for period, key in period_keys(round_.local_date):
                await self._fold_scores(db, ref, period, key, result.points, correct)
        return True

    async def _fold_scores(
        self, db: aiosqlite.Connection, ref: ChannelRef, period: Period, key: str, points: dict[str, int],
        correct: dict[str, bool],
    ) -> None:
        old: dict[str, int] = {}
        users = list(points)
        for chunk in _chunks(users, IN_CHUNK):
            marks = ",".join("?" * len(chunk))
            async with db.execute(
                f"SELECT user_id, points FROM scores WHERE platform = ? AND space_id = ? AND period = ? "
                f"AND period_key = ? AND user_id IN ({marks})",
                (ref.platform, ref.space_id, period.value, key, *chunk),
            ) as c:
                old.update({r[0]: int(r[1]) for r in await c.fetchall()})
        await db.executemany(
            "INSERT INTO scores (platform, space_id, period, period_key, user_id, points, correct, answered) "
            "VALUES (?,?,?,?,?,?,?,1) ON CONFLICT (platform, space_id, period, period_key, user_id) DO UPDATE SET "
            "points = points + excluded.points, correct = correct + excluded.correct, answered = answered + 1",
            [(ref.platform, ref.space_id, period.value, key, uid, p, int(correct[uid])) for uid, p in points.items()],
        )
        delta: Counter[int] = Counter()
        for uid, p in points.items():
            if uid in old:
                delta[old[uid]] -= 1
                delta[old[uid] + p] += 1
            else:
                delta[p] += 1
        await db.executemany(
            "INSERT INTO score_buckets (platform, space_id, period, period_key, points, users) VALUES (?,?,?,?,?,?) "
            "ON CONFLICT (platform, space_id, period, period_key, points) DO UPDATE SET users = users + excluded.users",
            [(ref.platform, ref.space_id, period.value, key, pts, n) for pts, n in delta.items() if n],
        )
        await db.execute(
            "DELETE FROM score_buckets WHERE platform = ? AND space_id = ? AND period = ? AND period_key = ? "
            "AND users <= 0",
            (ref.platform, ref.space_id, period.value, key),
        )

    async def leaderboard(
        self, platform: str, space_id: str, period: Period, period_key: str, limit: int
    ) -> list[LeaderboardRow]:
        rows = await self._read(
            "SELECT user_id, points, correct, answered FROM scores WHERE platform = ? AND space_id = ? "
            "AND period = ? AND period_key = ? ORDER BY points DESC, user_id LIMIT ?",
            (platform, space_id, period.value, period_key, limit),
        )
        out: list[LeaderboardRow] = []
        for i, (uid, pts, corr, ans) in enumerate(rows):
            rank = out[-1].rank if out and out[-1].points == pts else i + 1
            out.append(LeaderboardRow(rank, uid, int(pts), int(corr), int(ans)))
        return out

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

    async def user_topic_stats(
        self, platform: str, space_id: str, user_id: str
    ) -> list[tuple[RoundKind, TopicStats]]:
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

    # ---- bulk export and import (`studybot db copy`) ---------------------------------------------

    async def count_rows(self, tables: Iterable[str]) -> dict[str, int]:
        """Rows per table."""
        counts: dict[str, int] = {}
        for table in tables:
            if not (table.isidentifier() and table.isascii()):
                raise ValueError(f"not a plain SQL identifier: {table!r}")
            counts[table] = int((await self._read(f"SELECT COUNT(*) FROM {table}"))[0][0])
        return counts

    async def export_rows(
        self, tables: Sequence[tuple[str, Sequence[str], Sequence[str]]], batch: int = 5000
    ) -> AsyncIterator[tuple[str, list[tuple]]]:
        """Yield (table, rows) batches of stored values, every table read from one snapshot."""
        for name in [t for t, cols, order in tables] + [c for _, cols, order in tables for c in (*cols, *order)]:
            if not (name.isidentifier() and name.isascii()):
                raise ValueError(f"not a plain SQL identifier: {name!r}")
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

    async def import_rows(self, batches: AsyncIterator[tuple[str, Sequence[str], list[tuple]]]) -> dict[str, int]:
        """Insert rows of stored values in one transaction and check every table holds exactly the rows
        given before committing (AUTOINCREMENT follows the highest round id by itself)."""
        given: dict[str, int] = {}
        async with self._tx() as db:
            async for table, columns, rows in batches:
                for name in (table, *columns):
                    if not (name.isidentifier() and name.isascii()):
                        raise ValueError(f"not a plain SQL identifier: {name!r}")
                given.setdefault(table, 0)
                if rows:
                    marks = ",".join("?" * len(columns))
                    await db.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)
                    given[table] += len(rows)
            for table, n in given.items():
                async with db.execute(f"SELECT COUNT(*) FROM {table}") as cur:
                    have = int((await cur.fetchone())[0])
                if have != n:
                    raise RuntimeError(f"{table}: {have} rows after the import, {n} given; rolled back")
        return given


def _checkpoint_connection(path: str) -> sqlite3.Connection:
    return sqlite3.connect(path, check_same_thread=False)


def _page_size(con: sqlite3.Connection) -> int:
    return int(con.execute("PRAGMA page_size").fetchone()[0])


def _checkpoint(con: sqlite3.Connection) -> tuple[int, int, int]:
    """A PASSIVE checkpoint (it never waits for a writer or a reader): (busy, frames in the WAL, frames copied)."""
    busy, logged, copied = con.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    return int(busy), int(logged), int(copied)


def _answer(row) -> Answer:
    return Answer(
        round_id=int(row[0]), user_id=row[1], choice=int(row[2]), correct=bool(row[3]),
        answered_at=from_ts(row[4]), points=None if row[5] is None else int(row[5]),
    )


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


