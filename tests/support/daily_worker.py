"""A bot process for the daily kill test: runs the real tick on a SQLite file through simulated days.

The clock starts at argv[2] and steps 30 s per tick from 08:58 to 09:06 each day, then jumps to the next
day. The platform prints `SENDING`/`POST <round> <day>` around each question it sends and
`REVEALING`/`REVEAL <round>` around each reveal (a short real pause in between, where a SIGKILL can land),
and `T <iso>` after each tick. It stops after argv[3] (a date), printing DONE.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import random
import sys

from bot.app.bootstrap import bootstrap
from bot.app.scheduler import DailyScheduler
from bot.kernel.cards import QuestionCard, RevealCard
from bot.kernel.values import ChannelRef
from bot.store.sqlite import SqliteStore
from tests.support.fakes import FixedClock, make_bank


class PrintingPlatform:
    name = "fake"

    def __init__(self, clock: FixedClock) -> None:
        self.clock = clock

    @staticmethod
    def emit(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    async def post_question(self, ref: ChannelRef, card: QuestionCard) -> str:
        self.emit(f"SENDING {card.round_id}")
        await asyncio.sleep(0.02)
        self.emit(f"POST {card.round_id} {self.clock.now().date()}")
        return f"msg-{card.round_id}"

    async def post_reveal(self, ref: ChannelRef, card: RevealCard) -> str | None:
        self.emit(f"REVEALING {card.round_id}")
        await asyncio.sleep(0.02)
        self.emit(f"REVEAL {card.round_id}")
        return None

    async def send_private(self, ref: ChannelRef, user_id: str, text: str) -> None:
        return None


async def main(db: str, start: str, until: str) -> None:
    store = SqliteStore(db)
    await store.open()
    clock = FixedClock(dt.datetime.fromisoformat(start))
    service = bootstrap(store, make_bank(), clock, {"fake": PrintingPlatform(clock)}, rng=random.Random())
    scheduler = DailyScheduler(service, clock)
    await service.posting.schedule_unscheduled(scheduler.spaces)
    end = dt.date.fromisoformat(until)
    while clock.now().date() <= end:
        await scheduler.tick()
        PrintingPlatform.emit(f"T {clock.now().isoformat()}")
        now = clock.now()
        if now.time() >= dt.time(9, 6):
            clock.set(dt.datetime.combine(now.date() + dt.timedelta(days=1), dt.time(8, 58), tzinfo=dt.UTC))
        else:
            clock.advance(seconds=30)
    PrintingPlatform.emit("DONE")
    await service.close()
    await store.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
