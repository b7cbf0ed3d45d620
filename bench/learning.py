"""What the learner memory (FSRS cards, bot.learning) costs the answer path, on vs off in one run.

A practice answer's reveal (a group commit: concurrent practice answers share one) marks the round for its
card update, and the reply goes out; a background writer then writes the marked updates by the batch (a crash
leaves the marks, and the next tick writes them). Daily answers update cards only when their round is
revealed, so their answer path is unchanged and the cost moves to the reveal. Measured here, each with card
updates on and off: practice answers/s (rounds already open; replied, and until every card is written),
practice questions/s (asked and answered), daily answers/s, and the reveal of a daily round with many answers.

Run: python -m bench.learning [--practice 4000] [--daily 20000] [--concurrency 200]
Target: answers/s with card updates on >= 0.8 x off.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Awaitable

from bench.common import REF, sqlite_factory
from bot.app.runtime import tune_gc


async def practice_throughput(learning: bool, n: int, concurrency: int) -> tuple[float, float]:
    """Practice answers/s through the core (round already open, one learner per round): (replied, replied
    and every card update written)."""
    async with sqlite_factory()() as (service, store):
        service.context.learning = learning
        users = [f"user{i % 50}" for i in range(n)]
        cards = [await service.practice.start_practice(REF, user) for user in users]
        jobs = iter(zip(users, cards, strict=True))

        async def worker() -> None:
            for user, card in jobs:
                await service.answers.submit_answer(card.round_id, user, card.round_id % 4, sure=card.round_id % 3 != 0)

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        replied = time.perf_counter() - start
        await service.practice.write_card_updates()  # what the background writer had not written yet
        written = time.perf_counter() - start
        assert await store.learn_practice(1) == 0
        assert bool(await store.learner_cards(REF.platform, REF.space_id, "user0")) == learning
    return n / replied, n / written


async def practice_questions(learning: bool, n: int, concurrency: int) -> float:
    """Practice questions/s through the core, each asked and answered (start_practice, then the answer)."""
    async with sqlite_factory()() as (service, store):
        service.context.learning = learning
        jobs = iter(range(n))

        async def worker() -> None:
            for i in jobs:
                card = await service.practice.start_practice(REF, f"user{i % 50}")
                await service.answers.submit_answer(card.round_id, f"user{i % 50}", i % 4)

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        elapsed = time.perf_counter() - start
        assert bool(await store.learner_cards(REF.platform, REF.space_id, "user0")) == learning
    return n / elapsed


async def daily_and_reveal(learning: bool, n: int, concurrency: int) -> tuple[float, float]:
    """(daily answers/s, seconds to reveal the round with its n answers)."""
    async with sqlite_factory()() as (service, store):
        service.context.learning = learning
        round_ = await service.posting.post_scheduled(REF)
        assert round_ is not None
        users = iter(range(n))

        async def worker() -> None:
            for i in users:
                await service.answers.submit_answer(round_.id, f"user{i}", i % 4)

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        answering = time.perf_counter() - start
        start = time.perf_counter()
        assert await service.reveals.reveal_round(round_.id) is not None
        revealing = time.perf_counter() - start
        written = len(await store.learner_cards(REF.platform, REF.space_id, "user0"))
        assert (written > 0) == learning
    return n / answering, revealing


async def main() -> None:
    tune_gc()
    parser = argparse.ArgumentParser()
    parser.add_argument("--practice", type=int, default=4_000)
    parser.add_argument("--daily", type=int, default=20_000)
    parser.add_argument("--concurrency", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3, help="pairs of runs (off and on back to back) per measure")
    args = parser.parse_args()
    measures = {
        "practice answers (round open)": lambda on: _first(practice_throughput(on, args.practice, args.concurrency)),
        "  the same, until cards written": lambda on: _second(practice_throughput(on, args.practice, args.concurrency)),
        "practice questions (ask + answer)": lambda on: practice_questions(on, args.practice // 5, args.concurrency),
        "daily answers (cards at reveal)": lambda on: _daily_rate(on, args.daily, args.concurrency),
    }
    for label, run in measures.items():
        ratios, offs, ons = [], [], []
        for k in range(args.repeat):  # each pair back to back, the order alternating, so drift cancels out
            first = k % 2 == 1
            a = await run(first)
            b = await run(not first)
            off, on = (b, a) if first else (a, b)
            offs.append(off)
            ons.append(on)
            ratios.append(on / off)
        print(
            f"{label:<34} off {max(offs):>8,.0f}/s  on {max(ons):>8,.0f}/s  "
            f"on/off median {statistics.median(ratios):.2f} (pairs: {', '.join(f'{r:.2f}' for r in ratios)})"
            "   (target >= 0.80)"
        )
    reveals = {
        on: min([(await daily_and_reveal(on, args.daily, args.concurrency))[1] for _ in range(args.repeat)])
        for on in (False, True)
    }
    print(
        f"reveal of a daily round with {args.daily:,} answers: off {reveals[False] * 1000:.0f} ms, "
        f"on {reveals[True] * 1000:.0f} ms ({(reveals[True] - reveals[False]) / args.daily * 1e6:.1f} us per card)"
    )


async def _first(pair: Awaitable[tuple[float, float]]) -> float:
    return (await pair)[0]


async def _second(pair: Awaitable[tuple[float, float]]) -> float:
    return (await pair)[1]


async def _daily_rate(learning: bool, n: int, concurrency: int) -> float:
    return (await daily_and_reveal(learning, n, concurrency))[0]


if __name__ == "__main__":
    asyncio.run(main())
