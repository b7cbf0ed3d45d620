"""Live games on the in-memory store with a fixed clock: a game runs to its podium, speed scores, one game per
channel, stop, question choice (never the open daily question; unseen for 30 days first), memory cards, a
process that dies mid-game, failed sends, the pace of the channel's messages, and the scheduler's live watch (a
game started in another process, taken up beside a long tick; a store outage told once)."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import random
from dataclasses import dataclass, field

import pytest

from bot.app.bootstrap import bootstrap
from bot.app.scheduler import LIVE_WATCH, DailyScheduler
from bot.kernel.cards import QuestionCard
from bot.kernel.errors import AlreadyAnswered, BadSetting, NotAllowed, NothingOpen, RoundClosed, StoreUnavailable
from bot.kernel.values import LETTERS, Actor, ChannelRef, Period, RoundKind
from bot.live.cards import EXPLANATION_MAX, final_text, short
from bot.live.values import GameRunning, LiveStep, live_points
from bot.settings import ConfigChange
from tests.support.fakes import REF, FixedClock, make_bank, store_of
from tests.support.live import LiveRecorder, play
from tests.support.memory_store import InMemoryStore

T0 = dt.datetime(2026, 11, 30, 9, 0, tzinfo=dt.UTC)
S = dt.timedelta(seconds=1)
ADMIN = Actor("admin", is_admin=True)
BANK = make_bank()


async def env(store: InMemoryStore | None = None, clock: FixedClock | None = None, seed: int = 7, bank=BANK):
    if store is None:
        store = InMemoryStore()
        await store.open()
    clock = clock or FixedClock(T0)
    platform = LiveRecorder(clock)
    service = bootstrap(store, bank, clock, {"fake": platform}, rng=random.Random(seed))
    return service, clock, platform


def right_letter(card: QuestionCard) -> str:
    return next(q.answer_letter for q in BANK.questions if q.prompt == card.prompt)


def wrong_letter(card: QuestionCard) -> str:
    return next(x for x in LETTERS if x != right_letter(card))


async def test_a_game_of_five_with_three_players_runs_to_its_podium():
    service, clock, platform = await env()
    reply = await service.live.start(REF, "ann", 5, None, 10)
    assert "5 questions" in reply and "10 seconds" in reply

    async def answer(card: QuestionCard) -> None:
        clock.advance(seconds=1)
        await service.answers.submit_answer(card.round_id, "ann", LETTERS.index(right_letter(card)))
        clock.advance(seconds=3)
        await service.answers.submit_answer(card.round_id, "bob", LETTERS.index(right_letter(card)))
        await service.answers.submit_answer(card.round_id, "cat", LETTERS.index(wrong_letter(card)))

    await play(service, clock, platform, answer)
    assert [card.title for _, _, card in platform.posted] == [f"Live question {i} of 5" for i in range(1, 6)]
    rounds = [card.round_id for _, _, card in platform.posted]
    assert [card.round_id for _, _, card in platform.closed] == rounds  # each closed once, in order
    [(_, _, final)] = platform.finals
    assert [(p.rank, p.standing.user_id) for p in final.podium] == [(1, "ann"), (2, "bob")]  # cat scored 0
    assert [p.standing.user_id for p in final.table] == ["ann", "bob", "cat"]
    ann, bob, cat = (p.standing for p in final.table)
    assert (ann.right, bob.right, cat.right, cat.points) == (5, 5, 0, 0)
    assert ann.points == 5 * live_points(T0, T0 + 10 * S, T0 + S, True) == 5 * 950
    assert bob.points == 5 * 800 and final.questions == 5 and not final.stopped
    last = platform.closed[-1][2]
    assert (last.answered, last.right) == (3, 2) and [f.user_id for f in last.fastest] == ["ann", "bob"]
    assert [p.standing.user_id for p in last.top] == ["ann", "bob", "cat"] and last.next_note == "Final results next."
    store = store_of(service)
    assert await store.running_live_game(REF) is None
    board = await service.live.board("fake", REF.space_id, "cat")
    assert [(p.rank, p.standing.user_id, p.standing.wins, p.standing.games) for p in board.rows] == [
        (1, "ann", 1, 1),
        (2, "bob", 0, 1),
        (3, "cat", 0, 1),
    ]
    assert board.me is not None and board.me.rank == 3
    assert await store.leaderboard("fake", REF.space_id, Period.ALL, "all", 10) == []  # the daily boards untouched


async def test_a_game_nobody_scored_in_has_no_podium_but_its_full_table():
    service, clock, platform = await env()
    await service.live.start(REF, "ann", 3, None, 10)

    async def answer(card: QuestionCard) -> None:
        for who in ("ann", "bob"):
            await service.answers.submit_answer(card.round_id, who, LETTERS.index(wrong_letter(card)))

    await play(service, clock, platform, answer)
    [(_, _, final)] = platform.finals
    assert final.podium == () and [p.standing.points for p in final.table] == [0, 0]
    text = final_text(final)
    assert "Nobody scored; no podium this time." in text and "🥇" not in text
    assert "1. ann: 0 pts (0 of 3 right)" in text and "1. bob: 0 pts (0 of 3 right)" in text
    board = await service.live.board("fake", REF.space_id, "ann")
    assert [p.standing.wins for p in board.rows] == [0, 0]  # nobody won it either


async def test_a_right_answer_scores_more_the_sooner_it_comes():
    assert live_points(T0, T0 + 20 * S, T0, True) == 1000
    assert live_points(T0, T0 + 20 * S, T0 + 5 * S, True) == 875
    assert live_points(T0, T0 + 20 * S, T0 + 20 * S, True) == 500
    assert live_points(T0, T0 + 20 * S, T0 + 2 * S, False) == 0
    assert live_points(T0, T0 + 20 * S, T0 - S, True) == 1000  # a clock a little ahead never scores more


async def test_a_second_game_in_the_channel_is_refused_while_one_runs():
    service, clock, platform = await env()
    await service.live.start(REF, "ann", 3)
    with pytest.raises(GameRunning) as refused:
        await service.live.start(REF, "bob", 3)
    assert "/quiz live stop" in refused.value.message
    other = REF.__class__(REF.platform, REF.space_id, "another-channel")
    await service.live.start(other, "bob", 3)  # another channel may have its own
    await play(service, clock, platform)
    await service.live.start(REF, "bob", 3)  # and once it ended, a new one


@pytest.mark.parametrize(
    ("questions", "seconds", "said"),
    [(2, 20, "3 to 30 questions"), (31, 20, "3 to 30 questions"), (5, 9, "10 to 120 seconds"), (5, 121, "10 to 120")],
)
async def test_bad_sizes_are_refused_and_nothing_starts(questions, seconds, said):
    service, _clock, _platform = await env()
    with pytest.raises(BadSetting) as refused:
        await service.live.start(REF, "ann", questions, None, seconds)
    assert said in refused.value.message
    assert await store_of(service).running_live_game(REF) is None


async def test_a_topic_must_be_one_of_the_channels_and_few_questions_make_a_shorter_game():
    service, clock, platform = await env()
    with pytest.raises(BadSetting) as refused:
        await service.live.start(REF, "ann", 5, "quantum")
    assert "'quantum' is not a topic here; topics: " in refused.value.message
    with pytest.raises(BadSetting) as typo:
        await service.live.start(REF, "ann", 5, "tensor")
    assert "'tensor' is not a topic here (did you mean tensors?)" in typo.value.message
    reply = await service.live.start(REF, "ann", 10, "autograd")
    assert "3 questions" in reply and "only 3" in reply
    await play(service, clock, platform)
    assert len(platform.posted) == 3 and all(card.topic == "autograd" for _, _, card in platform.posted)


async def test_never_the_open_daily_question():
    service, clock, platform = await env(bank=make_bank(per_topic=4))
    await service.channels.configure(ADMIN, REF, ConfigChange.of(timezone="UTC", topics=frozenset({"tensors"})))
    daily = await service.posting.post_now(ADMIN, REF)  # one of the four tensors questions, open all day
    for _ in range(2):  # the second game has seen the other three lately: the daily one is the least seen
        await service.live.start(REF, "ann", 3, "tensors", 10)
        await play(service, clock, platform)
    live = [card for _, _, card in platform.posted if card.kind is RoundKind.LIVE]
    asked = [(await store_of(service).get_round(card.round_id)).question_id for card in live]
    assert len(asked) == 6 and daily.question_id not in asked


async def test_practice_never_serves_the_question_open_in_a_live_game():
    service, clock, platform = await env()  # three tensors questions
    await service.live.start(REF, "ann", 3, "tensors", 10)
    await service.live.run_due()
    [(_, _, card)] = platform.posted
    store = store_of(service)
    open_id = (await store.get_round(card.round_id)).question_id
    served = set()
    for i in range(20):  # each a third of a chance to be the open one, were it not left out
        practice = await service.practice.start_practice(REF, f"p{i}", "tensors")
        served.add((await store.get_round(practice.round_id)).question_id)
    assert open_id not in served and len(served) == 2
    clock.advance(seconds=10)
    await service.live.run_due()  # the close: the question may be practised again
    assert (await store.get_round(card.round_id)).revealed_at is not None
    served_after = {
        (await store.get_round((await service.practice.start_practice(REF, f"q{i}", "tensors")).round_id)).question_id
        for i in range(20)
    }
    assert open_id in served_after


async def test_too_few_questions_beside_the_open_daily_one_make_no_game():
    service, _clock, _platform = await env()  # three tensors questions
    await service.channels.configure(ADMIN, REF, ConfigChange.of(timezone="UTC", topics=frozenset({"tensors"})))
    await service.posting.post_now(ADMIN, REF)
    with pytest.raises(BadSetting) as refused:
        await service.live.start(REF, "ann", 3, "tensors")
    assert "only 2 questions on" in refused.value.message and "at least 3" in refused.value.message


async def test_questions_the_space_has_not_seen_for_30_days_come_first():
    store = InMemoryStore()
    await store.open()
    day = dt.timedelta(days=1)

    async def asked_before(qid: str, ago: dt.timedelta) -> None:  # a daily question of that day, revealed
        round_ = await store.claim_daily_round(REF, (T0 - ago).date(), qid, "t", T0 - ago, None)
        await store.reveal_round(round_.id, T0 - ago + dt.timedelta(hours=1), None)

    seen_lately = [q.id for q in BANK.questions[:5]]
    for i, qid in enumerate(seen_lately):  # the last weeks: the first of them seen most lately
        await asked_before(qid, (i + 1) * 3 * day)
    long_ago = BANK.questions[5].id
    await asked_before(long_ago, 40 * day)
    service, clock, platform = await env(store)
    await service.live.start(REF, "ann", 6)
    await play(service, clock, platform)
    asked = [(await store.get_round(card.round_id)).question_id for _, _, card in platform.posted]
    unseen = {q.id for q in BANK.questions} - set(seen_lately)
    assert len(unseen) == 4 and long_ago in unseen  # one was seen, but 40 days ago
    assert set(asked[:4]) == unseen
    assert asked[4:] == [seen_lately[4], seen_lately[3]]  # then those seen longest ago


async def test_answers_are_acknowledged_privately_once_and_refused_after_the_close():
    service, clock, platform = await env()
    await service.live.start(REF, "ann", 3, None, 10)
    await service.live.run_due()
    [(_, _, card)] = platform.posted
    outcome = await service.answers.submit_answer(card.round_id, "ann", LETTERS.index(wrong_letter(card)))
    assert outcome.verdict is None and "locked in" in outcome.text and "right" not in outcome.text.split(";")[0]
    with pytest.raises(AlreadyAnswered):
        await service.answers.submit_answer(card.round_id, "ann", LETTERS.index(right_letter(card)))
    assert (await service.live.open_round(REF)).id == card.round_id
    clock.advance(seconds=10)
    with pytest.raises(RoundClosed):
        await service.answers.submit_answer(card.round_id, "bob", 0)
    await service.live.run_due()
    assert platform.closed[0][2].answered == 1 and platform.closed[0][2].right == 0
    assert await service.live.open_round(REF) is None  # between questions


async def test_live_answers_update_the_learners_memory_cards():
    service, clock, platform = await env()
    await service.live.start(REF, "ann", 3, None, 10)

    async def answer(card: QuestionCard) -> None:
        await service.answers.submit_answer(card.round_id, "ann", LETTERS.index(right_letter(card)))

    await play(service, clock, platform, answer)
    cards = await store_of(service).learner_cards("fake", REF.space_id, "ann")
    asked = {(await store_of(service).get_round(c.round_id)).question_id for _, _, c in platform.posted}
    assert {c.key.question_id for c in cards} == asked and all(c.reviews == 1 for c in cards)


async def test_the_starter_or_an_admin_stops_a_game_with_the_table_so_far():
    service, clock, platform = await env()
    await service.live.start(REF, "ann", 5, None, 20)
    with pytest.raises(NothingOpen):
        await service.live.stop(ADMIN, REF.__class__(REF.platform, REF.space_id, "elsewhere"))
    await service.live.run_due()
    [(_, _, first)] = platform.posted
    await service.answers.submit_answer(first.round_id, "bob", LETTERS.index(right_letter(first)))
    with pytest.raises(NotAllowed):
        await service.live.stop(Actor("bob"), REF)
    clock.advance(seconds=5)
    said = await service.live.stop(Actor("ann"), REF)
    assert "stopped" in said
    assert [c.round_id for _, _, c in platform.closed] == [first.round_id]  # the open question closed at once
    [(at, _, final)] = platform.finals
    assert at == T0 + 5 * S and final.stopped and final.questions == 1 and "stopped after 1 question" in final.title
    assert [p.standing.user_id for p in final.table] == ["bob"]
    with pytest.raises(RoundClosed):
        await service.answers.submit_answer(first.round_id, "cat", 0)
    assert await store_of(service).running_live_game(REF) is None
    assert len(platform.posted) == 1


async def test_an_admin_stops_a_game_between_questions():
    service, clock, platform = await env()
    await service.live.start(REF, "ann", 5, None, 10)
    await service.live.run_due()
    clock.advance(seconds=10)
    await service.live.run_due()  # the first closed; the second comes in a few seconds
    said = await service.live.stop(ADMIN, REF)
    assert "stopped" in said and len(platform.posted) == 1 and len(platform.finals) == 1
    with pytest.raises(NothingOpen):
        await service.live.stop(ADMIN, REF)


async def test_a_process_that_dies_mid_question_leaves_the_game_to_another():
    store = InMemoryStore()
    await store.open()
    clock = FixedClock(T0)
    first, _, first_platform = await env(store, clock)
    second, _, second_platform = await env(store, clock, seed=8)
    await first.live.start(REF, "ann", 5, None, 10)
    await first.live.run_due()  # the first process posts question 1 ...
    [(_, _, card)] = first_platform.posted
    await first.answers.submit_answer(card.round_id, "ann", LETTERS.index(right_letter(card)))
    await second.answers.submit_answer(card.round_id, "bob", LETTERS.index(right_letter(card)))
    # ... and dies; the second process's tick runs the rest
    await play(second, clock, second_platform)
    posted = [c.round_id for _, _, c in first_platform.posted + second_platform.posted]
    closed = [c.round_id for _, _, c in first_platform.closed + second_platform.closed]
    assert len(posted) == 5 and sorted(posted) == sorted(set(posted)) == sorted(closed)
    assert second_platform.closed[0][2].round_id == card.round_id and second_platform.closed[0][2].answered == 2
    [(_, _, final)] = second_platform.finals
    assert {p.standing.user_id for p in final.table} == {"ann", "bob"}


async def test_a_lease_held_by_a_dead_process_passes_on_when_it_ends_and_the_question_is_posted_once():
    store = InMemoryStore()
    await store.open()
    clock = FixedClock(T0)
    service, _, platform = await env(store, clock)
    await service.live.start(REF, "ann", 3, None, 10)
    [claimed] = await store.claim_live_games(T0, T0 + 30 * S, 10)  # a process took the step and died
    assert await service.live.run_due() is not None and platform.posted == []
    clock.advance(seconds=30)
    await service.live.run_due()
    assert len(platform.posted) == 1
    # a process that posted and recorded the question, then died before moving the game on
    game = await store.running_live_game(REF)
    assert game.step is LiveStep.CLOSE
    await play(service, clock, platform)
    assert len(platform.posted) == 3 and len(platform.closed) == 3


async def test_a_failed_post_is_retried_and_a_platform_that_stays_down_ends_the_game():
    service, clock, platform = await env()
    platform.fail_posts = 1
    await service.live.start(REF, "ann", 3, None, 10)
    await play(service, clock, platform)
    assert len(platform.posted) == 3 and len(platform.finals) == 1  # one retry, then on as usual

    service, clock, platform = await env()
    platform.fail_posts = 99
    await service.live.start(REF, "ann", 3, None, 10)
    await play(service, clock, platform)
    assert platform.posted == [] and len(platform.finals) == 1 and platform.finals[0][2].table == ()
    assert await store_of(service).running_live_game(REF) is None


async def test_the_channel_gets_at_most_five_messages_in_any_five_seconds():
    service, clock, platform = await env()
    await service.live.start(REF, "ann", 5, None, 10)
    await play(service, clock, platform)
    sends = platform.sends()
    assert len(sends) == 11  # five posts, five close edits, one final
    assert max(sum(1 for t in sends if start <= t < start + 5 * S) for start in sends) <= 2


async def test_team_totals_join_the_final_table_when_the_teams_feature_gives_them():
    service, clock, platform = await env()
    seen: list[dict[str, int]] = []

    class Teams:
        async def team_lines(self, platform_name, space_id, points):
            seen.append(dict(points))
            return ("Red: 950",)

    await service.live.start(REF, "ann", 3, None, 10)

    async def answer(card: QuestionCard) -> None:
        await service.answers.submit_answer(card.round_id, "ann", LETTERS.index(right_letter(card)))

    service.live.teams = Teams()
    await play(service, clock, platform, answer)
    [(_, _, final)] = platform.finals
    assert final.teams == ("Red: 950",) and seen == [{"ann": 3000}]


async def test_the_tick_runs_live_steps_and_a_started_game_wakes_the_scheduler_at_once():
    service, clock, platform = await env()
    scheduler = DailyScheduler(service, clock)
    await service.live.start(REF, "ann", 3, None, 10)
    await scheduler.tick()  # not started: the tick alone runs the step
    assert len(platform.posted) == 1
    await scheduler.start()
    try:
        timer = scheduler._live_timer  # the close is due in 10 s, before the next tick (15 s): a timer for it
        assert isinstance(timer, asyncio.TimerHandle)
        assert 9 < timer.when() - asyncio.get_running_loop().time() <= 10
        clock.advance(seconds=10)
        service.live.wake()  # what a start or stop in this process does
        for _ in range(50):
            if platform.closed:
                break
            await asyncio.sleep(0)
        assert len(platform.closed) == 1
    finally:
        await scheduler.stop()


async def test_a_live_round_is_its_own_kind():
    service, clock, platform = await env()
    await service.live.start(REF, "ann", 3, None, 10)
    await service.live.run_due()
    round_ = await store_of(service).get_round(platform.posted[0][2].round_id)
    assert round_.kind is RoundKind.LIVE and round_.message_id == f"msg-{round_.id}"
    assert platform.posted[0][2].kind is RoundKind.LIVE and not platform.posted[0][2].reactions


async def test_stats_count_live_answers_as_live_not_as_practice():
    service, clock, platform = await env()
    await service.live.start(REF, "ann", 3, None, 10)

    async def answer(card: QuestionCard) -> None:
        clock.advance(seconds=1)
        await service.answers.submit_answer(card.round_id, "ann", LETTERS.index(right_letter(card)))

    await play(service, clock, platform, answer)
    card = await service.practice.start_practice(REF, "ann")
    await service.answers.submit_answer(card.round_id, "ann", LETTERS.index(right_letter(card)))
    stats = await service.boards.stats(REF.platform, REF.space_id, "ann")
    assert (stats.answered, stats.daily_answered, stats.practice_answered, stats.live_answered) == (4, 0, 1, 3)
    assert stats.kinds_text() == "0 daily, 1 practice, 3 live"
    assert stats.correct == 4


async def test_the_teams_feature_gives_a_live_game_its_team_totals_by_the_best_three():
    """As wired by the composition root: the final table names the teams of the game's players, each the sum of
    its best three players' points in this game (and its member count), best first."""
    service, clock, platform = await env()
    await service.teams.create(REF, "ann", "Red")
    await service.teams.join(REF, "bob", "Red")
    await service.teams.create(REF, "cy", "Blue")
    await service.teams.create(REF, "dee", "Green")  # no player of the game: not in the table
    await service.live.start(REF, "ann", 3, None, 10)

    async def answer(card: QuestionCard) -> None:
        for user in ("ann", "cy"):  # bob plays and misses every question
            await service.answers.submit_answer(card.round_id, user, LETTERS.index(right_letter(card)))
        await service.answers.submit_answer(card.round_id, "bob", LETTERS.index(wrong_letter(card)))

    await play(service, clock, platform, answer)
    [(_, _, final)] = platform.finals
    assert sorted(line.split(":")[0].split(". ", 1)[1] for line in final.teams) == ["Blue", "Red"]
    red = next(line for line in final.teams if "Red" in line)
    assert red.endswith("(2 members)") and final.teams[0].startswith("1. ")


