"""A typed answer where there are no daily rounds (Discord's /answer in a DM): the asker's own waiting
practice question in that conversation, and nobody else's."""

from __future__ import annotations

import datetime as dt
import random

import pytest

from bot.app.bootstrap import bootstrap
from bot.features import Features
from bot.kernel.errors import NothingOpen
from bot.kernel.values import ChannelRef
from tests.support.fakes import FixedClock, make_bank
from tests.support.memory_store import InMemoryStore

DM = ChannelRef("fake", "user:ada", "dm-1")
OTHER_DM = ChannelRef("fake", "user:ada", "dm-2")


@pytest.fixture
async def service():
    store = InMemoryStore()
    await store.open()
    service = bootstrap(
        store, make_bank(), FixedClock(dt.datetime(2026, 11, 30, 9, tzinfo=dt.UTC)), rng=random.Random(3)
    )
    yield service
    await service.close()
    await store.close()


async def test_it_answers_the_askers_latest_waiting_question_here_once(service: Features) -> None:
    with pytest.raises(NothingOpen, match="no practice question waiting here"):
        await service.practice.answer_open_practice(DM, "ada", 0)
    await service.practice.start_practice(DM, "ada")
    latest = await service.practice.start_practice(DM, "ada")
    elsewhere = await service.practice.start_practice(OTHER_DM, "ada")
    with pytest.raises(NothingOpen):
        await service.practice.answer_open_practice(DM, "bob", 0)  # not bob's
    outcome = await service.practice.answer_open_practice(DM, "ada", 1)
    assert outcome.round_id == latest.round_id and outcome.verdict is not None
    second = await service.practice.answer_open_practice(DM, "ada", 1)  # then the older one still waiting
    assert second.round_id not in {latest.round_id, elsewhere.round_id}
    with pytest.raises(NothingOpen):
        await service.practice.answer_open_practice(DM, "ada", 1)
