"""Backlog-safe reviews (issue 31, item 2): a daily limit with the most at risk first, a vacation hold that
moves every due date by the days it lasted and sends no reminder meanwhile, a catch-up spread over the next
days after a gap, and reminders and /stats that speak of today's share; on the in-memory store with a fixed
clock, across both DST changes."""

from __future__ import annotations

import datetime as dt
import random
from collections import Counter
from zoneinfo import ZoneInfo

import pytest

from bot.app.bootstrap import bootstrap
from bot.app.scheduler import DailyScheduler
from bot.daily.cards import learning_lines
from bot.features import Features
from bot.kernel.errors import BadSetting
from bot.kernel.values import Actor, ChannelRef, NewAnswer
from bot.practice.backlog import shift_local, spread_moves, todays_share
from bot.practice.cards import ReviewEmpty
from bot.practice.memory import CardKey, review
from bot.settings import ConfigChange
from bot.text.command_values import Review, ReviewSetting
from bot.text.commands import parse_quiz
from tests.support.direct import DirectFakePlatform
from tests.support.fakes import FixedClock, make_bank
from tests.support.memory_store import InMemoryStore

REF = ChannelRef("fake", "space-1", "chan-1")
ADMIN = Actor("admin", is_admin=True)
MONDAY = dt.datetime(2026, 12, 7, 9, 0, tzinfo=dt.UTC)


async def make_env(
    start: dt.datetime, tz: str = "UTC", *, posting: bool = False
) -> tuple[Features, InMemoryStore, FixedClock, DirectFakePlatform]:
    """The service over the fake store; the channel posts a daily question at 10:00 local only if `posting`."""
    store = InMemoryStore()
    await store.open()
    clock = FixedClock(start)
    platform = DirectFakePlatform()
    service = bootstrap(store, make_bank(per_topic=10), clock, {"fake": platform}, rng=random.Random(5))
    change = ConfigChange.of(timezone=tz, paused=not posting, post_time=dt.time(10, 0))
    await service.channels.configure(ADMIN, REF, change)
    return service, store, clock, platform


@pytest.fixture
async def env():
    service, store, clock, platform = await make_env(MONDAY)
    yield service, store, clock, platform
    await service.close()
    await store.close()


async def plant_misses(
    store: InMemoryStore, service: Features, user: str, at: dt.datetime, sure: set[str]
) -> list[str]:
    """A wrong practice answer to every question of the bank at `at` (those in `sure` confidently): every card
    falls due a day later."""
    ids = [q.id for q in service.context.bank.questions]
    for qid in ids:
        round_ = await store.create_practice_round(REF, user, qid, "tensors", at)
        await store.add_answers([NewAnswer(round_.id, user, 3, False, at)], at)
        assert await store.reveal_round(round_.id, at, None, unsure=set() if qid in sure else {user})
    return ids


async def answer_review(service: Features, store: InMemoryStore, first, user: str, right: bool = True) -> list[str]:
    """Answer a review to its end (right, or wrong); the question ids in the order served."""
    served, card = [], first
    while card is not None:
        round_ = await store.get_round(card.round_id)
        served.append(round_.question_id)
        question = service.context.bank.get(round_.question_id)
        choice = question.answer if right else (question.answer + 1) % 4
        card = (await service.answers.submit_answer(card.round_id, user, choice)).follow_up
    return served


# ---- the limit ---------------------------------------------------------------------------------------


