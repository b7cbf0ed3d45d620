"""The quiz service driven with fakes of all three ports (store, platform, clock): no database, no chat platform."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import random
import sqlite3
from zoneinfo import ZoneInfo

import pytest

from bot.app.bootstrap import bootstrap
from bot.kernel.errors import (
    AlreadyAnswered,
    AlreadyPosted,
    BadSetting,
    NotAllowed,
    NotAQuestion,
    NothingOpen,
    RoundClosed,
    UnknownRound,
)
from bot.kernel.values import Actor, ChannelRef, Difficulty, Period, RoundKind
from bot.settings import ConfigChange
from tests.support.fakes import REF, FakePlatform, FixedClock, make_bank
from tests.support.memory_store import InMemoryStore

ADMIN = Actor("admin", is_admin=True)
MEMBER = Actor("member", is_admin=False)
MONDAY_9 = dt.datetime(2026, 11, 30, 9, 0, tzinfo=dt.UTC)


@pytest.fixture
async def env():
    store = InMemoryStore()
    await store.open()
    clock = FixedClock(MONDAY_9)
    platform = FakePlatform()
    service = bootstrap(store, make_bank(), clock, {"fake": platform}, rng=random.Random(7))
    await service.channels.configure(ADMIN, REF, ConfigChange.of(timezone="UTC"))
    yield service, store, clock, platform
    await service.close()
    await store.close()


async def _daily(service, clock, day_offset: int = 0):
    clock.set(MONDAY_9 + dt.timedelta(days=day_offset))
    round_ = await service.posting.post_scheduled(REF)
    assert round_ is not None
    return round_


def _right(service, round_) -> int:
    return service.context.bank.get(round_.question_id).answer


async def test_daily_post_goes_to_the_platform_with_a_message_id(env):
    service, store, clock, platform = env
    round_ = await _daily(service, clock)
    assert len(platform.posted) == 1
    ref, card = platform.posted[0]
    assert ref == REF and card.round_id == round_.id and card.kind is RoundKind.DAILY
    assert len(card.choices) == 4 and card.reveal_note and "revealed" in card.reveal_note
    assert (await store.get_round(round_.id)).message_id == f"msg-{round_.id}"


async def test_one_daily_round_per_channel_and_local_date(env):
    service, store, clock, platform = env
    await _daily(service, clock)
    assert await service.posting.post_scheduled(REF) is None  # the scheduler firing twice
    with pytest.raises(AlreadyPosted):
        await service.posting.post_now(ADMIN, REF)  # a manual post-now
    assert len(platform.posted) == 1


async def test_acknowledgement_never_reveals_the_verdict(env):
    service, _, clock, _ = env
    round_ = await _daily(service, clock)
    right = _right(service, round_)
    ok = await service.answers.submit_answer(round_.id, "u1", right)
    wrong = await service.answers.submit_answer(round_.id, "u2", (right + 1) % 4)
    assert ok.verdict is None and wrong.verdict is None
    assert ok.text.replace(ok.chosen_letter, "?") == wrong.text.replace(wrong.chosen_letter, "?")
    assert "locked" in ok.text


async def test_first_answer_locks(env):
    service, store, clock, _ = env
    round_ = await _daily(service, clock)
    await service.answers.submit_answer(round_.id, "u1", 1)
    with pytest.raises(AlreadyAnswered) as err:
        await service.answers.submit_answer(round_.id, "u1", 2)
    assert err.value.chosen_letter == "B" and "already answered B" in err.value.message
    assert (await store.get_answer(round_.id, "u1")).choice == 1


async def test_concurrent_duplicate_answers_record_one(env):
    service, store, clock, _ = env
    round_ = await _daily(service, clock)
    results = await asyncio.gather(
        *(service.answers.submit_answer(round_.id, "u1", c % 4) for c in range(10)), return_exceptions=True
    )
    recorded = [r for r in results if not isinstance(r, Exception)]
    assert len(recorded) == 1
    assert all(isinstance(r, AlreadyAnswered) for r in results if isinstance(r, Exception))
    assert len(await store.round_answers(round_.id)) == 1


async def test_a_process_that_keeps_no_rounds_posts_and_reveals_and_its_answers_read_the_round():
    """A delivery process keeps none of the rounds it posts in memory (bot.app.roles.round_cache_of): the post,
    an answer (read from the store) and the reveal work as in a process that keeps them."""
    store = InMemoryStore()
    await store.open()
    clock, platform = FixedClock(MONDAY_9), FakePlatform()
    service = bootstrap(store, make_bank(), clock, {"fake": platform}, rng=random.Random(7), round_cache=0)
    await service.channels.configure(ADMIN, REF, ConfigChange.of(timezone="UTC"))
    round_ = await _daily(service, clock)
    assert platform.posted and service.answers.rounds.get(round_.id) is None
    await service.answers.submit_answer(round_.id, "ada", _right(service, round_))
    assert service.answers.rounds.get(round_.id) is None
    assert [a.user_id for a in await store.round_answers(round_.id)] == ["ada"]
    clock.set(MONDAY_9 + dt.timedelta(days=1))
    await service.posting.post_scheduled(REF)
    assert (await store.get_round(round_.id)).revealed_at is not None
    await service.close()
    await store.close()


async def test_answers_waiting_on_a_round_not_in_memory_share_one_read_of_it(env, monkeypatch):
    """The first clicks on a question another process posted all miss this process's cache at once: the round
    is read once for all of them, a waiter that gives up does not cancel the others' read, and an unknown
    round is refused to each of them after one read."""
    service, store, clock, _ = env
    round_ = await _daily(service, clock)
    service.answers.rounds.drop(round_.id)
    reads: list[list[int]] = []
    real = store.get_rounds

    async def counted(round_ids):
        reads.append(list(round_ids))
        await asyncio.sleep(0)  # the read takes a trip: the other answers arrive meanwhile
        return await real(round_ids)

    monkeypatch.setattr(store, "get_rounds", counted)
    quitter = asyncio.ensure_future(service.answers.submit_answer(round_.id, "quitter", 0))
    others = [asyncio.ensure_future(service.answers.submit_answer(round_.id, f"u{i}", i % 4)) for i in range(20)]
    await asyncio.sleep(0)
    quitter.cancel()
    results = await asyncio.gather(*others)
    assert reads == [[round_.id]]
    assert len(results) == 20 and len(await store.round_answers(round_.id)) == 20
    assert service.answers.rounds.get(round_.id) is not None
    unknown = await asyncio.gather(
        *(service.answers.submit_answer(999, f"u{i}", 0) for i in range(5)), return_exceptions=True
    )
    assert reads == [[round_.id], [999]]
    assert all(isinstance(r, UnknownRound) for r in unknown)


async def test_many_rounds_missed_at_once_are_read_in_one_trip(env, monkeypatch):
    """A restart under load (or a burst of questions another process posted): answers to 300 rounds this
    process has not read arrive at once. The rounds are read together, not a trip (and a connection) each,
    and every answer is recorded. A read that fails fails its answers' requests (nothing recorded), and the
    next read works."""
    service, store, clock, _ = env
    question = service.context.bank.questions[0]
    rounds = [
        await store.create_practice_round(REF, f"u{i}", question.id, question.topic, clock.now()) for i in range(300)
    ]
    trips: list[list[int]] = []
    real = store.get_rounds
    failing = True

    async def counted(round_ids):
        trips.append(list(round_ids))
        if failing:
            raise ConnectionError("the store is down")
        return await real(round_ids)

    monkeypatch.setattr(store, "get_rounds", counted)
    refused = await asyncio.gather(
        *(service.answers.submit_answer(r.id, f"u{i}", 0) for i, r in enumerate(rounds[:3])), return_exceptions=True
    )
    assert [type(r) for r in refused] == [ConnectionError] * 3 and len(trips) == 1
    assert [await store.round_answers(r.id) for r in rounds[:3]] == [[], [], []]
    failing, trips[:] = False, []
    results = await asyncio.gather(*(service.answers.submit_answer(r.id, f"u{i}", i % 4) for i, r in enumerate(rounds)))
    assert len(trips) == 1 and sorted(trips[0]) == sorted(r.id for r in rounds)
    assert [o.round_id for o in results] == [r.id for r in rounds]
    assert [len(await store.round_answers(r.id)) for r in rounds] == [1] * 300


async def test_answers_to_unknown_or_closed_rounds_are_refused(env):
    service, store, clock, _ = env
    with pytest.raises(UnknownRound):
        await service.answers.submit_answer(999, "u1", 0)
    round_ = await _daily(service, clock)
    await service.reveals.reveal_round(round_.id)
    with pytest.raises(RoundClosed):
        await service.answers.submit_answer(round_.id, "u1", 0)
    with pytest.raises(BadSetting):
        await service.answers.submit_answer(round_.id, "u1", 7)
    assert await store.round_answers(round_.id) == []


async def test_next_daily_post_reveals_the_previous_round(env):
    service, _, clock, platform = env
    first = await _daily(service, clock)
    right = _right(service, first)
    await service.answers.submit_answer(first.id, "alice", right)
    await service.answers.submit_answer(first.id, "bob", (right + 1) % 4)
    await service.answers.submit_answer(first.id, "carol", right)
    second = await _daily(service, clock, 1)
    assert [c.round_id for _, c in platform.reveals] == [first.id]
    reveal = platform.reveals[0][1]
    assert reveal.correct_letter == "ABCD"[right]
    assert reveal.distribution[right] == 2 and reveal.total == 3
    assert set(reveal.correct_users) == {"alice", "carol"}
    assert reveal.explanation and reveal.question_message_id == f"msg-{first.id}"
    assert second.question_id != first.question_id


async def test_answer_window_closes_the_round(env):
    service, _, clock, _ = env
    await service.channels.configure(ADMIN, REF, ConfigChange.of(answer_window=dt.timedelta(hours=2)))
    round_ = await _daily(service, clock)
    assert round_.closes_at == MONDAY_9 + dt.timedelta(hours=2)
    clock.advance(hours=2)
    with pytest.raises(RoundClosed):
        await service.answers.submit_answer(round_.id, "late", 0)


async def test_points_and_streak_bonus_across_days(env):
    service, store, clock, _ = env
    expected = [10, 11, 12, 13, 14, 15, 15]  # 10 + min(carried streak, 5)
    got = []
    for day in range(7):
        round_ = await _daily(service, clock, day)
        await service.answers.submit_answer(round_.id, "ada", _right(service, round_))
        await service.reveals.reveal_round(round_.id)
        got.append((await store.get_answer(round_.id, "ada")).points)
    assert got == expected
    stats = await service.boards.stats("fake", "space-1", "ada")
    assert stats.current_streak == 7 and stats.best_streak == 7 and stats.points == sum(expected)


async def test_a_wrong_or_missed_day_breaks_the_streak(env):
    service, store, clock, _ = env
    for day, action in enumerate(["right", "right", "wrong", "right", "skip", "right"]):
        round_ = await _daily(service, clock, day)
        right = _right(service, round_)
        if action != "skip":
            await service.answers.submit_answer(round_.id, "ada", right if action == "right" else (right + 1) % 4)
        await service.reveals.reveal_round(round_.id)
    stats = await service.boards.stats("fake", "space-1", "ada")
    assert stats.current_streak == 1 and stats.best_streak == 2
    # a later revealed day without her answer shows the streak as broken
    round_ = await _daily(service, clock, 6)
    await service.reveals.reveal_round(round_.id)
    assert (await service.boards.stats("fake", "space-1", "ada")).current_streak == 0


async def test_speed_bonus_for_the_first_three_correct_answers(env):
    service, store, clock, _ = env
    await service.channels.configure(ADMIN, REF, ConfigChange.of(speed_bonus=True))
    round_ = await _daily(service, clock)
    right = _right(service, round_)
    for i, user in enumerate(["u1", "u2", "u3", "u4"]):
        clock.advance(seconds=i + 1)
        await service.answers.submit_answer(round_.id, user, right)
    await service.reveals.reveal_round(round_.id)
    points = [(await store.get_answer(round_.id, u)).points for u in ["u1", "u2", "u3", "u4"]]
    assert points == [13, 12, 11, 10]


async def test_leaderboard_counts_only_revealed_daily_rounds(env):
    service, _, clock, _ = env
    round_ = await _daily(service, clock)
    await service.answers.submit_answer(round_.id, "ada", _right(service, round_))
    board = await service.boards.leaderboard("fake", "space-1", Period.WEEK, "ada")
    assert board.rows == () and board.me is None  # hidden until the reveal: no leak of the verdict
    await service.reveals.reveal_round(round_.id)
    board = await service.boards.leaderboard("fake", "space-1", Period.WEEK, "ada")
    assert [(r.rank, r.user_id, r.points) for r in board.rows] == [(1, "ada", 10)]


async def test_leaderboard_top_ten_ties_and_own_rank(env):
    service, _, clock, _ = env
    round_ = await _daily(service, clock)
    right = _right(service, round_)
    for i in range(14):
        await service.answers.submit_answer(round_.id, f"u{i:02d}", right if i < 12 else (right + 1) % 4)
    await service.reveals.reveal_round(round_.id)
    board = await service.boards.leaderboard("fake", "space-1", Period.ALL, "u13")
    assert len(board.rows) == 10
    assert {r.rank for r in board.rows} == {1}  # twelve users tie on 10 points
    assert board.me is not None and board.me.rank == 13 and board.me.points == 0


async def test_week_and_month_periods_follow_the_local_date(env):
    service, _, clock, _ = env
    round_ = await _daily(service, clock)  # Monday 30 Nov 2026: week 49, November
    await service.answers.submit_answer(round_.id, "ada", _right(service, round_))
    await service.reveals.reveal_round(round_.id)
    clock.set(dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC))  # Tuesday 1 Dec: same week, new month
    assert [r.user_id for r in (await service.boards.leaderboard("fake", "space-1", Period.WEEK)).rows] == ["ada"]
    assert (await service.boards.leaderboard("fake", "space-1", Period.MONTH)).rows == ()
    assert [r.user_id for r in (await service.boards.leaderboard("fake", "space-1", Period.ALL)).rows] == ["ada"]


async def test_practice_gives_the_verdict_at_once_and_never_counts(env):
    service, _, _, platform = env
    card = await service.practice.start_practice(REF, "ada", "autograd")
    assert card.kind is RoundKind.PRACTICE and card.topic == "autograd" and card.reveal_note is None
    question = next(q for q in service.context.bank.questions if q.prompt == card.prompt)
    outcome = await service.answers.submit_answer(card.round_id, "ada", question.answer)
    assert outcome.verdict is not None and outcome.verdict.correct and question.explanation in outcome.text
    with pytest.raises(RoundClosed):
        await service.answers.submit_answer(card.round_id, "ada", 0)
    assert platform.posted == [] and platform.reveals == []
    assert (await service.boards.leaderboard("fake", "space-1", Period.ALL, "ada")).me is None
    stats = await service.boards.stats("fake", "space-1", "ada")
    assert stats.practice_answered == 1 and stats.daily_answered == 0 and stats.points == 0


async def test_practice_belongs_to_its_learner(env):
    service, store, _, _ = env
    card = await service.practice.start_practice(REF, "ada")
    with pytest.raises(NotAllowed):
        await service.answers.submit_answer(card.round_id, "bob", 0)
    assert await store.round_answers(card.round_id) == []


async def test_no_repeat_until_the_filtered_bank_is_used_up(env):
    service, _, clock, _ = env
    await service.channels.configure(ADMIN, REF, ConfigChange.of(topics=frozenset({"tensors", "autograd"})))
    asked = []
    for day in range(6):
        asked.append((await _daily(service, clock, day)).question_id)
    assert len(set(asked)) == 6 and all(q.split("-")[0] in {"tensors", "autograd"} for q in asked)
    seventh = (await _daily(service, clock, 6)).question_id
    assert seventh in asked and seventh != asked[-1]


async def test_practice_does_not_repeat_for_a_learner_until_the_topic_is_used_up(env):
    service, _, _, _ = env
    prompts = [(await service.practice.start_practice(REF, "ada", "modules")).prompt for _ in range(3)]
    assert len(set(prompts)) == 3


async def test_stats_by_topic_hide_unrevealed_answers(env):
    service, _, clock, _ = env
    round_ = await _daily(service, clock)
    await service.answers.submit_answer(round_.id, "ada", _right(service, round_))
    assert (await service.boards.stats("fake", "space-1", "ada")).answered == 0
    await service.reveals.reveal_round(round_.id)
    stats = await service.boards.stats("fake", "space-1", "ada")
    assert stats.answered == 1 and stats.correct == 1 and stats.accuracy == 1.0
    assert [(t.topic, t.answered, t.correct) for t in stats.by_topic] == [(round_.topic, 1, 1)]


async def test_config_needs_admin_and_changes_nothing_otherwise(env):
    service, store, _, _ = env
    before = await store.get_channel(REF)
    with pytest.raises(NotAllowed):
        await service.channels.configure(MEMBER, REF, ConfigChange.of(post_time=dt.time(7, 0)))
    with pytest.raises(NotAllowed):
        await service.reveals.reveal_now(MEMBER, REF)
    with pytest.raises(NotAllowed):
        await service.posting.post_now(MEMBER, REF)
    assert await store.get_channel(REF) == before


@pytest.mark.parametrize(
    "changes",
    [
        {"timezone": "Mars/Olympus"},
        {"weekdays": frozenset()},
        {"topics": frozenset({"astrology"})},
        {"topics": frozenset({"recurrent"})},  # valid topic, but no question in this bank
        {"colour": "blue"},
    ],
)
async def test_bad_settings_are_refused_and_change_nothing(env, changes):
    service, store, _, _ = env
    before = await store.get_channel(REF)
    with pytest.raises(BadSetting):
        await service.channels.configure(ADMIN, REF, ConfigChange.of(**changes))
    assert await store.get_channel(REF) == before


async def test_config_change_is_saved_and_shown(env):
    service, store, _, _ = env
    card = await service.channels.configure(
        ADMIN,
        REF,
        ConfigChange.of(
            post_time=dt.time(8, 30),
            timezone="Europe/Berlin",
            weekdays=frozenset({0, 2, 4}),
            difficulties=frozenset({Difficulty.HARD}),
        ),
    )
    assert (await store.get_channel(REF)).timezone == "Europe/Berlin"
    assert card.lines[0] == "time 08:30 tz Europe/Berlin days mon,wed,fri"
    assert card.next_post == dt.datetime(2026, 12, 2, 8, 30, tzinfo=ZoneInfo("Europe/Berlin"))


async def test_text_answer_and_early_reveal_need_an_open_round(env):
    service, _, clock, platform = env
    with pytest.raises(NothingOpen):
        await service.answers.answer_in_channel(REF, "ada", 0)
    round_ = await _daily(service, clock)
    outcome = await service.answers.answer_in_channel(REF, "ada", 2)
    assert outcome.round_id == round_.id and outcome.chosen_letter == "C"
    card = await service.reveals.reveal_now(ADMIN, REF)
    assert card.round_id == round_.id and platform.reveals[-1][1].round_id == round_.id
    with pytest.raises(NothingOpen):
        await service.reveals.reveal_now(ADMIN, REF)


async def test_reaction_answers_find_their_round_by_message(env):
    service, store, clock, _ = env
    round_ = await _daily(service, clock)
    outcome = await service.answers.answer_by_reaction("fake", f"msg-{round_.id}", "ada", 3)
    assert outcome.round_id == round_.id and (await store.get_answer(round_.id, "ada")).choice == 3
    with pytest.raises(UnknownRound):
        await service.answers.answer_by_reaction("fake", "not-a-question", "ada", 0)


async def test_a_reaction_to_a_round_not_in_memory_costs_one_read(env, monkeypatch):
    """A reaction to a question this process has not read (posted by another process, or before a restart):
    its round and its channel's reaction setting come in one read, and the answer path reads nothing more (the
    round is kept for the buttons' answers to it). Reactions to many such questions at once share one read."""
    service, store, clock, _ = env
    round_ = await _daily(service, clock)
    service.answers.rounds.drop(round_.id)
    stored = await store.get_round(round_.id)
    reads: list[str] = []
    for name in ("reaction_rounds", "get_round", "get_rounds", "get_channel", "round_by_message"):
        monkeypatch.setattr(store, name, _counted(reads, name, getattr(store, name)))
    await service.answers.answer_by_reaction("fake", f"msg-{round_.id}", "ada", 1)
    assert reads == ["reaction_rounds"] and service.answers.rounds.get(round_.id) == stored
    await service.answers.answer_by_reaction("fake", f"msg-{round_.id}", "bob", 2)
    assert reads == ["reaction_rounds"] * 2
    assert [(a.user_id, a.choice) for a in await store.round_answers(round_.id)] == [("ada", 1), ("bob", 2)]
    question = service.context.bank.questions[0]
    others = [await store.create_practice_round(REF, "cy", question.id, question.topic, clock.now()) for _ in range(5)]
    for other in others:
        await store.set_message_id(other.id, f"p-{other.id}")
    reads.clear()
    results = await asyncio.gather(
        *(service.answers.answer_by_reaction("fake", f"p-{r.id}", "cy", 0) for r in others),
        service.answers.answer_by_reaction("fake", "not-a-question", "cy", 0),
        return_exceptions=True,
    )
    assert reads == ["reaction_rounds"] and isinstance(results[-1], NotAQuestion)
    assert [len(await store.round_answers(r.id)) for r in others] == [1] * 5