@dataclass
class HeldDaily(LiveRecorder):
    """A platform whose daily questions wait at the send until released: a 09:00 tick as long as the test wants.
    Live questions go out at once."""

    release: asyncio.Event = field(default_factory=asyncio.Event)
    held: asyncio.Event = field(default_factory=asyncio.Event)

    async def post_question(self, ref: ChannelRef, card: QuestionCard) -> str:
        if card.kind is RoundKind.DAILY:
            self.held.set()
            await self.release.wait()
        return await super().post_question(ref, card)


async def until(done, turns: int = 200) -> None:
    for _ in range(turns):
        if done():
            return
        await asyncio.sleep(0)
    raise AssertionError("never happened")


async def test_a_delivery_process_takes_a_game_started_elsewhere_while_its_long_tick_posts():
    """The game starts in an interactive process (which posts its first question at once and keeps no timers)
    while the delivery process's 09:00 tick waits on a slow daily post. The delivery process's live watch finds
    the close in the store on its next look and does it then, not when the tick ends."""
    store = InMemoryStore()
    await store.open()
    clock = FixedClock(T0 - 60 * S)
    looks: asyncio.Queue[None] = asyncio.Queue()

    async def next_look(seconds: float) -> None:
        assert seconds == LIVE_WATCH
        await looks.get()

    slow = HeldDaily(clock)
    delivery = bootstrap(store, BANK, clock, {"fake": slow}, rng=random.Random(8))
    interactive, _, platform = await env(store, clock)
    daily_channel = ChannelRef("fake", "space-1", "chan-daily")
    await interactive.channels.configure(ADMIN, daily_channel, ConfigChange.of(timezone="UTC"))  # 09:00 daily
    front = DailyScheduler(interactive, clock)
    front.serve_commands()
    back = DailyScheduler(delivery, clock, watch_sleep=next_look)
    await back.start()  # 08:59: nothing due yet
    clock.set(T0)
    ticking = asyncio.ensure_future(back.tick())
    try:
        await until(slow.held.is_set)  # the tick is at the daily post, and stays there
        await interactive.live.start(REF, "ann", 3, None, 10)
        # the interactive process posted question 1 (its run of the due steps over)
        await until(lambda: front._live_run is not None and front._live_run.done())
        assert len(platform.posted) == 1
        clock.advance(seconds=10)  # its close is due
        for _ in range(20):
            await asyncio.sleep(0)
        assert slow.closed == [] and platform.closed == []  # nobody knows yet: the interactive process keeps no timer
        looks.put_nowait(None)  # the delivery process's watch looks in the store
        await until(lambda: len(slow.closed) == 1)
        assert not ticking.done() and slow.closed[0][0] == T0 + 10 * S
        # the next question is due 4 s after the close: the watch's run armed a timer for it
        await until(lambda: back._live_run is not None and back._live_run.done())
        timer = back._live_timer
        assert isinstance(timer, asyncio.TimerHandle)
        assert 3 < timer.when() - asyncio.get_running_loop().time() <= 4
        clock.advance(seconds=4)
        looks.put_nowait(None)  # (the watch's next look, here before the timer: either posts it, once)
        await until(lambda: len(slow.posted) == 1)
        assert timer.cancelled()  # the look ran the step: the timer armed for it does not run it again
        assert slow.posted[0][2].kind is RoundKind.LIVE and not ticking.done()
    finally:
        slow.release.set()
        await ticking
        await back.stop()
    assert [card.kind for _, _, card in slow.posted] == [RoundKind.LIVE, RoundKind.DAILY]


