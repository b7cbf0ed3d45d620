"""Issue 28 item 11: a stop while a tick is running (SIGTERM during the 09:00 fan-out) is not an error. The
tick in flight is cancelled where it is, with no ERROR record and no traceback, and what it had claimed is
leased in the store: the next start takes it up once the lease ends, and posts the day's question once."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import random
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bot.app.bootstrap import bootstrap
from bot.app.scheduler import DailyScheduler
from bot.kernel.cards import QuestionCard, RevealCard
from bot.kernel.context import DEFAULT_SEND_LEASE as SEND_LEASE
from bot.kernel.values import Actor, ChannelRef
from bot.settings import ConfigChange
from bot.store.sqlite import SqliteStore
from tests.support.fakes import REF, FakePlatform, FixedClock, make_bank

ADMIN = Actor("admin", True)
POST_AT = dt.datetime(2026, 12, 8, 9, 0, tzinfo=dt.UTC)


@dataclass
class HangingPlatform(FakePlatform):
    """A platform whose first question send never returns (a slow API at 09:00), until it is cancelled."""

    entered: asyncio.Event = field(default_factory=asyncio.Event)
    cancelled: bool = False

    async def post_question(self, ref: ChannelRef, card: QuestionCard) -> str:
        self.entered.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        raise AssertionError("unreachable")


async def test_a_stop_during_a_send_is_no_error_and_the_claim_is_taken_up_after_its_lease(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = SqliteStore(tmp_path / "bot.db")
    await store.open()
    clock = FixedClock(POST_AT - dt.timedelta(hours=1))
    hanging = HangingPlatform()
    service = bootstrap(store, make_bank(), clock, {"fake": hanging}, rng=random.Random(1))
    await service.channels.configure(ADMIN, REF, ConfigChange.of(post_time=dt.time(9, 0), timezone="UTC"))
    caplog.set_level(logging.DEBUG)  # every logger, apscheduler's included
    scheduler = DailyScheduler(service, clock, tick=dt.timedelta(milliseconds=20))
    await scheduler.start()  # its catch-up tick: nothing is due at 08:00
    clock.set(POST_AT + dt.timedelta(seconds=5))
    await asyncio.wait_for(hanging.entered.wait(), 5)  # the interval job's tick is inside the send
    await scheduler.stop()  # what `studybot` does on SIGTERM (bot.app.cli.run_bot), before the store closes
    await service.close()
    bad = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info or r.stack_info]
    assert bad == [], [f"{r.name}: {r.getMessage()}" for r in bad]
    assert "Traceback" not in caplog.text and "CancelledError" not in caplog.text
    assert hanging.cancelled and not scheduler.scheduler.running  # the send in flight ended with the tick
    [claimed] = await store.open_daily_rounds(REF)
    assert claimed.local_date == POST_AT.date() and not claimed.is_posted

    # the next start, on the same database: the claim is this process's until its lease ends, then taken up
    platform = FakePlatform()
    again = bootstrap(store, make_bank(), clock, {"fake": platform}, rng=random.Random(2))
    restarted = DailyScheduler(again, clock)
    clock.set(POST_AT + dt.timedelta(seconds=30))
    await restarted.tick()
    assert platform.posted == []  # still leased
    clock.set(POST_AT + dt.timedelta(seconds=5) + SEND_LEASE + dt.timedelta(seconds=1))
    await restarted.tick()
    await restarted.tick()
    assert [card.round_id for _, card in platform.posted] == [claimed.id]  # posted, once
    [posted] = await store.open_daily_rounds(REF)
    assert posted.id == claimed.id and posted.is_posted
    await restarted.stop()
    await again.close()
    await store.close()


@dataclass
class HangingReveals(FakePlatform):
    """A platform whose reveal posts never return, until they are cancelled."""

    entered: asyncio.Event = field(default_factory=asyncio.Event)

    async def post_reveal(self, ref: ChannelRef, card: RevealCard) -> str | None:
        self.entered.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


async def test_a_short_send_lease_given_at_construction_is_the_one_claims_hold(tmp_path: Path) -> None:
    """Issue 30 item 5: STUDYBOT_SEND_LEASE_SECONDS reaches the posts' and reveals' claims through the features'
    construction (bootstrap's send_lease), not a module constant: with a 10 s lease, what a stopped process
    had claimed is taken up 11 s later (the default lease would hold it for two minutes)."""
    lease = dt.timedelta(seconds=10)
    store = SqliteStore(tmp_path / "bot.db")
    await store.open()
    clock = FixedClock(POST_AT - dt.timedelta(hours=1))
    hanging = HangingPlatform()
    service = bootstrap(store, make_bank(), clock, {"fake": hanging}, rng=random.Random(1), send_lease=lease)
    assert service.context.send_lease == lease
    await service.channels.configure(
        ADMIN, REF, ConfigChange.of(post_time=dt.time(9, 0), timezone="UTC", answer_window=dt.timedelta(hours=1))
    )
    scheduler = DailyScheduler(service, clock, tick=dt.timedelta(milliseconds=20))
    await scheduler.start()
    clock.set(POST_AT)
    await asyncio.wait_for(hanging.entered.wait(), 5)
    await scheduler.stop()
    await service.close()

    platform = HangingReveals()
    again = bootstrap(store, make_bank(), clock, {"fake": platform}, rng=random.Random(2), send_lease=lease)
    restarted = DailyScheduler(again, clock, tick=dt.timedelta(milliseconds=20))
    clock.set(POST_AT + lease - dt.timedelta(seconds=1))
    await restarted.tick()
    assert platform.posted == []  # leased for 10 s
    clock.set(POST_AT + lease + dt.timedelta(seconds=1))
    await restarted.tick()
    [posted] = await store.open_daily_rounds(REF)
    assert [card.round_id for _, card in platform.posted] == [posted.id] and posted.is_posted

    # the reveal's post is claimed with the same lease: stopped while it hangs, it is taken up 11 s later
    revealed_at = POST_AT + dt.timedelta(hours=1)
    clock.set(revealed_at)
    ticking = asyncio.ensure_future(restarted.tick())
    await asyncio.wait_for(platform.entered.wait(), 5)
    ticking.cancel()  # the process stops while the reveal is at the platform
    await asyncio.wait({ticking}, timeout=5)
    await again.close()
    third = FakePlatform()
    last = bootstrap(store, make_bank(), clock, {"fake": third}, rng=random.Random(3), send_lease=lease)
    clock.set(revealed_at + lease - dt.timedelta(seconds=1))
    await DailyScheduler(last, clock).tick()
    assert third.reveals == []
    clock.set(revealed_at + lease + dt.timedelta(seconds=1))
    await DailyScheduler(last, clock).tick()
    assert [card.round_id for _, card in third.reveals] == [posted.id]
    await last.close()
    await store.close()


async def test_a_stop_just_as_the_interval_job_fires_is_no_error(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The interval job's timer has fired (its callback is queued) when the stop comes: no tick is handed to
    a scheduler that is shutting down (which would cancel it before it began, and APScheduler logs that as an
    error), and nothing is logged as an error."""
    store = SqliteStore(tmp_path / "bot.db")
    await store.open()
    clock = FixedClock(POST_AT)
    service = bootstrap(store, make_bank(), clock, {"fake": FakePlatform()}, rng=random.Random(1))
    caplog.set_level(logging.DEBUG)
    scheduler = DailyScheduler(service, clock, tick=dt.timedelta(hours=1))
    await scheduler.start()
    for job in scheduler.scheduler.get_jobs():
        job.modify(next_run_time=dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1))
    asyncio.get_running_loop().call_soon(scheduler.scheduler._process_jobs)  # the job's timer, just fired
    await scheduler.stop()
    for _ in range(5):  # the loop runs what the stop and the timer queued
        await asyncio.sleep(0)
    await service.close()
    await store.close()
    bad = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert bad == [], [f"{r.name}: {r.getMessage()}" for r in bad]
