"""Leaderboard reads at scale: 1,000,000 answers by 100,000 users in one space (SQLite).

Run: python -m bench.leaderboard [--users 100000] [--answers 1000000]
Target: top 10 + the asker's own rank, for each period (week, month, all time), < 2 ms.
The data goes in through the store's real path (answer batches, then a scored reveal per day).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import random
import statistics
import time

from bench.common import REF, T0, sqlite_service
from bot.model import Period
from bot.ports import NewAnswer
from bot.runtime import tune_gc
from bot.scoring import score_daily_round


async def main() -> None:
    tune_gc()  # as the bot does at start (bot/cli.py)
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--answers", type=int, default=1_000_000)
    parser.add_argument("--per-day", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=500)
    args = parser.parse_args()
    service, store, path = await sqlite_service()
    rng = random.Random(5)
    days = args.answers // args.per_day
    first_day = T0.date() - dt.timedelta(days=days - 1)
    load_start = time.perf_counter()
    for d in range(days):
        day = first_day + dt.timedelta(days=d)
        round_ = await store.claim_daily_round(REF, day, f"q{d % 40}", "tensors", T0, None)
        users = rng.sample(range(args.users), args.per_day)
        batch = [NewAnswer(round_.id, f"user{u}", u % 4, rng.random() < 0.6, T0) for u in users]
        for k in range(0, len(batch), 2000):
            await store.add_answers(batch[k : k + 2000], T0)
        await store.reveal_round(round_.id, T0, score_daily_round)
    load = time.perf_counter() - load_start
    service.clock.current = dt.datetime.combine(T0.date(), dt.time(12), tzinfo=dt.UTC)  # type: ignore[attr-defined]
    print(f"loaded {days * args.per_day:,} answers by up to {args.users:,} users over {days} days "
          f"(answers, reveals and leaderboard folding) in {load:.1f} s; database {path}")
    for period in Period:
        timings = []
        for _ in range(args.queries):
            asker = f"user{rng.randrange(args.users)}"
            start = time.perf_counter()
            card = await service.leaderboard(REF.platform, REF.space_id, period, asker)
            timings.append((time.perf_counter() - start) * 1000)
        qs = statistics.quantiles(timings, n=100)
        me = card.me
        print(f"{period.value:>5}: top 10 + own rank via the service: median {statistics.median(timings):.3f} ms, "
              f"p99 {qs[98]:.3f} ms   (target < 2 ms; last asker ranked #{me.rank if me else '-'}, "
              f"top {card.rows[0].points if card.rows else 0} pts)")
    await service.close()
    await store.close()


if __name__ == "__main__":
    asyncio.run(main())
