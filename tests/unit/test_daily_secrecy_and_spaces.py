"""Issue 10, observations 6 and 7 on the service: the daily answer does not leak before the reveal (practice
never serves an open daily question of the space; the card hides its topic), and rounds and settings stay in
their space (platform, space id)."""

from __future__ import annotations

import datetime as dt
import random

import pytest

from bot.app.bootstrap import bootstrap
from bot.kernel.errors import BadSetting, NotAllowed, UnknownRound
from bot.kernel.values import Actor, ChannelRef
from bot.settings import ConfigChange
from tests.support.fakes import REF, FakePlatform, FixedClock, make_bank, store_of
from tests.support.memory_store import InMemoryStore

ADMIN = Actor("admin", True)


@pytest.fixture
async def service():
    store = InMemoryStore()
    await store.open()
    platform = FakePlatform()
    svc = bootstrap(
        store,
        make_bank(per_topic=3),
        FixedClock(dt.datetime(2026, 12, 8, 9, tzinfo=dt.UTC)),
        {"fake": platform},
        rng=random.Random(5),
    )
    await svc.channels.configure(ADMIN, REF, ConfigChange.of(topics=frozenset({"tensors"})))
    yield svc
    await svc.close()


async def test_practice_never_serves_the_open_daily_question_of_the_space(service):
    daily = await service.posting.post_scheduled(REF)
    served = set()
    for i in range(40):
        card = await service.practice.start_practice(REF, f"user-{i % 3}", "tensors")
        served.add(service.answers.rounds.get(card.round_id).question_id)
    assert daily.question_id not in served and len(served) == 2
    # another space may practise it: the secret is this space's
    other = await service.practice.start_practice(ChannelRef("fake", "space-2", "c"), "eve", "tensors")
    assert other.topic == "tensors"
    await service.reveals.reveal_round(daily.id)
    after = {
        service.answers.rounds.get((await service.practice.start_practice(REF, "ada", "tensors")).round_id).question_id
        for _ in range(30)
    }
    assert daily.question_id in after


async def test_a_topic_whose_only_question_is_the_daily_one_says_so(service):
    small = bootstrap(
        store_of(service), make_bank(per_topic=1), service.context.clock, {"fake": FakePlatform()}, rng=random.Random(1)
    )
    await small.channels.configure(ADMIN, REF, ConfigChange.of(topics=frozenset({"autograd"})))
    await small.posting.post_scheduled(REF, dt.date(2026, 12, 9))
    with pytest.raises(BadSetting, match="open in a channel right now"):
        await small.practice.start_practice(REF, "ada", "autograd")
    await small.close()


async def test_the_daily_card_hides_its_topic_and_practice_shows_it(service):
    await service.posting.post_scheduled(REF)
    platform = service.context.platforms["fake"]
    daily_card = platform.posted[-1][1]
    assert daily_card.topic == "" and "tensors" not in daily_card.title.lower()
    practice = await service.practice.start_practice(REF, "ada", "tensors")
    assert practice.topic == "tensors"


async def test_settings_and_rounds_of_another_space_are_out_of_reach(service):
    intruder = ChannelRef("fake", "space-2", REF.channel_id)  # same channel id, other space
    with pytest.raises(NotAllowed, match="another workspace or server"):
        await service.channels.configure(ADMIN, intruder, ConfigChange.of(post_time=dt.time(3, 0)))
    with pytest.raises(NotAllowed):
        await service.channels.show_config(intruder)
    assert (await store_of(service).get_channel(REF)).post_time == dt.time(9, 0)
    round_ = await service.posting.post_scheduled(REF)
    with pytest.raises(UnknownRound):
        await service.answers.submit_answer(round_.id, "eve", 0, space=("fake", "space-2"))
    with pytest.raises(UnknownRound):
        await service.answers.submit_answer(round_.id, "eve", 0, space=("other", "space-1"))
    assert await store_of(service).round_answers(round_.id) == []
    ok = await service.answers.submit_answer(round_.id, "ada", 0, space=("fake", "space-1"))
    assert ok.chosen_letter == "A"
