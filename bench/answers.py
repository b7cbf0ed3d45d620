"""Answer throughput and latency through the core on SQLite, next to the raw sqlite3 ceiling.

Run: python -m bench.answers [--answers 60000] [--rate 10000] [--seconds 3] [--repeat 5] [--rounds 1]
Targets: >= 30,000 answers/s through the core and core/raw >= 0.30; p99 < 20 ms at 10,000 answers/s offered.

2026-12-02, a slow machine (about a third of the last one's speed; 20% CPU steal): main 3779d20, single
runs: core/raw 0.17, 0.16, 0.20 (30,300-30,500/s). After one executemany per SQLite batch, futures handed
out directly by the batcher and fewer objects per answer: 0.27, 0.28, 0.28 (medians of 5; 44,000-49,600/s).
Still under 0.30. Where the rest goes (probes that replace one side): the service, batcher and event loop
alone take 72,000-78,000 answers/s (13 us each), the store alone 98,000-107,000/s (9.4 us; the raw ceiling
5.7 us). In this closed loop the two add up, since all 2,000 people wait for the same batch. A GIL profile
puts a fifth of the time in asyncio's own wake-ups (Handle._run, call_soon, create_future), one per answer.
Tried and left out: releasing a batch's waiters in slices so the next batch starts while they run (42,300
vs 40,100/s, noise); batches of 250-1,000 (slower: 32,800-36,800 vs 42,500/s).

2026-12-03, a quiet machine of its own (main ee39248, one run of the defaults): 84,044 answers/s through
the core, raw ceiling 277,384/s, core/raw 0.30; p99 2.50 ms at 10,000/s offered. --rounds spreads the
offered answers over that many open rounds, as on a morning when many channels have posted: 10 s at
10,000/s, alternating runs, p99 3.96 and 3.92 ms to 1 round, 9.22 and 8.88 ms to 1,000 rounds. A probe that
summed the checkpoints' WAL frames found why: the answers' primary key (round_id, user_id) puts each
round's answers in its own place of the index, so a batch of ~18 answers to 18 rounds dirties ~18 pages
where answers to one round share a few: 20.1 WAL frames a commit instead of 7.6, 4.7 KB of WAL an answer
instead of 1.7 KB (about 47 MB/s at 10,000 answers/s). The background checkpoint copies 2.7x as much and
holds writes about 2.5x as long in all; a later WAL reset (64 MB instead of 8) made p99 worse, not better.

2026-12-05, the shared 2-core machine (quiet spell), r29 d90e8ff (aiosqlite) vs the store on its own
connection thread (bot.store.sqlite_thread), alternating runs of the defaults: core/raw 0.29, 0.30 before
(135,116 and 144,120/s) and 0.30, 0.30 after (142,334 and 141,736/s); p99 at 10,000/s 2.06 -> 2.04 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from bench.common import REF, T0, Factory, sqlite_factory
from bot.app.runtime import tune_gc
from bot.kernel.values import Actor, ChannelRef


async def throughput(factory: Factory, n: int, concurrency: int) -> float:
    """Answers/s through the core with `concurrency` people answering at once."""
    async with factory() as (service, store):
        round_ = await service.posting.post_scheduled(REF)
        assert round_ is not None
        # who answers what, made before the clock starts (as the raw ceiling's rows are)
        answers = iter([(f"user{i}", i % 4) for i in range(n)])

        async def worker() -> None:  # `concurrency` people answering at once, each again and again
            for user, choice in answers:
                await service.answers.submit_answer(round_.id, user, choice)

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        elapsed = time.perf_counter() - start
        assert len(await store.round_answers(round_.id)) == n
    return n / elapsed


async def latency(factory: Factory, rate: int, seconds: float, rounds: int = 1) -> tuple[float, float, float, int]:
    """Offer `rate` answers/s on a fixed schedule, latency measured from each answer's planned start;
    (p50 ms, p99 ms, achieved/s, count). The answers go to `rounds` open daily rounds in turn, one per
    channel of the space (as on a morning when many channels have posted)."""
    async with factory() as (service, _store):
        round_ids = []
        for k in range(rounds):
            ref = REF if k == 0 else ChannelRef(REF.platform, REF.space_id, f"{REF.channel_id}{k}")
            if k:
                await service.channels.configure(Actor("admin", True), ref)
            round_ = await service.posting.post_scheduled(ref)
            assert round_ is not None
            round_ids.append(round_.id)
        latencies: list[float] = []
        tick = 0.001
        per_tick = rate * tick
        loop = asyncio.get_running_loop()
        tasks: set[asyncio.Task[None]] = set()
        sent = 0.0
        i = 0

        async def one(user: int, planned: float) -> None:
            await service.answers.submit_answer(round_ids[user % rounds], f"user{user}", user % 4)
            latencies.append(loop.time() - planned)

        start = loop.time()
        while (now := loop.time()) - start < seconds:
            due = (now - start) * rate
            while sent < due:
                task = asyncio.ensure_future(one(i, start + sent / rate))
                tasks.add(task)
                task.add_done_callback(tasks.discard)  # finished tasks are not kept alive
                i += 1
                sent += 1
            await asyncio.sleep(tick if per_tick >= 1 else 1 / rate)
        await asyncio.gather(*tasks)
        achieved = len(latencies) / (loop.time() - start)
    qs = statistics.quantiles(latencies, n=100)
    return qs[49] * 1000, qs[98] * 1000, achieved, len(latencies)


def raw_ceiling(n: int, batch: int) -> float:
    """sqlite3 executemany of the same rows, same schema and pragmas, committed every `batch` rows (in a
    temporary folder, removed afterwards)."""
    with tempfile.TemporaryDirectory(prefix="studybot-raw-") as folder:
        return _raw_ceiling(Path(folder) / "raw.db", n, batch)


def _raw_ceiling(path: Path, n: int, batch: int) -> float:
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=NORMAL")
    con.execute(
        "CREATE TABLE answers (round_id INTEGER NOT NULL, user_id TEXT NOT NULL, choice INTEGER NOT NULL, "
        "correct INTEGER NOT NULL, answered_at TEXT NOT NULL, points INTEGER, PRIMARY KEY (round_id, user_id)) "
        "WITHOUT ROWID"
    )
    con.execute("CREATE INDEX answers_user ON answers (user_id, round_id)")
    ts = T0.isoformat(timespec="microseconds")
    rows = [(1, f"user{i}", i % 4, int(i % 4 == 0), ts) for i in range(n)]
    start = time.perf_counter()
    for k in range(0, n, batch):
        con.execute("BEGIN IMMEDIATE")
        con.executemany(
            "INSERT INTO answers (round_id, user_id, choice, correct, answered_at) VALUES (?,?,?,?,?)",
            rows[k : k + batch],
        )
        con.execute("COMMIT")
    elapsed = time.perf_counter() - start
    con.close()
    return n / elapsed


async def main() -> None:
    tune_gc()  # as the bot does at start (bot/app/cli.py)
    parser = argparse.ArgumentParser()
    parser.add_argument("--answers", type=int, default=60_000)
    parser.add_argument("--concurrency", type=int, default=2_000)
    parser.add_argument("--rate", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--repeat", type=int, default=5, help="core and raw runs, taken in turn; medians reported")
    parser.add_argument("--rounds", type=int, default=1, help="open rounds the offered answers go to, in turn")
    args = parser.parse_args()
    cores: list[float] = []
    raws: list[float] = []
    for _ in range(args.repeat):  # in turn, so a slow spell of the machine falls on both
        cores.append(await throughput(sqlite_factory(), args.answers, args.concurrency))
        raws.append(raw_ceiling(args.answers, args.concurrency))
    core, raw = statistics.median(cores), statistics.median(raws)
    p50, p99, achieved, count = await latency(sqlite_factory(), args.rate, args.seconds, args.rounds)
    print(f"answers through the core (SQLite): {core:,.0f}/s   (target >= 30,000/s; median of {args.repeat})")
    print(f"raw ceiling, sqlite3 executemany:  {raw:,.0f}/s   core/raw = {core / raw:.2f}   (target >= 0.30)")
    print(
        f"at {args.rate:,}/s offered for {args.seconds:g} s to {args.rounds:,} round(s): {count:,} answers, "
        f"achieved {achieved:,.0f}/s, "
        f"p50 {p50:.2f} ms, p99 {p99:.2f} ms   (target p99 < 20 ms)"
    )


if __name__ == "__main__":
    asyncio.run(main())
