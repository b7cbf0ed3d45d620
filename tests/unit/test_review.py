"""Reviews, not-sure answers and memory stats through the service, on the in-memory store with a fake clock."""

from __future__ import annotations

import datetime as dt
import random

import pytest

from bot.app.bootstrap import bootstrap
from bot.app.scheduler import DailyScheduler
from bot.daily.cards import LearningStats, StatsCard, TopicMemory, learning_lines
from bot.features import Features
from bot.kernel import cards
from bot.kernel.errors import BadSetting
from bot.kernel.topics import TOPICS
from bot.kernel.values import LETTERS, ChannelRef, Difficulty, NewAnswer, Period, PracticeAnswer, RoundKind, TopicStats
from bot.practice.cards import ReviewEmpty
from bot.practice.memory import CardKey, review
from bot.practice.reviews import learning_stats, plan_review
from bot.settings import ConfigChange
from bot.text.command_values import AnswerDaily, Practice, Review, ShowTopics
from bot.text.commands import parse_quiz
from tests.support.fakes import REF, FakePlatform, FixedClock, make_bank, make_question
from tests.support.learning import SETUP, miss_three_on_monday
from tests.support.memory_store import InMemoryStore

MONDAY_9 = dt.datetime(2026, 12, 7, 9, 0, tzinfo=dt.UTC)
TUESDAY_NOON = MONDAY_9 + dt.timedelta(days=1, hours=3)
REFS = (REF, ChannelRef("fake", "space-1", "chan-2"), ChannelRef("fake", "space-1", "chan-3"))


@pytest.fixture
async def env():
    store = InMemoryStore()
    await store.open()
    clock = FixedClock(MONDAY_9)
    service = bootstrap(store, make_bank(per_topic=4), clock, {"fake": FakePlatform()}, rng=random.Random(3))
    yield service, store, clock
    await service.close()
    await store.close()


def right_choice(service: Features, question_id: str) -> int:
    question = service.context.bank.get(question_id)
    assert question is not None
    return question.answer


async def test_three_monday_misses_come_back_on_tuesday_most_overdue_first_and_stats_show_them(env):
    service, store, clock = env

    async def answer(round_, letter):
        await service.answers.submit_answer(round_.id, "ada", LETTERS.index(letter))

    missed = await miss_three_on_monday(service, clock, REFS, MONDAY_9, answer)
    clock.set(TUESDAY_NOON)
    stats = await service.boards.stats("fake", "space-1", "ada")
    assert stats.learning is not None and stats.learning.due_now == 3
    assert "Reviews: 3 today (at most 20 a day)" in learning_lines(stats.learning)[0]
    first = await service.practice.start_review(REF, "ada", 5)
    assert not isinstance(first, ReviewEmpty)
    served, card = [], first
    while card is not None:
        round_ = await store.get_round(card.round_id)
        assert round_ is not None and round_.kind is RoundKind.PRACTICE and round_.user_id == "ada"
        assert card.title.startswith(f"Review {len(served) + 1}/3")
        served.append(round_.question_id)
        outcome = await service.answers.submit_answer(card.round_id, "ada", right_choice(service, round_.question_id))
        card = outcome.follow_up
    assert served == missed
    assert outcome.review_score == "Review done: 3 of 3 right." and outcome.text.endswith(outcome.review_score)
    assert (await service.boards.stats("fake", "space-1", "ada")).learning.due_now == 0
    # the reviews never reached the leaderboard: the three misses scored 0 and nothing was added
    [row] = await store.leaderboard("fake", "space-1", Period.ALL, "all", 10)
    assert (row.user_id, row.points, row.answered) == ("ada", 0, 3)


async def test_a_daily_answer_changes_no_card_before_the_reveal(env):
    service, store, clock = env
    await service.channels.configure(SETUP, REF, ConfigChange.of(timezone="UTC"))
    round_ = await service.posting.post_scheduled(REF)
    await service.answers.submit_answer(round_.id, "ada", (right_choice(service, round_.question_id) + 1) % 4)
    assert await store.learner_cards("fake", "space-1", "ada") == []
    await service.reveals.reveal_round(round_.id)
    [card] = await store.learner_cards("fake", "space-1", "ada")
    assert card.lapses == 1 and card.confident_miss


