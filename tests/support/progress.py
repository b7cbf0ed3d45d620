"""Learners with something in every part of the learning report (`/quiz progress`), played through the core's
own services with a fixed clock, for the platform tests."""

from __future__ import annotations

import datetime as dt

from bot.bank.load import Bank
from bot.features import Features
from bot.kernel.cards import AnswerOutcome, QuestionCard
from bot.kernel.values import Actor, ChannelRef
from bot.practice.cards import ReviewEmpty
from bot.settings import ConfigChange
from tests.support.fakes import FixedClock, make_question, store_of

SETUP = Actor("setup-admin", is_admin=True)


async def answer(service: Features, round_id: int, user: str, right: bool, *, sure: bool = True) -> AnswerOutcome:
    round_ = await store_of(service).get_round(round_id)
    assert round_ is not None
    question = service.context.bank.get(round_.question_id)
    assert question is not None
    choice = question.answer if right else (question.answer + 1) % 4
    return await service.answers.submit_answer(round_id, user, choice, sure=sure)


async def two_weeks_of_learning(
    service: Features, clock: FixedClock, ref: ChannelRef, user: str, start: dt.datetime
) -> None:
    """A fortnight in one channel: a daily question every day at `start`'s time (wrong on the first six days, and
    "not sure" every third), revealed the next day; from the second day on, every review that is due, right
    except every fourth."""
    await service.channels.configure(
        SETUP, ref, ConfigChange.of(post_time=start.time().replace(second=0, microsecond=0), timezone="UTC")
    )
    previous = None
    for i in range(14):
        clock.set(start + dt.timedelta(days=i))
        if previous is not None:
            assert await service.reveals.reveal_round(previous) is not None
        daily = await service.posting.post_scheduled(ref)
        assert daily is not None
        clock.advance(minutes=5)
        await answer(service, daily.id, user, i >= 6, sure=i % 3 != 1)
        previous = daily.id
        clock.advance(hours=3)
        due = (await service.practice.learning(ref.platform, ref.space_id, user, "UTC")).due_now
        if due:
            card: QuestionCard | ReviewEmpty | None = await service.practice.start_review(ref, user, min(due, 20))
            position = 0
            while isinstance(card, QuestionCard):
                position += 1
                clock.advance(minutes=1)
                card = (await answer(service, card.round_id, user, position % 4 != 0)).follow_up
    clock.set(start + dt.timedelta(days=14))
    assert await service.reveals.reveal_round(previous) is not None  # type: ignore[arg-type]


def long_topic_bank(topics: int = 14, per_topic: int = 3) -> Bank:
    """A bank whose topics have the longest names a pack may give them (40 characters)."""
    names = [f"{i:02d}-" + "very-long-topic-name-of-a-server-pack"[: 40 - 3] for i in range(topics)]
    return Bank(tuple(make_question(f"{name}-{j}", name, answer=j % 4) for name in names for j in range(per_topic)))


async def weeks_of_practice(
    service: Features, clock: FixedClock, ref: ChannelRef, user: str, start: dt.datetime
) -> None:
    """Every question of the bank practised once a week for nine weeks (each answer after the first a review),
    right except now and then, "not sure" every fourth: every week, bucket and topic of the report filled."""
    await service.channels.configure(SETUP, ref, ConfigChange.of(timezone="UTC"))
    questions = service.context.bank.questions
    for week in range(9):
        clock.set(start + dt.timedelta(weeks=week))
        for k, question in enumerate(questions):
            card = await service.practice.practice_round(ref, user, question)
            clock.advance(seconds=30)
            await answer(service, card.round_id, user, (week + k) % 5 != 0, sure=k % 4 != 0)
