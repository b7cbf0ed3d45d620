"""The learning report's rules (bot.practice.progress), its card and its service on the in-memory fake with a
fixed clock: local weeks and "7 local days later" across both DST changes, rates only from enough answers, the
forecast by topic, the plan's hook, and the chart."""

from __future__ import annotations

import datetime as dt
import io
import random

import pytest
from PIL import Image

from bot.app.bootstrap import bootstrap
from bot.kernel.errors import BadSetting
from bot.kernel.values import ChannelRef, Period
from bot.practice.memory import CardKey, ReviewEvent, review
from bot.practice.progress import (
    BUCKETS,
    MIN_RATE,
    MIN_TOPIC,
    WEEKS_SHOWN,
    MissFact,
    MissRecall,
    ProgressCounts,
    Tally,
    WeekTally,
    bucket_of,
    count_misses,
    count_progress,
    topic_forecasts,
)
from bot.practice.progress_cards import PlanProgress, ProgressCard, progress_alt_text, rate_text
from bot.practice.progress_chart import draw_progress
from bot.recap.cards import recalled_text
from bot.recap.values import RecalledMisses
from bot.text.command_values import ShowProgress
from bot.text.commands import parse_quiz
from tests.support.fakes import FixedClock, make_bank, store_of
from tests.support.memory_store import InMemoryStore
from tests.support.progress import answer

BERLIN = "Europe/Berlin"
UTC = dt.UTC
KEY = CardKey("test", "space", "ada", "q1")


def event(at: dt.datetime, right: bool = True, *, due: dt.datetime | None = None, recall=None, sure=True):
    return ReviewEvent(KEY, 3 if right else 1, at, sure, due, recall)


def test_weeks_are_local_mondays_across_the_autumn_change():
    # Berlin leaves summer time on Sun 25 Oct 2026 at 03:00 CEST (01:00 UTC)
    sunday_late = dt.datetime(2026, 10, 25, 22, 30, tzinfo=UTC)  # Sun 23:30 CET: the week of 19 Oct
    monday_early = dt.datetime(2026, 10, 25, 23, 30, tzinfo=UTC)  # Mon 00:30 CET: the week of 26 Oct
    due = dt.datetime(2026, 10, 20, tzinfo=UTC)
    events = [
        event(sunday_late, due=due),
        event(monday_early, False, due=due),
        event(monday_early + dt.timedelta(hours=1), due=monday_early + dt.timedelta(days=1)),  # early: not due
        event(dt.datetime(2026, 10, 12, 9, tzinfo=UTC)),  # a first answer: no card before it
    ]
    now = dt.datetime(2026, 11, 10, 12, tzinfo=UTC)
    counts = count_progress(events, [], BERLIN, now)
    assert counts.weeks == (
        WeekTally(dt.date(2026, 10, 19), Tally(1, 1)),
        WeekTally(dt.date(2026, 10, 26), Tally(1, 0)),
        WeekTally(dt.date(2026, 11, 2), Tally()),  # a week without due reviews is shown empty
        WeekTally(dt.date(2026, 11, 9), Tally()),
    )
    assert counts.sure == Tally(4, 3) and counts.unsure == Tally()
    in_utc = count_progress(events, [], "UTC", now)
    assert in_utc.weeks[0] == WeekTally(dt.date(2026, 10, 19), Tally(2, 1))  # both still Sunday in UTC


def test_only_the_last_eight_weeks_are_shown():
    now = dt.datetime(2026, 12, 31, 12, tzinfo=UTC)
    events = [event(now - dt.timedelta(weeks=w), due=now - dt.timedelta(weeks=w, days=1)) for w in range(12)]
    counts = count_progress(events, [], "UTC", now)
    assert len(counts.weeks) == WEEKS_SHOWN and counts.retention == Tally(WEEKS_SHOWN, WEEKS_SHOWN)
    assert counts.weeks[-1].start == dt.date(2026, 12, 28)


def test_seven_local_days_across_the_autumn_change_and_the_first_time_back_counts():
    missed = dt.datetime(2026, 10, 18, 7, 0, tzinfo=UTC)  # Sun 09:00 CEST
    back = dt.datetime(2026, 10, 25, 8, 0, tzinfo=UTC)  # Sun 09:00 CET: 169 hours, 7 local days
    six_days = dt.datetime(2026, 10, 24, 21, 30, tzinfo=UTC)  # Sat 23:30 CEST: 6 local days
    facts = [
        MissFact("ada", "q1", missed, six_days, True),  # too soon: does not count
        MissFact("ada", "q1", missed, back + dt.timedelta(days=1), True),
        MissFact("ada", "q1", missed, back, False),  # the first time back: wrong
        MissFact("bob", "q1", missed, six_days, True),
        MissFact("bob", "q2", missed),  # never answered again
    ]
    assert count_misses(facts, BERLIN) == MissRecall(missed=3, came_back=1, right=0)
    assert count_misses(facts, BERLIN, through=dt.date(2026, 10, 24)) == MissRecall(3, 0, 0)
    assert count_misses(facts, BERLIN, through=dt.date(2026, 10, 17)) == MissRecall(0, 0, 0)
    # in Tokyo the Saturday 21:30 UTC answers are on Sunday the 25th (06:30 JST): 7 local days, both right
    assert count_misses(facts, "Asia/Tokyo") == MissRecall(3, 2, 2)