async def test_practice_updates_the_card_at_once_and_not_sure_is_hard(env):
    service, store, clock = env
    card = await service.practice.start_practice(REF, "ada", "autograd")
    round_ = await store.get_round(card.round_id)
    outcome = await service.answers.submit_answer(
        card.round_id, "ada", right_choice(service, round_.question_id), sure=False
    )
    assert outcome.verdict is not None and outcome.verdict.correct and not outcome.verdict.sure
    [memory] = await store.learner_cards("fake", "space-1", "ada")
    assert memory.key == CardKey("fake", "space-1", "ada", round_.question_id)
    [event] = await store.review_events("fake", "space-1", "ada")
    assert (event.rating, event.sure) == (2, False)


async def test_a_practice_answers_card_update_is_written_in_the_background_after_the_reply(env):
    service, store, clock = env
    card = await service.practice.start_practice(REF, "ada", "autograd")
    await service.answers.submit_answer(card.round_id, "ada", 0)
    await service.close()  # waits for the background write; nothing read the learner's cards meanwhile
    assert await store.learn_practice(500) == 0  # nothing left marked: the drain wrote it
    [event] = await store.review_events("fake", "space-1", "ada")
    assert event.key.question_id == (await store.get_round(card.round_id)).question_id


async def test_the_tick_writes_card_updates_left_marked_by_a_crashed_process(env):
    service, store, clock = env
    round_ = await store.create_practice_round(REF, "ada", "q-crash", "autograd", clock.now())
    await store.add_answers([NewAnswer(round_.id, "ada", 1, False, clock.now())], clock.now())
    assert await store.reveal_practice([PracticeAnswer(round_.id, "ada", False, True, clock.now())], clock.now())
    await DailyScheduler(service, clock).tick()
    assert await store.learn_practice(500) == 0
    [card] = await store.learner_cards("fake", "space-1", "ada")
    assert card.key.question_id == "q-crash" and card.confident_miss


async def test_a_confident_wrong_practice_answer_says_so_and_an_unsure_one_does_not(env):
    service, store, clock = env
    card = await service.practice.start_practice(REF, "ada", "tensors")
    round_ = await store.get_round(card.round_id)
    wrong = (right_choice(service, round_.question_id) + 1) % 4
    outcome = await service.answers.submit_answer(card.round_id, "ada", wrong)
    assert cards.CONFIDENT_MISS in outcome.text
    card = await service.practice.start_practice(REF, "ada", "tensors")
    round_ = await store.get_round(card.round_id)
    outcome = await service.answers.submit_answer(
        card.round_id, "ada", (right_choice(service, round_.question_id) + 1) % 4, sure=False
    )
    assert cards.CONFIDENT_MISS not in outcome.text and "Not quite" in outcome.text


async def test_learning_off_leaves_cards_alone(env):
    service, store, clock = env
    service.context.learning = False
    card = await service.practice.start_practice(REF, "ada")
    await service.answers.submit_answer(card.round_id, "ada", 0)
    assert await store.learner_cards("fake", "space-1", "ada") == []


async def test_review_of_a_new_learner_says_there_is_nothing_yet_and_later_when_the_next_is_due(env):
    service, store, clock = env
    empty = await service.practice.start_review(REF, "ada")
    assert isinstance(empty, ReviewEmpty) and "Nothing to review yet" in empty.text
    card = await service.practice.start_practice(REF, "ada", "tensors")
    round_ = await store.get_round(card.round_id)
    await service.answers.submit_answer(card.round_id, "ada", right_choice(service, round_.question_id))
    later = await service.practice.start_review(REF, "ada")
    [memory] = await store.learner_cards("fake", "space-1", "ada")
    assert isinstance(later, ReviewEmpty)
    assert f"next review is due {memory.due:%a %d %b %H:%M} (UTC)" in later.text


async def test_with_nothing_due_a_review_serves_the_weakest_topics_unseen_questions(env):
    service, store, clock = env
    # one miss in autograd, one right in tensors: autograd is the weakest
    for topic, right in (("autograd", False), ("tensors", True)):
        card = await service.practice.start_practice(REF, "ada", topic)
        round_ = await store.get_round(card.round_id)
        choice = right_choice(service, round_.question_id)
        await service.answers.submit_answer(card.round_id, "ada", choice if right else (choice + 1) % 4)
    result = await service.practice.start_review(REF, "ada", 2)
    assert not isinstance(result, ReviewEmpty) and result.topic == "autograd"
    seen = {c.key.question_id for c in await store.learner_cards("fake", "space-1", "ada")}
    round_ = await store.get_round(result.round_id)
    assert round_.question_id not in seen
    assert result.title.startswith("Review 1/2 (new to you): ")  # nothing was due: it says so


