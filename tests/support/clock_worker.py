"""One bot process of the two-clock test (tests/integration/test_two_clocks.py): the real composition root's
clock for PostgreSQL (bot.app.cli.clock_for), the real service and DailyScheduler over the real PostgreSQL
store, with recording platforms. The test runs one of two such processes under libfaketime, its host's
clock hours ahead.

    python -m tests.support.clock_worker URL PLATFORM[,PLATFORM...]

Prints `READY <host time> <clock time>`, then `POST <platform> <channel> <round> <clock time>` for each
question it posts and `NOTICE <platform> <channel>` for each note (a day skipped), and exits on `QUIT` (or
end of input). It ticks every TICK seconds (the scheduler's tick itself: the claim-do-record path its
interval job takes), so the test needs no long wait.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import random
import sys

from bot.app.bootstrap import bootstrap
from bot.app.cli import clock_for
from bot.app.scheduler import DailyScheduler
from bot.kernel.cards import QuestionCard, RevealCard
from bot.kernel.clock import Clock
from bot.kernel.values import ChannelRef
from bot.store.postgres import PostgresStore
from tests.support.fakes import make_bank

TICK = 0.2


def emit(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


class RecordingPlatform:
    def __init__(self, name: str, clock: Clock) -> None:
        self.name = name
        self.clock = clock

    async def post_question(self, ref: ChannelRef, card: QuestionCard) -> str:
        emit(f"POST {self.name} {ref.channel_id} {card.round_id} {self.clock.now().isoformat()}")
        return f"m{card.round_id}"

    async def post_reveal(self, ref: ChannelRef, card: RevealCard) -> str | None:
        return None

    async def send_private(self, ref: ChannelRef, user_id: str, text: str) -> None:
        return None

    async def post_notice(self, ref: ChannelRef, text: str) -> None:
        emit(f"NOTICE {self.name} {ref.channel_id}")


async def main(url: str, platforms: list[str]) -> None:
    store = PostgresStore(url)
    await store.open()
    clock = await clock_for(store)  # what `studybot run` gives a PostgreSQL process
    service = bootstrap(store, make_bank(per_topic=4), clock, rng=random.Random())
    for name in platforms:
        service.context.platforms.add(RecordingPlatform(name, clock))
    scheduler = DailyScheduler(service, clock)
    await scheduler.start()
    emit(f"READY {dt.datetime.now(dt.UTC).isoformat()} {clock.now().isoformat()}")

    async def ticks() -> None:
        while True:
            await asyncio.sleep(TICK)
            await scheduler.tick()

    ticking = asyncio.create_task(ticks())
    while True:
        line = await asyncio.to_thread(sys.stdin.readline)
        if not line or line.split() == ["QUIT"]:
            break
    ticking.cancel()
    await asyncio.gather(ticking, return_exceptions=True)
    scheduler.shutdown()
    await service.close()
    await store.close()
    emit("BYE")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2].split(",")))
