"""The Store contract on PostgreSQL, plus PostgreSQL specifics (concurrent migrations, schema types, races
between answer batches and reveals, several processes scoring one space).

Each test gets a throwaway database (CREATE DATABASE studybot_test_<random>, dropped afterwards) on the
server named by STUDYBOT_TEST_POSTGRES_URL (default postgresql://postgres@127.0.0.1:5432/postgres), except
the contract's tests: they share one database migrated once for this module, emptied before each test
(clean_database), as creating and migrating a database took about half a second a test.
When that server is not reachable these tests FAIL with a message saying so; they never skip.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import os
import random
import secrets
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from graphlib import TopologicalSorter
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest

from bot.app.config import Settings
from bot.app.roles import connection_name
from bot.kernel.scoring import RevealInput, RevealResult, period_keys, score_daily_round
from bot.kernel.values import ChannelConfig, ChannelRef, NewAnswer, Period, PracticeAnswer
from bot.store.migrations import load_migrations
from bot.store.postgres import PostgresStore, redact
from bot.store.postgres_settle import LOCK_SPACE
from bot.store.urls import store_for_url
from tests.integration.access_contract import AccessContract
from tests.integration.contract_values import DAY, REF, T0
from tests.integration.install_contract import InstallationContract
from tests.integration.learner_data_contract import LearnerDataContract
from tests.integration.learning_plan_contract import LearningPlanContract
from tests.integration.live_contract import LiveContract
from tests.integration.once_contract import SeenOnceContract
from tests.integration.pack_contract import PackContract
from tests.integration.practice_contract import LearnerCardContract, PracticeRestartContract
from tests.integration.progress_contract import ProgressContract, ProgressProcessContract
from tests.integration.recap_contract import RecapContract
from tests.integration.reminder_contract import ReminderContract, ReminderRestartContract
from tests.integration.report_contract import ReportContract
from tests.integration.role_contract import RoleContract
from tests.integration.season_contract import SeasonContract
from tests.integration.store_contract import RestartContract, StoreContract
from tests.integration.suggestion_contract import SuggestionContract
from tests.integration.team_contract import TeamContract
from tests.integration.uptime_contract import UptimeContract

DEFAULT_SERVER_URL = "postgresql://postgres@127.0.0.1:5432/postgres"


def server_url() -> str:
    return os.environ.get("STUDYBOT_TEST_POSTGRES_URL") or DEFAULT_SERVER_URL


def database_url(server: str, name: str) -> str:
    """The server URL pointed at another database."""
    return urlunsplit(urlsplit(server)._replace(path=f"/{name}"))


async def _admin_connection(server: str) -> asyncpg.Connection:
    try:
        return await asyncpg.connect(server, timeout=5)
    except (TimeoutError, OSError, asyncpg.PostgresError) as exc:
        pytest.fail(
            f"PostgreSQL is not reachable at {redact(server)} ({type(exc).__name__}: {exc}). These tests need a "
            "PostgreSQL server: start the local one (pg_ctlcluster --skip-systemctl-redirect <version> main start; "
            ".ci/run does it) or point STUDYBOT_TEST_POSTGRES_URL at one with CREATE DATABASE rights.",
            pytrace=False,
        )


@contextlib.asynccontextmanager
async def throwaway_database(prefix: str = "studybot_test", server: str | None = None) -> AsyncIterator[str]:
    """Create an empty database for one test and drop it afterwards; yields its URL."""
    server = server or server_url()
    name = f"{prefix}_{secrets.token_hex(6)}"
    await _admin(server, f'CREATE DATABASE "{name}"')
    try:
        yield database_url(server, name)
    finally:
        await _admin(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


async def _admin(server: str, sql: str) -> None:
    """One statement on the server's own database (creating or dropping a test's database)."""
    conn = await _admin_connection(server)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


KEPT = "schema_migrations"  # the one table a migrated database has rows in


async def _filled_tables(store: PostgresStore) -> list[str]:
    """The tables but KEPT that hold a row."""
    return [t for t in await store.list_tables() if t != KEPT and await store.pool.fetchval(f'SELECT 1 FROM "{t}"')]


async def _migrated_database(server: str, name: str) -> None:
    await _admin(server, f'CREATE DATABASE "{name}"')
    store = PostgresStore(database_url(server, name))
    await store.open()
    try:
        filled = await _filled_tables(store)
    finally:
        await store.close()
    assert not filled, f"a migration leaves rows in {filled}: clean_database would delete them"


@pytest.fixture(scope="module")
def contract_database() -> Iterator[str]:
    """The URL of a database migrated once for this module's contract tests (clean_database empties it before
    each). It is created and dropped in a thread of its own, away from the tests' event loops."""
    server = server_url()
    name = f"studybot_test_contract_{secrets.token_hex(6)}"
    with ThreadPoolExecutor(1) as thread:
        thread.submit(asyncio.run, _migrated_database(server, name)).result()
        try:
            yield database_url(server, name)
        finally:
            thread.submit(asyncio.run, _admin(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')).result()


async def _emptying(conn: asyncpg.Connection) -> str:
    """One transaction that leaves the database as migrated: every table but KEPT emptied, referencing tables
    before the tables they reference, and every sequence back at its start."""
    tables = await conn.fetch("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
    referenced_by: dict[str, set[str]] = {t: set() for (t,) in tables if t != KEPT}
    references = await conn.fetch(
        "SELECT child.relname, parent.relname FROM pg_constraint c JOIN pg_class child ON child.oid = c.conrelid "
        "JOIN pg_class parent ON parent.oid = c.confrelid JOIN pg_namespace n ON n.oid = child.relnamespace "
        "WHERE c.contype = 'f' AND n.nspname = current_schema()"
    )
    for child, parent in references:
        if child != parent and parent in referenced_by:
            referenced_by[parent].add(child)
    sequences = await conn.fetch("SELECT sequencename FROM pg_sequences WHERE schemaname = current_schema()")
    steps = [f'DELETE FROM "{t}";' for t in TopologicalSorter(referenced_by).static_order()]
    steps += [f'ALTER SEQUENCE "{q}" RESTART;' for (q,) in sequences]
    return "BEGIN; " + " ".join(steps) + " COMMIT;"


async def empty_database(url: str) -> None:
    """The database as freshly migrated: the connections left on it are ended, then every table is emptied
    and every sequence restarted (a few milliseconds, where a new database and its migrations take about
    half a second)."""
    conn = await asyncpg.connect(url, timeout=5)
    try:
        await conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        await conn.execute(await _emptying(conn))
    finally:
        await conn.close()


@pytest.fixture
async def clean_database(contract_database: str) -> str:
    """The contract database, emptied for one test."""
    await empty_database(contract_database)
    return contract_database


async def test_the_contract_database_emptied_is_as_freshly_migrated(contract_database):
    await empty_database(contract_database)  # whatever ran before, this test starts from an empty database
    store = PostgresStore(contract_database)
    await store.open()
    try:
        version = await store.schema_version()
        r = await store.claim_daily_round(REF, DAY, "q1", "tensors", T0, None)
        await store.add_answers([NewAnswer(r.id, "ada", 1, True, T0)], T0)
        await store.save_channel(ChannelConfig(ref=REF))
    finally:
        await store.close()
    left = await asyncpg.connect(contract_database)  # a failed test's transaction, never ended
    await left.execute("BEGIN; LOCK TABLE rounds IN SHARE MODE")
    await asyncio.wait_for(empty_database(contract_database), 10)  # ends it rather than waiting on it
    await left.close()
    store = PostgresStore(contract_database)
    await store.open()
    try:
        tables = [t for t in await store.list_tables() if t != KEPT]
        assert "answers" in tables and "rounds" in tables
        assert await _filled_tables(store) == []
        assert await store.schema_version() == version
        again = await store.claim_daily_round(REF, DAY, "q1", "tensors", T0, None)
        assert again.id == r.id == 1  # the identity restarted
    finally:
        await store.close()


class TestPostgresStore(
    UptimeContract,
    LearningPlanContract,
    SuggestionContract,
    LiveContract,
    StoreContract,
    LearnerDataContract,
    RecapContract,
    SeasonContract,
    ReminderContract,
    ReminderRestartContract,
    PracticeRestartContract,
    RestartContract,
    SeenOnceContract,
    AccessContract,
    InstallationContract,
    LearnerCardContract,
    PackContract,
    ReportContract,
    TeamContract,
    RoleContract,
    ProgressContract,
    ProgressProcessContract,
):
    @pytest.fixture
    async def store(self, clean_database):
        store = PostgresStore(clean_database)
        await store.open()
        yield store
        await store.close()

    @pytest.fixture
    async def reopen(self, clean_database):
        opened: list[PostgresStore] = []

        async def _open() -> PostgresStore:
            store = PostgresStore(clean_database)
            await store.open()
            opened.append(store)
            return store

        yield _open
        for store in opened:
            await store.close()


@pytest.fixture
async def pg_url():
    async with throwaway_database() as url:
        yield url


async def test_processes_migrating_at_once_apply_each_migration_once(pg_url):
    stores = [PostgresStore(pg_url, min_size=1, max_size=1) for _ in range(6)]
    for s in stores:
        await s.open(migrate=False)
    try:
        applied = await asyncio.gather(*(s.migrate() for s in stores))
        every = [(version, name) for version, name, _ in load_migrations("postgres")]
        versions = [version for version, _ in every]
        # each migration once, each process in order (another may take over between two migrations)
        assert versions[0] == 1 and sorted(v for mine in applied for v in mine) == versions
        assert all(mine == sorted(mine) for mine in applied)
        assert all([await s.schema_version() == versions[-1] for s in stores])
        rows = await stores[0].pool.fetch("SELECT version, name FROM schema_migrations ORDER BY version")
        assert [tuple(r) for r in rows] == every
    finally:
        for s in stores:
            await s.close()


async def test_schema_uses_proper_types_and_the_partial_unique_daily_slot(pg_url):
    store = PostgresStore(pg_url)
    await store.open()
    try:
        types = {
            (r["table_name"], r["column_name"]): r["data_type"]
            for r in await store.pool.fetch(
                "SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema='public'"
            )
        }
        assert types[("rounds", "id")] == "bigint"
        assert types[("rounds", "local_date")] == "date"
        assert types[("rounds", "opened_at")] == "timestamp with time zone"
        assert types[("answers", "correct")] == "boolean"
        assert types[("channels", "post_time")] == "time without time zone"
        identity = await store.pool.fetchval(
            "SELECT is_identity FROM information_schema.columns WHERE table_name='rounds' AND column_name='id'"
        )
        assert identity == "YES"
        slot = await store.pool.fetchval("SELECT indexdef FROM pg_indexes WHERE indexname = 'rounds_daily_slot'")
        assert "UNIQUE" in slot and "WHERE (kind = 'daily'::text)" in slot
    finally:
        await store.close()


async def test_answers_racing_a_reveal_are_either_scored_or_closed(pg_url):
    """Batches sent while the round is being revealed: every recorded answer is scored and counted."""
    stores = [PostgresStore(pg_url), PostgresStore(pg_url)]  # two processes on one database
    for s in stores:
        await s.open()
    try:
        statuses: Counter[str] = Counter()
        for day in range(5):
            r = await stores[0].claim_daily_round(REF, DAY + dt.timedelta(days=day), f"q{day}", "tensors", T0, None)

            async def send(k: int, round_id: int = r.id) -> None:
                batch = [NewAnswer(round_id, f"u{k}-{i}", i % 4, i % 2 == 0, T0) for i in range(50)]
                await asyncio.sleep(random.random() * 0.02)
                statuses.update(w.status for w in await stores[k % 2].add_answers(batch, T0))

            async def reveal(round_id: int = r.id) -> None:
                await asyncio.sleep(0.01)
                assert await stores[1].reveal_round(round_id, T0, score_daily_round)

            await asyncio.gather(*(send(k) for k in range(16)), reveal())
            unscored = await stores[0].pool.fetchval(  # (a wrong answer earns nothing: its points stay NULL)
                "SELECT COUNT(*) FROM answers WHERE round_id = $1 AND correct AND points IS NULL", r.id
            )
            assert unscored == 0
        recorded = await stores[0].pool.fetchval("SELECT COUNT(*) FROM answers")
        assert recorded == statuses["recorded"] and statuses["recorded"] + statuses["closed"] == 5 * 16 * 50
        answered = await stores[0].pool.fetchval("SELECT SUM(answered) FROM scores WHERE period = 'all'")
        assert answered == recorded
    finally:
        for s in stores:
            await s.close()


async def test_processes_scoring_one_space_at_once_keep_ranks_exact(pg_url):
    """Four processes reveal rounds of four channels in the same space at the same moment, day after day:
    the score buckets behind rank_of stay equal to the histogram of the scores. (The scorer leaves streaks
    alone, so streak row locks do not serialize the reveals; the next test pins down the space lock itself.)"""

    def points_only(data: RevealInput) -> RevealResult:
        return RevealResult(score_daily_round(data).points, {})

    stores = [PostgresStore(pg_url, max_size=2) for _ in range(4)]
    for s in stores:
        await s.open()
    try:
        rng = random.Random(11)
        users = [f"u{i:02d}" for i in range(30)]
        refs = [ChannelRef("test", "space", c) for c in "abcd"]
        for day in range(6):
            rounds = [
                await stores[0].claim_daily_round(ref, DAY + dt.timedelta(days=day), f"q{day}", "tensors", T0, None)
                for ref in refs
            ]
            for r in rounds:
                await stores[0].add_answers(
                    [NewAnswer(r.id, u, 0, rng.random() < 0.7, T0) for u in rng.sample(users, 20)], T0
                )
            assert all(
                await asyncio.gather(
                    *(s.reveal_round(r.id, T0, points_only) for s, r in zip(stores, rounds, strict=True))
                )
            )
        pool = stores[0].pool
        for period, key in (("all", "all"), ("month", "2026-12")):
            histogram = {
                r[0]: r[1]
                for r in await pool.fetch(
                    "SELECT points, COUNT(*) FROM scores WHERE period = $1 AND period_key = $2 GROUP BY points",
                    period,
                    key,
                )
            }
            buckets = {
                r[0]: r[1]
                for r in await pool.fetch(
                    "SELECT points, users FROM score_buckets WHERE period = $1 AND period_key = $2", period, key
                )
            }
            assert buckets == histogram
        totals = {
            row.user_id: row.points for row in await stores[1].leaderboard("test", "space", Period.ALL, "all", 100)
        }
        for user, points in totals.items():
            mine = await stores[1].rank_of("test", "space", Period.ALL, "all", user)
            assert mine.rank == 1 + sum(1 for p in totals.values() if p > points)
        answered = await pool.fetchval("SELECT SUM(answered) FROM scores WHERE period = 'all'")
        assert answered == await pool.fetchval("SELECT COUNT(*) FROM answers")
    finally:
        for s in stores:
            await s.close()


async def test_processes_revealing_batches_with_answers_coming_in_never_deadlock_and_reveal_once(pg_url):
    """Two processes reveal the same due rounds in batches, in opposite orders and spread over several spaces,
    while answer batches lock those rounds: each round is revealed once, and no transaction dies in a
    deadlock (a batch locks its rounds in id order, as answer batches do, then its spaces in one order)."""
    stores = [PostgresStore(pg_url, max_size=4) for _ in range(2)]
    for s in stores:
        await s.open()
    try:
        closes = T0 + dt.timedelta(hours=1)
        refs = [ChannelRef("test", f"space-{i % 4}", f"c{i}") for i in range(16)]
        rounds = [await stores[0].claim_daily_round(ref, DAY, "q1", "tensors", T0, closes) for ref in refs]
        ids = [r.id for r in rounds]
        early = T0 + dt.timedelta(minutes=30)

        async def answers(k: int) -> None:
            for j in range(5):
                batch = [NewAnswer(rid, f"u{k}-{j}", 0, True, early) for rid in reversed(ids)]
                await stores[k % 2].add_answers(batch, early)

        async def reveal(store: PostgresStore, order: list[int]) -> list[int]:
            got = []
            for k in range(0, len(order), 5):
                got += [
                    g.round.id
                    for g in await store.reveal_due_rounds(order[k : k + 5], closes, score_daily_round, closes)
                ]
            return got

        results = await asyncio.gather(
            reveal(stores[0], ids), reveal(stores[1], ids[::-1]), *(answers(k) for k in range(4))
        )
        first, second = results[0], results[1]
        assert sorted(first + second) == sorted(ids)  # every round once, by one of them
        for r in rounds:
            assert (await stores[0].get_round(r.id)).revealed_at == closes
    finally:
        for s in stores:
            await s.close()


async def test_a_reveal_batch_takes_as_many_statements_for_six_rounds_in_three_spaces_as_for_two_in_one(
    pg_url, monkeypatch
):
    """A batch's points, streaks, cards, review log and boards are written a statement each for the whole
    batch (PgSettle.flush_writes, bot.store.settle.ScoreFolds), not once per round, space or board."""
    store = PostgresStore(pg_url)
    await store.open()
    statements: list[str] = []
    for name in ("execute", "fetch", "fetchrow", "fetchval", "executemany"):
        method = getattr(asyncpg.connection.Connection, name)

        def counted(self, query, *args, _method=method, **kwargs):  # type: ignore[no-untyped-def]
            statements.append(query)
            return _method(self, query, *args, **kwargs)

        monkeypatch.setattr(asyncpg.connection.Connection, name, counted)
    try:
        closes = T0 + dt.timedelta(hours=1)
        counts = []
        for space, n, spaces in (("two", 2, 1), ("six", 6, 3)):
            rounds = [
                await store.claim_daily_round(
                    ChannelRef("test", f"{space}{i % spaces or ''}", f"{space}-{i}"), DAY, f"q{i}", "t", T0, closes
                )
                for i in range(n)
            ]
            for r in rounds:
                await store.add_answers([NewAnswer(r.id, f"u{k}", 0, k % 2 == 0, T0) for k in range(20)], T0)
            statements.clear()
            got = await store.reveal_due_rounds([r.id for r in rounds], closes, score_daily_round, closes)
            assert len(got) == n
            counts.append(len(statements))
        assert counts[0] == counts[1]
        week_key = dict(period_keys(DAY))[Period.WEEK]
        for name in ("six", "six1", "six2"):  # two rounds each: the boards of each space, no other's
            board = await store.leaderboard("test", name, Period.ALL, "all", 30)
            assert len(board) == 20
            assert [(x.user_id, x.correct, x.answered) for x in board[:2]] == [("u0", 2, 2), ("u10", 2, 2)]
            assert (await store.rank_of("test", name, Period.ALL, "all", "u1")).rank == 11  # 10 right above
            week = await store.leaderboard("test", name, Period.WEEK, week_key, 30)
            assert [(x.user_id, x.points) for x in week] == [(x.user_id, x.points) for x in board]
    finally:
        await store.close()


async def test_grouped_send_outcomes_and_answer_batches_never_deadlock(pg_url):
    """Two processes record batches of send outcomes (finish_posts, finish_reveals) in opposite orders while
    answer batches lock the same rounds: the outcomes are written in round order, as answers lock rounds,
    so no transaction dies in a deadlock."""
    from bot.daily.values import PostFinish, RevealFinish

    stores = [PostgresStore(pg_url, max_size=4) for _ in range(2)]
    for s in stores:
        await s.open()
    try:
        refs = [ChannelRef("test", f"space-{i % 4}", f"c{i}") for i in range(16)]
        closes = T0 + dt.timedelta(days=1)
        ids = [(await stores[0].claim_daily_round(ref, DAY, "q1", "tensors", T0, closes)).id for ref in refs]

        async def answers(k: int) -> None:
            for j in range(6):
                await stores[k % 2].add_answers([NewAnswer(rid, f"u{k}-{j}", 0, True, T0) for rid in ids], T0)

        async def finishes(store: PostgresStore, order: list[int]) -> None:
            for j in range(6):
                await store.finish_posts([PostFinish(rid, "sent", message_id=f"m{rid}-{j}") for rid in order])
                await store.finish_reveals([RevealFinish(rid, "due") for rid in order])

        await asyncio.gather(finishes(stores[0], ids), finishes(stores[1], ids[::-1]), *(answers(k) for k in range(4)))
        for rid in ids:
            assert (await stores[0].get_round(rid)).post_state == "sent"
        assert len(await stores[0].round_answers(ids[0])) == 24
    finally:
        for s in stores:
            await s.close()


async def test_scoring_waits_while_another_process_scores_the_same_space(pg_url):
    """Another process in the middle of scoring the space (holding its lock) holds back this reveal's
    scoring until it commits; a reveal in another space goes ahead."""
    store = PostgresStore(pg_url)
    await store.open()
    other = await asyncpg.connect(pg_url)
    try:
        here = await store.claim_daily_round(REF, DAY, "q1", "tensors", T0, None)
        elsewhere = await store.claim_daily_round(ChannelRef("test", "space-2", "c"), DAY, "q1", "tensors", T0, None)
        for r in (here, elsewhere):
            await store.add_answers([NewAnswer(r.id, "ada", 0, True, T0)], T0)
        tx = other.transaction()
        await tx.start()
        await other.execute("SELECT pg_advisory_xact_lock($1, hashtext($2))", LOCK_SPACE, "test\x1fspace")
        waiting = asyncio.ensure_future(store.reveal_round(here.id, T0, score_daily_round))
        assert await asyncio.wait_for(store.reveal_round(elsewhere.id, T0, score_daily_round), 5)
        await asyncio.sleep(0.3)
        assert not waiting.done()
        await tx.commit()
        assert await asyncio.wait_for(waiting, 5)
        assert [(x.user_id, x.points) for x in await store.leaderboard("test", "space", Period.ALL, "all", 10)] == [
            ("ada", 10)
        ]
    finally:
        await other.close()
        await store.close()


async def test_store_for_url_picks_postgres_and_errors_hide_the_password():
    assert isinstance(store_for_url("postgresql://bot:s3cret@127.0.0.1:1/x"), PostgresStore)
    assert isinstance(store_for_url("postgres://bot@127.0.0.1/x"), PostgresStore)
    assert redact("postgresql://bot:s3cret@db:5432/studybot") == "postgresql://bot:***@db:5432/studybot"
    store = PostgresStore("postgresql://bot:s3cret@127.0.0.1:1/studybot")
    with pytest.raises(ConnectionError) as info:
        await store.open()
    assert "127.0.0.1:1" in str(info.value) and "s3cret" not in str(info.value)
    assert "s3cret" not in repr(store)


@pytest.mark.parametrize(
    ("role", "name"), [("all", "studybot"), ("interactive", "studybot-interactive"), ("delivery", "studybot-delivery")]
)
async def test_pg_stat_activity_tells_the_processes_roles_apart(contract_database, role, name):
    settings = Settings(role=role, database_url=contract_database)
    store = store_for_url(contract_database, application_name=connection_name(settings))
    await store.open()
    assert isinstance(store, PostgresStore)
    async with store.pool.acquire() as conn:
        mine = await conn.fetchrow(
            "SELECT application_name, current_setting('jit') AS jit FROM pg_stat_activity WHERE pid = pg_backend_pid()"
        )
    await store.close()
    assert (mine["application_name"], mine["jit"]) == (name, "off")


async def test_an_unreachable_server_fails_the_tests_instead_of_skipping():
    with pytest.raises(pytest.fail.Exception) as info:
        async with throwaway_database(server="postgresql://postgres@127.0.0.1:1/postgres"):
            pass  # pragma: no cover
    assert "PostgreSQL is not reachable at postgresql://postgres@127.0.0.1:1/postgres" in str(info.value)


async def test_forget_me_racing_reveals_in_its_space_leaves_no_trace_and_exact_buckets(pg_url):
    """Two processes: one reveals rounds (several channels of a space, at once) that a learner answered while
    the other runs the learner's forget-me. Whatever the order, the learner is on no board afterwards and the
    buckets behind rank_of equal the histogram of the scores left (forget-me takes the space's scoring lock)."""
    stores = [PostgresStore(pg_url, max_size=4) for _ in range(2)]
    for s in stores:
        await s.open()
    try:
        users = [f"u{i:02d}" for i in range(12)]
        refs = [ChannelRef("test", "space", c) for c in "abc"]
        pool = stores[0].pool
        for day in range(4):
            rounds = [
                await stores[0].claim_daily_round(ref, DAY + dt.timedelta(days=day), f"q{day}", "tensors", T0, None)
                for ref in refs
            ]
            for r in rounds:  # the learners forgotten on earlier days answer no more
                await stores[0].add_answers(
                    [NewAnswer(r.id, u, 0, (i + day) % 3 != 0, T0) for i, u in enumerate(users) if i >= day], T0
                )
            gone = users[day]
            await asyncio.gather(
                *(stores[0].reveal_round(r.id, T0, score_daily_round) for r in rounds),
                stores[1].forget_learner("test", "space", gone),
            )
            for period, key in (("all", "all"), ("week", "2026-W49")):
                histogram = dict(
                    await pool.fetch(
                        "SELECT points, COUNT(*) FROM scores WHERE period = $1 AND period_key = $2 GROUP BY points",
                        period,
                        key,
                    )
                )
                buckets = dict(
                    await pool.fetch(
                        "SELECT points, users FROM score_buckets WHERE period = $1 AND period_key = $2", period, key
                    )
                )
                assert buckets == histogram
            board = {row.user_id for row in await stores[0].leaderboard("test", "space", Period.ALL, "all", 100)}
            assert not board & set(users[: day + 1])
    finally:
        for s in stores:
            await s.close()


async def test_two_stores_importing_one_pack_at_once_one_wins_the_other_is_told(pg_url):
    """Two processes (two stores, two catalogs) import into the same space and pack at the same moment: one
    import wins whole, the other gets a clear PackError (the space is busy, or the pack exists) and
    changes nothing. Decided in the store (an advisory lock per space, then the pack's row)."""
    from bot.bank.load import Bank
    from bot.kernel.errors import PackError
    from bot.kernel.values import Actor
    from bot.packs.catalog import PackCatalog
    from tests.support.packs import pack_csv, pack_rows

    admin = Actor("admin", is_admin=True)
    stores = [PostgresStore(pg_url), PostgresStore(pg_url)]
    for s in stores:
        await s.open()
    try:
        for attempt in range(3):  # three races: whether or not the two overlap, exactly one wins
            catalogs = [PackCatalog(s, Bank(())) for s in stores]
            files = [pack_csv(pack_rows(2000, prefix=p)) for p in ("left", "right")]
            pack = f"team{attempt}"

            async def run(
                i: int, pack: str = pack, catalogs: list[PackCatalog] = catalogs, files: list[bytes] = files
            ) -> object:
                try:
                    return await catalogs[i].import_pack(admin, "slack", "T9", pack, files[i], "csv", now=T0)
                except PackError as exc:
                    return exc

            outcomes = await asyncio.gather(run(0), run(1))
            errors = [o for o in outcomes if isinstance(o, PackError)]
            assert len(errors) == 1, outcomes
            assert any(
                m in errors[0].message for m in ("Another import into this space is running", "already exists")
            ), errors[0].message
            winner = outcomes.index(next(o for o in outcomes if not isinstance(o, PackError)))
            rows = await stores[1 - winner].pack_questions("slack", "T9", pack)
            assert len(rows) == 2000 and {qid.split("-")[0] for qid, _ in rows} == {("left", "right")[winner]}
        assert [(n, c, v) for n, c, v in await stores[0].list_packs("slack", "T9")] == [
            (f"team{i}", 2000, 1) for i in range(3)
        ]
    finally:
        for s in stores:
            await s.close()


async def test_two_processes_never_pass_a_members_daily_report_limit(pg_url):
    """Two stores (two bot processes) on one database, a member's reports racing through both: five stored."""
    from bot.reports.values import ReportWrite
    from tests.integration.report_contract import DAY_START, new

    stores = [PostgresStore(pg_url), PostgresStore(pg_url)]
    for s in stores:
        await s.open()
    try:
        results = await asyncio.gather(
            *(stores[i % 2].add_report(new(question=f"q{i}"), since=DAY_START, daily_limit=5) for i in range(16))
        )
        assert sum(1 for status, _ in results if status is ReportWrite.ADDED) == 5
        assert {status for status, _ in results} == {ReportWrite.ADDED, ReportWrite.LIMIT}
        assert len(await stores[1].reports("test", "space")) == 5
    finally:
        for s in stores:
            await s.close()


async def test_two_processes_writing_practice_card_updates_write_each_once_in_order(pg_url):
    """Both processes drain the marks at once (the lock lets one at a time): every answer is rated once,
    and a card met in many rounds is reviewed once per round (no update is lost to a stale read)."""
    stores = [PostgresStore(pg_url), PostgresStore(pg_url)]
    for s in stores:
        await s.open()
    try:
        first = stores[0]
        batch = []
        for i in range(60):
            user, question = f"u{i % 3}", f"q{i % 2}"
            r = await first.create_practice_round(REF, user, question, "tensors", T0)
            at = T0 + dt.timedelta(minutes=i)
            await first.add_answers([NewAnswer(r.id, user, 0, i % 4 != 0, at)], at)
            batch.append(PracticeAnswer(r.id, user, i % 4 != 0, True, at))
        assert all(await first.reveal_practice(batch, T0 + dt.timedelta(hours=2)))

        async def drain(store: PostgresStore) -> int:
            total = 0
            while done := await store.learn_practice(7):
                total += done
            return total

        assert sum(await asyncio.gather(*(drain(s) for s in stores))) == 60
        for n in range(3):
            cards = await first.learner_cards(REF.platform, REF.space_id, f"u{n}")
            assert sorted(c.reviews for c in cards) == [10, 10]
            assert len(await first.review_events(REF.platform, REF.space_id, f"u{n}")) == 20
    finally:
        for s in stores:
            await s.close()


async def test_two_processes_writing_daily_card_updates_beside_a_forget_me_write_each_once(pg_url):
    """Both processes write the revealed daily rounds' card updates at once (one space a transaction, one
    process at a time) while a third forgets a learner of one space: every other answer is rated once, in
    day order (one card is met on four days), the forgotten learner keeps no card, and no mark is left."""
    stores = [PostgresStore(pg_url, max_size=4) for _ in range(3)]
    for s in stores:
        await s.open()
    try:
        first = stores[0]
        users = ("ann", "bob", "cy")
        ids = []
        for day in range(4):
            when = T0 + dt.timedelta(days=day)
            for k in range(6):  # six spaces, a channel each; every day the same question
                ref = ChannelRef("test", f"space-{k}", f"c{k}")
                r = await first.claim_daily_round(ref, DAY + dt.timedelta(days=day), "q1", "t", when, None)
                await first.add_answers([NewAnswer(r.id, u, 0, (day + k) % 2 == 0, when) for u in users], when)
                ids.append(r.id)
        closes = T0 + dt.timedelta(days=5)
        for k in range(0, len(ids), 6):  # a day a batch, in day order
            assert len(await first.reveal_due_rounds(ids[k : k + 6], closes, score_daily_round, closes)) == 6

        async def drain(store: PostgresStore) -> int:
            total = 0
            while done := await store.learn_rounds(3):
                total += done
            return total

        written = await asyncio.gather(
            drain(stores[0]), drain(stores[1]), stores[2].forget_learner("test", "space-2", "bob")
        )
        # 20 to 24: the forget-me first writes the rounds of bob's space that the others have not written yet
        assert 20 <= written[0] + written[1] <= 24
        assert await first.pool.fetchval("SELECT COUNT(*) FROM rounds WHERE cards_pending IS NOT NULL") == 0
        for k in range(6):
            for user in users:
                cards = await first.learner_cards("test", f"space-{k}", user)
                if (k, user) == (2, "bob"):
                    assert cards == []
                    continue
                [card] = cards
                assert (card.reviews, card.lapses) == (4, 2)  # four days, two of them wrong: each once
                events = await first.review_events("test", f"space-{k}", user)
                assert [e.reviewed_at for e in events] == [T0 + dt.timedelta(days=d) for d in range(4)]
    finally:
        for s in stores:
            await s.close()


async def test_background_work_never_holds_the_whole_pool_so_an_answer_batch_gets_a_connection(pg_url):
    """The 09:00 fan-out runs as background work (bot.priority): however many of its transactions are open,
    FOREGROUND_CONNECTIONS of the pool stay free for answers and reads."""
    from bot.kernel.priority import background
    from bot.store.postgres import FOREGROUND_CONNECTIONS

    size = FOREGROUND_CONNECTIONS + 2
    store = PostgresStore(pg_url, min_size=1, max_size=size)
    await store.open()
    release = asyncio.Event()
    held = 0

    async def slow_background() -> None:
        nonlocal held
        with background():
            async with store._tx() as conn:
                held += 1
                await conn.execute("SELECT 1")
                await release.wait()

    try:
        round_ = await store.claim_daily_round(REF, DAY, "q1", "tensors", T0, None)
        assert round_ is not None
        jobs = [asyncio.ensure_future(slow_background()) for _ in range(size * 2)]
        for _ in range(50):
            await asyncio.sleep(0.01)
            if held >= 2:
                break
        assert held == 2  # the others wait for a slot, not for a connection of the pool
        for i in range(FOREGROUND_CONNECTIONS + 1):  # answers and reads go on beside them
            [write] = await asyncio.wait_for(store.add_answers([NewAnswer(round_.id, f"u{i}", 0, True, T0)], T0), 5)
            assert write.status == "recorded"
        assert await asyncio.wait_for(store.latest_daily_round(REF), 5) is not None
        release.set()
        await asyncio.gather(*jobs)
        assert held == size * 2
    finally:
        release.set()
        await store.close()