async def test_a_review_count_outside_1_to_20_is_refused(env):
    service, store, clock = env
    for n in (0, 21):
        with pytest.raises(BadSetting, match="1 to 20"):
            await service.practice.start_review(REF, "ada", n)
    for text in ("review 0", "review 21", "review lots", "review 2 3"):
        with pytest.raises(BadSetting, match="from 1 to 20"):
            parse_quiz(text)


async def test_practice_never_serves_a_question_open_as_a_daily_round_in_the_space(env):
    service, store, clock = env
    bank_one_topic = make_bank(per_topic=2, topics=("autograd",))
    service.context.bank = bank_one_topic
    await service.channels.configure(SETUP, REFS[1], ConfigChange.of(timezone="UTC"))
    daily = await service.posting.post_scheduled(REFS[1])
    for _ in range(6):
        card = await service.practice.start_practice(REF, "ada", "autograd")
        round_ = await store.get_round(card.round_id)
        assert round_.question_id != daily.question_id
        await service.answers.submit_answer(card.round_id, "ada", 0)


async def test_practice_by_difficulty_and_the_topics_list(env):
    service, store, clock = env
    for _ in range(4):
        card = await service.practice.start_practice(REF, "ada", "autograd", Difficulty.HARD)
        assert card.difficulty is Difficulty.HARD and card.topic == "autograd"
        await service.answers.submit_answer(card.round_id, "ada", 0)
    service.context.bank = make_bank(per_topic=1)  # only easy questions
    with pytest.raises(BadSetting, match="no hard questions on autograd"):
        await service.practice.start_practice(REF, "ada", "autograd", Difficulty.HARD)
    assert service.practice.topics() == (
        "tensors: Tensors and dtypes, 1 question (1 easy)",
        "autograd: Autograd, 1 question (1 easy)",
        "modules: nn.Module and layers, 1 question (1 easy)",
    )


def test_the_grammar_of_review_topics_practice_levels_and_not_sure():
    assert parse_quiz("/quiz review") == Review(5)
    assert parse_quiz("review 12") == Review(12)
    assert parse_quiz("topics") == ShowTopics()
    assert parse_quiz("practice autograd hard") == Practice("autograd", Difficulty.HARD)
    assert parse_quiz("practice hard autograd") == Practice("autograd", Difficulty.HARD)
    assert parse_quiz("practice easy") == Practice(None, Difficulty.EASY)
    assert parse_quiz("autograd medium") == Practice("autograd", Difficulty.MEDIUM)
    assert parse_quiz("answer B ?") == AnswerDaily(1, sure=False)
    assert parse_quiz("answer c?") == AnswerDaily(2, sure=False)
    assert parse_quiz("answer D") == AnswerDaily(3, sure=True)
    with pytest.raises(BadSetting, match="not a topic or a difficulty"):
        parse_quiz("practice autograd impossible")


async def test_a_daily_answer_marked_not_sure_is_rated_hard_at_the_reveal(env):
    service, store, clock = env
    await service.channels.configure(SETUP, REF, ConfigChange.of(timezone="UTC"))
    round_ = await service.posting.post_scheduled(REF)
    outcome = await service.answers.answer_in_channel(REF, "ada", right_choice(service, round_.question_id), sure=False)
    assert "locked in" in outcome.text and outcome.verdict is None  # no early verdict
    await service.reveals.reveal_round(round_.id)
    [event] = await store.review_events("fake", "space-1", "ada")
    assert (event.rating, event.sure) == (2, False)
    [row] = await store.leaderboard("fake", "space-1", Period.ALL, "all", 10)
    assert row.points > 0  # not sure changes no score


