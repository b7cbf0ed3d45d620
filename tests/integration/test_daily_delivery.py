"""Posts and reveals are durable work (issue 10, observation 5; issue 30): a failed platform call is retried
with backoff, a process killed at any step of a post or a reveal leaves work another process finishes (exactly
once on a platform that can be asked whether a send went out; once more at most per kill on one that cannot),
a failed reveal never blocks the next post, and post-now racing the scheduled post sends each round once.
Injected clocks; a "kill" is an exception no handler catches."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import random
from dataclasses import replace

import pytest

from bot.app.bootstrap import bootstrap
from bot.app.config import Settings
from bot.app.roles import batching_of
from bot.app.scheduler import DailyScheduler
from bot.daily.delivery import ANSWERING_BATCHES, DELIVERY_BATCHES, Batching
from bot.daily.pace import Pace
from bot.kernel.errors import AlreadyPosted, NothingOpen
from bot.kernel.values import Actor, ChannelRef
from bot.store.sqlite import SqliteStore
from tests.support.fakes import REF, FakePlatform, FixedClock, IdempotentFakePlatform, make_bank
from tests.support.memory_store import InMemoryStore

ADMIN = Actor("admin", True)
NINE = dt.datetime(2026, 12, 8, 9, 0, tzinfo=dt.UTC)


class Killed(BaseException):
    """The process dies here (like kill -9): no `except Exception` handler sees it."""


class _Script:
    """Calls that fail (HTTP 500) or kill the process before or after the send, per call in turn."""

    def __init__(self) -> None:
        super().__init__()
        self.post_plan: list[str] = []  # per call: "fail", "kill-before", "kill-after" or "ok"
        self.reveal_plan: list[str] = []

    async def post_question(self, ref, card):  # type: ignore[no-untyped-def]
        step = self.post_plan.pop(0) if self.post_plan else "ok"
        if step == "fail":
            raise ConnectionError("HTTP 500")
        if step == "kill-before":
            raise Killed
        message_id = await super().post_question(ref, card)  # type: ignore[misc]
        if step == "kill-after":
            raise Killed
        return message_id

    async def post_reveal(self, ref, card):  # type: ignore[no-untyped-def]
        step = self.reveal_plan.pop(0) if self.reveal_plan else "ok"
        if step == "fail":
            raise ConnectionError("HTTP 500")
        if step == "kill-before":
            raise Killed
        result = await super().post_reveal(ref, card)  # type: ignore[misc]
        if step == "kill-after":
            raise Killed
        return result


class ScriptedPlatform(_Script, IdempotentFakePlatform):
    """Scripted calls on a platform that can be asked whether a send went out (as Discord and Slack can)."""


class PlainScriptedPlatform(_Script, FakePlatform):
    """Scripted calls on a platform that cannot be asked (as the console)."""


class Process:
    """One bot process on a shared store: its own service, scheduler and (shared) platform."""

    def __init__(  # type: ignore[no-untyped-def]
        self, store, clock: FixedClock, platform: FakePlatform, batching: Batching = ANSWERING_BATCHES
    ) -> None:
        self.service = bootstrap(store, make_bank(), clock, {"fake": platform}, rng=random.Random(4), batching=batching)
        self.scheduler = DailyScheduler(self.service, clock)

    async def tick(self) -> bool:
        """One tick; False when the process was killed during it."""
        try:
            await self.scheduler.tick()
        except Killed:
            return False
        return True


@pytest.fixture
async def store(tmp_path):
    s = SqliteStore(tmp_path / "d.db")
    await s.open()
    yield s
    await s.close()


async def configure(store, clock: FixedClock, platform: FakePlatform) -> Process:  # type: ignore[no-untyped-def]
    clock.set(NINE - dt.timedelta(hours=1))
    process = Process(store, clock, platform)
    await process.service.channels.configure(ADMIN, REF)
    clock.set(NINE)
    return process


async def test_a_failing_first_post_is_retried_and_unseen_questions_take_no_answers(store):
    clock, platform = FixedClock(NINE), ScriptedPlatform()
    process = await configure(store, clock, platform)
    platform.post_plan = ["fail", "fail"]
    assert await process.tick()
    assert platform.posted == []
    with pytest.raises(NothingOpen):
        await process.service.answers.answer_in_channel(REF, "ada", 1)
    clock.advance(seconds=2)
    assert await process.tick()  # backing off: 5 s after the first failure
    assert platform.posted == []
    clock.advance(seconds=5)
    assert await process.tick()  # second failure: 10 s
    clock.advance(seconds=11)
    assert await process.tick()
    assert len(platform.posted) == 1
    round_ = await store.latest_daily_round(REF)
    assert round_.message_id == f"msg-{round_.id}" and round_.post_state == "sent"
    outcome = await process.service.answers.answer_in_channel(REF, "ada", 1)
    assert outcome.chosen_letter == "B"
    for _ in range(5):
        clock.advance(seconds=30)
        assert await process.tick()
    assert len(platform.posted) == 1


@pytest.mark.parametrize("make_platform", [ScriptedPlatform, PlainScriptedPlatform])
async def test_a_post_failing_past_the_grace_gives_up_tells_the_channel_and_post_now_still_posts_it(
    store, caplog, make_platform
):
    clock, platform = FixedClock(NINE), make_platform()
    process = await configure(store, clock, platform)
    platform.post_plan = ["fail"] * 100
    with caplog.at_level(logging.ERROR):
        for _ in range(2 * 60 * 2):  # two hours of 30 s ticks
            assert await process.tick()
            clock.advance(seconds=30)
    round_ = await store.latest_daily_round(REF)
    assert platform.posted == [] and round_.post_state == "gave_up"
    assert any("gave up posting round" in r.getMessage() for r in caplog.records)
    tries = 100 - len(platform.post_plan)
    assert 5 <= tries <= 30  # backoff, not a retry every tick
    assert [text for _, text in platform.notices] == [
        "Today's question (Tue 08 Dec) could not be posted, so that day's question was skipped. "
        "An admin can post it now with /quiz config post-now."
    ]
    platform.post_plan = []
    posted = await process.service.posting.post_now(ADMIN, REF)
    assert posted.id == round_.id and posted.post_state == "sent"
    assert [c.round_id for _, c in platform.posted] == [round_.id]
    assert (await store.get_round(round_.id)).message_id == f"msg-{round_.id}"


async def test_a_failed_reveal_never_blocks_the_next_post_and_is_retried(store):
    clock, platform = FixedClock(NINE), ScriptedPlatform()
    process = await configure(store, clock, platform)
    assert await process.tick()
    first = await store.latest_daily_round(REF)
    platform.reveal_plan = ["fail"]
    clock.set(NINE + dt.timedelta(days=1))
    assert await process.tick()
    assert len(platform.posted) == 2 and platform.reveals == []
    assert (await store.get_round(first.id)).revealed_at is not None  # settled; its post is pending
    clock.advance(seconds=10)
    assert await process.tick()
    assert [c.round_id for _, c in platform.reveals] == [first.id]
    clock.advance(minutes=10)
    assert await process.tick()
    assert len(platform.reveals) == 1


@pytest.mark.parametrize("step", ["kill-before", "kill-after"])
async def test_a_kill_during_the_post_leaves_it_to_the_next_process_which_posts_it_exactly_once(store, step, caplog):
    clock, platform = FixedClock(NINE), ScriptedPlatform()
    first = await configure(store, clock, platform)
    platform.post_plan = [step]
    assert not await first.tick()  # killed mid-send
    clock.advance(seconds=30)
    second = Process(store, clock, platform)
    assert await second.tick()  # the first process's claim is still leased
    assert len(platform.posted) == (1 if step == "kill-after" else 0)
    clock.advance(minutes=2)
    with caplog.at_level(logging.INFO):
        assert await second.tick()
    round_ = await store.latest_daily_round(REF)
    assert round_.post_state == "sent" and round_.message_id == f"msg-{round_.id}"
    # the platform was asked: a question that went out before the kill is adopted, never sent again
    assert platform.finds == [(round_.id, "question")]
    assert [c.round_id for _, c in platform.posted] == [round_.id]
    assert any("is out already" in r.getMessage() for r in caplog.records) == (step == "kill-after")
    with pytest.raises(AlreadyPosted):
        await second.service.posting.post_now(ADMIN, REF)
    clock.set(NINE + dt.timedelta(days=1))
    assert await second.tick()
    assert [c.round_id for _, c in platform.reveals] == [round_.id]


@pytest.mark.parametrize("step", ["kill-before", "kill-after"])
async def test_a_kill_during_the_post_on_a_platform_that_cannot_be_asked_sends_it_again_once(store, step, caplog):
    clock, platform = FixedClock(NINE), PlainScriptedPlatform()
    first = await configure(store, clock, platform)
    platform.post_plan = [step]
    assert not await first.tick()
    clock.advance(minutes=3)
    with caplog.at_level(logging.WARNING):
        assert await Process(store, clock, platform).tick()
    assert (await store.latest_daily_round(REF)).post_state == "sent"
    assert len(platform.posted) == (2 if step == "kill-after" else 1)  # one duplicate at most, and it is logged
    assert any("may have gone out" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("plan", [["kill-before", "kill-before"], ["kill-before", "kill-after"]])
async def test_two_kills_in_a_row_neither_lose_the_day_nor_post_it_twice(store, plan):
    clock, platform = FixedClock(NINE), ScriptedPlatform()
    first = await configure(store, clock, platform)
    platform.post_plan = list(plan)
    assert not await first.tick()
    clock.advance(minutes=3)
    assert not await Process(store, clock, platform).tick()
    clock.advance(minutes=3)
    third = Process(store, clock, platform)
    assert await third.tick()
    round_ = await store.latest_daily_round(REF)
    # asked each time, never taken as posted without its message: it is out exactly once
    assert [c.round_id for _, c in platform.posted] == [round_.id]
    assert round_.post_state == "sent" and round_.message_id == f"msg-{round_.id}"
    assert platform.finds == [(round_.id, "question")] * 2
    clock.set(NINE + dt.timedelta(days=1))
    assert await third.tick()
    assert [c.round_id for _, c in platform.reveals] == [round_.id]


async def test_two_kills_in_a_row_on_a_platform_that_cannot_be_asked_still_post_the_day(store):
    clock, platform = FixedClock(NINE), PlainScriptedPlatform()
    first = await configure(store, clock, platform)
    platform.post_plan = ["kill-before", "kill-before"]
    assert not await first.tick()
    clock.advance(minutes=3)
    assert not await Process(store, clock, platform).tick()
    clock.advance(minutes=3)
    assert await Process(store, clock, platform).tick()
    round_ = await store.latest_daily_round(REF)
    assert len(platform.posted) == 1 and round_.post_state == "sent" and round_.message_id == f"msg-{round_.id}"


async def test_a_platform_that_cannot_be_asked_now_is_asked_again_later_never_guessed(store, caplog):
    clock, platform = FixedClock(NINE), ScriptedPlatform()
    first = await configure(store, clock, platform)
    platform.post_plan = ["kill-after"]
    assert not await first.tick()
    clock.advance(minutes=3)
    second = Process(store, clock, platform)
    platform.find_plan = ["fail", "fail"]
    with caplog.at_level(logging.WARNING):
        assert await second.tick()
    round_ = await store.latest_daily_round(REF)
    assert round_.post_state == "failed" and len(platform.posted) == 1
    assert any("could not ask fake whether its question went out" in r.getMessage() for r in caplog.records)
    clock.advance(seconds=10)
    assert await second.tick()
    assert (await store.latest_daily_round(REF)).post_state == "failed"  # asked again, backing off
    clock.advance(seconds=30)
    assert await second.tick()
    round_ = await store.latest_daily_round(REF)
    assert round_.post_state == "sent" and round_.message_id == f"msg-{round_.id}" and len(platform.posted) == 1
    assert len(platform.finds) == 3


async def test_a_platform_that_cannot_look_here_is_sent_again(store, caplog):
    clock, platform = FixedClock(NINE), ScriptedPlatform()
    first = await configure(store, clock, platform)
    platform.post_plan = ["kill-before"]
    assert not await first.tick()
    clock.advance(minutes=3)
    platform.find_plan = ["cannot"]
    with caplog.at_level(logging.WARNING):
        assert await Process(store, clock, platform).tick()
    assert len(platform.posted) == 1 and (await store.latest_daily_round(REF)).post_state == "sent"
    assert any("cannot ask fake whether its question went out" in r.getMessage() for r in caplog.records)


async def test_a_question_not_out_after_a_kill_past_the_grace_skips_the_day_and_tells_the_channel(store):
    clock, platform = FixedClock(NINE), ScriptedPlatform()
    first = await configure(store, clock, platform)
    platform.post_plan = ["kill-before"]
    assert not await first.tick()
    clock.advance(hours=2)  # every process was down past the grace
    second = Process(store, clock, platform)
    assert await second.tick()
    round_ = await store.latest_daily_round(REF)
    assert platform.posted == [] and round_.post_state == "gave_up"
    assert len(platform.notices) == 1 and "could not be posted" in platform.notices[0][1]
    assert (await second.service.posting.post_now(ADMIN, REF)).post_state == "sent"
    assert [c.round_id for _, c in platform.posted] == [round_.id]


async def test_a_question_out_before_a_kill_is_adopted_even_past_the_grace(store):
    clock, platform = FixedClock(NINE), ScriptedPlatform()
    first = await configure(store, clock, platform)
    platform.post_plan = ["kill-after"]
    assert not await first.tick()
    clock.advance(hours=2)
    assert await Process(store, clock, platform).tick()
    round_ = await store.latest_daily_round(REF)
    assert len(platform.posted) == 1 and round_.post_state == "sent" and round_.message_id == f"msg-{round_.id}"
    assert platform.notices == []


@pytest.mark.parametrize("step", ["kill-before", "kill-after"])
async def test_a_kill_during_the_reveal_leaves_it_to_the_next_process_which_reveals_it_once(store, step):
    clock, platform = FixedClock(NINE), ScriptedPlatform()
    first = await configure(store, clock, platform)
    assert await first.tick()
    round_ = await store.latest_daily_round(REF)
    platform.reveal_plan = [step]
    clock.set(NINE + dt.timedelta(days=1))
    assert not await first.tick()  # killed after the reveal committed, during its post
    assert (await store.get_round(round_.id)).revealed_at is not None
    clock.advance(minutes=3)
    second = Process(store, clock, platform)
    assert await second.tick()
    assert [c.round_id for _, c in platform.reveals] == [round_.id]
    assert (round_.id, "reveal") in platform.finds
    assert len(platform.posted) == 2  # the next day's question went out as well
    clock.advance(minutes=10)
    assert await second.tick()
    assert len(platform.reveals) == 1


async def test_a_question_whose_post_was_unsettled_at_its_reveal_is_found_and_revealed(store):
    clock, platform = FixedClock(NINE), ScriptedPlatform()
    first = await configure(store, clock, platform)
    platform.post_plan = ["kill-after"]  # out, but its message id never stored
    assert not await first.tick()
    round_ = await store.latest_daily_round(REF)
    second = Process(store, clock, platform)
    clock.set(NINE + dt.timedelta(days=1))  # nobody settled the post before its reveal
    assert await second.tick()
    got = await store.get_round(round_.id)
    assert got.revealed_at is not None and got.post_state == "sent" and got.message_id == f"msg-{round_.id}"
    assert [c.round_id for _, c in platform.reveals] == [round_.id]
    assert platform.reveals[0][1].question_message_id == f"msg-{round_.id}"
    assert [c.round_id for _, c in platform.posted].count(round_.id) == 1


class FlakyFinishStore(SqliteStore):
    """A store that refuses post outcomes while `down` (a PostgreSQL outage, a full disk)."""

    down = 0  # how many finish_posts calls fail

    async def finish_posts(self, items):  # type: ignore[no-untyped-def]
        if self.down:
            self.down -= 1
            raise ConnectionError("the store is down")
        await super().finish_posts(items)


async def test_a_message_id_the_store_refused_is_kept_and_written_when_it_is_back(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr("bot.daily.outcomes.STORE_RETRY_FIRST", 0.001)
    store = FlakyFinishStore(tmp_path / "f.db")
    await store.open()
    clock, platform = FixedClock(NINE), ScriptedPlatform()
    process = await configure(store, clock, platform)
    store.down = 3
    with caplog.at_level(logging.INFO):
        assert await process.tick()
    round_ = await store.latest_daily_round(REF)
    assert round_.post_state == "sent" and round_.message_id == f"msg-{round_.id}" and store.down == 0
    messages = [r.getMessage() for r in caplog.records if r.name == "bot.daily.outcomes"]
    assert [m for m in messages if "keeping them" in m] == [
        "could not store 1 post outcome(s) (ConnectionError); keeping them and writing them when the store is back"
    ]
    assert "stored 1 post outcome(s) kept while the store refused them" in messages
    clock.advance(minutes=5)
    assert await process.tick()
    assert len(platform.posted) == 1 and platform.finds == []
    await process.service.close()
    await store.close()


async def test_outcomes_the_store_still_refuses_at_shutdown_are_left_to_the_leases(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr("bot.daily.outcomes.STORE_RETRY_FIRST", 0.001)
    store = FlakyFinishStore(tmp_path / "f.db")
    await store.open()
    clock, platform = FixedClock(NINE), ScriptedPlatform()
    process = await configure(store, clock, platform)
    store.down = 10**6
    tick = asyncio.ensure_future(process.tick())
    await asyncio.wait_for(_until(lambda: platform.posted), 5)
    with caplog.at_level(logging.ERROR):
        await asyncio.wait_for(process.service.close(), 5)  # bounded: it does not wait for the store forever
    assert any("could not store 1 post outcome(s) before shutdown" in r.getMessage() for r in caplog.records)
    assert await tick  # the send's failure was handled and logged
    store.down = 0
    clock.advance(minutes=3)
    again = Process(store, clock, platform)
    assert await again.tick()  # the lease ran out: the platform is asked, the message adopted
    round_ = await store.latest_daily_round(REF)
    assert round_.post_state == "sent" and round_.message_id == f"msg-{round_.id}" and len(platform.posted) == 1
    await again.service.close()
    await store.close()


async def _until(predicate) -> None:  # type: ignore[no-untyped-def]
    for _ in range(5000):
        if predicate():
            return
        await asyncio.sleep(0.001)
    raise AssertionError("timed out")


@pytest.mark.parametrize("make_store", [InMemoryStore, lambda: SqliteStore(":memory:")])
async def test_post_now_racing_the_tick_on_60_channels_sends_60_posts(make_store):
    store = make_store()
    await store.open()
    clock, platform = FixedClock(NINE - dt.timedelta(hours=1)), FakePlatform()
    process = Process(store, clock, platform)
    refs = [ChannelRef("fake", "space-1", f"chan-{i}") for i in range(60)]
    for ref in refs:
        await process.service.channels.configure(ADMIN, ref)
    clock.set(NINE)
    other = Process(store, clock, platform)  # a second process ticking at the same time

    async def post_now(ref: ChannelRef) -> None:
        try:
            await process.service.posting.post_now(ADMIN, ref)
        except AlreadyPosted:
            pass

    await asyncio.gather(process.scheduler.tick(), other.scheduler.tick(), *(post_now(r) for r in refs))
    assert sorted(ref.channel_id for ref, _ in platform.posted) == sorted(r.channel_id for r in refs)
    clock.advance(minutes=5)
    await asyncio.gather(process.scheduler.tick(), other.scheduler.tick())
    assert len(platform.posted) == 60
    await process.service.close()
    await other.service.close()
    await store.close()


async def test_a_shutdown_does_not_wait_out_the_outcomes_retry_backoff():
    from bot.daily.outcomes import SendOutcomes
    from bot.daily.values import PostFinish

    class Down:
        calls = 0

        async def finish_posts(self, items):  # type: ignore[no-untyped-def]
            self.calls += 1
            raise ConnectionError("the store is down")

    store = Down()
    outcomes = SendOutcomes(store, retry_first=30.0)  # type: ignore[arg-type]
    submitted = asyncio.ensure_future(outcomes.post(PostFinish(1, "sent", message_id="m1")))
    await _until(lambda: store.calls == 1)
    loop = asyncio.get_running_loop()
    began = loop.time()
    await asyncio.wait_for(outcomes.close(), 5)
    assert loop.time() - began < 2 and store.calls == 3  # woken at once, then its few tries at shutdown
    with pytest.raises(ConnectionError):
        await submitted


class _Turns(FakePlatform):
    """Every call takes a few event-loop turns (as a network call yields) and is logged in order."""

    def __init__(self) -> None:
        super().__init__()
        self.log: list[tuple[str, str, int]] = []  # (kind, channel id, round id) in the order they went out

    async def post_question(self, ref, card):  # type: ignore[no-untyped-def]
        for _ in range(3):
            await asyncio.sleep(0)
        self.log.append(("post", ref.channel_id, card.round_id))
        return await super().post_question(ref, card)

    async def post_reveal(self, ref, card):  # type: ignore[no-untyped-def]
        for _ in range(3):
            await asyncio.sleep(0)
        self.log.append(("reveal", ref.channel_id, card.round_id))
        return await super().post_reveal(ref, card)


@pytest.mark.parametrize("make_store", [InMemoryStore, lambda: SqliteStore(":memory:")])
async def test_a_tick_posts_while_it_still_reveals_and_each_channel_gets_its_reveal_before_its_question(make_store):
    store, n = make_store(), 300  # enough that the reveals cannot all be out before the first post's claim
    await store.open()
    clock, platform = FixedClock(NINE - dt.timedelta(hours=1)), _Turns()
    process = Process(store, clock, platform)
    refs = [ChannelRef("fake", f"space-{i % 4}", f"chan-{i}") for i in range(n)]
    for ref in refs:
        await process.service.channels.configure(ADMIN, ref)
    clock.set(NINE)
    await process.scheduler.tick()
    yesterday = {channel: round_id for kind, channel, round_id in platform.log if kind == "post"}
    assert len(yesterday) == n
    platform.log.clear()
    clock.set(NINE + dt.timedelta(days=1))  # every channel: yesterday's reveal and today's post are due
    await process.scheduler.tick()
    kinds = [kind for kind, _, _ in platform.log]
    assert kinds.count("post") == n and kinds.count("reveal") == n
    last_reveal = max(i for i, kind in enumerate(kinds) if kind == "reveal")
    assert kinds.index("post") < last_reveal  # posts began before the reveals were all out
    at = {(kind, channel): i for i, (kind, channel, _) in enumerate(platform.log)}
    for channel, round_id in yesterday.items():
        assert ("reveal", channel, round_id) in platform.log
        assert at[("reveal", channel)] < at[("post", channel)]  # a channel's reveal before its next question
    await process.service.close()
    await store.close()


@pytest.mark.parametrize(("role", "size"), [("delivery", 50), ("all", 10), ("interactive", 10)])
def test_a_delivery_process_cuts_its_tick_in_larger_batches(role, size):
    batching = batching_of(Settings(role=role, database_url="postgresql://db.example/studybot"))
    assert batching.size == size
    assert batching.units * batching.size >= 30  # enough in flight to keep a lane's platform calls going


@pytest.mark.parametrize("batching", [ANSWERING_BATCHES, DELIVERY_BATCHES])
async def test_a_tick_reveals_in_batches_of_its_size_and_each_reveal_goes_before_the_channel_s_question(batching):
    store, n = SqliteStore(":memory:"), 120  # 12 spaces of 10 channels, scheduled interleaved
    await store.open()
    sizes: list[list[str]] = []  # the spaces of each batch's rounds
    reveal_due_rounds = store.reveal_due_rounds

    async def recorded(round_ids, *args, **kwargs):  # type: ignore[no-untyped-def]
        done = await reveal_due_rounds(round_ids, *args, **kwargs)
        sizes.append([item.round.ref.space_id for item in done])
        return done

    store.reveal_due_rounds = recorded  # type: ignore[method-assign]
    clock, platform = FixedClock(NINE - dt.timedelta(hours=1)), _Turns()
    process = Process(store, clock, platform, batching)
    for i in range(n):
        await process.service.channels.configure(ADMIN, ChannelRef("fake", f"space-{i % 12:02d}", f"chan-{i}"))
    clock.set(NINE)
    await process.scheduler.tick()
    clock.set(NINE + dt.timedelta(days=1))
    platform.log.clear()
    await process.scheduler.tick()
    assert sum(map(len, sizes)) == n and max(map(len, sizes)) == batching.size  # none larger, some as large
    at = {(kind, channel): i for i, (kind, channel, _) in enumerate(platform.log)}
    assert all(at[("reveal", f"chan-{i}")] < at[("post", f"chan-{i}")] for i in range(n))
    await process.service.close()
    await store.close()


@pytest.mark.parametrize("make_store", [InMemoryStore, lambda: SqliteStore(":memory:")])
async def test_a_tick_reveals_in_batches_that_hold_at_most_its_answers(make_store):
    """A batch's memory grows with its answers: the lane cuts batches by answers too, a round with more answers
    than a batch may hold is revealed alone, and each reveal still goes before the channel's question."""
    store, n, batching = make_store(), 24, Batching(size=10, units=2, answers=40)
    await store.open()
    batches: list[list[int]] = []  # the answers of each batch's rounds
    reveal_due_rounds = store.reveal_due_rounds

    async def recorded(round_ids, *args, **kwargs):  # type: ignore[no-untyped-def]
        done = await reveal_due_rounds(round_ids, *args, **kwargs)
        batches.append([len(item.answers) for item in done])
        return done

    store.reveal_due_rounds = recorded  # type: ignore[method-assign]
    clock, platform = FixedClock(NINE - dt.timedelta(hours=1)), _Turns()
    process = Process(store, clock, platform, batching)
    refs = [ChannelRef("fake", f"space-{i % 3}", f"chan-{i}") for i in range(n)]
    for ref in refs:
        await process.service.channels.configure(ADMIN, ref)
    clock.set(NINE)
    await process.scheduler.tick()
    clock.set(NINE + dt.timedelta(minutes=5))
    answers = {ref.channel_id: (i % 4) * 9 + (45 if i == 3 else 0) for i, ref in enumerate(refs)}  # 0 to 72
    for ref in refs:
        for user in range(answers[ref.channel_id]):
            await process.service.answers.answer_in_channel(ref, f"user-{user}", user % 4)
    clock.set(NINE + dt.timedelta(days=1))
    platform.log.clear()
    await process.scheduler.tick()
    assert sorted(a for batch in batches for a in batch) == sorted(answers.values())  # each round revealed once
    assert all(len(batch) == 1 or sum(batch) <= batching.answers for batch in batches)
    assert [72] in batches and max(map(len, batches)) > 1  # cut by answers, yet not one round a batch
    at = {(kind, channel): i for i, (kind, channel, _) in enumerate(platform.log)}
    assert all(at[("reveal", ref.channel_id)] < at[("post", ref.channel_id)] for ref in refs)
    await process.service.close()
    await store.close()


