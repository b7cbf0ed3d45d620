"""Interview-date plans (issue 31, item 3): desired retention rising from 0.9 toward 0.95, every question of
the chosen topics brought in at least twice before the date, a daily target from the days left, coverage and
predicted recall on the day, and the plan's end by itself after the date; on the in-memory store with a
fixed clock (the space in Berlin, across a DST change)."""

from __future__ import annotations

import datetime as dt
import random
from zoneinfo import ZoneInfo

import pytest

from bot.app.bootstrap import bootstrap
from bot.daily.cards import learning_lines
from bot.kernel.errors import BadSetting
from bot.kernel.values import Actor, ChannelRef, NewAnswer
from bot.practice.backlog import due_cards
from bot.practice.cards import ReviewEmpty
from bot.practice.memory import CardKey, retrievability, review
from bot.practice.plans import PLAN_RETENTION, PlanStatus, daily_target, plan_retention
from bot.practice.values import LearnerPlan
from bot.settings import ConfigChange
from bot.text.command_values import PlanCommand
from bot.text.commands import parse_quiz
from tests.support.fakes import FakePlatform, FixedClock, make_bank
from tests.support.memory_store import InMemoryStore

BERLIN = ZoneInfo("Europe/Berlin")
REF = ChannelRef("fake", "space-1", "chan-1")
ADMIN = Actor("admin", is_admin=True)
START = dt.datetime(2027, 3, 22, 9, 0, tzinfo=BERLIN).astimezone(dt.UTC)  # Monday; DST begins 28 March
INTERVIEW = dt.date(2027, 3, 31)  # 9 days ahead


@pytest.fixture
async def env():
    store = InMemoryStore()
    await store.open()
    clock = FixedClock(START)
    service = bootstrap(store, make_bank(per_topic=10), clock, {"fake": FakePlatform()}, rng=random.Random(2))
    await service.channels.configure(ADMIN, REF, ConfigChange.of(timezone="Europe/Berlin", paused=True))
    yield service, store, clock
    await service.close()
    await store.close()


async def review_all(service, store, card, user: str = "ada", right: bool = True) -> list[str]:
    served = []
    while card is not None:
        round_ = await store.get_round(card.round_id)
        served.append(round_.question_id)
        question = service.context.bank.get(round_.question_id)
        choice = question.answer if right else (question.answer + 1) % 4
        card = (await service.answers.submit_answer(card.round_id, user, choice)).follow_up
    return served


async def test_a_plan_shows_coverage_and_a_daily_target_and_reviews_bring_in_its_questions(env):
    service, store, clock = env
    card = await service.practice.plans.set(REF, "ada", INTERVIEW, ("autograd",))
    # 10 questions, each twice: 20 exposures over 9 days, 3 a day (rounded up)
    assert "Coverage: 0 of 10 questions seen (0%), 0 seen twice" in card.text
    assert "Daily target: 3 plan questions today (0 done, 3 to go)" in card.text
    assert "9 days left" in card.text
    first = await service.practice.start_review(REF, "ada", 10)
    assert not isinstance(first, ReviewEmpty) and first.title.startswith("Review 1/3")
    served = await review_all(service, store, first)
    assert served == ["autograd-0", "autograd-1", "autograd-2"]  # unseen first
    status = await service.practice.plans.status("fake", "space-1", "ada")  # the hook /quiz progress reads
    assert status is not None
    assert (status.seen, status.questions, status.coverage, status.daily_target, status.done_today) == (
        3,
        10,
        0.3,
        3,
        3,
    )
    assert 0 < status.recall_on_day < 0.3  # 3 of 10 seen: the unseen count as forgotten
    shown = (await service.practice.plans.show(REF, "ada")).text
    assert "Coverage: 3 of 10 questions seen (30%)" in shown and "(3 done, 0 to go)" in shown
    stats = await service.boards.stats("fake", "space-1", "ada")
    assert any(line.startswith("Coverage: 3 of 10") for line in learning_lines(stats.learning))
    # today's target is met: a new review has nothing of the plan left today (and nothing due)
    empty = await service.practice.start_review(REF, "ada", 10)
    assert isinstance(empty, ReviewEmpty) and "Nothing to review right now" in empty.text


async def test_a_learner_who_does_the_daily_target_sees_every_plan_question_twice_before_the_date(env):
    service, store, clock = env
    await service.practice.plans.set(REF, "ada", INTERVIEW, ("autograd", "modules"))
    day = START
    while day.astimezone(BERLIN).date() < INTERVIEW:
        clock.set(day)
        first = await service.practice.start_review(REF, "ada", 20)
        if not isinstance(first, ReviewEmpty):
            await review_all(service, store, first, right=random.Random(day.day).random() < 0.8)
        day += dt.timedelta(days=1)
    cards = {c.key.question_id: c for c in await store.learner_cards("fake", "space-1", "ada")}
    plan_ids = [q.id for q in service.context.bank.questions if q.topic in ("autograd", "modules")]
    assert all(cards[q].reviews >= 2 for q in plan_ids), {q: cards[q].reviews for q in plan_ids if q in cards}
    on_day = dt.datetime.combine(INTERVIEW, dt.time(), BERLIN)
    assert all(cards[q].last_review < on_day for q in plan_ids)
    assert not any(c.key.question_id.startswith("tensors") for c in cards.values())  # only the plan's topics