def test_a_real_review_logs_the_due_instant_and_the_predicted_recall():
    t0 = dt.datetime(2026, 3, 1, 9, tzinfo=UTC)
    first, logged = review(None, KEY, False, sure=True, at=t0)
    assert logged.due_before is None and logged.recall is None
    later = t0 + dt.timedelta(days=3)
    _card, again = review(first, KEY, True, sure=True, at=later)
    assert again.due_before == first.due and again.due_before <= later
    assert again.recall is not None and 0 < again.recall < 1


def test_buckets_take_their_low_edge_and_the_last_one_is_closed():
    assert [bucket_of(x) for x in (0.0, 0.69, 0.7, 0.849, 0.85, 0.95, 1.0)] == [0, 0, 1, 1, 2, 3, 3]
    now = dt.datetime(2026, 3, 1, tzinfo=UTC)
    counts = count_progress([event(now, recall=0.9), event(now, False, recall=0.8)], [], "UTC", now)
    assert [b.reviews for b in counts.buckets] == [Tally(), Tally(1, 0), Tally(1, 1), Tally()]
    assert [b.predicted for b in counts.buckets] == [None, 0.8, 0.9, None]
    assert len(counts.buckets) == len(BUCKETS)


def test_a_rate_needs_enough_answers_and_says_how_many_more():
    assert Tally(9, 9).rate(MIN_RATE) is None and Tally(9, 9).needs(MIN_RATE) == 1
    assert Tally(10, 9).rate(MIN_RATE) == 0.9 and Tally(10, 9).needs(MIN_RATE) == 0
    assert rate_text(Tally(3, 2), 5, "review") == "2 of 3 right; a rate needs 2 more reviews"
    assert rate_text(Tally(4, 2), 5, "miss") == "2 of 4 right; a rate needs 1 more miss"
    assert rate_text(Tally(5, 4), 5, "review") == "4 of 5 right (80%)"


def counts_of(**parts) -> ProgressCounts:
    base = dict(weeks=(), sure=Tally(), unsure=Tally(), buckets=(), misses=MissRecall(0, 0, 0))
    return ProgressCounts(**(base | parts))


def test_the_card_says_what_each_figure_counts_and_never_guesses():
    card = ProgressCard(
        "ada",
        counts_of(
            weeks=(WeekTally(dt.date(2026, 3, 23), Tally(3, 2)), WeekTally(dt.date(2026, 3, 30), Tally(6, 6))),
            sure=Tally(12, 9),
            unsure=Tally(4, 1),
            misses=MissRecall(missed=6, came_back=2, right=2),
        ),
        (),
        "UTC",
    )
    text = card.text()
    assert "Last 2 weeks: 8 of 9 right; a rate needs 1 more review." in text
    assert "Week of 23 Mar: 2 of 3 right; a rate needs 2 more reviews." in text
    assert "Week of 30 Mar: 6 of 6 right (100%)." in text
    assert "2 of your misses came back 7 or more days later, 2 right; a share needs 3 more misses to come back." in text
    assert "4 missed questions have not come back 7 or more days later yet." in text
    assert "When sure: 9 of 12 right (75%)." in text
    assert "When not sure: 1 of 4 right; a rate needs 6 more answers." in text
    assert "no review with a prediction yet" in text
    nothing = ProgressCard("bob", counts_of(), (), "UTC", practice_command="/quiz")
    assert nothing.empty and "Nothing to report yet" in nothing.text() and "(/quiz)" in nothing.text()
    with pytest.raises(ValueError):
        draw_progress(nothing)


def test_topics_need_three_seen_questions_and_the_weakest_in_thirty_days_comes_first():
    t0 = dt.datetime(2026, 3, 1, 9, tzinfo=UTC)
    cards = []
    seen = [("a", True)] * 3 + [("b", False)] * 3 + [("c", True)] * 2 + [("d", False)] * 2
    for i, (topic, right) in enumerate(seen):
        card, _ = review(None, CardKey("t", "s", "u", f"{topic}{i}"), right, sure=True, at=t0)
        cards.append(card)
    topic_of = {c.key.question_id: c.key.question_id[0] for c in cards}
    totals = {"a": 10, "b": 3, "c": 5, "d": 2}
    found = topic_forecasts(cards, topic_of | {"gone": "a"}, totals, t0 + dt.timedelta(days=1))
    # b and d were missed: weakest; d has two questions, both seen, so it has a number; c has too few of its 5
    assert [t.topic for t in found] == ["b", "d", "a", "c"]
    b, d, a, c = found
    # a topic without a total (not in the packs counted) needs the usual three, not "all of it"
    unknown = topic_forecasts(cards, topic_of, {"a": 10}, t0 + dt.timedelta(days=1))
    assert {t.topic: t.needs for t in unknown} == {"a": 0, "b": 0, "c": 1, "d": 1}
    assert (b.seen, b.total, a.seen, a.total, c.seen, c.total, d.seen, d.total) == (3, 3, 3, 10, 2, 5, 2, 2)
    assert b.later is not None and a.later is not None and b.later < a.later and a.later < a.now  # type: ignore[operator]
    assert d.now is not None and d.later is not None and d.needs == 0
    assert c.now is None and c.later is None and c.needs == MIN_TOPIC - 2


