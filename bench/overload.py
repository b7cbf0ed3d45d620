"""Answers offered beyond capacity: the bounded queue refuses the excess at once and keeps latency and memory
bounded.

Run: python -m bench.overload [--factor 1.5] [--seconds 5]
First measures capacity (answers/s through the core on SQLite), then offers `factor` x capacity on a fixed
schedule and reports p50/p99 latency of the accepted answers, the refused share, the deepest queue and RSS.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics

from bench.answers import throughput
from bench.common import REF, sqlite_factory
from bot.app.runtime import tune_gc
from bot.kernel.errors import Busy


async def offer(rate: float, seconds: float) -> dict[str, float]:
    async with sqlite_factory()() as (service, _store):
        round_ = await service.posting.post_scheduled(REF)
        assert round_ is not None
        loop = asyncio.get_running_loop()
        latencies: list[float] = []
        refused = 0
        deepest = 0
        tasks: set[asyncio.Task[None]] = set()

        async def one(user: int, planned: float) -> None:
            nonlocal refused
            try:
                await service.answers.submit_answer(round_.id, f"user{user}", user % 4)
            except Busy:
                refused += 1
                return
            latencies.append(loop.time() - planned)

        start = loop.time()
        sent = 0
        while (now := loop.time()) - start < seconds:
            while sent < (now - start) * rate:
                task = asyncio.ensure_future(one(sent, start + sent / rate))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
                sent += 1
            deepest = max(deepest, service.answers.answers_waiting)
            await asyncio.sleep(0.001)
        await asyncio.gather(*tasks)
    qs = statistics.quantiles(latencies, n=100)
    return {
        "offered": sent,
        "accepted": len(latencies),
        "refused": refused,
        "p50_ms": qs[49] * 1000,
        "p99_ms": qs[98] * 1000,
        "deepest": deepest,
    }


async def main() -> None:
    tune_gc()
    parser = argparse.ArgumentParser()
    parser.add_argument("--factor", type=float, default=1.5)
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    capacity = await throughput(sqlite_factory(), 60_000, 2_000)
    result = await offer(capacity * args.factor, args.seconds)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    share = result["refused"] / result["offered"]
    print(
        f"capacity {capacity:,.0f} answers/s; offered {args.factor:g}x for {args.seconds:g} s: "
        f"{result['offered']:,.0f} answers"
    )
    print(
        f"accepted {result['accepted']:,.0f}, refused {result['refused']:,.0f} ({share:.0%}), deepest queue "
        f"{result['deepest']:,.0f}; accepted p50 {result['p50_ms']:.1f} ms, p99 {result['p99_ms']:.1f} ms; "
        f"peak RSS {rss:.0f} MB"
    )


if __name__ == "__main__":
    asyncio.run(main())