async def test_the_plan_ends_by_itself_after_its_date(env):
    service, store, clock = env
    await service.practice.plans.set(REF, "ada", INTERVIEW)
    clock.set(dt.datetime.combine(INTERVIEW, dt.time(12), BERLIN))  # on the day: still shown, no target left
    status = await service.practice.plans.status("fake", "space-1", "ada")
    assert status is not None and status.days_left == 0 and status.daily_target == 0
    assert status.retention == PLAN_RETENTION
    clock.set(dt.datetime.combine(INTERVIEW + dt.timedelta(days=1), dt.time(0, 1), BERLIN))
    assert await service.practice.plans.status("fake", "space-1", "ada") is None
    assert "You have no plan here" in (await service.practice.plans.show(REF, "ada")).text
    assert (await service.practice.reviews_today(REF, "ada")).plan == ()


async def test_plan_off_and_bad_plans_are_refused_with_nothing_changed(env):
    service, store, clock = env
    today = START.astimezone(BERLIN).date()
    for day, said in (
        (today, "not after today"),
        (today - dt.timedelta(days=3), "not after today"),
        (today + dt.timedelta(days=731), "at most 730 days"),
    ):
        with pytest.raises(BadSetting, match=said):
            await service.practice.plans.set(REF, "ada", day)
    with pytest.raises(BadSetting, match="'cooking' is not a topic here"):
        await service.practice.plans.set(REF, "ada", INTERVIEW, ("autograd", "cooking"))
    assert await store.learner_plan("fake", "space-1", "ada") is None
    await service.practice.plans.set(REF, "ada", INTERVIEW)
    assert (await service.practice.plans.off(REF, "ada")).text == "Your plan is off."
    assert (await service.practice.plans.off(REF, "ada")).text == "You have no plan here."


def test_desired_retention_rises_from_0_9_to_0_95_and_makes_cards_due_sooner():
    plan = LearnerPlan("f", "s", "u", "c", INTERVIEW, (), START)
    day_start = dt.datetime.combine(INTERVIEW, dt.time(), BERLIN)
    assert plan_retention(plan, START, "Europe/Berlin") == pytest.approx(0.9)
    assert plan_retention(plan, START + (day_start - START) / 2, "Europe/Berlin") == pytest.approx(0.925)
    assert plan_retention(plan, day_start, "Europe/Berlin") == pytest.approx(0.95)
    assert plan_retention(plan, day_start + dt.timedelta(days=3), "Europe/Berlin") == pytest.approx(0.95)
    card, _ = review(None, CardKey("f", "s", "u", "q"), True, sure=True, at=START)  # Good: due in 2 days
    soon = START + dt.timedelta(days=1)
    assert card.due > soon and 0.9 < retrievability(card, soon) < 0.95
    assert due_cards([card], soon) == []  # the scheduler's 0.9: not yet
    assert due_cards([card], soon, 0.95) == [card]  # a plan near its date: due now


def test_the_daily_target_is_what_is_left_over_the_days_left():
    assert daily_target(20, 0, 9) == 3
    assert daily_target(17, 3, 9) == 3  # what today brought in counts toward today's target
    assert daily_target(5, 0, 0) == 0


def test_the_grammar_of_plan():
    assert parse_quiz("/quiz plan 2027-01-20 autograd,tensors") == PlanCommand(
        dt.date(2027, 1, 20), ("autograd", "tensors")
    )
    assert parse_quiz("plan 2027-01-20 autograd, Tensors autograd") == PlanCommand(
        dt.date(2027, 1, 20), ("autograd", "tensors")
    )
    assert parse_quiz("plan 2027-01-20") == PlanCommand(dt.date(2027, 1, 20))
    assert parse_quiz("plan off") == PlanCommand(off=True)
    assert parse_quiz("plan") == PlanCommand()
    for bad, said in (
        ("plan 2027-13-01", "'2027-13-01' is not a date"),
        ("plan tomorrow", "'tomorrow' is not a date"),
        ("plan 20-01-2027", "YYYY-MM-DD"),
        ("plan off now", "Use /quiz plan"),
        ("plan 2027-01-20 a/b", "'a/b' is not a topic"),
    ):
        with pytest.raises(BadSetting, match=said):
            parse_quiz(bad)


async def test_a_plan_raises_the_reviews_due_today(env):
    service, store, clock = env
    for qid in ("tensors-0", "tensors-1"):  # two right answers: due in two days at the scheduler's 0.9
        round_ = await store.create_practice_round(REF, "ada", qid, "tensors", START)
        await store.add_answers([NewAnswer(round_.id, "ada", int(qid[-1]) % 4, True, START)], START)
        assert await store.reveal_round(round_.id, START, None)
    await service.practice.plans.set(REF, "ada", START.astimezone(BERLIN).date() + dt.timedelta(days=1), ("autograd",))
    clock.set(START + dt.timedelta(days=1))  # the plan's date: desired retention 0.95
    day = await service.practice.reviews_today(REF, "ada")
    assert set(day.offer) == {"tensors-0", "tensors-1"}
    await service.practice.plans.off(REF, "ada")
    assert (await service.practice.reviews_today(REF, "ada")).offer == ()


def test_a_plan_of_one_question_a_day_says_question() -> None:
    status = PlanStatus(dt.date(2027, 2, 1), ("autograd",), 19, 0, 0, 56, 1, 0, 0.9, 0.0, "UTC")
    assert "Daily target: 1 plan question today (0 done, 1 to go)" in status.lines()