async def test_with_a_limit_of_5_and_30_due_a_review_serves_5_that_day_confident_misses_first(env):
    service, store, clock, platform = env
    confident = {"autograd-7", "modules-2", "tensors-5"}
    await plant_misses(store, service, "ada", MONDAY, confident)
    clock.set(MONDAY + dt.timedelta(days=1, hours=1))  # Tuesday 10:00: all 30 due
    assert len([c for c in await store.learner_cards("fake", "space-1", "ada") if c.due <= clock.now()]) == 30

    note = await service.practice.review_limit(REF, "ada", 5)
    assert "at most 5 a day" in note.text and "5 reviews to go" in note.text
    stats = await service.boards.stats("fake", "space-1", "ada")
    assert learning_lines(stats.learning)[0] == "Reviews: 5 today (at most 5 a day)"  # never "30 due"

    first = await service.practice.start_review(REF, "ada", 20)  # asks for 20: the limit gives 5
    assert not isinstance(first, ReviewEmpty) and first.title.startswith("Review 1/5: ")  # due cards, not new ones
    served = await answer_review(service, store, first, "ada")
    assert len(served) == 5 and set(served[:3]) == confident  # the confident misses first
    assert (await service.practice.reviews_today(REF, "ada")).served == 5

    again = await service.practice.start_review(REF, "ada", 5)
    assert isinstance(again, ReviewEmpty) and "That was today's 5 reviews" in again.text
    assert "25" not in again.text  # the rest wait, and the debt is not shown
    stats = await service.boards.stats("fake", "space-1", "ada")
    assert learning_lines(stats.learning)[0].startswith("Reviews: 0 today (at most 5 a day); today's are done")

    clock.set(MONDAY + dt.timedelta(days=2, hours=1))  # Wednesday: the next 5, none of those answered right
    nxt = await service.practice.start_review(REF, "ada", 20)
    assert not isinstance(nxt, ReviewEmpty) and nxt.title.startswith("Review 1/5")
    assert not set(await answer_review(service, store, nxt, "ada")) & set(served)


async def test_a_review_asked_and_left_unanswered_uses_no_more_of_the_limit(env):
    service, store, clock, _ = env
    await plant_misses(store, service, "ada", MONDAY, set())
    clock.set(MONDAY + dt.timedelta(days=1))
    await service.practice.review_limit(REF, "ada", 3)
    one = await service.practice.start_review(REF, "ada", 1)
    two = await service.practice.start_review(REF, "ada", 1)  # the first is still due: asked again
    ids = [(await store.get_round(c.round_id)).question_id for c in (one, two)]
    assert ids[0] == ids[1]
    day = await service.practice.reviews_today(REF, "ada")
    assert (day.served, day.today) == (1, 3)


def test_todays_share_offers_the_served_and_still_due_then_the_room_left():
    at = MONDAY + dt.timedelta(days=1)
    cards = [review(None, CardKey("f", "s", "u", f"q{i}"), False, sure=True, at=MONDAY)[0] for i in range(6)]
    share = todays_share(cards, {"q0", "q9"}, limit=4)  # q9 was answered already (no longer due)
    assert [c.key.question_id for c in share.offer] == ["q0", "q1", "q2"] and share.waiting == 3
    assert todays_share(cards, {"q0", "q1", "q2", "q3"}, limit=4).waiting == 2
    assert len(todays_share(cards, set(), limit=100).offer) == 6 and at


# ---- the vacation hold -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "first, tz",
    [
        (dt.date(2027, 3, 22), "Europe/Berlin"),  # over spring forward (28 March)
        (dt.date(2026, 10, 19), "Europe/Berlin"),  # over fall back (25 October)
    ],
)
async def test_a_10_day_pause_moves_every_due_date_by_10_days_and_sends_no_reminder_meanwhile(first, tz):
    zone = ZoneInfo(tz)
    start = dt.datetime.combine(first, dt.time(9, 0), zone).astimezone(dt.UTC)
    service, store, clock, platform = await make_env(start, tz, posting=True)
    try:
        await plant_misses(store, service, "ada", start - dt.timedelta(days=1), set())
        await service.reminders.set(REF, "ada", True, dt.time(10, 0))
        before = {c.key.question_id: c.due for c in await store.learner_cards("fake", "space-1", "ada")}
        note = await service.practice.pause_reviews(REF, "ada", 10)
        assert "paused until" in note.text and "/quiz review resume" in note.text
        paused = await service.practice.start_review(REF, "ada", 5)
        assert isinstance(paused, ReviewEmpty) and "paused until" in paused.text
        assert (await service.practice.start_practice(REF, "ada")).round_id  # practice goes on
        posted = len(platform.posted)
        for day in range(1, 10):  # each day of the hold, 10:05 local: a daily question waits, reviews are due
            clock.set(dt.datetime.combine(first + dt.timedelta(days=day), dt.time(10, 5), zone))
            await DailyScheduler(service, clock).tick()
        assert len(platform.posted) == posted + 9  # the daily questions went out, unanswered
        assert platform.direct == []  # yet no reminder at all
        assert {c.key.question_id: c.due for c in await store.learner_cards("fake", "space-1", "ada")} == before

        clock.set(dt.datetime.combine(first + dt.timedelta(days=10), dt.time(10, 5), zone))  # the hold is over
        await DailyScheduler(service, clock).tick()
        after = {c.key.question_id: c.due for c in await store.learner_cards("fake", "space-1", "ada")}
        for qid, due in before.items():  # 10 local days later, at the same wall time (DST or not)
            assert after[qid].astimezone(zone).date() == due.astimezone(zone).date() + dt.timedelta(days=10)
            assert after[qid].astimezone(zone).time() == due.astimezone(zone).time()
            assert after[qid] == shift_local(due, 10, tz)
        assert abs((after["tensors-0"] - before["tensors-0"]) - dt.timedelta(days=10)) == dt.timedelta(hours=1)
        prefs = await store.review_prefs("fake", "space-1", "ada")
        assert prefs.paused_at is None and prefs.resumed_at == shift_local(start, 10, tz)  # 10 local days
        # reminders are back, speaking of today's share: the cards due when the hold began are due again
        [(_, _, text)] = platform.direct
        assert "You have 20 reviews today" in text and "Today's question is still waiting" in text
    finally:
        await service.close()
        await store.close()


