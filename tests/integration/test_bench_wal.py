"""The benchmarks' WAL figures on PostgreSQL: bench.reveal_batch's WAL a reveal writes, read from the server's
insert position (SQLite has none and counts its virtual machine's instructions instead), and
bench.commit_beside_wal's commits timed beside a writer of WAL (its parts, for a fraction of a second)."""

from __future__ import annotations

import asyncio
import datetime as dt

import asyncpg
import pytest

from bench.commit_beside_wal import TABLES, commit_latencies, write_wal
from bench.daily_parts import server_wal, wal_figures
from bench.reveal_batch import wal_position
from bot.kernel.values import ChannelConfig, ChannelRef
from bot.store.postgres import PostgresStore
from bot.store.sqlite import SqliteStore
from tests.integration.test_postgres_store import throwaway_database


async def test_the_wal_position_moves_by_what_a_write_logs_and_is_zero_on_sqlite(tmp_path):
    """bench.reveal_batch's WAL position, and bench.daily_minute's line on the server in the loaded minute (its
    WAL and the checkpoints begun in it)."""
    async with throwaway_database("studybot_bench_wal") as url:
        store = PostgresStore(url)
        await store.open()
        try:
            before, server_before = await wal_position(store), await server_wal(store)
            for n in range(20):
                ref = ChannelRef("discord", "space1", f"channel{n}")
                await store.save_channel(ChannelConfig(ref=ref, post_time=dt.time(9, 0)))
            after = await wal_position(store)
            await store.pool.execute("CHECKPOINT")
            figures = wal_figures(server_before, await server_wal(store), 20)
        finally:
            await store.close()
    assert before > 0
    assert after - before > 20 * 100  # twenty channel rows, each logged with its key (the server is shared,
    # so other work can only add to it)
    assert figures["wal_mb"] * 1e6 > 20 * 100  # the same rows, read by the other reading
    assert figures["wal_kb_per_channel"] == pytest.approx(figures["wal_mb"] * 1e3 / 20)
    assert figures["checkpoints"] >= 1  # the CHECKPOINT
    assert figures["max_wal_size"].endswith("B")  # as the server shows it: 1GB, 4GB
    sqlite = SqliteStore(tmp_path / "studybot.db")
    await sqlite.open()
    try:
        assert await wal_position(sqlite) == 0
        assert await server_wal(sqlite) == {}
    finally:
        await sqlite.close()
    assert wal_figures({}, {}, 20) == {}


async def test_the_commit_benchmark_times_its_commits_beside_a_writer_of_wal():
    async with throwaway_database("studybot_bench_wal") as url:
        conn = await asyncpg.connect(url)
        try:
            await conn.execute(TABLES)
            stop = asyncio.Event()
            writer = asyncio.create_task(write_wal(url, 2e6, 50, stop))
            taken = await commit_latencies(url, 0.3)
            stop.set()
            rate = await writer
            rows = await conn.fetchval("SELECT count(*) FROM bulk")
            answers = await conn.fetchval("SELECT count(*) FROM answer_like")
        finally:
            await conn.close()
    assert len(taken) == answers > 0 and all(t > 0 for t in taken)
    assert rows > 1000 and rate > 0  # the writer wrote past its own measure of a row's WAL
