"""Posting edge cases: a platform failure does not lose the day's question (an admin can re-send it);
reaction answers obey the channel's setting."""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import replace

import pytest

from bot.app.bootstrap import bootstrap
from bot.kernel.errors import AlreadyPosted, NotAllowed, NotAQuestion, NothingOpen, ReactionsOff
from bot.kernel.values import Actor, CommandNames
from bot.settings import ConfigChange
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


async def test_a_failed_post_is_retried_and_an_admin_can_send_it_at_once(store):
    platform = FlakyPlatform(failures=1)
    clock = FixedClock(dt.datetime(2026, 11, 30, 9, tzinfo=dt.UTC))
    service = bootstrap(store, make_bank(), clock, {"fake": platform}, rng=random.Random(2))
    await service.channels.configure(ADMIN, REF)
    failed = await service.posting.post_scheduled(REF)  # the scheduler's post: a failure is recorded, not raised
    claimed = await store.latest_daily_round(REF)
    assert failed is not None and claimed.id == failed.id and claimed.post_state == "failed"
    assert claimed.message_id is None and platform.posted == []
    with pytest.raises(NothingOpen):  # nobody saw it: it takes no typed answers
        await service.answers.answer_in_channel(REF, "ada", 1)
    assert await service.posting.post_scheduled(REF) is None  # the slot is taken: never a second round
    again = await service.posting.post_now(ADMIN, REF)  # an admin's post-now sends the failed one at once
    assert again.id == claimed.id and again.message_id == f"msg-{claimed.id}"
    assert [card.round_id for _, card in platform.posted] == [claimed.id]
    with pytest.raises(AlreadyPosted):
        await service.posting.post_now(ADMIN, REF)  # now it is really posted
    assert len(platform.posted) == 1
    await service.close()


async def test_reaction_answers_are_refused_when_the_channel_turned_them_off(store):
    service = bootstrap(
        store,
        make_bank(),
        FixedClock(dt.datetime(2026, 11, 30, 9, tzinfo=dt.UTC)),
        {"fake": FakePlatform()},
        rng=random.Random(2),
    )
    await service.channels.configure(ADMIN, REF, ConfigChange.of(reactions=False))
    round_ = await service.posting.post_scheduled(REF)
    with pytest.raises(NotAllowed, match="Reaction answers are switched off"):
        await service.answers.answer_by_reaction("fake", round_.message_id, "ada", 0)
    assert await store.round_answers(round_.id) == []
    outcome = await service.answers.submit_answer(round_.id, "ada", 0)  # a button still works
    assert outcome.chosen_letter == "A"
    await service.close()


async def test_messages_name_the_commands_of_the_platform_they_go_to(store):
    discord_like = FakePlatform(name="chat")
    service = bootstrap(
        store, make_bank(), FixedClock(dt.datetime(2026, 11, 30, 9, tzinfo=dt.UTC)), rng=random.Random(2)
    )
    service.context.platforms.add(discord_like, CommandNames(practice="/practise", answer="/answer"))
    service.context.platforms.add(FakePlatform())  # no names given: the `/quiz ...` text grammar's
    chat = replace(REF, platform="chat")
    for ref in (REF, chat):
        await service.channels.configure(ADMIN, ref, ConfigChange.of(reactions=False))
    with pytest.raises(NothingOpen, match="try /practise for practice"):
        await service.answers.answer_in_channel(chat, "ada", 0)
    with pytest.raises(NothingOpen, match="try /quiz for practice"):
        await service.answers.answer_in_channel(REF, "ada", 0)
    chat_round, text_round = await service.posting.post_scheduled(chat), await service.posting.post_scheduled(REF)
    with pytest.raises(ReactionsOff, match=r"use the buttons or /answer\.$"):
        await service.answers.answer_by_reaction("chat", chat_round.message_id, "ada", 0)
    with pytest.raises(ReactionsOff, match=r"use the buttons or /quiz answer\.$"):
        await service.answers.answer_by_reaction("fake", text_round.message_id, "ada", 0)
    with pytest.raises(NotAQuestion):
        await service.answers.answer_by_reaction("chat", "not-a-question", "ada", 0)
    assert await store.round_answers(chat_round.id) == []
    await service.close()


async def test_the_scheduled_post_measures_its_lag_and_post_now_does_not(store):
    clock = FixedClock(dt.datetime(2026, 11, 30, 9, 0, 30, tzinfo=dt.UTC))
    service = bootstrap(store, make_bank(), clock, {"fake": FakePlatform()}, rng=random.Random(2))
    await service.channels.configure(ADMIN, REF)
    other = replace(REF, channel_id="chan-2")
    await service.channels.configure(ADMIN, other)
    await service.posting.post_now(ADMIN, other)
    assert "studybot_scheduler_lag_seconds_count 0.0" in service.context.metrics.exposition().decode()
    await service.posting.post_scheduled(REF)
    body = service.context.metrics.exposition().decode()
    assert "studybot_scheduler_lag_seconds_count 1.0" in body and "studybot_scheduler_lag_seconds_sum 30.0" in body
    await service.close()
