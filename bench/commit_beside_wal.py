"""An answer's commit beside a bulk writer: how much of the fan-out's cost to the answers is the WAL flush.

Run: python -m bench.commit_beside_wal [--rate 17] [--seconds 15] [--sizes 0,2000,400]
     [--url postgresql://postgres@127.0.0.1:5432/postgres]

On a throwaway database, one connection commits a one-row insert every 5 ms (an answer batch's commit, which
waits for its WAL to reach the disk), while another writes --rate MB/s of WAL in transactions of each --sizes
KB (0: no writer), as a delivery process's reveal batches do at 09:00. The rows are made in SQL
(generate_series), so the client's CPU stays out of it, and the load is far from the cores' limit: what it
shows is the disk's flush. A commit must flush all the WAL written before it, so the commits that land
behind a large transaction wait for it to reach the disk too.

2026-12-06 (the 2-core machine, quiet; 17 MB/s of WAL, as the fan-out's 19 at 10,000 channels; 15 s each, four to
six of each size in three sittings): the commits' p99 was 1.1-1.6 ms with no writer, 5.4-6.7 ms beside 2,000 KB
transactions (about a delivery process's reveal batch: 50 rounds of 30 answers at 41 KB a round,
bench.reveal_batch) and 1.9-3.2 ms beside 400 KB ones (a batch of 10 such rounds); p50 0.55-0.9 ms throughout. So
the WAL flush is about 4-5 ms of the answers' p99 during the fan-out, against the 27-51 ms measured there
(bench.daily_roles): most of that is the two cores. Where the fan-out has cores of its own, the flush is what is
left, and smaller reveal transactions would halve it, at the CPU cost of more store trips per channel
(bot.daily.delivery.DELIVERY_BATCHES).
"""

from __future__ import annotations

import argparse
import asyncio
import time

import asyncpg

from bench.daily_parts import quantile
from bench.postgres import DEFAULT_URL, throwaway_database, wal_insert_position

EVERY = 0.005  # seconds between two answer commits
PAD = 200  # characters a written row carries (about 265 WAL bytes a row)
PROBE = 1000  # rows first written to measure a row's WAL
TABLES = "CREATE TABLE bulk (id int, pad text); CREATE TABLE answer_like (id int, u text, at timestamptz)"


def _insert(rows: int) -> str:
    return f"INSERT INTO bulk SELECT g, repeat('x', {PAD}) FROM generate_series(1, {rows}) g"


async def write_wal(url: str, rate: float, size: float, stop: asyncio.Event) -> float:
    """Insert rows in transactions of about `size` WAL bytes, `rate` bytes a second, until `stop`; returns
    the WAL bytes a second it wrote."""
    conn = await asyncpg.connect(url)
    try:
        before = await wal_insert_position(conn)
        await conn.execute(_insert(PROBE))
        per_row = (await wal_insert_position(conn) - before) / PROBE
        rows = max(1, round(size * 1000 / per_row))
        start = await wal_insert_position(conn)
        began = due = time.perf_counter()
        while not stop.is_set():
            await conn.execute(_insert(rows))
            due += rows * per_row / rate
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
        return (await wal_insert_position(conn) - start) / (time.perf_counter() - began)
    finally:
        await conn.close()


async def commit_latencies(url: str, seconds: float) -> list[float]:
    """Seconds each one-row insert took (its own transaction), one every EVERY seconds for `seconds`."""
    conn = await asyncpg.connect(url)
    try:
        taken: list[float] = []
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            began = time.perf_counter()
            await conn.execute("INSERT INTO answer_like VALUES ($1, 'user', now())", len(taken))
            taken.append(time.perf_counter() - began)
            await asyncio.sleep(EVERY)
        return taken
    finally:
        await conn.close()


async def one_round(url: str, rate: float, size: float, seconds: float) -> str:
    stop = asyncio.Event()
    writer = asyncio.create_task(write_wal(url, rate, size, stop)) if size else None
    taken = await commit_latencies(url, seconds)
    stop.set()
    wal = await writer if writer else 0.0
    q = {p: quantile(taken, p) * 1000 for p in (0.5, 0.99, 0.999)}
    beside = f"{size:,.0f} KB transactions, {wal / 1e6:.1f} MB/s of WAL" if size else "no writer"
    return f"{beside:>40}: {len(taken):,} commits, p50 {q[0.5]:.2f} p99 {q[0.99]:.2f} p99.9 {q[0.999]:.2f} ms"


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rate", type=float, default=17.0, help="the writer's WAL, MB a second")
    parser.add_argument("--seconds", type=float, default=15.0, help="each measurement's length")
    parser.add_argument("--sizes", default="0,2000,400", help="the writer's transactions, KB of WAL each (0: none)")
    parser.add_argument("--url", default=DEFAULT_URL, help="PostgreSQL server (a throwaway database is made)")
    args = parser.parse_args()
    sizes = [float(s) for s in args.sizes.split(",")]
    async with throwaway_database(args.url) as url:
        conn = await asyncpg.connect(url)
        try:
            await conn.execute(TABLES)
        finally:
            await conn.close()
        for size in sizes:
            print(await one_round(url, args.rate * 1e6, size, args.seconds), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
