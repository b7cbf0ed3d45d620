"""Daily posts and reveals as durable work in the store, driven by one small tick in every process.

Each channel row carries its next due post (a UTC instant from its local time, weekdays and IANA zone) and
each daily round its promised reveal instant and the state of its question's and reveal's delivery. Every
process runs the same tick (an APScheduler interval job every TICK seconds, on the clock's whole multiples of
TICK, so at each whole minute; the clock injected): it claims due work atomically in the store, does it
through the Features and records it done. A configuration change through any process moves the stored due
instant, so it takes effect everywhere within one tick; a process that dies holding a claim loses it when its
lease runs out, and another process takes over.

Live games (bot.live) are stored with each step's due instant and run by the same tick; as their steps come
seconds apart, a process that knows a step is due before its next tick also sets a timer for it (and a game
started or stopped here wakes it at once). A game started in another process is found by a watch that looks
in the store every LIVE_WATCH seconds, beside the tick, so a long tick (the 09:00 fan-out) holds no game back.
Any process may take any step; the store decides which.

Discord shards claim only their guilds: `owns` (adapters.discord.sharding.channel_owner) is a SpaceFilter the store
turns into SQL; each process claims only the platforms it runs.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace

from apscheduler.schedulers.asyncio import AsyncIOScheduler

from bot.features import Features
from bot.kernel.clock import Clock, RefreshedClock
from bot.kernel.priority import background
from bot.kernel.values import ChannelRef, SpaceFilter

log = logging.getLogger(__name__)

DEFAULT_MISFIRE_GRACE = dt.timedelta(hours=1)
TICK = dt.timedelta(seconds=15)  # at most 30 s: config changes take effect within one tick
TICK_JOB_ID = "studybot:tick"


def until_next_beat(now: dt.datetime, interval: dt.timedelta) -> dt.timedelta:
    """From `now` to the clock's next whole multiple of `interval` (counted from the Unix epoch), in
    (0, interval]. The tick runs on those instants: with an interval that divides a minute (the default
    15 s: :00, :15, :30 and :45), a tick starts at every whole minute, so a question due at 09:00 is
    claimed at 09:00:00 rather than up to one interval later, whenever the process started."""
    step = interval.total_seconds()
    return dt.timedelta(seconds=step - now.timestamp() % step)


STEP_SLACK = dt.timedelta(seconds=1)  # the interval job's next run further ahead than interval + this: re-armed
STOP_WAIT = 10.0  # seconds a stop waits for a cancelled tick to unwind (its open transactions roll back)
LIVE_MIN_WAIT = 0.2  # seconds: the shortest live timer (a step due now, or leased by another process)
LIVE_WATCH = 5.0  # seconds (elapsed): how often a ticking process looks in the store for live steps due


class DailyScheduler:
    """Runs the service's due work every tick; `owns` limits it to this process's spaces (shards)."""

    def __init__(
        self,
        service: Features,
        clock: Clock,
        *,
        misfire_grace: dt.timedelta = DEFAULT_MISFIRE_GRACE,
        owns: Callable[[ChannelRef], bool] | None = None,
        scheduler: AsyncIOScheduler | None = None,
        tick: dt.timedelta = TICK,
        elapsed: Callable[[], float] | None = None,
        watch_sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.service = service
        self.clock = clock
        self.misfire_grace = misfire_grace
        service.context.grace = misfire_grace
        self.owns = owns or (lambda ref: True)
        self.scheduler = scheduler or AsyncIOScheduler(timezone=dt.UTC)
        self.interval = tick
        self._lock = asyncio.Lock()
        self.recaps = service.recaps
        self._stopping = False
        self._ticking: asyncio.Task[object] | None = None  # the interval job's tick in flight
        # this process's running span, beaten once per tick (`elapsed`: its elapsed-time clock, for tests)
        self.heartbeat = service.delivery.heartbeat(elapsed)
        self._beat_failed = False
        self._started = False
        self._live_lock = asyncio.Lock()
        self._live_timer: asyncio.Handle | None = None  # the next live step due before the next tick
        self._live_run: asyncio.Task[None] | None = None  # a timer's live run in flight
        self._live_again = False  # woken while that run was in flight: it runs once more
        self._commands_only = False  # an interactive process: no tick and no live timers (serve_commands)
        self._watchdog: asyncio.Task[None] | None = None  # re-arms the interval job after a clock step back
        self._live_watch: asyncio.Task[None] | None = None  # looks for live steps every LIVE_WATCH seconds
        self._watch_sleep = watch_sleep  # the live watch's wait (elapsed time; for tests, a fake)
        service.live.wake = self.wake_live

    @property
    def spaces(self) -> SpaceFilter:
        """The work this process may claim: its running platforms, and its shards of Discord."""
        base = self.owns if isinstance(self.owns, SpaceFilter) else SpaceFilter()
        return replace(base, platforms=tuple(sorted(self.service.context.platforms)))

    def serve_commands(self) -> None:
        """Instead of `start` in an interactive process (STUDYBOT_ROLE=interactive): no tick, but a live game
        started or stopped here has the step its command made due (the first question, the final table) done at
        once, as a reply would be; its later steps wait for the delivery processes' timers."""
        self._started = True
        self._commands_only = True

    async def start(self) -> None:
        """Schedule channels saved without a next post, run a first tick (start-up catch-up), then tick."""
        self._started = True
        await self.service.posting.schedule_unscheduled(self.spaces)
        await self.recaps.schedule_unscheduled(self.spaces)
        if self._live_watch is None or self._live_watch.done():
            self._live_watch = asyncio.ensure_future(self._watch_live())
        await self.tick()
        if not self.scheduler.running:
            self.scheduler.start()
        # APScheduler counts in the host's time; the phase comes from the injected clock (on PostgreSQL the
        # database's), so every process ticks on the same instants of it
        first = dt.datetime.now(dt.UTC) + until_next_beat(self.clock.now(), self.interval)
        self.scheduler.add_job(
            self._scheduled_tick,
            "interval",
            seconds=self.interval.total_seconds(),
            start_date=first,
            id=TICK_JOB_ID,
            replace_existing=True,
            coalesce=True,
            max_instances=1,
            misfire_grace_time=None,
        )
        if self._watchdog is None or self._watchdog.done():
            self._watchdog = asyncio.ensure_future(self._watch_clock_steps())

    async def _watch_clock_steps(self) -> None:
        """Once an interval (an asyncio sleep: elapsed time, which a clock step leaves alone), re-arm the
        interval job if the host's clock stepped back (rearm_after_step_back)."""
        while not self._stopping:
            await asyncio.sleep(self.interval.total_seconds())
            try:
                self.rearm_after_step_back()
            except Exception:  # noqa: BLE001 - the watch goes on; the next look may work
                log.exception("checking the tick's timer for a clock step failed")

    def rearm_after_step_back(self) -> bool:
        """APScheduler counts in the host's clock: after a tick it sets the next one an interval after that
        tick's instant, so a clock stepped back (NTP correcting a fast clock, a VM snapshot restored) would hold
        the tick back for as long as the step, and every post and reveal with it. The next run is never
        more than an interval ahead otherwise; when it is, it is moved to the next beat. True if it was."""
        if self._stopping or not self.scheduler.running:
            return False
        job = self.scheduler.get_job(TICK_JOB_ID)
        now = dt.datetime.now(dt.UTC)
        if job is None or job.next_run_time is None or job.next_run_time <= now + self.interval + STEP_SLACK:
            return False
        at = now + until_next_beat(self.clock.now(), self.interval)
        log.warning(
            "the host's clock stepped back (the next tick was %.0f s away): it is moved to %s",
            (job.next_run_time - now).total_seconds(),
            at.isoformat(timespec="seconds"),
        )
        job.modify(next_run_time=at)
        return True

    async def _scheduled_tick(self) -> None:
        """The interval job: a tick, which a stop may cancel where it is; that is no error (see stop)."""
        if self._stopping:
            return
        self._ticking = asyncio.current_task()
        try:
            await self.tick()
        except asyncio.CancelledError:
            if not self._stopping:
                raise
            log.info("stopped during a tick: the work it had claimed is taken up again when its leases end")
        finally:
            self._ticking = None

    def shutdown(self) -> None:
        """Tick no more, at once; a tick in flight is cancelled (`stop` also waits until it has unwound)."""
        self._stopping = True
        for watch in (self._watchdog, self._live_watch):
            if watch is not None:
                watch.cancel()
        if self._live_timer is not None:
            self._live_timer.cancel()
            self._live_timer = None
        if self._live_run is not None and not self._live_run.done():
            self._live_run.cancel()
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)  # cancels the job's task: a tick in flight

    async def stop(self) -> None:
        """Tick no more. A tick in flight (a SIGTERM during the 09:00 fan-out) is cancelled where it is and
        this waits until it has unwound (its transactions rolled back): a stop is not an error. Whatever it
        had claimed (a due channel, a send) stays leased in the store, and another process, or this one's
        next start, takes it up when the lease ends; a send that may have gone out is settled by asking the
        platform (bot.daily.outcomes.earlier_send)."""
        self._stopping = True
        if self.scheduler.running:
            self.scheduler.pause()
        # a tick the interval job has just been handed (its task made, not yet begun) begins now, sees the
        # stop and returns: shutting the scheduler down first would cancel it unbegun, which APScheduler logs
        # as an error
        await asyncio.sleep(0)
        ticking, live = self._ticking, self._live_run
        self.shutdown()
        if ticking is not None and not ticking.done():
            ticking.cancel()
            await asyncio.wait({ticking}, timeout=STOP_WAIT)
        if live is not None and not live.done():
            await asyncio.wait({live}, timeout=STOP_WAIT)

    async def tick(self) -> None:
        """Claim and do whatever is due now; never raises (a failed item is retried on a later tick). All of
        it is background work: answers and reads go first in the store's queue (bot.priority)."""
        async with self._lock:
            with background():
                await self._tick()

    async def _tick(self) -> None:
        await self._beat()
        try:
            await self.service.delivery.run_due_work(self.spaces)
        except Exception as exc:
            self._failed(exc, "scheduler tick failed")
        try:  # after the day's reveals and posts, so the week's last round is in its recap
            await self.recaps.run_due(self.spaces)
        except Exception as exc:
            self._failed(exc, "weekly recaps failed")
        try:
            await self.service.practice.write_card_updates()
        except Exception as exc:
            self._failed(exc, "practice card updates failed")
        try:  # after the day's posts, so a reminder knows about today's question
            await self.service.reminders.run_due(self.spaces)
        except Exception as exc:
            self._failed(exc, "reminders failed")
        try:
            await self._run_live()
        except Exception as exc:
            self._failed(exc, "live games failed")
        try:  # last: the day's reveals' card updates wait for everything that is due at an instant
            await self.service.practice.write_round_card_updates()
        except Exception as exc:
            self._failed(exc, "daily card updates failed")

    def _failed(self, exc: Exception, what: str) -> None:
        """A store outage is told once by the process's StoreOutage (not once per tick); anything else is
        logged with its traceback. The work stays due in the store either way: a later tick retries it."""
        if not self.service.context.outage.failed(exc):
            log.error(what, exc_info=exc)

    async def _beat(self) -> None:
        """Before the tick's decisions: the database's time read again (PostgreSQL; bot.kernel.clock), and this
        process's running span recorded (bot.daily.uptime). A failure is logged once until a beat works again."""
        clock = self.service.context.clock
        if isinstance(clock, RefreshedClock):
            await clock.refresh()  # never raises: a failed read keeps the last one, carried forward
        try:
            await self.heartbeat.beat(self.spaces.platforms or ())
        except Exception as exc:
            # a store outage is told once by the process's StoreOutage; anything else once until a beat works
            if not self.service.context.outage.failed(exc) and not self._beat_failed:
                log.warning("could not record that this process is running (%s)", type(exc).__name__)
            self._beat_failed = True
        else:
            self._beat_failed = False

    async def _run_live(self) -> None:
        """The live games' due steps (one run at a time in this process), then a timer for the next one."""
        async with self._live_lock:
            with background():
                next_due = await self.service.live.run_due(self.spaces)
        self._arm_live(next_due)

    def _arm_live(self, at: dt.datetime | None) -> None:
        """Wake for the next live step when it is due before the next tick (only once started, and never in an
        interactive process: it has no tick)."""
        if not self._started or self._stopping or self._commands_only:
            return
        if self._live_timer is not None:
            self._live_timer.cancel()
            self._live_timer = None
        if at is None:
            return
        delay = max(LIVE_MIN_WAIT, (at - self.clock.now()).total_seconds())
        if delay < self.interval.total_seconds():
            self._live_timer = asyncio.get_running_loop().call_later(delay, self._fire_live)

    async def _watch_live(self) -> None:
        """Every LIVE_WATCH seconds, the live games' due steps, beside whatever the tick is doing. A game
        started in another process (an interactive one) is known here only from the store: this sees its
        next step within that time, also while this process's 09:00 tick spends a minute posting, and arms
        its timer. A run in flight (a timer's) is not doubled: it runs once more instead."""
        while not self._stopping:
            await self._watch_sleep(LIVE_WATCH)
            self._fire_live()

    def _fire_live(self) -> None:
        if self._live_timer is not None:  # a watch's look or a wake comes before the armed timer: the run re-arms
            self._live_timer.cancel()  # (a no-op when it is that timer firing)
            self._live_timer = None
        if self._stopping:
            return
        if self._live_run is not None and not self._live_run.done():
            self._live_again = True  # the run in flight may have read the store before this news
            return
        self._live_run = asyncio.ensure_future(self._live_logged())

    async def _live_logged(self) -> None:
        again = True
        while again and not self._stopping:
            self._live_again = False
            try:
                await self._run_live()
            except Exception as exc:  # a store outage is told once (the watch runs every LIVE_WATCH s)
                self._failed(exc, "live games failed")
            again = self._live_again

    def wake_live(self) -> None:
        """A game was started or stopped in this process: run its due steps now, not at the next tick."""
        if not self._started or self._stopping:
            return
        if self._live_timer is not None:
            self._live_timer.cancel()
        self._live_timer = asyncio.get_running_loop().call_soon(self._fire_live)

    async def catch_up(self) -> None:
        """What start-up does after downtime: reveal every round whose promise passed, post what is due
        within the grace, tell channels about days missed beyond it. The same as a tick."""
        await self.tick()