async def test_the_tick_reveals_the_daily_round_and_then_writes_its_card_updates_doubts_included(env):
    service, store, clock = env
    await service.channels.configure(SETUP, REF, ConfigChange.of(timezone="UTC"))
    round_ = await service.posting.post_scheduled(REF)
    right = right_choice(service, round_.question_id)
    await service.answers.answer_in_channel(REF, "ada", right, sure=False)
    await service.answers.submit_answer(round_.id, "bo", (right + 1) % 4)
    assert round_.closes_at is not None
    clock.set(round_.closes_at + dt.timedelta(minutes=1))
    await DailyScheduler(service, clock).tick()
    assert (await store.get_round(round_.id)).revealed_at is not None
    assert await store.learn_rounds(50) == 0  # the tick wrote them after its reveals: nothing is left marked
    [event] = await store.review_events("fake", "space-1", "ada")
    assert (event.rating, event.sure) == (2, False)  # "not sure", stored with the round, still counts
    [card] = await store.learner_cards("fake", "space-1", "bo")
    assert card.lapses == 1 and card.confident_miss


async def test_the_card_updates_stop_at_their_budget_and_the_next_tick_goes_on(env):
    service, store, clock = env
    now, closes = clock.now(), clock.now() + dt.timedelta(minutes=5)
    ids = []
    for k, space in enumerate(("space-1", "space-2", "space-3")):
        r = await store.claim_daily_round(ChannelRef("fake", space, f"c{k}"), now.date(), "q1", "autograd", now, closes)
        await store.add_answers([NewAnswer(r.id, "ada", 0, True, now)], now)
        ids.append(r.id)
    assert len(await store.reveal_due_rounds(ids, closes, None, closes)) == 3
    assert await service.practice.write_round_card_updates(budget=0.0) == 1  # one transaction (a space), then stop
    assert await service.practice.write_round_card_updates() == 2  # the next tick: the other two spaces
    assert await service.practice.write_round_card_updates() == 0


# ---- pure rules ------------------------------------------------------------------------------------


def test_weakest_topic_is_never_a_topic_without_mistakes_and_single_answers_count():
    def card(*topics: TopicStats) -> StatsCard:
        return StatsCard("u", 0, 0, 0, 0, 0, 0, 0, by_topic=topics)

    assert card(TopicStats("tensors", 2, 2), TopicStats("autograd", 1, 0)).weakest_topic.topic == "autograd"
    assert card(TopicStats("tensors", 5, 5)).weakest_topic is None
    # 1/3 shrunk is (1+1)/(3+2) = 0.4; 0/1 shrunk is 1/3: the single miss is weaker
    assert card(TopicStats("tensors", 3, 1), TopicStats("autograd", 1, 0)).weakest_topic.topic == "autograd"
    # 9/10 (shrunk 0.83) is stronger than 3/4 (0.67)
    assert card(TopicStats("tensors", 10, 9), TopicStats("autograd", 4, 3)).weakest_topic.topic == "autograd"


def test_plan_puts_confident_misses_first_and_skips_blocked_and_removed_questions():
    questions = [make_question(f"q{i}", "autograd") for i in range(4)]
    k = lambda q: CardKey("fake", "space-1", "ada", q)  # noqa: E731
    unsure, _ = review(None, k("q0"), False, sure=False, at=MONDAY_9)
    sure, _ = review(None, k("q1"), False, sure=True, at=MONDAY_9 + dt.timedelta(hours=2))
    blocked, _ = review(None, k("q2"), False, sure=True, at=MONDAY_9)
    gone, _ = review(None, k("gone"), False, sure=True, at=MONDAY_9)
    plan = plan_review([unsure, sure, blocked, gone], questions, [], TUESDAY_NOON, 5, {"q2"})
    assert plan.question_ids == ("q1", "q0") and plan.due == 2
    assert plan_review([unsure, sure], questions, [], TUESDAY_NOON, 1).question_ids == ("q1",)


