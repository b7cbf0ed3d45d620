"""`/quiz past` and the Past questions pages through the service and the text runner, on the in-memory store:
only revealed questions that members saw, the asker's own answer, the channel's (else the space's), a question
open again in the space left out, the count's bounds and the pages."""

from __future__ import annotations

import datetime as dt
import random

import pytest

from bot.app.bootstrap import bootstrap
from bot.bank.load import Bank
from bot.daily.past import PAGE_SIZE
from bot.daily.values import PostFinish
from bot.features import Features
from bot.kernel.errors import BadSetting
from bot.kernel.scoring import score_daily_round
from bot.kernel.values import Actor, ChannelRef
from bot.settings import ConfigChange
from bot.text.command_values import ShowPast
from bot.text.commands import parse_quiz
from bot.text.runner import NoteReply, run_command
from tests.support.fakes import REF, FakePlatform, FixedClock, make_question
from tests.support.memory_store import InMemoryStore

T0 = dt.datetime(2026, 12, 7, 9, 0, tzinfo=dt.UTC)
BANK = Bank(tuple(make_question(f"tensors-{n}", answer=n % 4) for n in range(3)))
REF2 = ChannelRef(REF.platform, REF.space_id, "chan-quiet")


class Source:
    def __init__(self, user_id: str, ref: ChannelRef = REF) -> None:
        self.user_id, self.ref = user_id, ref

    def person(self, raw: str | None) -> str:
        return raw or self.user_id

    def channel(self, raw: str) -> ChannelRef:
        return self.ref

    async def actor(self, target: ChannelRef) -> Actor:
        return Actor(self.user_id, False)


@pytest.fixture
async def env():
    store = InMemoryStore()
    await store.open()
    clock = FixedClock(T0)
    service = bootstrap(store, BANK, clock, {"fake": FakePlatform()}, rng=random.Random(3))
    await service.channels.configure(Actor("admin", True), REF, ConfigChange.of(post_time=dt.time(9, 0)))
    yield service, store, clock
    await service.close()
    await store.close()


async def say(service: Features, line: str, user: str = "bob", ref: ChannelRef = REF) -> str:
    reply = await run_command(service, Source(user, ref), parse_quiz(line))
    assert isinstance(reply, NoteReply)
    return reply.text


async def today(service: Features, clock: FixedClock, answers: dict[str, int], *, reveal: bool = True):
    round_ = await service.posting.post_scheduled(REF)
    assert round_ is not None
    for user, choice in answers.items():
        await service.answers.submit_answer(round_.id, user, choice)
    if reveal:
        clock.advance(hours=1)
        assert await service.reveals.reveal_round(round_.id) is not None
    return round_, BANK.get(round_.question_id)


async def test_a_question_shows_once_revealed_with_the_channels_answers_and_the_askers_own(env):
    service, _store, clock = env
    assert await say(service, "/quiz past") == (
        "No daily question has been revealed here yet: a question's answer shows at its reveal."
    )
    round_, question = await today(service, clock, {}, reveal=False)
    right, wrong = question.answer, (question.answer + 1) % 4
    await service.answers.submit_answer(round_.id, "ada", right)
    await service.answers.submit_answer(round_.id, "bob", wrong)
    assert question.prompt not in await say(service, "/quiz past")  # open: its answer would show
    clock.advance(hours=1)
    assert await service.reveals.reveal_round(round_.id) is not None

    text = await say(service, "/quiz past")
    assert text.splitlines() == [
        "Past daily questions in this channel, newest first:",
        f"Mon 07 Dec 2026: {question.prompt}",
        f"  Answer: {question.answer_letter}. {question.choices[right]}",
        f"  1 of 2 right (50%). You: {'ABCD'[wrong]}, not right.",
        "The explanations, and older questions: Past questions on the dashboard (/quiz dashboard).",
    ]
    assert "You: " + question.answer_letter + ", right." in await say(service, "/quiz past", user="ada")
    assert "You did not answer." in await say(service, "/quiz history", user="cyd")
    elsewhere = await say(service, "/quiz past", ref=REF2)  # a channel with none: the space's
    assert elsewhere.startswith("Past daily questions here, newest first:") and question.prompt in elsewhere


async def test_the_count_and_the_newest_first(env):
    service, _store, clock = env
    asked = []
    for _ in range(3):
        _round, question = await today(service, clock, {"bob": 0})
        asked.append(question.prompt)
        clock.advance(days=1)
    text = await say(service, "/quiz past 2")
    assert [line for line in text.splitlines() if line.startswith(("Mon", "Tue", "Wed"))] == [
        f"Wed 09 Dec 2026: {asked[2]}",
        f"Tue 08 Dec 2026: {asked[1]}",
    ]
    assert parse_quiz("/quiz past 5") == ShowPast(5)
    for bad in ("/quiz past 6", "/quiz past 0", "/quiz past ²", "/quiz past 2 3", "/quiz past lots"):
        with pytest.raises(BadSetting, match="give a number from 1 to 5"):
            parse_quiz(bad)


async def test_a_question_open_again_in_the_space_is_left_out_until_it_is_revealed_there(env):
    service, store, clock = env
    _round, question = await today(service, clock, {"bob": 1})
    again = await store.claim_daily_round(REF2, dt.date(2026, 12, 8), question.id, question.topic, T0, None)
    assert again is not None
    assert "No daily question has been revealed" in await say(service, "/quiz past")
    page = await service.past.page(REF.platform, REF.space_id, "bob")
    assert page.items == () and not page.more
    await store.finish_posts([PostFinish(again.id, "sent", "m-again")])
    assert await store.reveal_round(again.id, T0 + dt.timedelta(days=1), score_daily_round)
    assert question.prompt in await say(service, "/quiz past")


async def test_the_dashboard_reads_pages_of_ten_newest_first_and_one_channel(env):
    service, store, _clock = env
    ids = []
    for n in range(PAGE_SIZE + 2):
        ref = REF2 if n == 0 else REF
        r = await store.claim_daily_round(
            ref, dt.date(2026, 11, 1) + dt.timedelta(days=n), f"tensors-{n % 3}", "t", T0, None
        )
        await store.finish_posts([PostFinish(r.id, "sent", f"m{n}")])
        await store.add_answers([], T0)
        assert await store.reveal_round(r.id, T0, score_daily_round)
        ids.append(r.id)
    first = await service.past.page(REF.platform, REF.space_id, "bob")
    assert [i.round.id for i in first.items] == ids[::-1][:PAGE_SIZE] and first.more and first.page == 1
    second = await service.past.page(REF.platform, REF.space_id, "bob", 2)
    assert [i.round.id for i in second.items] == ids[1::-1] and not second.more
    quiet = await service.past.page(REF.platform, REF.space_id, "bob", 1, REF2.channel_id)
    assert [i.round.id for i in quiet.items] == [ids[0]]
    assert (await service.past.page(REF.platform, REF.space_id, "bob", 0)).page == 1
