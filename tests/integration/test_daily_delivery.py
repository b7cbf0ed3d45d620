"""Posts and reveals are durable work (issue 10, observation 5): a failed platform call is retried with
backoff, a process killed at any step of a post or a reveal leaves work another process finishes (once, or
with one logged duplicate at most), a failed reveal never blocks the next post, and post-now racing the
scheduled post sends each round once. Injected clocks; a "kill" is an exception no handler catches."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import random

import pytest

from bot.app.bootstrap import bootstrap
from bot.app.scheduler import DailyScheduler
from bot.kernel.errors import AlreadyPosted, NothingOpen
from bot.kernel.values import Actor, ChannelRef
from bot.store.sqlite import SqliteStore
from tests.support.fakes import REF, FakePlatform, FixedClock, make_bank
from tests.support.memory_store import InMemoryStore

ADMIN = Actor("admin", True)
NINE = dt.datetime(2026, 12, 8, 9, 0, tzinfo=dt.UTC)


class Killed(BaseException):
    """The process dies here (like kill -9): no `except Exception` handler sees it."""


class ScriptedPlatform(FakePlatform):
    """A platform whose calls can fail (HTTP 500) or kill the process before or after the send."""

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
        message_id = await super().post_question(ref, card)
        if step == "kill-after":
            raise Killed
        return message_id

    async def post_reveal(self, ref, card):  # type: ignore[no-untyped-def]
        step = self.reveal_plan.pop(0) if self.reveal_plan else "ok"
        if step == "fail":
            raise ConnectionError("HTTP 500")
        if step == "kill-before":
            raise Killed
        result = await super().post_reveal(ref, card)
        if step == "kill-after":
            raise Killed
        return result


class Process:
    """One bot process on a shared store: its own service, scheduler and (shared) platform."""

    def __init__(self, store, clock: FixedClock, platform: FakePlatform) -> None:  # type: ignore[no-untyped-def]
        self.service = bootstrap(store, make_bank(), clock, {"fake": platform}, rng=random.Random(4))
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


async def test_a_post_failing_past_the_grace_gives_up(store, caplog):
    clock, platform = FixedClock(NINE), ScriptedPlatform()
    process = await configure(store, clock, platform)
    platform.post_plan = ["fail"] * 100
    with caplog.at_level(logging.ERROR):
        for _ in range(2 * 60 * 2):  # two hours of 30 s ticks
            assert await process.tick()
            clock.advance(seconds=30)
    assert platform.posted == [] and (await store.latest_daily_round(REF)).post_state == "gave_up"
    assert any("gave up posting round" in r.getMessage() for r in caplog.records)
    tries = 100 - len(platform.post_plan)
    assert 5 <= tries <= 30  # backoff, not a retry every tick


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
async def test_a_kill_during_the_post_leaves_it_to_the_next_process(store, step, caplog):
    clock, platform = FixedClock(NINE), ScriptedPlatform()
    first = await configure(store, clock, platform)
    platform.post_plan = [step]
    assert not await first.tick()  # killed mid-send
    clock.advance(seconds=30)
    second = Process(store, clock, platform)
    assert await second.tick()  # the first process's claim is still leased
    assert len(platform.posted) == (1 if step == "kill-after" else 0)
    clock.advance(minutes=2)
    with caplog.at_level(logging.WARNING):
        assert await second.tick()
    round_ = await store.latest_daily_round(REF)
    assert round_.post_state == "sent"
    # the send may have gone out before the kill: one duplicate at most, and it is logged
    assert len(platform.posted) == (2 if step == "kill-after" else 1)
    assert any("may have gone out" in r.getMessage() for r in caplog.records)
    with pytest.raises(AlreadyPosted):
        await second.service.posting.post_now(ADMIN, REF)
    clock.set(NINE + dt.timedelta(days=1))
    assert await second.tick()
    assert [c.round_id for _, c in platform.reveals] == [round_.id]


async def test_a_second_kill_after_a_doubtful_send_is_not_sent_a_third_time(store):
    clock, platform = FixedClock(NINE), ScriptedPlatform()
    first = await configure(store, clock, platform)
    platform.post_plan = ["kill-after", "kill-after"]
    assert not await first.tick()
    clock.advance(minutes=3)
    assert not await Process(store, clock, platform).tick()
    clock.advance(minutes=3)
    assert await Process(store, clock, platform).tick()
    assert len(platform.posted) == 2  # the original and its one duplicate
    assert (await store.latest_daily_round(REF)).is_posted  # taken as posted: it is revealed at its promise


@pytest.mark.parametrize("step", ["kill-before", "kill-after"])
async def test_a_kill_during_the_reveal_leaves_it_to_the_next_process(store, step):
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
    reveals = [c.round_id for _, c in platform.reveals]
    assert reveals == ([round_.id] if step == "kill-before" else [round_.id, round_.id])
    assert len(platform.posted) == 2  # the next day's question went out as well
    clock.advance(minutes=10)
    assert await second.tick()
    assert len(platform.reveals) == len(reveals)


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