async def test_a_typed_answer_to_a_round_not_in_memory_costs_one_read(env, monkeypatch):
    """`/quiz answer B` in a channel whose question this process has not read: the channel's open rounds are
    the one read; the answer does not read the round again."""
    service, store, clock, _ = env
    round_ = await _daily(service, clock)
    service.answers.rounds.drop(round_.id)
    reads: list[str] = []
    for name in ("open_daily_rounds", "get_round", "get_rounds", "get_channel"):
        monkeypatch.setattr(store, name, _counted(reads, name, getattr(store, name)))
    outcome = await service.answers.answer_in_channel(REF, "ada", 1)
    assert outcome.round_id == round_.id and reads == ["open_daily_rounds"]
    assert [(a.user_id, a.choice) for a in await store.round_answers(round_.id)] == [("ada", 1)]


def _counted(reads: list[str], name: str, real):  # type: ignore[no-untyped-def]
    async def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        reads.append(name)
        return await real(*args, **kwargs)

    return counted


async def test_spaces_are_separate(env):
    service, _, clock, _ = env
    other = ChannelRef("fake", "space-2", "chan-9")
    await service.channels.configure(ADMIN, other)
    r1 = await _daily(service, clock)
    r2 = await service.posting.post_scheduled(other)
    await service.answers.submit_answer(r1.id, "ada", _right(service, r1))
    await service.answers.submit_answer(r2.id, "ada", _right(service, r2))
    await service.reveals.reveal_round(r1.id)
    await service.reveals.reveal_round(r2.id)
    b1 = await service.boards.leaderboard("fake", "space-1", Period.ALL)
    b2 = await service.boards.leaderboard("fake", "space-2", Period.ALL)
    assert [r.points for r in b1.rows] == [10] and [r.points for r in b2.rows] == [10]