async def test_resume_ends_a_hold_early_and_moves_due_dates_by_the_days_it_lasted(env):
    service, store, clock, _ = env
    await plant_misses(store, service, "ada", MONDAY - dt.timedelta(days=1), set())
    before = {c.key.question_id: c.due for c in await store.learner_cards("fake", "space-1", "ada")}
    await service.practice.pause_reviews(REF, "ada", 30)
    clock.set(MONDAY + dt.timedelta(days=4, hours=2))
    note = await service.practice.resume_reviews(REF, "ada")
    assert "moved by 4 days" in note.text
    after = {c.key.question_id: c.due for c in await store.learner_cards("fake", "space-1", "ada")}
    assert all(after[q] == before[q] + dt.timedelta(days=4) for q in before)
    assert (await service.practice.resume_reviews(REF, "ada")).text == "Your reviews are not paused."
    assert not isinstance(await service.practice.start_review(REF, "ada", 1), ReviewEmpty)


async def test_a_card_answered_during_the_hold_keeps_its_new_due_date(env):
    service, store, clock, _ = env
    await plant_misses(store, service, "ada", MONDAY - dt.timedelta(days=1), set())
    await service.practice.pause_reviews(REF, "ada", 3)
    clock.set(MONDAY + dt.timedelta(days=1))
    round_ = await store.create_practice_round(REF, "ada", "tensors-0", "tensors", clock.now())
    await store.add_answers([NewAnswer(round_.id, "ada", 0, True, clock.now())], clock.now())
    assert await store.reveal_round(round_.id, clock.now(), None)
    fresh = {c.key.question_id: c.due for c in await store.learner_cards("fake", "space-1", "ada")}["tensors-0"]
    clock.set(MONDAY + dt.timedelta(days=3, hours=1))
    await service.practice.reviews_today(REF, "ada")
    assert {c.key.question_id: c.due for c in await store.learner_cards("fake", "space-1", "ada")}["tensors-0"] == fresh


async def test_pause_and_limit_refuse_values_out_of_range_and_change_nothing(env):
    service, store, _, _ = env
    for bad in (0, 101):
        with pytest.raises(BadSetting, match="1 to 100"):
            await service.practice.review_limit(REF, "ada", bad)
    for bad in (0, 61):
        with pytest.raises(BadSetting, match="1 to 60 days"):
            await service.practice.pause_reviews(REF, "ada", bad)
    assert await store.review_prefs("fake", "space-1", "ada") == type(await store.review_prefs("x", "y", "z"))()


def test_the_grammar_of_review_limit_pause_and_resume():
    assert parse_quiz("/quiz review limit 5") == ReviewSetting("limit", 5)
    assert parse_quiz("review pause 10") == ReviewSetting("pause", 10)
    assert parse_quiz("review resume") == ReviewSetting("resume")
    assert parse_quiz("review 7") == Review(7)
    for bad, said in (
        ("review limit 0", "'0' is not a number from 1 to 100"),
        ("review limit 101", "from 1 to 100"),
        ("review pause 61", "from 1 to 60"),
        ("review limit lots", "'lots' is not a number"),
        ("review limit", "Use /quiz review limit N"),
        ("review resume now", "Use /quiz review limit N"),
    ):
        with pytest.raises(BadSetting, match=said):
            parse_quiz(bad)


