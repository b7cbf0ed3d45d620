"""Two processes on one PostgreSQL database: the daily suggestion limit and a suggestion's approval are
decided once between them (the store decides; each process has its own service and store)."""

from __future__ import annotations

import asyncio
import datetime as dt
import random

import pytest

from bot.app.bootstrap import bootstrap
from bot.features import Features
from bot.kernel.errors import NotAllowed, QuizError
from bot.kernel.values import Actor, ChannelRef
from bot.store.postgres import PostgresStore
from bot.suggestions.service import SuggestionForm
from tests.integration.test_postgres_store import throwaway_database
from tests.support.fakes import FakePlatform, FixedClock, make_bank

T0 = dt.datetime(2026, 12, 1, 8, 0, tzinfo=dt.UTC)
REF = ChannelRef("fake", "space-1", "chan-1")
FORM = SuggestionForm(
    topic="lore",
    prompt="What is our mascot called?",
    choices=("Ada", "Bob", "Cy", "Dee"),
    answer="A",
    explanation="The team named the mascot Ada in 2020.",
)


@pytest.fixture
async def two():
    async with throwaway_database() as url:
        made = []
        for seed in (1, 2):
            store = PostgresStore(url)
            await store.open()
            platform = FakePlatform()
            service = bootstrap(store, make_bank(), FixedClock(T0), {"fake": platform}, rng=random.Random(seed))
            made.append((service, store, platform))
        yield made
        for service, store, _ in made:
            await service.close()
            await store.close()


async def test_two_processes_share_the_daily_limit_and_approve_once(two):
    (a, store, pa), (b, _, pb) = two

    async def attempt(service: Features) -> bool:
        try:
            await service.suggestions.suggest(REF, "ann", FORM)
            return True
        except NotAllowed:
            return False

    made = await asyncio.gather(*(attempt(s) for s in (a, b) * 4))
    assert sum(made) == 3
    pending = await store.list_suggestions("fake", "space-1", "pending", 10)
    assert len(pending) == 3

    first = pending[0].id
    results = await asyncio.gather(
        *(s.suggestions.approve(Actor(f"admin-{i}", True), "fake", "space-1", first) for i, s in enumerate((a, b))),
        return_exceptions=True,
    )
    assert sorted(type(r).__name__ for r in results) == ["QuizError", "Suggestion"]
    assert "already approved" in next(r.message for r in results if isinstance(r, QuizError))
    assert [q for q, _ in await store.pack_questions("fake", "space-1", "suggestions")] == [f"suggestion-{first}"]
    assert len(pa.private) + len(pb.private) == 1  # the author is told once
