"""The console channel fed 6,000-character and hostile values in every `/quiz ...` subcommand: it answers each
line, never repeats more than a short part of what was typed, and keeps running."""

from __future__ import annotations

import datetime as dt
import io
import random

from adapters.console.channel import ConsoleChannel
from bot.quiz import QuizService
from bot.settings import listed
from tests.support.fakes import FixedClock, make_bank
from tests.support.memory_store import InMemoryStore

LONG = "x" * 6000
HOSTILE = [LONG, ("@everyone <@&123> <!channel> __x__ ``````` " * 200)[:6000], "`" * 12, "__x__"]


def lines_for(value: str) -> list[str]:
    out = [
        f"/quiz {value}",
        f"/quiz practice {value}",
        f"/quiz answer {value}",
        f"/quiz leaderboard {value}",
        f"/quiz stats {value}",
        f"/quiz config {value}",
        f"/quiz config {value} 1",
        f"/quiz config channel {value}",
        f"/quiz post-now {value}",
        f"/quiz as {value}",
        "/quiz as you",
        value,
    ]
    return out + [f"/quiz config {s.word} {value}" for s in listed()]


async def test_every_console_subcommand_echoes_hostile_values_briefly() -> None:
    out = io.StringIO()
    store = InMemoryStore()
    await store.open()
    service = QuizService(
        store, make_bank(), FixedClock(dt.datetime(2026, 6, 1, 8, tzinfo=dt.UTC)), rng=random.Random(3)
    )
    console = ConsoleChannel(service, stdin=io.StringIO(""), stdout=out)
    await console.start()
    for value in HOSTILE:
        for line in lines_for(value):
            before = out.tell()
            assert await console.handle(line) is True
            said = out.getvalue()[before:]
            assert said.strip(), line[:60]
            assert "x" * 200 not in said, line[:60]
            assert len(said) <= 4000, (line[:60], len(said))
    await service.close()