async def test_a_paced_tick_starts_every_post_and_reveal_at_the_rate_and_still_posts_them_all():
    """STUDYBOT_DELIVERY_RATE: a delivery process's tick starts its reveal batches and post groups at most `rate`
    items a second (a fake monotonic clock, moved by the pace's own waits): every post and reveal goes through
    the pace, none is dropped, and the fan-out is spread over the time they take at that rate."""
    store, n, rate = InMemoryStore(), 120, 0.5  # slow enough that a tick outlasts a claim's lease
    await store.open()
    clock, platform = FixedClock(NINE - dt.timedelta(hours=1)), _Turns()
    process = Process(store, clock, platform, replace(DELIVERY_BATCHES, rate=rate))
    lease = process.service.context.send_lease
    elapsed, started = [0.0], []

    async def sleep(seconds: float) -> None:
        elapsed[0] += seconds
        clock.set(clock.now() + dt.timedelta(seconds=seconds))  # the bot's clock moves on as the pace waits
        await asyncio.sleep(0)  # the others go on meanwhile, as on a real wait

    leases: list[dt.timedelta] = []  # each post claim's lease, from when it was taken
    claim_due_posts = store.claim_due_posts

    async def claimed(now, lease_until, *args):  # type: ignore[no-untyped-def]
        leases.append(lease_until - clock.now())
        return await claim_due_posts(now, lease_until, *args)

    store.claim_due_posts = claimed  # type: ignore[method-assign]

    pace = process.service.delivery.pace = Pace(rate, monotonic=lambda: elapsed[0], sleep=sleep)
    assert process.service.delivery.batching.rate == rate
    take = pace.take

    async def counted(items: int) -> None:
        started.append(items)
        await take(items)

    pace.take = counted  # type: ignore[method-assign]
    refs = [ChannelRef("fake", f"space-{i % 12:02d}", f"chan-{i}") for i in range(n)]
    for ref in refs:
        await process.service.channels.configure(ADMIN, ref)
    for day, items in ((0, n), (1, 2 * n)):  # the first day posts; the next reveals and posts
        clock.set(NINE + dt.timedelta(days=day))
        platform.log.clear()
        leases.clear()
        started.clear()
        elapsed[0] += 86_400.0  # a day between the ticks
        began = elapsed[0]
        await process.scheduler.tick()
        assert sorted(c for kind, c, _ in platform.log if kind == "post") == sorted(r.channel_id for r in refs)
        assert len(platform.log) == items and sum(started) == items and max(started) <= DELIVERY_BATCHES.size
        # the last start came after all the others' items at `rate` a second
        assert elapsed[0] - began == pytest.approx((items - started[-1]) / rate)
        # the tick outlasts a lease, yet every claim gets its whole lease from when it is taken
        assert elapsed[0] - began > lease.total_seconds() and leases and set(leases) == {lease}
    await process.service.close()
    await store.close()


async def test_a_tick_whose_answer_count_fails_still_reveals_and_posts_every_channel(caplog):
    store, n = InMemoryStore(), 12
    await store.open()

    async def failing(round_ids):  # type: ignore[no-untyped-def]
        raise ConnectionError("the database went away")

    clock, platform = FixedClock(NINE - dt.timedelta(hours=1)), _Turns()
    process = Process(store, clock, platform, Batching(size=5, units=2, answers=10))
    refs = [ChannelRef("fake", f"space-{i % 2}", f"chan-{i}") for i in range(n)]
    for ref in refs:
        await process.service.channels.configure(ADMIN, ref)
    clock.set(NINE)
    await process.scheduler.tick()
    store.answer_counts = failing  # type: ignore[method-assign]
    clock.set(NINE + dt.timedelta(days=1))
    platform.log.clear()
    with caplog.at_level(logging.WARNING, logger="bot.daily.delivery"):
        await process.scheduler.tick()
    kinds = sorted((kind, channel) for kind, channel, _ in platform.log)
    assert kinds == sorted([("post", r.channel_id) for r in refs] + [("reveal", r.channel_id) for r in refs])
    assert any("counting the answers of" in r.getMessage() for r in caplog.records)
    await process.service.close()
    await store.close()
