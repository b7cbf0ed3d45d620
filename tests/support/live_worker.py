"""One bot process of the live-game cluster test: the real service and the real DailyScheduler's tick over
the real PostgreSQL store, with a recording platform and a clock every process shares (the wall clock from a
common epoch, accelerated), so the processes agree on every deadline.

stdin:  START <channel> <user> <questions> <seconds>, ANSWER <round> <user> <letter> (a click on that
        question's button), QUIT
stdout: READY; STARTED | ERR start <Error>; ACK <round> <user> <letter> | ERR <round> <user> <Error>;
        POSTQ <round> <position> <correct letter> for every question it posts;
        CLOSEQ <round> <answered> for every close it edits; FINAL <user>:<points>,... for the table it posts.
The tick is driven directly every few milliseconds (the same claim-do-record path the interval job and the
live timer take), since APScheduler reads the wall clock itself.
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
from bot.kernel.values import ChannelRef
from bot.live.cards import LiveCloseCard, LiveFinalCard
from bot.store.postgres import PostgresStore
from tests.support.fakes import make_bank

PLATFORM = "cluster"
SPACE = "space1"
BANK = make_bank(per_topic=4)


class SharedClock:
    """`start` at wall time `epoch`, running `factor` times as fast: the same instant in every process."""

    def __init__(self, start: dt.datetime, epoch: float, factor: float) -> None:
        self.start, self.epoch, self.factor = start, epoch, factor

    def now(self) -> dt.datetime:
        return self.start + dt.timedelta(seconds=(time.time() - self.epoch) * self.factor)


def emit(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


class RecordingLivePlatform:
    name = PLATFORM

    async def post_question(self, ref: ChannelRef, card: QuestionCard) -> str:
        position = int(card.title.split()[2]) - 1  # "Live question 2 of 5"
        right = next(q.answer_letter for q in BANK.questions if q.prompt == card.prompt)
        emit(f"POSTQ {card.round_id} {position} {right}")
        return f"m{card.round_id}"

    async def post_reveal(self, ref: ChannelRef, card: RevealCard) -> str | None:
        return None

    async def send_private(self, ref: ChannelRef, user_id: str, text: str) -> None:
        return None

    async def close_live_question(self, ref: ChannelRef, card: LiveCloseCard) -> None:
        emit(f"CLOSEQ {card.round_id} {card.answered}")

    async def post_live_final(self, ref: ChannelRef, card: LiveFinalCard) -> str | None:
        emit("FINAL " + ",".join(f"{p.standing.user_id}:{p.standing.points}" for p in card.table))
        return "final"


async def main(url: str, start: str, epoch: float, factor: float) -> None:
    store = PostgresStore(url)
    await store.open()
    clock = SharedClock(dt.datetime.fromisoformat(start), epoch, factor)
    service = bootstrap(store, BANK, clock, rng=random.Random())
    service.context.platforms.add(RecordingLivePlatform())
    scheduler = DailyScheduler(service, clock)
    emit("READY")
    stop = asyncio.Event()

    async def ticks() -> None:
        while not stop.is_set():
            await scheduler.tick()
            await asyncio.sleep(0.01)

    async def answer(round_id: int, user: str, letter: str) -> None:
        try:
            outcome = await service.answers.submit_answer(round_id, user, parse_choice(letter), space=(PLATFORM, SPACE))
            emit(f"ACK {round_id} {user} {outcome.chosen_letter}")
        except QuizError as exc:
            emit(f"ERR {round_id} {user} {type(exc).__name__}")

    async def commands() -> None:
        pending: set[asyncio.Task[None]] = set()
        while True:
            words = (await asyncio.to_thread(sys.stdin.readline)).split()
            if not words or words[0] == "QUIT":
                break
            if words[0] == "START":
                ref = ChannelRef(PLATFORM, SPACE, words[1])
                try:
                    await service.live.start(ref, words[2], int(words[3]), None, int(words[4]))
                    emit("STARTED")
                except QuizError as exc:
                    emit(f"ERR start {type(exc).__name__}")
            elif words[0] == "ANSWER":
                task = asyncio.create_task(answer(int(words[1]), words[2], words[3]))
                pending.add(task)
                task.add_done_callback(pending.discard)
        await asyncio.gather(*pending)

    ticker = asyncio.create_task(ticks())
    await commands()
    stop.set()
    await ticker
    await service.close()
    await store.close()
    emit("BYE")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])))
