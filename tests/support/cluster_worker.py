"""One bot process of a cluster test: the real service, the real DailyScheduler and the real
PostgreSQL store, with a recording platform and an accelerated clock.

Prints `POST <channel> <round> <clock time>` for every question it posted, `ACK`/`ERR` lines for answers it
was sent on stdin (`ANSWER <channel> <user> <letter>`), `CONFIGURED <channel>` after
`CONFIG <channel> <space> pause|time HH:MM` (a new channel is set up), `REVEALED <n>` after `REVEALALL`, and
exits on `QUIT`. The accelerated clock drives the scheduler's tick directly (the same claim-do-record path
its interval job takes), since APScheduler 3 reads the wall clock itself.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import random
import sys
import time

from bot.app.bootstrap import bootstrap
from bot.app.scheduler import DailyScheduler
from bot.kernel.cards import QuestionCard, RevealCard
from bot.kernel.errors import QuizError
from bot.kernel.parsing import parse_choice
from bot.kernel.values import Actor, ChannelRef
from bot.settings import ConfigChange
from bot.store.postgres import PostgresStore
from tests.support.fakes import make_bank

PLATFORM = "cluster"


class AcceleratedClock:
    def __init__(self, start: dt.datetime, factor: float) -> None:
        self.start, self.factor, self.t0 = start, factor, time.monotonic()

    def now(self) -> dt.datetime:
        return self.start + dt.timedelta(seconds=(time.monotonic() - self.t0) * self.factor)


class RecordingPlatform:
    name = PLATFORM

    def __init__(self, space_of: dict[str, str], clock: AcceleratedClock) -> None:
        self.space_of = space_of
        self.clock = clock

    async def post_question(self, ref: ChannelRef, card: QuestionCard) -> str:
        emit(f"POST {ref.channel_id} {card.round_id} {self.clock.now().isoformat()}")
        return f"m{card.round_id}"

    async def post_reveal(self, ref: ChannelRef, card: RevealCard) -> str | None:
        return None

    async def send_private(self, ref: ChannelRef, user_id: str, text: str) -> None:
        return None


def emit(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


async def main(url: str, start: str, factor: float) -> None:
    store = PostgresStore(url)
    await store.open()
    clock = AcceleratedClock(dt.datetime.fromisoformat(start), factor)
    channels = await store.list_channels(PLATFORM)
    refs = {c.ref.channel_id: c.ref for c in channels}
    service = bootstrap(store, make_bank(per_topic=4), clock, rng=random.Random())
    service.context.platforms.add(RecordingPlatform({c: r.space_id for c, r in refs.items()}, clock))
    scheduler = DailyScheduler(service, clock)
    await scheduler.start()
    emit(f"READY {len(refs)}")
    stop = asyncio.Event()

    async def due_posts() -> None:
        while not stop.is_set():
            await scheduler.catch_up()
            await asyncio.sleep(0.05)

    async def commands() -> None:
        pending: set[asyncio.Task[None]] = set()

        async def answer(channel: str, user: str, letter: str) -> None:
            try:
                outcome = await service.answers.answer_in_channel(refs[channel], user, parse_choice(letter))
                emit(f"ACK {channel} {user} {outcome.chosen_letter}")
            except QuizError as exc:
                emit(f"ERR {channel} {user} {type(exc).__name__}")

        while True:
            line = await asyncio.to_thread(sys.stdin.readline)
            words = line.split()
            if not words or words[0] == "QUIT":
                break
            if words[0] == "ANSWER":
                task = asyncio.create_task(answer(*words[1:4]))
                pending.add(task)
                task.add_done_callback(pending.discard)
            elif words[0] == "CONFIG":
                channel, space, what, *rest = words[1:]
                ref = refs.setdefault(channel, ChannelRef(PLATFORM, space, channel))
                admin = Actor("admin", True)
                if what == "pause":
                    await service.channels.configure(admin, ref, ConfigChange.of(paused=True))
                else:
                    hh, mm = (int(x) for x in rest[0].split(":"))
                    await service.channels.configure(admin, ref, ConfigChange.of(post_time=dt.time(hh, mm)))
                emit(f"CONFIGURED {channel}")
            elif words[0] == "REVEALALL":
                await asyncio.gather(*pending)
                rounds = await store.open_daily_rounds()
                cards = [await service.reveals.reveal_round(r.id) for r in rounds]
                emit(f"REVEALED {sum(c is not None for c in cards)}")
        await asyncio.gather(*pending)

    poller = asyncio.create_task(due_posts())
    await commands()
    stop.set()
    await poller
    scheduler.shutdown()
    await service.close()
    await store.close()
    emit("BYE")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], float(sys.argv[3])))
