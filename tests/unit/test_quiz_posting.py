"""Posting edge cases: a platform failure does not lose the day's question (an admin can re-send it);
reaction answers obey the channel's setting."""

from __future__ import annotations

import datetime as dt
import random

import pytest

from bot.errors import AlreadyPosted, NotAllowed
from bot.model import Actor
from bot.quiz import QuizService
from bot.store.sqlite import SqliteStore
from tests.support.fakes import REF, FakePlatform, FixedClock, make_bank

ADMIN = Actor("admin", True)


class FlakyPlatform(FakePlatform):
    def __init__(self, failures: int) -> None:
        super().__init__()
        self.failures = failures

    async def post_question(self, ref, card):  # type: ignore[no-untyped-def]
        if self.failures:
            self.failures -= 1
            raise ConnectionError("platform unavailable")
        return await super().post_question(ref, card)


@pytest.fixture
async def store():
    s = SqliteStore(":memory:")
    await s.open()
    yield s
    await s.close()


async def test_a_failed_post_is_sent_again_by_the_next_attempt_that_day(store):
    platform = FlakyPlatform(failures=1)
    clock = FixedClock(dt.datetime(2026, 11, 30, 9, tzinfo=dt.UTC))
    service = QuizService(store, make_bank(), clock, {"fake": platform}, rng=random.Random(2))
    await service.configure(ADMIN, REF)
    with pytest.raises(ConnectionError):
        await service.post_scheduled(REF)
    claimed = await store.latest_daily_round(REF)
    assert claimed is not None and claimed.message_id is None and platform.posted == []
    assert await service.post_scheduled(REF) is None  # the scheduler never re-sends (another process may be)
    assert platform.posted == []
    again = await service.post_now(ADMIN, REF)  # an admin's post-now does
    assert again is not None and again.id == claimed.id and again.message_id == f"msg-{claimed.id}"
    assert [card.round_id for _, card in platform.posted] == [claimed.id]
    with pytest.raises(AlreadyPosted):
        await service.post_now(ADMIN, REF)  # now it is really posted
    assert len(platform.posted) == 1
    await service.close()


async def test_reaction_answers_are_refused_when_the_channel_turned_them_off(store):
    service = QuizService(store, make_bank(), FixedClock(dt.datetime(2026, 11, 30, 9, tzinfo=dt.UTC)),
                          {"fake": FakePlatform()}, rng=random.Random(2))
    await service.configure(ADMIN, REF, reactions=False)
    round_ = await service.post_scheduled(REF)
    with pytest.raises(NotAllowed, match="Reaction answers are switched off"):
        await service.answer_by_reaction("fake", round_.message_id, "ada", 0)
    assert await store.round_answers(round_.id) == []
    outcome = await service.submit_answer(round_.id, "ada", 0)  # a button still works
    assert outcome.chosen_letter == "A"
    await service.close()