async def test_reveal_card_carries_the_channel_ping_winners_setting(env):
    service, _, clock, _ = env
    round_ = await _daily(service, clock)
    assert (await service.reveals.reveal_card(round_)).ping_winners is False  # quiet by default
    await service.channels.configure(ADMIN, REF, ConfigChange.of(ping_winners=True))
    assert (await service.reveals.reveal_card(round_)).ping_winners is True


async def test_a_store_outage_tells_the_answerer_nothing_was_recorded_and_recovers(env, monkeypatch, caplog):
    from bot.kernel.errors import StoreUnavailable

    service, store, clock, platform = env
    round_ = await _daily(service, clock)
    real = store.add_answers

    async def down(*args, **kwargs):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(store, "add_answers", down)
    for user in ("ann", "bob"):
        with pytest.raises(StoreUnavailable, match="cannot record answers right now; try again in a minute"):
            await service.answers.submit_answer(round_.id, user, 1)
    told = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [(r.name, r.levelname) for r in told] == [("bot.kernel.outage", "ERROR")]  # once, not per answer
    assert "the database is unavailable (OperationalError: database or disk is full)" in told[0].getMessage()
    monkeypatch.setattr(store, "add_answers", real)
    outcome = await service.answers.submit_answer(round_.id, "ann", 1)
    assert "locked in" in outcome.text and len(await store.round_answers(round_.id)) == 1
    back = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING][1:]
    assert len(back) == 1 and back[0].startswith("the database is back after")
    assert not service.context.outage.down
