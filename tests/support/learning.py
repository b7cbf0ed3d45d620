"""A shared scenario for the learner-memory tests: three daily questions missed on a Monday, in three channels
of one space, each revealed that evening."""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable, Sequence

from bot.features import Features
from bot.kernel.values import LETTERS, Actor, ChannelRef, Round
from bot.settings import ConfigChange
from tests.support.fakes import FixedClock

SETUP = Actor("setup-admin", is_admin=True)


def wrong_letter(service: Features, round_: Round) -> str:
    question = service.context.bank.get(round_.question_id)
    assert question is not None
    return LETTERS[(question.answer + 1) % len(LETTERS)]


async def miss_three_on_monday(
    service: Features,
    clock: FixedClock,
    refs: Sequence[ChannelRef],
    monday_9: dt.datetime,
    answer: Callable[[Round, str], Awaitable[None]],
) -> list[str]:
    """Post a daily question in each channel at 09:00 Monday, answer each wrong through `answer(round, letter)`
    ten minutes apart (the platform's own way), reveal them at 18:00; the missed question ids, in order."""
    clock.set(monday_9)
    rounds = []
    for ref in refs:
        await service.channels.configure(SETUP, ref, ConfigChange.of(post_time=dt.time(9, 0), timezone="UTC"))
        round_ = await service.posting.post_scheduled(ref)
        assert round_ is not None
        rounds.append(round_)
    for round_ in rounds:
        clock.advance(minutes=10)
        await answer(round_, wrong_letter(service, round_))
    clock.set(monday_9 + dt.timedelta(hours=9))
    for round_ in rounds:
        assert await service.reveals.reveal_round(round_.id) is not None
    return [r.question_id for r in rounds]
