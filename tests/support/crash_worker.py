"""A bot process for the crash test: submits a burst of answers through the core and prints one
`ACK user letter` line after each acknowledgement (which the core gives only after the commit)."""

from __future__ import annotations

import asyncio
import datetime as dt
import random
import sys

from bot.app.bootstrap import bootstrap
from bot.kernel.errors import AlreadyAnswered
from bot.kernel.values import Actor
from bot.store.sqlite import SqliteStore
from tests.support.fakes import REF, FixedClock, make_bank

WAVE = 50


async def main(db_path: str, users: int) -> None:
    store = SqliteStore(db_path)
    await store.open()
    service = bootstrap(
        store, make_bank(), FixedClock(dt.datetime(2026, 11, 30, 9, tzinfo=dt.UTC)), rng=random.Random(0)
    )
    if await store.get_channel(REF) is None:
        await service.channels.configure(Actor("admin", True), REF)
    rounds = await store.open_daily_rounds(REF)
    round_ = rounds[0] if rounds else await service.posting.post_scheduled(REF)
    out = sys.stdout
    out.write(f"ROUND {round_.id}\n")
    out.flush()

    async def one(i: int) -> None:
        user = f"u{i:05d}"
        try:
            outcome = await service.answers.submit_answer(round_.id, user, i % 4)
            out.write(f"ACK {user} {outcome.chosen_letter}\n")
        except AlreadyAnswered as exc:
            out.write(f"DUP {user} {exc.chosen_letter}\n")
        out.flush()

    for start in range(0, users, WAVE):
        await asyncio.gather(*(one(i) for i in range(start, min(start + WAVE, users))))
    out.write("DONE\n")
    out.flush()
    await service.close()
    await store.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
