"""When the bot was running, recorded in the store, so "the bot was offline" is said only when it was.

Each process's tick beats (`Heartbeat.beat`): it records its running span, one per platform it runs, from the
span's first tick to the latest, on the Context's clock (the database's on PostgreSQL). A span continues
while the process beats at least every RUNNING_GAP by its own elapsed-time clock: a step of the wall clock
(an NTP correction, a clock set forward) is no gap, since the process kept running through it, but a stop,
a restart, a suspended machine or a store unreachable for longer than that begins a new span. A daily post
missed beyond the grace is downtime only when no span of its platform covers its due instant (any process's:
the spans are shared in the store); otherwise the bot was running and the post goes out late.
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid
from collections.abc import Callable, Iterable

from bot.daily.store import UptimeStore
from bot.kernel.clock import Clock, elapsed_seconds

log = logging.getLogger(__name__)

RUNNING_GAP = dt.timedelta(minutes=10)  # beats further apart than this (elapsed time) are two spans
RUNNING_KEPT = dt.timedelta(days=14)  # spans not seen for this long are forgotten when a span begins


class Heartbeat:
    """One process's running spans (see the module); the scheduler beats once per tick."""

    def __init__(
        self,
        clock: Clock,
        store: UptimeStore,
        *,
        elapsed: Callable[[], float] = elapsed_seconds,
        gap: dt.timedelta = RUNNING_GAP,
    ) -> None:
        self.clock = clock
        self.store = store
        self.elapsed = elapsed
        self.gap = gap
        self.span: str | None = None
        self._since: dict[str, dt.datetime] = {}  # platform -> when this span began to run it
        self._last: float | None = None  # the elapsed clock at the last beat recorded

    async def beat(self, platforms: Iterable[str]) -> None:
        """Record that this process runs `platforms` now. A failure is raised (the caller logs it); the span
        goes on if the next beat that is recorded comes within RUNNING_GAP of the last one."""
        now, elapsed = self.clock.now(), self.elapsed()
        new = self.span is None or self._last is None or elapsed - self._last > self.gap.total_seconds()
        if new:
            if self._last is not None:
                log.info("this process begins a new running span (no tick recorded for %.0f s)", elapsed - self._last)
            self.span, self._since = uuid.uuid4().hex, {}
        assert self.span is not None
        forget = now - RUNNING_KEPT if new else None
        for platform in sorted(set(platforms)):
            since = self._since.setdefault(platform, now)
            await self.store.note_running(self.span, platform, since, now, forget_before=forget)
            forget = None
        self._last = elapsed
