"""Store outages, told once: while the database cannot record (PostgreSQL stopped or unreachable, a full disk,
an I/O error), every request gets a short private "try again" and the log says once that the store is down
and once that it is back, whatever the number of requests, ticks and retries in between.

One `StoreOutage` per process lives in the Context (`ctx.outage`); the answer batcher, the scheduler's tick and
every adapter hand it what failed (`failed(exc)`: True when it was the store's outage, which it has logged or
already knew; False for anything else, which the caller logs as the failure it is). Once down, it probes the
store with a small write every few seconds, and the first write that succeeds (the probe's, an answer batch's,
a replay guard's) ends the outage (`recovered()`).

What counts as an outage is decided here, with no driver imported: sqlite3's disk-full, I/O, busy and
can't-open errors; PostgreSQL's connection, insufficient-resources (disk full), shutdown and system-error
classes; a connection asyncpg found closed; and an OS error or timeout raised inside the store (a refused or
dropped connection). A unique violation, a bad statement or a platform's own network error is no outage.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

from bot.kernel.errors import StoreUnavailable

log = logging.getLogger(__name__)

#: The private reply to a request the store could not take (every platform, every command).
STORE_DOWN = "studybot cannot record answers right now; try again in a minute."
PROBE_EVERY = 2.0  # seconds between probes of a store that is down
PROBE_WAIT = 5.0  # seconds a probe may take (a store that hangs is still down)

_SQLITE_OUTAGES = (
    "SQLITE_FULL",
    "SQLITE_IOERR",
    "SQLITE_CANTOPEN",
    "SQLITE_BUSY",
    "SQLITE_LOCKED",
    "SQLITE_READONLY",
    "SQLITE_NOMEM",
)
_SQLITE_TEXTS = (
    "database or disk is full",
    "disk i/o error",
    "unable to open database file",
    "database is locked",
    "readonly database",
)
# SQLSTATE classes: 08 connection exception, 53 insufficient resources (53100 disk full), 57P admin or crash
# shutdown and cannot-connect-now, 58 system error (58030 I/O error)
_PG_OUTAGES = ("08", "53", "57P", "58")
_STORE_MODULES = ("bot.store.", "asyncpg", "sqlite3")


def is_outage(exc: BaseException | None) -> bool:
    """Whether `exc` (or what caused it) means the store cannot be reached or cannot write right now."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if _outage(exc):
            return True
        exc = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
    return False


def _outage(exc: BaseException) -> bool:
    if isinstance(exc, StoreUnavailable):
        return True
    module = type(exc).__module__
    if module == "sqlite3":
        name = str(getattr(exc, "sqlite_errorname", "") or "")
        return name.startswith(_SQLITE_OUTAGES) or any(t in str(exc).lower() for t in _SQLITE_TEXTS)
    if module.startswith("asyncpg"):
        state = str(getattr(exc, "sqlstate", "") or "")
        text = str(exc).lower()
        return state.startswith(_PG_OUTAGES) or (type(exc).__name__ == "InterfaceError" and "connection" in text)
    if isinstance(exc, OSError | TimeoutError):
        return _raised_in_store(exc)
    return False


def _raised_in_store(exc: BaseException) -> bool:
    """An OS error or timeout is the store's when it came up through the store's code (a refused connection),
    not a platform call's."""
    tb = exc.__traceback__
    while tb is not None:
        if str(tb.tb_frame.f_globals.get("__name__", "")).startswith(_STORE_MODULES):
            return True
        tb = tb.tb_next
    return False


def describe(exc: BaseException) -> str:
    """The error's type and first line, for the one log line (no traceback: an outage is no bug)."""
    while isinstance(exc, StoreUnavailable) and exc.__cause__ is not None:
        exc = exc.__cause__
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0][:200]}" if lines else type(exc).__name__


class StoreOutage:
    """One process's view of the store: up, or down since when (see the module)."""

    def __init__(
        self,
        probe: Callable[[], Awaitable[object]] | None = None,
        *,
        probe_every: float = PROBE_EVERY,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._probe = probe
        self.probe_every = probe_every  # seconds between probes while down (tests shorten it)
        self.probe_wait = PROBE_WAIT
        self._monotonic = monotonic
        self._since: float | None = None
        self._probing: asyncio.Task[None] | None = None
        self.outages = 0  # how many outages were told (for tests and metrics)

    @property
    def down(self) -> bool:
        """True from the first failure of an outage until the store recorded something again."""
        return self._since is not None

    def failed(self, exc: BaseException) -> bool:
        """`exc` ended a request, a batch or a tick. An outage: logged when it is the first failure of one (once
        per outage), then probed until the store is back; True. Anything else: False (the caller logs it)."""
        if not is_outage(exc):
            return False
        if self._since is None:
            self._since = self._monotonic()
            self.outages += 1
            log.error(
                'the database is unavailable (%s): requests are answered with a private "try again" until it is back',
                describe(exc),
            )
            self._start_probing()
        else:
            log.debug("the database is still unavailable: %s", describe(exc))
        return True

    def recovered(self) -> None:
        """The store recorded something: an outage in progress is over (logged once)."""
        if self._since is None:
            return
        seconds = self._monotonic() - self._since
        self._since = None
        probing, self._probing = self._probing, None
        if probing is not None and probing is not asyncio.current_task():
            probing.cancel()
        log.warning("the database is back after %.0f s: requests are recorded again", seconds)

    def _start_probing(self) -> None:
        if self._probe is None or (self._probing is not None and not self._probing.done()):
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a synchronous caller): the next write that succeeds ends the outage
            return
        self._probing = loop.create_task(self._probe_until_back(), name="store outage probe")

    async def _probe_until_back(self) -> None:
        assert self._probe is not None
        while self._since is not None:
            await asyncio.sleep(self.probe_every)
            try:
                await asyncio.wait_for(self._probe(), self.probe_wait)
            except Exception as exc:  # noqa: BLE001 - still down (or worse): the next probe tries again
                log.debug("the database is still unavailable: %s", describe(exc))
                continue
            self.recovered()

    async def close(self) -> None:
        """Stop probing (the process is stopping)."""
        probing, self._probing = self._probing, None
        if probing is not None and not probing.done():
            probing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await probing