def test_the_alt_text_stays_short_with_many_topics():
    from bot.daily.cards import TopicMemory

    topics = tuple(TopicMemory(f"topic-{i:02d}-" + "x" * 30, 5, 9, 0.9, 0.6) for i in range(40))
    card = ProgressCard("ada", counts_of(sure=Tally(3, 2)), topics, "UTC")
    assert len(progress_alt_text(card)) <= 1000
    assert "… and 30 more topics." in card.text()


def test_the_grammar():
    assert parse_quiz("/quiz progress") == ShowProgress()
    with pytest.raises(BadSetting, match="takes nothing more"):
        parse_quiz("progress @bob")


def test_the_recaps_line_says_a_share_only_from_five():
    assert recalled_text(RecalledMisses(9, 6, 5)).endswith(": 5 of 6 (83%).")
    assert recalled_text(RecalledMisses(9, 2, 1)).endswith(": 1 of 2 so far; a share needs 3 more to come back.")
    assert recalled_text(RecalledMisses(9, 0, 0)).endswith(": none has come back a week or more later yet (9 missed).")


# ---- the service -----------------------------------------------------------------------------------

REF = ChannelRef("fake", "space-1", "chan-1")
T0 = dt.datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
async def service():
    store = InMemoryStore()
    await store.open()
    service = bootstrap(store, make_bank(per_topic=4), FixedClock(T0), rng=random.Random(2))
    yield service
    await service.close()


class Plan:
    async def plan_progress(self, platform, space_id, user_id, now):
        return PlanProgress(dt.date(2027, 1, 20), 12, 40, 0.82, daily_target=3, target=0.93)


async def test_the_report_counts_answers_not_written_yet_and_shows_a_plans_figures(service):
    clock = service.context.clock
    questions = service.context.bank.questions
    for i, question in enumerate(questions[:6]):  # practice: each missed, then right a week later
        clock.set(T0 + dt.timedelta(minutes=i))
        card = await service.practice.practice_round(REF, "ada", question)
        await answer(service, card.round_id, "ada", False)
    for i, question in enumerate(questions[:6]):
        clock.set(T0 + dt.timedelta(days=7, minutes=i))
        card = await service.practice.practice_round(REF, "ada", question)
        await answer(service, card.round_id, "ada", True, sure=i % 2 == 0)
    # the last answers' card updates may still wait in the background writer: the report counts them all
    report = await service.progress.report(REF, "ada")
    assert report.counts.retention == Tally(6, 6) and report.counts.sure == Tally(9, 3)
    assert report.counts.unsure == Tally(3, 3)
    assert report.plan is None
    service.progress.plan = Plan()
    planned = await service.progress.report(REF, "ada", chart=False)
    assert planned.png is None and planned.target == 0.93
    text = planned.text()
    assert "Interview plan (20 Jan 2027):" in text and "Coverage: 12 of 40 questions seen." in text
    assert "Predicted recall on 20 Jan: 82%." in text and "Daily target: 3 questions." in text
    assert "target 93%" in text
    # the chart: a PNG that opens
    assert report.png is not None
    image = Image.open(io.BytesIO(report.png))
    assert image.format == "PNG" and image.size == (1200, 900)
    # and nothing of it is on a leaderboard
    assert await store_of(service).leaderboard("fake", "space-1", Period.ALL, "all", 10) == []


async def test_an_empty_report_has_no_chart(service):
    report = await service.progress.report(REF, "nobody")
    assert report.empty and report.png is None


async def test_a_learners_own_plan_shows_in_the_report_as_wired(service):
    """As the composition root wires it: the report's plan section comes from the learner's running plan."""
    card = await service.practice.practice_round(REF, "ada", service.context.bank.questions[0])
    await answer(service, card.round_id, "ada", False)  # something to report
    assert (await service.progress.report(REF, "ada", chart=False)).plan is None
    await service.practice.plans.set(REF, "ada", dt.date(2026, 4, 20))
    status = await service.practice.plans.status("fake", "space-1", "ada")
    assert status is not None
    report = await service.progress.report(REF, "ada", chart=False)
    assert report.plan is not None and (report.plan.seen, report.plan.total) == (status.seen, status.questions)
    text = report.text()
    assert "Interview plan (20 Apr 2026):" in text
    assert f"Coverage: {status.seen} of {status.questions} questions seen." in text
    assert f"Daily target: {status.daily_target} question" in text
