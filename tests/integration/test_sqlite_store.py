"""The Store contract on SQLite (a file in WAL mode, as in production), plus SQLite specifics."""

from __future__ import annotations

import os
import sqlite3

import pytest

from bot.store.base import PENDING_OF_LEARNER
from bot.store.migrations import load_migrations
from bot.store.sqlite import SqliteStore, split_sql
from bot.store.sqlite_settle import PENDING_ALL, PENDING_MINE, TO_LEARN, TO_LEARN_OF
from tests.integration.access_contract import AccessContract
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


class TestSqliteStore(
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
    async def store(self, tmp_path):
        store = SqliteStore(tmp_path / "studybot.db")
        await store.open()
        yield store
        await store.close()

    @pytest.fixture
    async def reopen(self, tmp_path):
        async def _open() -> SqliteStore:
            store = SqliteStore(tmp_path / "restart.db")
            await store.open()
            return store

        return _open


async def test_wal_mode_and_unique_keys_in_the_schema(tmp_path):
    store = SqliteStore(tmp_path / "s.db")
    await store.open()
    await store.close()
    con = sqlite3.connect(tmp_path / "s.db")
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    indexes = {row[1]: row[2] for row in con.execute("SELECT type, name, sql FROM sqlite_master WHERE type='index'")}
    assert "UNIQUE" in indexes["rounds_daily_slot"]
    every = [(version,) for version, _, _ in load_migrations("sqlite")]
    assert con.execute("SELECT version FROM schema_migrations ORDER BY version").fetchall() == every
    con.close()


def test_split_sql_keeps_whole_statements():
    script = "-- c\nCREATE TABLE a (x TEXT DEFAULT ';');\n\nCREATE INDEX i ON a (x);\n"
    assert split_sql(script) == ["CREATE TABLE a (x TEXT DEFAULT ';');", "CREATE INDEX i ON a (x);"]


CLOSE_WHILE_CHECKPOINTING = """
import asyncio, datetime as dt, sys
import bot.store.sqlite as s
import bot.store.sqlite_checkpointer as checkpointer
from bot.kernel.values import ChannelRef
from bot.kernel.values import NewAnswer
from bot.store.migrations import load_migrations
from bot.store.base import PENDING_OF_LEARNER
checkpointer.CHECKPOINT_EVERY = 0.0
T0 = dt.datetime(2026, 11, 30, 9, tzinfo=dt.UTC)
async def main():
    for n in range(40):
        store = s.SqliteStore(sys.argv[1] + f"/c{n % 4}.db")
        await store.open()
        r = await store.claim_daily_round(ChannelRef("t", "s", f"c{n}"), T0.date(), "q", "tensors", T0, None)
        await store.add_answers([NewAnswer(r.id, f"u{i}", i % 4, True, T0) for i in range(3000)], T0)
        await asyncio.sleep(0.002 * (n % 5))
        await store.close()
asyncio.run(main())
print("ok")
"""


def test_closing_the_store_while_a_background_checkpoint_runs_is_safe(tmp_path):
    """Closing the checkpoint connection under a running checkpoint crashed the process (SIGSEGV)."""
    import subprocess
    import sys
    from pathlib import Path

    result = subprocess.run(
        [sys.executable, "-c", CLOSE_WHILE_CHECKPOINTING, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert result.returncode == 0 and result.stdout.strip() == "ok", (result.returncode, result.stderr[-500:])


async def test_a_version_1_database_gains_ping_winners_off_and_keeps_its_channels(tmp_path):
    path = tmp_path / "old.db"
    con = sqlite3.connect(path)
    [(version, name, sql)] = [m for m in load_migrations("sqlite") if m[0] == 1]
    for statement in split_sql(sql):
        con.execute(statement)
    con.execute(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )
    con.execute("INSERT INTO schema_migrations VALUES (?, ?, ?)", (version, name, "2026-11-01T00:00:00+00:00"))
    con.execute(
        "INSERT INTO channels (platform, channel_id, space_id, post_time, timezone, weekdays, speed_bonus, "
        "updated_at) VALUES ('slack', 'C1', 'T1', '08:00', 'UTC', '0,1,2', 1, '2026-11-01T00:00:00+00:00')"
    )
    con.commit()
    con.close()
    store = SqliteStore(path)
    await store.open()
    try:
        assert await store.schema_version() >= 3
        [cfg] = await store.list_channels()
        assert cfg.ref.channel_id == "C1" and cfg.speed_bonus and cfg.ping_winners is False
    finally:
        await store.close()


async def _wal_after_small_commits(store: SqliteStore, wal: str, pace: float) -> list[int]:
    """Grow the WAL past 1 MB in one large commit, then commit 5 answers at a time (`pace` seconds apart) until
    the WAL file is cut back to 256 KB, 3,000 commits at most: the WAL's sizes after each small commit."""
    import asyncio
    import datetime as dt

    from bot.kernel.values import ChannelRef, NewAnswer

    t0 = dt.datetime(2026, 11, 30, 9, tzinfo=dt.UTC)
    round_ = await store.claim_daily_round(ChannelRef("t", "s", "c"), t0.date(), "q", "tensors", t0, None)
    assert round_ is not None
    await store.add_answers([NewAnswer(round_.id, f"big{i}", i % 4, True, t0) for i in range(40_000)], t0)
    assert os.stat(wal).st_size > 1024 * 1024
    sizes: list[int] = []
    for n in range(3000):
        await store.add_answers([NewAnswer(round_.id, f"u{n}-{i}", i % 4, True, t0) for i in range(5)], t0)
        sizes.append(os.stat(wal).st_size)
        if sizes[-1] <= 256 * 1024:
            break
        if pace:
            await asyncio.sleep(pace)
    return sizes


async def test_the_wal_starts_over_and_is_cut_back_while_answers_keep_coming(tmp_path, monkeypatch):
    """The background checkpointer keeps the WAL file small under a steady stream of commits: it finishes
    each checkpoint between two transactions, so the next write starts the WAL over, cut to WAL_KEEP."""
    import bot.store.sqlite_checkpointer as checkpointer

    monkeypatch.setattr(checkpointer, "CHECKPOINT_EVERY", 0.0)
    monkeypatch.setattr(checkpointer, "WAL_RESET_AT", 0)
    monkeypatch.setattr(checkpointer, "WAL_KEEP", 256 * 1024)
    store = SqliteStore(tmp_path / "wal.db")
    await store.open()
    try:
        sizes = await _wal_after_small_commits(store, str(tmp_path / "wal.db-wal"), pace=0)  # back to back
        assert sizes[-1] <= 256 * 1024, sizes[-5:]
    finally:
        await store.close()


async def test_a_starved_checkpoint_thread_gives_way_to_one_of_normal_priority(tmp_path, monkeypatch):
    """With every core busy, the idle-priority checkpoint thread may never run: the passes then go to a thread
    of normal priority, so the WAL is still cut back (here the idle thread is held until the end)."""
    import threading

    import bot.store.sqlite_checkpointer as checkpointer

    held = threading.Event()
    monkeypatch.setattr(checkpointer, "_run_when_idle", lambda: held.wait(30))
    monkeypatch.setattr(checkpointer, "CHECKPOINT_EVERY", 0.0)
    monkeypatch.setattr(checkpointer, "STARVED_AFTER", 0.05)
    monkeypatch.setattr(checkpointer, "WAL_RESET_AT", 0)
    monkeypatch.setattr(checkpointer, "WAL_KEEP", 256 * 1024)
    store = SqliteStore(tmp_path / "starved.db")
    await store.open()
    try:
        sizes = await _wal_after_small_commits(store, str(tmp_path / "starved.db-wal"), pace=0.001)  # a learner's pace
        assert sizes[-1] <= 256 * 1024, sizes[-5:]
        assert store.checkpointer.starved_passes > 0
    finally:
        held.set()
        await store.close()


async def test_an_answer_batch_goes_before_the_background_transactions_queued_ahead_of_it(tmp_path):
    """At 09:00 the scheduler queues dozens of reveal and post transactions; a learner's answer batch waits
    for the one in progress only (bot.priority, bot.store.turns)."""
    import asyncio
    import datetime as dt

    from bot.kernel.priority import background
    from bot.kernel.values import ChannelRef, NewAnswer

    t0 = dt.datetime(2026, 11, 30, 9, tzinfo=dt.UTC)
    store = SqliteStore(tmp_path / "turns.db")
    await store.open()
    done: list[str] = []

    async def post(i: int) -> None:
        with background():
            await store.claim_daily_round(ChannelRef("t", "s", f"c{i}"), t0.date(), "q", "tensors", t0, None)
        done.append(f"post{i}")

    async def answer(round_id: int) -> None:
        [write] = await store.add_answers([NewAnswer(round_id, "u1", 0, True, t0)], t0)
        assert write.status == "recorded"
        done.append("answer")

    try:
        first = await store.claim_daily_round(ChannelRef("t", "s", "c0"), t0.date(), "q", "tensors", t0, None)
        assert first is not None
        await store._turns.lock.acquire()  # a transaction in progress
        posts = [asyncio.ensure_future(post(i)) for i in range(1, 6)]
        for _ in range(10):
            await asyncio.sleep(0)
        answering = asyncio.ensure_future(answer(first.id))
        for _ in range(10):
            await asyncio.sleep(0)
        store._turns.lock.release()
        await asyncio.gather(*posts, answering)
        assert done == ["answer", "post1", "post2", "post3", "post4", "post5"]
    finally:
        await store.close()


async def test_while_a_checkpoint_is_finished_writes_wait_and_reads_go_on(tmp_path):
    import asyncio
    import datetime as dt

    from bot.kernel.values import ChannelRef

    t0 = dt.datetime(2026, 11, 30, 9, tzinfo=dt.UTC)
    ref = ChannelRef("t", "s", "c")
    store = SqliteStore(tmp_path / "pause.db")
    await store.open()
    try:
        paused = store._turns.paused = asyncio.get_running_loop().create_future()
        write = asyncio.ensure_future(store.claim_daily_round(ref, t0.date(), "q", "tensors", t0, None))
        assert await store.latest_daily_round(ref) is None  # a read is not held up
        assert not write.done()
        store._turns.paused = None
        paused.set_result(None)
        round_ = await write
        assert round_ is not None and (await store.latest_daily_round(ref)).id == round_.id
    finally:
        await store.close()


async def test_every_kind_of_write_waits_while_a_checkpoint_is_finished(tmp_path):
    """The WAL starts over only if the checkpoint finished with the writer quiet: a write that went ahead
    (a reveal, a one-statement write, a claim) left the WAL to grow without end (1.7 GB after 40 days of
    10,000 answers a day, the database itself 200 MB)."""
    import asyncio
    import datetime as dt

    from bot.kernel.values import ChannelConfig, ChannelRef, NewAnswer

    t0 = dt.datetime(2026, 11, 30, 9, tzinfo=dt.UTC)
    ref = ChannelRef("t", "s", "c")
    store = SqliteStore(tmp_path / "pause.db")
    await store.open()
    try:
        await store.save_channel(ChannelConfig(ref=ref, paused=False))
        first = await store.claim_daily_round(ref, t0.date(), "q", "tensors", t0, t0)
        second = await store.claim_daily_round(ref, t0.date() + dt.timedelta(days=1), "q", "tensors", t0, t0)
        assert first is not None and second is not None
        await store.add_answers([NewAnswer(first.id, "u1", 0, True, t0)], t0)
        writes = {
            "save_channel (one statement)": lambda: store.save_channel(ChannelConfig(ref=ref, paused=True)),
            "set_next_post": lambda: store.set_next_post(ref, t0),
            "reveal_round": lambda: store.reveal_round(first.id, t0, None),
            "reveal_due_rounds": lambda: store.reveal_due_rounds([second.id], t0, None, t0 + dt.timedelta(minutes=5)),
            "claim_posts": lambda: store.claim_posts(t0, t0 + dt.timedelta(minutes=5), 10),
            "remember_once (several statements)": lambda: store.remember_once("e", "1", t0, dt.timedelta(hours=1)),
            "add_answers": lambda: store.add_answers([NewAnswer(second.id, "u2", 1, False, t0)], t0),
        }
        for name, write in writes.items():
            paused = store._turns.paused = asyncio.get_running_loop().create_future()
            pending = asyncio.ensure_future(write())
            await asyncio.sleep(0)  # the write asks for its turn first
            # a read goes on meanwhile; a write that had gone ahead would hold the connection until it is done
            assert await store.latest_daily_round(ref) is not None
            for _ in range(20):
                await asyncio.sleep(0)
            assert not pending.done(), f"{name} wrote while a checkpoint was being finished"
            store._turns.paused = None
            paused.set_result(None)
            await pending
        assert (await store.get_round(first.id)).revealed_at is not None
        assert (await store.get_round(second.id)).revealed_at is not None
    finally:
        await store.close()


async def test_writes_wait_for_a_held_checkpoint_pass_a_bounded_time(tmp_path, monkeypatch):
    """The checkpoint thread runs at idle priority, so a busy machine can starve it: writes then go on
    after HOLD_AT_MOST instead of waiting for that pass, which ends unlocked."""
    import asyncio
    import datetime as dt
    import threading

    import bot.store.sqlite_checkpointer as checkpointer
    from bot.kernel.values import ChannelRef

    t0 = dt.datetime(2026, 11, 30, 9, tzinfo=dt.UTC)
    release = threading.Event()
    held_passes: list[bool] = []
    checkpoint = checkpointer._checkpoint

    def starved_when_held(con):
        if store._turns.paused is not None:  # the held pass: as if the thread got no CPU
            held_passes.append(True)
            release.wait(30)
        return checkpoint(con)

    monkeypatch.setattr(checkpointer, "CHECKPOINT_EVERY", 0.0)
    monkeypatch.setattr(checkpointer, "WAL_RESET_AT", 0)
    monkeypatch.setattr(checkpointer, "HOLD_AT_MOST", 0.2)
    monkeypatch.setattr(checkpointer, "_checkpoint", starved_when_held)
    store = SqliteStore(tmp_path / "starved.db")
    try:
        # every write is bounded, opening included (its own writes may meet the first held pass): without the
        # bound this test fails here instead of waiting for the starved pass for ever
        async with asyncio.timeout(20):
            await store.open()
            ref = ChannelRef("t", "s", "c")
            await store.claim_daily_round(ref, t0.date(), "q", "tensors", t0, None)
            for _ in range(2000):  # until the checkpointer holds writes for a pass that does not end
                if held_passes:
                    break
                await asyncio.sleep(0.005)
            assert held_passes
            later = await asyncio.wait_for(
                store.claim_daily_round(ref, t0.date() + dt.timedelta(days=1), "q", "tensors", t0, None), 10
            )
        assert later is not None and not release.is_set()  # written while the held pass still runs
        assert store._turns.paused is None
    finally:
        release.set()
        await store.close()


async def test_the_top_of_a_board_is_read_in_the_index_order_without_statistics(tmp_path):
    """A database without statistics (just migrated or bulk-loaded) still reads a board's top rows from
    the index instead of sorting every row of the period (16 ms at 100,000 users)."""
    from bot.store.boards_sql import board_and_rank_sql
    from bot.store.sqlite import LEADERBOARD_SQL

    store = SqliteStore(tmp_path / "board.db")
    await store.open()
    try:
        plan = await store._read("EXPLAIN QUERY PLAN " + LEADERBOARD_SQL, ("slack", "T", "week", "2026-W49", 10))
        details = " | ".join(str(row[3]) for row in plan)
        assert "scores_top_reached" in details and "USE TEMP B-TREE FOR ORDER BY" not in details, details
        # the same top read with an asker's rank (one statement): the top still from the index
        board = ("slack", "T", "week", "2026-W49")
        plan = await store._read("EXPLAIN QUERY PLAN " + board_and_rank_sql(LEADERBOARD_SQL), (*board, 10, *board, "u"))
        details = " | ".join(str(row[3]) for row in plan)
        assert "INDEX scores_top_reached" in details, details
    finally:
        await store.close()


async def test_the_learning_marks_are_read_through_their_partial_indexes_not_a_scan_of_every_round(tmp_path):
    store = SqliteStore(tmp_path / "s.db")
    await store.open()
    await store.close()
    con = sqlite3.connect(tmp_path / "s.db")
    for sql, params in ((PENDING_ALL, (5,)), (PENDING_MINE, ("p", "s", "u", 5))):
        plan = " ".join(row[3] for row in con.execute("EXPLAIN QUERY PLAN " + sql, params))
        assert "USING INDEX rounds_learn_pending" in plan, plan
    plan = " ".join(row[3] for row in con.execute("EXPLAIN QUERY PLAN " + PENDING_OF_LEARNER, ("p", "s", "u")))
    assert "USING INDEX rounds_learn_pending" in plan and "USING INDEX rounds_cards_pending" in plan, plan
    for sql, params in ((TO_LEARN, ("p", "s", 5)), (TO_LEARN_OF, ("p", "s", "u", 5))):  # the daily rounds' marks
        plan = " ".join(row[3] for row in con.execute("EXPLAIN QUERY PLAN " + sql, params))
        assert "USING INDEX rounds_cards_pending (platform=? AND space_id=?)" in plan, plan
    con.close()


async def test_the_connection_thread_runs_every_call_in_order_on_one_thread_of_its_own(tmp_path):
    import asyncio
    import threading

    from bot.store.sqlite_thread import SqliteThread

    db = await SqliteThread.connect(str(tmp_path / "t.db"))
    seen: list[tuple[int, int]] = []

    def record(con, i):
        seen.append((threading.get_ident(), i))
        return con.execute("SELECT ?", (i,)).fetchone()[0]

    try:
        assert await asyncio.gather(*(db.call(record, i) for i in range(50))) == list(range(50))
        assert [i for _, i in seen] == list(range(50))
        assert len({ident for ident, _ in seen}) == 1 and seen[0][0] != threading.get_ident()
    finally:
        await db.close()


async def test_the_connection_thread_hands_back_errors_and_finishes_a_call_whose_caller_gave_up(tmp_path):
    import asyncio
    import threading

    from bot.store.sqlite_thread import SqliteThread

    db = await SqliteThread.connect(str(tmp_path / "t.db"), isolation_level=None)
    go = threading.Event()

    def slow_insert(con):
        go.wait(10)
        con.execute("INSERT INTO t VALUES (1)")

    try:
        await db.execute("CREATE TABLE t (x INTEGER)")
        with pytest.raises(sqlite3.OperationalError, match="syntax error"):
            await db.execute("SELEC 1")
        assert await db.executemany("INSERT INTO t VALUES (?)", [(2,), (3,)]) == 2
        waiting = asyncio.ensure_future(db.call(slow_insert))
        await asyncio.sleep(0.01)
        waiting.cancel()
        go.set()
        # the insert still ran on the thread, before the next call
        assert await db.execute_fetchall("SELECT x FROM t ORDER BY x") == [(1,), (2,), (3,)]
        assert waiting.cancelled()
    finally:
        await db.close()


async def test_a_closed_connection_thread_refuses_calls_and_its_thread_ends(tmp_path):
    import threading

    from bot.store.sqlite_thread import SqliteThread

    db = await SqliteThread.connect(str(tmp_path / "t.db"))
    thread = await db.call(lambda _con: threading.current_thread())
    await db.close()
    await db.close()  # again: nothing
    thread.join(5)
    assert not thread.is_alive()
    with pytest.raises(sqlite3.ProgrammingError):
        await db.execute_fetchall("SELECT 1")


async def test_a_database_that_cannot_be_opened_gives_sqlites_error_and_leaves_no_thread(tmp_path):
    import threading

    from bot.store.sqlite_thread import SqliteThread

    before = set(threading.enumerate())
    with pytest.raises(sqlite3.OperationalError, match="unable to open"):
        await SqliteThread.connect(str(tmp_path / "no" / "such" / "folder" / "t.db"))
    for thread in set(threading.enumerate()) - before:
        thread.join(5)
        assert not thread.is_alive(), thread.name


async def test_a_lanes_due_work_is_read_through_its_partial_indexes_not_every_round_of_its_platform(tmp_path):
    """A tick's lane asks for its platform's due work (`platform IN (...)`); on a database without statistics
    the planner took the platform's index for that, reading the platform's whole history (or every reminder)
    at every tick. Each statement of the claims and the due reads goes through the index of the work due."""
    import datetime as dt

    from bot.kernel.values import SpaceFilter

    store = SqliteStore(tmp_path / "due.db")
    await store.open()
    seen: list[str] = []
    try:
        await store._db.call(lambda con: con.set_trace_callback(seen.append))
        now = dt.datetime(2026, 12, 7, 9, tzinfo=dt.UTC)
        later = now + dt.timedelta(minutes=2)
        lane = SpaceFilter(platforms=("slack",), shard_count=2, shard_ids=(0,))
        await store.claim_due_channels(now, later, 10, lane)
        await store.claim_due_recaps(now, later, 10, lane)
        await store.due_reveals(now, 10, lane)
        await store.claim_posts(now, later, 10, spaces=lane)
        await store.claim_reveals(now, later, 10, spaces=lane)
        await store.due_reminders(now, 10, lane)
        await store._db.call(lambda con: con.set_trace_callback(None))
        reads = [sql for sql in seen if "INDEXED BY" in sql or "platform IN" in sql]
        plans = {
            sql: " | ".join(row[3] for row in await store._read("EXPLAIN QUERY PLAN " + sql.split(" RETURNING ")[0]))
            for sql in reads
        }
    finally:
        await store.close()
    wanted = [
        "channels_due",
        "channels_recap_due",
        "rounds_reveal_due",
        "rounds_post_work",
        "rounds_reveal_work",
        "reminders_due",
    ]
    for index in wanted:
        named = [plan for sql, plan in plans.items() if f"INDEXED BY {index} " in sql]
        assert len(named) == 1 and f"USING INDEX {index}" in named[0], (index, plans)
    assert len(plans) == len(wanted), plans  # every statement of a lane names the index of its work


async def test_the_open_rounds_and_a_spaces_channels_are_read_through_their_indexes(tmp_path):
    """Asked in id (or channel id) order, SQLite's planner read every round of the history (or every channel
    of the platform) to skip a sort; the stores sort those few rows themselves."""
    store = SqliteStore(tmp_path / "open.db")
    await store.open()
    seen: list[str] = []
    try:
        await store._db.call(lambda con: con.set_trace_callback(seen.append))
        await store.open_daily_rounds()
        await store.open_daily_rounds(unpromised=True)
        await store.space_channels("slack", "T1")
        await store._db.call(lambda con: con.set_trace_callback(None))
        plans = [" | ".join(row[3] for row in await store._read("EXPLAIN QUERY PLAN " + sql)) for sql in seen]
    finally:
        await store.close()
    assert len(plans) == 3, plans
    assert all("INDEX rounds_reveal_due" in plan for plan in plans[:2]), plans
    assert "INDEX channels_space (platform=? AND space_id=?)" in plans[2], plans
