"""Answers under mixed load on SQLite: answers at a fixed rate, a scored reveal every second and leaderboard
reads, all at once for a minute.

Run: python -m bench.mixed_load [--seconds 60] [--rate 10000] [--reveal-answers 6000] [--reads 50]

Each second a new daily round opens in the channel and the round opened `--open` seconds earlier is revealed
and scored; of the answers offered, `--reveal-answers` a second go to the rounds that will be revealed, the rest
to one round that stays open all run. Answer latency is measured from each answer's planned start (a late
answer counts its wait). Reports answer p50/p99/p99.9, leaderboard p99, reveal durations, the WAL file's size
(largest and at the end) and the process's RSS (start, largest, end). The database lives in a temporary folder
that is removed afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import os
import resource
import shutil
import time
from pathlib import Path

from bench.common import REF, T0, sqlite_service
from bot.app.runtime import tune_gc
from bot.kernel.errors import AlreadyAnswered, Busy, RoundClosed
from bot.kernel.scoring import score_daily_round
from bot.kernel.values import Period


def rss_mb() -> float:
    """The current resident set size (Linux), in MB."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def file_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run(seconds: float, rate: int, reveal_answers: int, reads: int, keep_open: int) -> dict[str, float]:
    service, store, path = await sqlite_service()
    wal = Path(str(path) + "-wal")
    loop = asyncio.get_running_loop()
    rss_start = rss_mb()
    answer_ms: list[float] = []
    board_ms: list[float] = []
    reveal_ms: list[float] = []
    refused = duplicates = late = 0
    wal_max = 0
    rss_max = rss_start
    tasks: set[asyncio.Task[None]] = set()
    first_day = T0.date() - dt.timedelta(days=int(seconds) + keep_open + 2)
    day = 0

    async def open_round() -> int:
        nonlocal day
        day += 1  # before the await: reveals overlap when the store is slow
        round_ = await store.claim_daily_round(
            REF, first_day + dt.timedelta(days=day), f"q{day % 40}", "tensors", T0, None
        )
        assert round_ is not None
        # the service knows the rounds it posts; one answer makes it learn this one before the rush
        with contextlib.suppress(Busy):  # when overloaded, the service looks the round up on demand
            await service.answers.submit_answer(round_.id, "first", 0)
        return round_.id

    try:
        backlog = await open_round()
        revealing = [await open_round() for _ in range(keep_open)]  # oldest first
        answered: dict[int, int] = {}

        def track(task: asyncio.Task[None]) -> None:
            tasks.add(task)
            task.add_done_callback(tasks.discard)  # finished tasks are not kept alive

        async def answer(round_id: int, planned: float) -> None:
            nonlocal refused, duplicates, late
            n = answered[round_id] = answered.get(round_id, 0) + 1
            try:
                await service.answers.submit_answer(round_id, f"user{(round_id * 7919 + n) % 1_000_000}", n % 4)
            except Busy:
                refused += 1
                return
            except AlreadyAnswered:
                duplicates += 1
            except RoundClosed:  # its round was revealed while the answer waited
                late += 1
            answer_ms.append((loop.time() - planned) * 1000)

        async def read_board(k: int) -> None:
            start = loop.time()
            await service.boards.leaderboard(REF.platform, REF.space_id, list(Period)[k % 3], f"user{k % 200_000}")
            board_ms.append((loop.time() - start) * 1000)

        async def reveal_and_open() -> None:
            revealing.append(await open_round())
            oldest = revealing.pop(0)
            start = loop.time()
            await store.reveal_round(oldest, T0, score_daily_round)
            reveal_ms.append((loop.time() - start) * 1000)

        share = min(1.0, reveal_answers / rate)
        start = loop.time()
        sent = reads_sent = reveals = 0
        sampled = start
        while (now := loop.time()) - start < seconds:
            elapsed = now - start
            while sent < elapsed * rate:
                planned = start + sent / rate
                # the first `share` of each thousand answers go to the rounds about to be revealed
                target = revealing[sent % len(revealing)] if (sent % 1000) < share * 1000 else backlog
                track(asyncio.ensure_future(answer(target, planned)))
                sent += 1
            while reads_sent < elapsed * reads:
                track(asyncio.ensure_future(read_board(reads_sent)))
                reads_sent += 1
            if reveals < int(elapsed):
                reveals += 1
                track(asyncio.ensure_future(reveal_and_open()))
            if now - sampled >= 0.25:
                sampled = now
                wal_max = max(wal_max, file_size(wal))
                rss_max = max(rss_max, rss_mb())
            await asyncio.sleep(0.001)
        await asyncio.gather(*tasks)
        wall = loop.time() - start
        wal_end = file_size(wal)
        wal_max = max(wal_max, wal_end)
        rss_end = rss_mb()
        checkpoints = getattr(store, "checkpointer", None)  # SQLite's
        holds = (
            getattr(checkpoints, "holds", 0),
            getattr(checkpoints, "hold_seconds", 0.0),
            getattr(checkpoints, "hold_max", 0.0),
        )
    finally:
        await service.close()
        await store.close()
        shutil.rmtree(path.parent, ignore_errors=True)
    return {
        "answers": len(answer_ms),
        "achieved": len(answer_ms) / wall,
        "refused": refused,
        "duplicates": duplicates,
        "late": late,
        "p50": quantile(answer_ms, 0.50),
        "p99": quantile(answer_ms, 0.99),
        "p999": quantile(answer_ms, 0.999),
        "max": max(answer_ms, default=float("nan")),
        "board_p50": quantile(board_ms, 0.5),
        "board_p99": quantile(board_ms, 0.99),
        "reveals": len(reveal_ms),
        "reveal_median": quantile(reveal_ms, 0.5),
        "reveal_max": max(reveal_ms, default=float("nan")),
        "wal_max_mb": wal_max / 2**20,
        "wal_end_mb": wal_end / 2**20,
        "rss_start": rss_start,
        "rss_max": rss_max,
        "rss_end": rss_end,
        "holds": holds[0],
        "hold_total_ms": holds[1] * 1000,
        "hold_max_ms": holds[2] * 1000,
        "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


async def main() -> None:
    tune_gc()  # as the bot does at start (bot/app/cli.py)
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--rate", type=int, default=10_000, help="answers offered per second")
    parser.add_argument(
        "--reveal-answers",
        type=int,
        default=6_000,
        help="answers per second that go to the rounds being revealed (each reveal scores about this many)",
    )
    parser.add_argument("--reads", type=int, default=50, help="leaderboard reads per second")
    parser.add_argument("--open", type=int, default=1, help="rounds open at once besides the long-lived one")
    args = parser.parse_args()
    t = time.perf_counter()
    r = await run(args.seconds, args.rate, args.reveal_answers, args.reads, args.open)
    print(
        f"{args.seconds:g} s of {args.rate:,} answers/s offered, a reveal a second (~{args.reveal_answers:,} answers "
        f"each), {args.reads} leaderboard reads/s on SQLite ({time.perf_counter() - t:.0f} s wall)"
    )
    print(
        f"answers: {r['answers']:,.0f} recorded, achieved {r['achieved']:,.0f}/s, refused {r['refused']:,.0f}, "
        f"duplicates {r['duplicates']:,.0f}, too late for their reveal {r['late']:,.0f}"
    )
    print(
        f"answer latency: p50 {r['p50']:.2f} ms, p99 {r['p99']:.2f} ms, p99.9 {r['p999']:.2f} ms, "
        f"max {r['max']:.1f} ms   (targets p99 < 20 ms, p99.9 < 50 ms)"
    )
    print(
        f"leaderboard: p50 {r['board_p50']:.2f} ms, p99 {r['board_p99']:.2f} ms; reveals: {r['reveals']:.0f}, "
        f"median {r['reveal_median']:.0f} ms, max {r['reveal_max']:.0f} ms"
    )
    print(
        f"WAL: largest {r['wal_max_mb']:.1f} MB, at the end {r['wal_end_mb']:.1f} MB; "
        f"RSS: start {r['rss_start']:.0f} MB, largest {r['rss_max']:.0f} MB, end {r['rss_end']:.0f} MB "
        f"(peak {r['peak_rss']:.0f} MB)"
    )
    if r["holds"]:
        print(
            f"checkpoints finished with writes paused: {r['holds']:.0f}, {r['hold_total_ms']:.0f} ms in all, "
            f"longest {r['hold_max_ms']:.1f} ms"
        )


if __name__ == "__main__":
    asyncio.run(main())