# ---- a gap ------------------------------------------------------------------------------------------


async def test_after_a_gap_the_overdue_cards_are_spread_over_the_next_days_within_the_limit(env):
    service, store, clock, platform = env
    await plant_misses(store, service, "ada", MONDAY, {"modules-0"})
    await service.practice.review_limit(REF, "ada", 8)
    clock.set(MONDAY + dt.timedelta(days=9))  # 9 days without an answer; 30 overdue
    day = await service.practice.reviews_today(REF, "ada")
    assert (day.today, day.waiting) == (8, 0) and day.offer[0] == "modules-0"
    dues = Counter(c.due.date() for c in await store.learner_cards("fake", "space-1", "ada"))
    today = clock.now().date()
    assert dues[MONDAY.date() + dt.timedelta(days=1)] == 8  # what stays due today
    assert [dues[today + dt.timedelta(days=k)] for k in (1, 2, 3)] == [8, 8, 6]
    assert all(
        c.due.time() == dt.time(0, 0)
        for c in await store.learner_cards("fake", "space-1", "ada")
        if c.due > clock.now()
    )
    # read again the same day: nothing more moves
    again = Counter(c.due for c in await store.learner_cards("fake", "space-1", "ada"))
    await service.practice.reviews_today(REF, "ada")
    assert Counter(c.due for c in await store.learner_cards("fake", "space-1", "ada")) == again


async def test_without_a_gap_nothing_is_spread(env):
    service, store, clock, _ = env
    await plant_misses(store, service, "ada", MONDAY, set())
    await service.practice.review_limit(REF, "ada", 8)
    clock.set(MONDAY + dt.timedelta(days=6))  # 6 days: not yet a gap
    day = await service.practice.reviews_today(REF, "ada")
    assert (day.today, day.waiting) == (8, 22)
    assert {c.due for c in await store.learner_cards("fake", "space-1", "ada")} == {MONDAY + dt.timedelta(days=1)}


def test_spreading_fills_each_day_up_to_the_limit_counting_cards_already_due_then():
    at = dt.datetime(2027, 3, 27, 12, 0, tzinfo=dt.UTC)  # Berlin springs forward in the night after
    cards = [
        review(None, CardKey("f", "s", "u", f"q{i:02}"), False, sure=True, at=at - dt.timedelta(days=9))[0]
        for i in range(10)
    ]
    later = review(None, CardKey("f", "s", "u", "x"), False, sure=True, at=at)[0]  # due tomorrow 12:00 UTC
    moves = spread_moves(cards, [later] * 2, 3, 4, at, "Europe/Berlin")
    days = Counter(m.new_due for m in moves)
    sunday, monday = (dt.datetime(2027, 3, d, tzinfo=ZoneInfo("Europe/Berlin")) for d in (28, 29))
    assert days == {
        sunday.astimezone(dt.UTC): 2,
        monday.astimezone(dt.UTC): 4,
        (monday + dt.timedelta(days=1)).astimezone(dt.UTC): 1,
    }
    assert [m.question_id for m in moves] == [f"q{i:02}" for i in range(3, 10)]  # the first 3 stay today
    assert spread_moves(cards, [], 10, 4, at, "UTC") == []


# ---- reminders speak of today's share ----------------------------------------------------------------


async def test_a_reminder_speaks_of_todays_share_not_the_debt(env):
    service, store, clock, platform = env
    await plant_misses(store, service, "ada", MONDAY - dt.timedelta(days=1), set())
    await service.practice.review_limit(REF, "ada", 3)
    await service.reminders.set(REF, "ada", True, dt.time(10, 0))
    clock.set(MONDAY + dt.timedelta(hours=1, minutes=1))
    await DailyScheduler(service, clock).tick()
    [(_, user, text)] = platform.direct
    assert user == "ada" and "You have 3 reviews today" in text and "30" not in text
