"""A background drain: after a nudge, run a step until it reports less than a full batch left.

Used for the practice answers' card updates: the answer is acknowledged once its reveal (and the mark for
its card update) is stored, and the card updates of everything marked meanwhile are written together."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from bot.kernel.outage import StoreOutage

log = logging.getLogger(__name__)


class Drain:
    """`nudge()` starts (or extends) one background run of `step`, which returns how many items it did.
    A run first waits `delay` seconds, so that what is marked meanwhile is written together, and then while
    `busy()` (answers waiting for their replies), at most `max_defer` seconds in all; it repeats while a step
    did a full `batch` or another nudge came in. `close()` cuts the waits short."""

    def __init__(
        self,
        step: Callable[[], Awaitable[int]],
        batch: int,
        what: str,
        delay: float = 0.1,
        busy: Callable[[], bool] = lambda: False,
        max_defer: float = 2.0,
        *,
        outage: StoreOutage | None = None,
    ) -> None:
        self._step = step
        self._outage = outage  # the process's: a store outage is told once there
        self._busy = busy  # while this says so, the step waits (up to max_defer): replies come first
        self._max_defer = max_defer
        self._batch = batch
        self._what = what
        self._delay = delay
        self._again = False
        self._task: asyncio.Task[None] | None = None
        self._closing: asyncio.Event | None = None
        self._failing = False

    def nudge(self) -> None:
        self._again = True
        if self._task is None or self._task.done():
            self._closing = self._closing or asyncio.Event()
            self._task = asyncio.get_running_loop().create_task(self._run(), name=f"drain {self._what}")

    async def _run(self) -> None:
        assert self._closing is not None
        full = False
        while self._again or full:
            if not full and not self._closing.is_set():
                await self._wait(self._delay)
                deferred = self._delay
                while self._busy() and deferred < self._max_defer and not self._closing.is_set():
                    await self._wait(self._delay / 4)
                    deferred += self._delay / 4
            self._again = False
            try:
                done = await self._step()
            except Exception as exc:  # noqa: BLE001 - the marks stay in the store; the next nudge or tick retries
                told = self._outage is not None and self._outage.failed(exc)
                if not self._failing and not told:
                    log.exception("writing %s failed; it is retried later", self._what)
                self._failing = True
                return
            self._failing = False
            full = done >= self._batch

    async def _wait(self, seconds: float) -> None:
        assert self._closing is not None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._closing.wait(), seconds)

    async def close(self) -> None:
        """Cut the wait short and let the current run finish (what is left stays marked in the store)."""
        if self._task is not None and not self._task.done():
            assert self._closing is not None
            self._closing.set()
            await self._task