def test_learning_stats_count_due_now_and_tomorrow_mastery_and_calibration():
    questions = [make_question(f"q{i}", "autograd") for i in range(4)] + [make_question("t0", "tensors")]
    k = lambda q: CardKey("fake", "space-1", "ada", q)  # noqa: E731
    miss, e1 = review(None, k("q0"), False, sure=True, at=MONDAY_9)
    late_miss, e2 = review(None, k("q1"), False, sure=True, at=MONDAY_9 + dt.timedelta(hours=6))
    right, e3 = review(None, k("t0"), True, sure=True, at=MONDAY_9)
    unsure, e4 = review(None, k("q2"), True, sure=False, at=MONDAY_9)
    # Tuesday 10:00: q0 and q2 (a day after Monday 09:00) are due, q1 at 15:00 today, t0 Wednesday 09:00
    at = MONDAY_9 + dt.timedelta(days=1, hours=1)
    assert (miss.due, unsure.due, late_miss.due) == (MONDAY_9 + dt.timedelta(days=1),) * 2 + (
        MONDAY_9 + dt.timedelta(days=1, hours=6),
    )
    assert right.due == MONDAY_9 + dt.timedelta(days=2)
    stats = learning_stats([miss, late_miss, right, unsure], [e1, e2, e3, e4], questions, at, "UTC")
    assert stats.due_now == 2
    assert stats.due_tomorrow == 2  # q1 later today, t0 tomorrow
    # "tomorrow" is the space's: at Monday 10:00 UTC it is already Tuesday in Kiritimati (UTC+14)
    monday_10 = MONDAY_9 + dt.timedelta(hours=1)
    assert learning_stats([right], [e3], questions, monday_10, "UTC").due_tomorrow == 0
    assert learning_stats([right], [e3], questions, monday_10, "Pacific/Kiritimati").due_tomorrow == 1
    # as /quiz progress: a topic's memory from 3 questions seen (all of a smaller topic), now and in 30 days
    assert [(m.topic, m.seen, m.total, m.needs) for m in stats.mastery] == [("autograd", 3, 4, 0), ("tensors", 1, 1, 0)]
    autograd, tensors = stats.mastery
    assert autograd.now is not None and autograd.later is not None and 0 < autograd.later < autograd.now <= 1
    assert tensors.now is not None and tensors.later is not None
    few = learning_stats([miss], [e1], questions, at, "UTC")
    assert [(m.topic, m.seen, m.needs, m.now, m.later) for m in few.mastery] == [("autograd", 1, 2, None, None)]
    assert "Memory of Autograd: 1 of 4 seen; needs 2 more questions seen" in learning_lines(few)
    # calibration is a rate from 10 sure answers, as in /quiz progress; before that, the count
    assert (stats.sure_answers, stats.sure_right, stats.calibration) == (3, 1, None)
    lines = learning_lines(stats)
    assert lines[0] == "Reviews: 2 today"  # the share, never the whole debt (no limit given here)
    assert "When sure: right 1 of 3; a rate needs 7 more answers" in lines
    assert f"Memory of Autograd: {autograd.now:.0%} now, {autograd.later:.0%} in 30 days (3 of 4 seen)" in lines
    sure = [review(None, k(f"q{i % 4}"), i % 2 == 0, sure=True, at=MONDAY_9)[1] for i in range(10)]
    assert learning_stats([miss], sure, questions, at, "UTC").calibration == 0.5
    assert "When sure: right 5 of 10 (50%)" in learning_lines(learning_stats([miss], sure, questions, at, "UTC"))


def test_the_stats_card_names_five_topics_of_memory_the_weakest_first_and_counts_the_rest():
    topics = sorted(TOPICS, key=lambda t: -len(TOPICS[t]))[:7]  # the longest names
    memory = tuple(TopicMemory(t, 3, 20, 0.9, 0.1 * i, 0) for i, t in enumerate(topics))
    lines = learning_lines(LearningStats(0, 0, None, memory, sure_answers=12, sure_right=9, rate_from=10))
    shown = [line for line in lines if line.startswith("Memory of")]
    assert shown == [
        f"Memory of {TOPICS[t]}: 90% now, {10 * i}% in 30 days (3 of 20 seen)" for i, t in enumerate(topics[:5])
    ]
    assert "… and 2 more topics in your progress report" in lines and "When sure: right 9 of 12 (75%)" in lines
    assert len("\n".join(lines)) <= 1024  # one Discord embed field


def test_the_next_review_is_told_in_the_spaces_timezone_and_says_which():
    nine_utc = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)
    stats = LearningStats(0, 1, nine_utc, timezone="Asia/Tokyo")
    assert learning_lines(stats)[0] == "Reviews: 0 today; next Mon 02 Mar 18:00 (Asia/Tokyo)"
