"""Streak freezes (issue 31, item 4): one earned per 7 daily days in a row answered right, at most 2 held; a
missed posting day uses one and keeps the streak (it adds nothing); /stats shows freezes held and used and
marks a streak that never used one; freezes never add points. Through the daily game on the in-memory store,
the channel in Berlin across the autumn DST change, and the pure rules."""

from __future__ import annotations

import datetime as dt
import random
from zoneinfo import ZoneInfo

import pytest

from bot.app.bootstrap import bootstrap
from bot.kernel.scoring import RevealInput, carry_kept, score_daily_round, shown_streak
from bot.kernel.values import Actor, Answer, ChannelRef, Period, Round, RoundKind, StreakState
from bot.settings import ConfigChange
from tests.support.fakes import FakePlatform, FixedClock, make_bank
from tests.support.memory_store import InMemoryStore

BERLIN = ZoneInfo("Europe/Berlin")
REF = ChannelRef("fake", "space-1", "chan-1")
ADMIN = Actor("admin", is_admin=True)
FIRST = dt.date(2026, 10, 19)  # Monday; Berlin falls back on 25 October


@pytest.fixture
async def env():
    store = InMemoryStore()
    await store.open()
    clock = FixedClock(dt.datetime.combine(FIRST, dt.time(9, 30), BERLIN))
    service = bootstrap(store, make_bank(per_topic=10), clock, {"fake": FakePlatform()}, rng=random.Random(4))
    await service.channels.configure(ADMIN, REF, ConfigChange.of(timezone="Europe/Berlin"))
    yield service, store, clock
    await service.close()
    await store.close()


async def play(service, clock, day: int, right: set[str], wrong: set[str] = frozenset()) -> None:
    """Day `day` of the channel: the daily question posted at 09:00 local, answered, revealed."""
    clock.set(dt.datetime.combine(FIRST + dt.timedelta(days=day), dt.time(9, 30), BERLIN))
    round_ = await service.posting.post_scheduled(REF)
    assert round_ is not None
    answer = service.context.bank.get(round_.question_id).answer
    for user in sorted(right):
        await service.answers.submit_answer(round_.id, user, answer)
    for user in sorted(wrong):
        await service.answers.submit_answer(round_.id, user, (answer + 1) % 4)
    assert await service.reveals.reveal_round(round_.id) is not None


async def stats(service, user: str):
    return await service.boards.stats("fake", "space-1", user)


async def test_a_streak_survives_one_missed_day_with_a_freeze_and_breaks_on_the_next_without_one(env):
    service, store, clock = env
    for day in range(7):  # over the DST change on day 6
        await play(service, clock, day, {"ada", "bob"})
    card = await stats(service, "ada")
    assert (card.current_streak, card.freezes, card.freezes_used) == (7, 1, 0)
    assert card.streak_text == "7 now (no freeze used), best 7; freezes: 1 held, 0 used"

    await play(service, clock, 7, {"bob"})  # ada misses a posting day
    card = await stats(service, "ada")  # the freeze is used at once, as the next reveal will
    assert (card.current_streak, card.freezes, card.freezes_used, card.frozen) == (7, 0, 1, 1)
    assert card.streak_text == "7 now (1 freeze used), best 7; freezes: 0 held, 1 used"

    await play(service, clock, 8, {"ada", "bob"})  # the streak goes on: the freeze added nothing to it
    card = await stats(service, "ada")
    assert (card.current_streak, card.freezes, card.freezes_used) == (8, 0, 1)

    await play(service, clock, 9, {"bob"})  # missed again, no freeze held
    assert (await stats(service, "ada")).current_streak == 0
    await play(service, clock, 10, {"ada", "bob"})
    card = await stats(service, "ada")
    assert (card.current_streak, card.best_streak, card.freezes, card.freezes_used) == (1, 8, 0, 1)
    assert "(no freeze used)" in card.streak_text  # the new streak never used one
    assert (await stats(service, "bob")).streak_text == "11 now (no freeze used), best 11; freezes: 1 held, 0 used"


async def test_freezes_never_add_points_and_the_boards_are_as_without_them(env):
    service, store, clock = env
    for day in range(7):
        await play(service, clock, day, {"ada"})
    await play(service, clock, 7, set())
    await play(service, clock, 8, {"ada"})
    # 10 + bonus of the scored streak: 10, 11, 12, 13, 14, 15, 15; the missed day broke the scored streak: 10
    board = await service.boards.leaderboard("fake", "space-1", Period.ALL, "ada")
    assert board.me is not None and board.me.points == 10 + 11 + 12 + 13 + 14 + 15 + 15 + 10
    assert (await stats(service, "ada")).points == board.me.points


async def test_at_most_two_freezes_are_held(env):
    service, store, clock = env
    for day in range(22):
        await play(service, clock, day, {"ada"})
    card = await stats(service, "ada")
    assert (card.current_streak, card.freezes) == (22, 2)  # earned on days 7 and 14; none more on 21
    state = await store.streak("fake", "space-1", "ada")
    assert (state.kept, state.freezes, state.current) == (22, 2, 22)


def daily_round(day: dt.date) -> Round:
    return Round(1, RoundKind.DAILY, REF, "q", "tensors", dt.datetime(2026, 10, 1, tzinfo=dt.UTC), local_date=day)


def test_the_scored_streak_and_its_points_ignore_freezes():
    day = dt.date(2026, 10, 10)
    state = StreakState(6, 6, day - dt.timedelta(days=2), 13, 1)  # missed yesterday, holds a freeze
    right = Answer(1, "ada", 0, True, dt.datetime(2026, 10, 10, tzinfo=dt.UTC))
    result = score_daily_round(
        RevealInput(daily_round(day), (right,), day - dt.timedelta(days=1), {"ada": state}, False, {"ada": 1})
    )
    assert result.points == {"ada": 10}  # the scored streak broke: no bonus
    assert result.streaks["ada"] == StreakState(1, 14, day, 14, 1, 1, 1)  # 14th kept day: a freeze earned back
    without_missed = score_daily_round(
        RevealInput(daily_round(day), (right,), day - dt.timedelta(days=1), {"ada": state}, False)
    )
    assert without_missed.points == result.points and without_missed.streaks["ada"].kept == 1  # unknown: broken


def test_the_shown_streak_reads_freezes_as_the_next_reveal_will():
    last = dt.date(2026, 10, 10)
    state = StreakState(5, 9, last, 9, 2, 1, 0)
    assert shown_streak(state, last, 0).days == 9
    two = shown_streak(state, last + dt.timedelta(days=2), 2)
    assert (two.days, two.freezes, two.freezes_used, two.frozen) == (9, 0, 3, 2)
    three = shown_streak(state, last + dt.timedelta(days=3), 3)
    assert (three.days, three.freezes, three.freezes_used, three.frozen) == (0, 0, 3, 0)
    legacy = StreakState(4, 4, last)  # a row from before freezes: kept reads as current
    assert carry_kept(legacy, last, 0).kept == 4 and shown_streak(None, last, 0).days == 0
