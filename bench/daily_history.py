"""The quiet day's fan-out as history piles up: CPU per channel on day 1 and on day N.

Run: python -m bench.daily_history [--channels 1000] [--days 12] [--store sqlite|postgres]
     [--url postgresql://postgres@127.0.0.1:5432/test]
Target: the last two days cost what the first two did (ratio under 1.2). A tick's reads find the work due through
indexes of that work, so their cost follows what is due, not the rounds and channels stored over the years.

Each day is bench.daily_parts.quiet_day: every channel posts and reveals one round that nobody answers, the
tick's lanes run back to back. Figures per channel: this process's CPU, and the statements' own: on SQLite
the connection thread's (part of the process's), on PostgreSQL the server processes' (read from /proc, so
the server must run on this machine, with nothing else using it). The ratio compares the statements' CPU.
The first day is left out (it imports and warms up).

Measured 2026-12-07 (SQLite, 1,000 channels, 12 days, the shared 2-core machine): main a5f94e1, connection
thread 0.49 ms per channel on day 2 and 0.92 ms on day 12, growing by about 0.04 ms a day. Its due-reveal
read, its claims of due posts and reveal retries and its claim of due channels ask for one platform
(`platform IN (...)`, a tick's lane), and without statistics SQLite read them through an index on the
platform: the whole history of the platform's rounds at every tick (a due-reveal read 1.1 ms at 4,000
rounds, 0.05 ms through its own index). With INDEXED BY those indexes (this benchmark, three runs): 0.30-0.43
ms on every day, the last two days over the first two 1.14, 1.25 and 1.11 (the days' spread is this
machine's noise: the highest day was the 9th or 10th, then lower again).

PostgreSQL, the same day (1,000 channels, 10 days, the server's client backends of the bench's database):
with the statistics autovacuum keeps (ANALYZE before each day; autovacuum is off on this machine) 0.84 ms per
channel on day 2 and 0.92 on day 10, flat; without them 0.93 -> 1.87, as the planner read the rounds table
whole (2.8 million rows read on day 10, pg_stat_user_tables). Its due-work reads go through their indexes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import os
import threading
import time
from pathlib import Path

from bench.daily_parts import (
    INSTANT,
    FakePlatform,
    RealTimeClock,
    channel_refs,
    fresh_statistics,
    postgres_store,
    quiet_day,
    seed,
    sqlite_store,
)
from bot.store.ports import Store

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/test"


def connection_cpu() -> float:
    """CPU seconds of the statements so far: SQLite's connection thread, or every PostgreSQL server process
    on this machine (from /proc; the server must run here)."""
    for thread in threading.enumerate():
        if thread.name == "sqlite-connection" and thread.ident is not None:
            return time.clock_gettime(time.pthread_getcpuclockid(thread.ident))
    ticks = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rsplit(")", 1)
            if fields[0].endswith("(postgres"):
                utime, stime = fields[1].split()[11:13]
                ticks += int(utime) + int(stime)
    return ticks / os.sysconf("SC_CLK_TCK")


async def run(store: Store, channels: int, days: int) -> list[tuple[float, float]]:
    """(process CPU ms, connection thread CPU ms) per channel, for each day after the first."""
    refs = channel_refs(channels, 0.1)
    await seed(store, refs, 20)
    clock = RealTimeClock(INSTANT - dt.timedelta(seconds=5))
    sent: dict[tuple[str, str], dt.datetime] = {}
    platforms = {name: FakePlatform(name, clock, sent, []) for name in ("discord", "slack")}
    out = []
    for day in range(days):
        await fresh_statistics(store)  # autovacuum's work in a running database (it is off on the CI machines)
        before = connection_cpu()
        cpu, _wall, done = await quiet_day(store, clock, platforms, sent, 2 * channels, day)
        if done < 2 * channels:
            raise SystemExit(f"day {day}: {done} of {2 * channels} sends went out")
        if day:
            out.append((cpu / channels * 1000, (connection_cpu() - before) / channels * 1000))
    return out


def the_store(args: argparse.Namespace) -> contextlib.AbstractAsyncContextManager[Store]:
    return sqlite_store() if args.store == "sqlite" else postgres_store(args.url)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--channels", type=int, default=1000)
    parser.add_argument("--days", type=int, default=12)
    parser.add_argument("--store", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--url", default=DEFAULT_URL)
    args = parser.parse_args()
    store_cm: contextlib.AbstractAsyncContextManager[Store] = the_store(args)
    async with store_cm as store:
        days = await run(store, args.channels, args.days)
    print(f"--- {args.store}: {args.channels:,} channels, quiet days 2-{args.days}")
    where = "connection thread" if args.store == "sqlite" else "server processes"
    print("this process, CPU ms per channel:    " + " ".join(f"{cpu:.2f}" for cpu, _ in days))
    print(f"{where}, CPU ms per channel: " + " ".join(f"{sql:.2f}" for _, sql in days))
    first, last = (sum(day[1] for day in pair) / len(pair) for pair in (days[:2], days[-2:]))
    print(f"last two days / first two days: {last / first:.2f} (target < 1.2)")


if __name__ == "__main__":
    asyncio.run(main())
