"""Daily posts on APScheduler 3.x: one cron job per channel in its IANA timezone, rebuilt from the store.

Jobs carry explicit ids and use replace_existing, coalesce and a misfire grace. Because the job store
is in memory, a post missed while the bot was down is caught up at start: late within the grace (the
store's unique (channel, local date) claim keeps it to one), skipped and logged after it.

The scheduler reads and posts only through the QuizService. It follows settings changes and opened rounds
through the service's listeners, which the composition root (bot/cli.py) connects:
`service.on_config_change(scheduler.sync_channel)` and `service.on_round_opened(scheduler.plan_reveal)`.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from zoneinfo import ZoneInfo

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.date import DateTrigger

from bot.errors import QuizError
from bot.model import ChannelConfig, ChannelRef, Round
from bot.ports import Clock
from bot.quiz import QuizService
from bot.timing import daily_trigger, last_post_at_or_before

log = logging.getLogger(__name__)

DEFAULT_MISFIRE_GRACE = dt.timedelta(hours=1)


def daily_job_id(ref: ChannelRef) -> str:
    return f"daily:{ref.platform}:{ref.channel_id}"


def reveal_job_id(round_id: int) -> str:
    return f"reveal:{round_id}"


class DailyScheduler:
    """Keeps one job per active channel; `owns` limits it to this process's channels (shards)."""

    def __init__(
        self,
        service: QuizService,
        clock: Clock,
        *,
        misfire_grace: dt.timedelta = DEFAULT_MISFIRE_GRACE,
        owns: Callable[[ChannelRef], bool] | None = None,
        scheduler: AsyncIOScheduler | None = None,
    ) -> None:
        self.service = service
        self.clock = clock
        self.misfire_grace = misfire_grace
        self.owns = owns or (lambda ref: True)
        self.scheduler = scheduler or AsyncIOScheduler(timezone=dt.UTC)
        self._reported_skips: set[tuple[ChannelRef, dt.date]] = set()

    async def start(self) -> None:
        """Start the scheduler, rebuild jobs from the saved channels, catch up missed posts and reveals."""
        if not self.scheduler.running:
            self.scheduler.start()
        for cfg in await self.service.channels():
            self.sync_channel(cfg)
        await self.catch_up()

    def shutdown(self) -> None:
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)

    def sync_channel(self, cfg: ChannelConfig) -> None:
        """Add, replace or remove a channel's daily job after a config change."""
        job_id = daily_job_id(cfg.ref)
        if cfg.paused or not self.owns(cfg.ref):
            if self.scheduler.get_job(job_id):
                self.scheduler.remove_job(job_id)
                log.info("removed daily job %s", job_id)
            return
        self.scheduler.add_job(
            self.fire,
            trigger=daily_trigger(cfg),
            args=[cfg.ref],
            id=job_id,
            name=f"daily post {cfg.ref.platform}/{cfg.ref.channel_id}",
            replace_existing=True,
            coalesce=True,
            misfire_grace_time=int(self.misfire_grace.total_seconds()),
            max_instances=1,
        )
        log.info("scheduled %s at %s %s", job_id, f"{cfg.post_time:%H:%M}", cfg.timezone)

    async def fire(self, ref: ChannelRef, local_date: dt.date | None = None) -> Round | None:
        """A channel's daily job: post its question; failures are logged, never raised into APScheduler."""
        try:
            return await self.service.post_scheduled(ref, local_date)
        except QuizError as exc:
            log.warning("daily post for %s/%s failed: %s", ref.platform, ref.channel_id, exc.message)
        except Exception:
            log.exception("daily post for %s/%s failed", ref.platform, ref.channel_id)
        return None

    async def reveal(self, round_id: int) -> None:
        try:
            await self.service.reveal_round(round_id)
        except Exception:
            log.exception("reveal of round %d failed", round_id)

    def plan_reveal(self, round_: Round) -> None:
        """A round with an answer window gets a one-off job that reveals it when the window ends."""
        if round_.closes_at is not None:
            self.scheduler.add_job(
                self.reveal,
                trigger=DateTrigger(run_date=round_.closes_at),
                args=[round_.id],
                id=reveal_job_id(round_.id),
                replace_existing=True,
                misfire_grace_time=None,
            )

    async def catch_up(self) -> list[Round]:
        """Post what downtime missed (within the grace) and reveal rounds whose window has passed."""
        now = self.clock.now()
        posted: list[Round] = []
        for round_ in await self.service.open_daily_rounds():
            if not self.owns(round_.ref):
                continue
            if round_.closes_at is not None and round_.closes_at <= now:
                await self.reveal(round_.id)
            else:
                self.plan_reveal(round_)
        for cfg in await self.service.channels():
            if cfg.paused or not self.owns(cfg.ref):
                continue
            due = last_post_at_or_before(cfg, now)
            if due is None:
                continue
            day = due.astimezone(ZoneInfo(cfg.timezone)).date()
            latest = await self.service.latest_daily_round(cfg.ref)
            if latest is not None and latest.local_date is not None and latest.local_date >= day:
                continue
            late = now - due
            if late <= self.misfire_grace:
                log.info("posting %s/%s for %s late by %s", cfg.ref.platform, cfg.ref.channel_id, day, late)
                round_ = await self.fire(cfg.ref, local_date=day)
                if round_ is not None:
                    posted.append(round_)
            elif (cfg.ref, day) not in self._reported_skips:
                self._reported_skips.add((cfg.ref, day))
                log.warning(
                    "skipped the daily post of %s/%s for %s: missed by %s, more than the %s grace",
                    cfg.ref.platform, cfg.ref.channel_id, day, late, self.misfire_grace,
                )
        return posted
