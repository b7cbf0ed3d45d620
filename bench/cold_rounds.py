"""Answers to rounds a process has not read yet: a restart under load, or a burst of questions that another
process has just posted.

Run: python -m bench.cold_rounds [--store sqlite|postgres] [--url ...] [--rounds 10000] [--rate 10000]
     [--seconds 20]

The store is seeded with `--rounds` open daily rounds. A fresh service (an empty round cache, as after a
restart) then takes answers at `--rate` a second, spread over those rounds, with 50 leaderboard reads a second.
The first answer to each round misses the cache, so the round is read from the store. The same service then
takes a second, warm run (every round cached) with other people answering.

Figures:
- the answer p99 in the cold run's first 5 s, and after them;
- the answer p99 of the warm run;
- Busy refusals;
- the store's round reads (trips).

Target: the cold run's first 5 s no worse than twice the warm p99, and no refusals.

2026-12-06, a quiet machine of its own (10M-step Python loop 0.26 s), one run each of the defaults, before
(each missed round read on its own, d49b40c with that line put back) and after (read together, d49b40c):

                 cold: first 5 s p99, then     busy refusals   round reads: trips     warm p99
  PostgreSQL     152.0 -> 6.8 ms, 18.4 -> 6.4   0 -> 0          10,000 -> 2,485        6.1 / 7.8 ms
  SQLite         1,053 -> 7.0 ms, 19.1 -> 13.1  0 -> 0          10,000 -> 2,305        31.2 / 31.3 ms

SQLite's warm run is slower than its cold one in both builds: it runs second, on a file that already holds
the cold run's 200,000 answers (not looked into further).
A first probe on PostgreSQL, with 20 answers already in each round: 3,154 ms and 15,499 refusals before,
5 ms and none after.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import gc
import random
import statistics
from collections.abc import AsyncIterator, Sequence

from bench.daily_parts import (
    DEFAULT_URL,
    INSTANT,
    AnswerLoad,
    FakePlatform,
    RealTimeClock,
    channel_refs,
    daily_bank,
    postgres_store,
    seed,
    sqlite_store,
)
from bot.app.bootstrap import bootstrap
from bot.app.runtime import tune_gc
from bot.kernel.values import Round
from bot.store.ports import Store

FIRST = 5.0  # seconds of the cold run reported on their own (most rounds get their first answer in them)


def p99_ms(values: list[float]) -> float:
    return statistics.quantiles(values, n=100)[98] * 1000 if len(values) > 100 else float("nan")


@contextlib.asynccontextmanager
async def counted_reads(store: Store) -> AsyncIterator[list[int]]:
    """The store's round reads while inside: one entry (the rounds read) per trip."""
    trips: list[int] = []
    one, many = store.get_round, store.get_rounds

    async def get_round(round_id: int) -> Round | None:
        trips.append(1)
        return await one(round_id)

    async def get_rounds(round_ids: Sequence[int]) -> list[Round | None]:
        trips.append(len(round_ids))
        return await many(round_ids)

    store.get_round, store.get_rounds = get_round, get_rounds  # type: ignore[method-assign]  # (undone below)
    try:
        yield trips
    finally:
        del store.get_round, store.get_rounds


async def run(store: Store, args: argparse.Namespace) -> dict[str, float]:
    refs = channel_refs(args.rounds, 0.1)
    await seed(store, refs, 0)
    ids = [r.id for r in await store.open_daily_rounds() if r.closes_at == INSTANT]
    clock = RealTimeClock(INSTANT - dt.timedelta(minutes=30))  # the rounds stay open all along
    platforms = {name: FakePlatform(name, clock, {}, []) for name in ("discord", "slack")}
    service = bootstrap(store, daily_bank(), clock, dict(platforms), rng=random.Random(1))
    spaces = sorted({(r.platform, r.space_id) for r in refs})
    out: dict[str, float] = {"rounds": float(len(ids))}
    async with counted_reads(store) as trips:
        for phase in ("cold", "warm"):
            load = AnswerLoad(service, ids, spaces, args.rate, 50, users=phase[0])
            gc.collect()
            await load.run(args.seconds, lambda: True, args.seconds)
            lead = load.planned_at[0] if load.planned_at else 0.0  # the load's start, on its own scale
            first = [lat for lat, at in zip(load.latencies, load.planned_at, strict=True) if at - lead < FIRST]
            rest = [lat for lat, at in zip(load.latencies, load.planned_at, strict=True) if at - lead >= FIRST]
            out |= {
                f"{phase} answers": float(len(load.latencies)),
                f"{phase} p99 first": p99_ms(first),
                f"{phase} p99 after": p99_ms(rest),
                f"{phase} p99": p99_ms(list(load.latencies)),
                f"{phase} refused": float(load.errors.get("Busy", 0)),
                f"{phase} errors": float(sum(load.errors.values())),
                f"{phase} trips": float(len(trips)),
                f"{phase} rounds read": float(sum(trips)),
            }
            trips.clear()
    await service.close()
    return out


async def main() -> None:
    tune_gc()  # as the bot does at start (bot/app/cli.py)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--url", default=DEFAULT_URL, help="PostgreSQL server (a throwaway database is made)")
    parser.add_argument("--rounds", type=int, default=10_000, help="open rounds, none read by the process yet")
    parser.add_argument("--rate", type=int, default=10_000, help="answers offered per second")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each run (cold, then warm)")
    args = parser.parse_args()
    opened = sqlite_store() if args.store == "sqlite" else postgres_store(args.url)
    async with opened as store:
        f = await run(store, args)
    print(f"--- {args.store}: {f['rounds']:,.0f} open rounds, {args.rate:,} answers/s for {args.seconds:g} s a run")
    for phase in ("cold", "warm"):
        print(
            f"{phase}: {f[phase + ' answers']:,.0f} answers, p99 {f[phase + ' p99']:.1f} ms (first {FIRST:g} s "
            f"{f[phase + ' p99 first']:.1f} ms, then {f[phase + ' p99 after']:.1f} ms), refused as busy "
            f"{f[phase + ' refused']:,.0f} (errors {f[phase + ' errors']:,.0f}), round reads "
            f"{f[phase + ' rounds read']:,.0f} in {f[phase + ' trips']:,.0f} trips"
        )
    ratio = f["cold p99 first"] / f["warm p99"]
    print(f"cold first {FIRST:g} s p99 / warm p99: {ratio:.2f} (target <= 2, no refusals)")


if __name__ == "__main__":
    asyncio.run(main())
