"""The real clocks behind the Clock port: this machine's (SQLite, the console), and the database's (PostgreSQL,
where processes on several hosts must agree on what is due whatever their hosts' clocks say)."""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable
from typing import Protocol, runtime_checkable

log = logging.getLogger(__name__)


def elapsed_seconds() -> float:
    """Seconds on this machine's elapsed-time clock: never stepped with the wall clock, and counting time the
    machine spent suspended (CLOCK_BOOTTIME where there is one), so a long pause shows as one."""
    boottime = getattr(time, "CLOCK_BOOTTIME", None)
    return time.clock_gettime(boottime) if boottime is not None else time.monotonic()


class SystemClock:
    """Wall-clock time, as an aware UTC datetime."""

    def now(self) -> dt.datetime:
        return dt.datetime.now(dt.UTC)


class Clock(Protocol):
    """Where the core gets the time: always an aware UTC datetime."""

    def now(self) -> dt.datetime: ...


@runtime_checkable
class RefreshedClock(Protocol):
    """A clock its owner refreshes now and then (the scheduler, once per tick, before the tick's decisions)."""

    def now(self) -> dt.datetime: ...

    async def refresh(self) -> None: ...


@runtime_checkable
class TimeSource(Protocol):
    """A database that tells its own time (PostgreSQL's now(); SQLite, on one machine, does not)."""

    async def database_time(self, elapsed: Callable[[], float]) -> tuple[dt.datetime, float]:
        """The database's current time, and `elapsed()` taken at the moment it was read (the midpoint of the
        query, measured on the connection, so no wait for a connection counts)."""
        ...


class DatabaseClock:
    """The database's time: read with `refresh` (once per tick) and carried forward between reads by this
    machine's elapsed-time clock, so `now()` needs no query and every process sharing the database reads
    the same time within a few milliseconds, whatever its host's wall clock says. A failed read keeps the
    last one (carried forward: elapsed-time clocks drift by well under a second a day)."""

    def __init__(self, source: TimeSource, elapsed: Callable[[], float] = elapsed_seconds) -> None:
        self._source = source
        self._elapsed = elapsed
        self._base: dt.datetime | None = None  # the database's time at the last read ...
        self._base_elapsed = 0.0  # ... and the elapsed clock then

    @classmethod
    async def start(cls, source: TimeSource, elapsed: Callable[[], float] = elapsed_seconds) -> DatabaseClock:
        """A clock that has read the database's time once (a failure to read it is raised)."""
        clock = cls(source, elapsed)
        await clock._read()
        return clock

    async def _read(self) -> None:
        at, when = await self._source.database_time(self._elapsed)
        self._base, self._base_elapsed = at.astimezone(dt.UTC), when

    async def refresh(self) -> None:
        """Read the database's time again; on failure keep the last reading (the tick that follows fails on
        the same store and says so), logged at DEBUG only, so an outage is not a line per tick."""
        try:
            await self._read()
        except Exception as exc:  # noqa: BLE001 - the store is down: keep the time carried forward
            log.debug("could not read the database's time (%s); carrying the last one forward", type(exc).__name__)

    @property
    def age(self) -> float:
        """Seconds since the database's time was last read."""
        return self._elapsed() - self._base_elapsed

    def now(self) -> dt.datetime:
        if self._base is None:
            raise RuntimeError("DatabaseClock.now() before the database's time was read (use DatabaseClock.start)")
        return self._base + dt.timedelta(seconds=self._elapsed() - self._base_elapsed)