async def test_the_live_watch_tells_a_store_outage_once(caplog):
    """The watch looks every 5 s whether a game runs or not: a database that is down is told once by the
    process's outage reporter, not with a traceback at every look."""
    store = InMemoryStore()
    await store.open()
    looks: asyncio.Queue[None] = asyncio.Queue()

    async def next_look(seconds: float) -> None:
        await looks.get()

    service, clock, _ = await env(store)
    scheduler = DailyScheduler(service, clock, watch_sleep=next_look)
    await scheduler.start()

    async def down(*args, **kwargs):
        raise StoreUnavailable("the database is down")

    store.claim_live_games = down  # type: ignore[method-assign]
    try:
        with caplog.at_level("DEBUG"):
            for _ in range(3):
                looks.put_nowait(None)
                await until(lambda: scheduler._live_run is not None and scheduler._live_run.done() and looks.empty())
        told = [r for r in caplog.records if r.levelno >= logging.WARNING]
        assert [r.getMessage().split(" (")[0] for r in told] == ["the database is unavailable"]
        assert not any(r.exc_info for r in told)
        assert service.context.outage.down
    finally:
        await scheduler.stop()


def test_a_long_explanation_is_cut_at_a_sentence_else_at_a_word():
    first = "Backward reads the saved output, e.g. of sigmoid, and checks its version counter. "
    second = "The in-place op is allowed on a non-leaf; " + "write a copy instead of changing it in place " * 6
    assert short(first + "Short.") == first + "Short."  # it fits: whole
    assert short(first * 3 + second) == (first * 3).strip()  # whole sentences (the e.g. is not an end)
    assert len(first * 3) <= EXPLANATION_MAX
    cut = short("A " + "long clause without an end " * 20)
    assert cut.endswith("end…") and len(cut) <= EXPLANATION_MAX  # no sentence fits: at a word
    at_word = short(first + second)  # one sentence, under half the room: at a word
    assert at_word.endswith("…") and (first + second)[len(at_word) - 1] == " " and len(at_word) <= EXPLANATION_MAX
