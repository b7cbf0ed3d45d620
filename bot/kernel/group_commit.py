"""Group commit: items queue up, and one worker task writes what has queued in one call, answering each
submitter only after that call returns (nothing is acknowledged before it is durable).

CommitWorker is the worker, its wake-up and its close; GroupCommit is a queue of (item, future) pairs over
it, and the answer batcher (bot.daily.answer_batcher) keeps its own queue, shaped for thousands of answers
a second, over the same worker.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

from bot.kernel.outage import StoreOutage

log = logging.getLogger(__name__)

T = TypeVar("T")
R = TypeVar("R")


class CommitWorker:
    """One worker task per queue: `_wake()` starts it (or wakes it); it calls `_flush_next()` while
    `_has_pending()`, then sleeps until woken; `close()` lets it write what is queued, then stops it."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._wakeup: asyncio.Event | None = None
        self._worker: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None  # the worker's
        self._closed = False

    def _has_pending(self) -> bool:
        raise NotImplementedError

    async def _flush_next(self) -> None:
        raise NotImplementedError

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        """The worker's loop, starting the worker when there is none (or it ended)."""
        if self._closed:
            raise RuntimeError(f"the {self._name} is closed")
        loop = self._loop
        if loop is None or self._worker is None or self._worker.done():
            loop = self._loop = asyncio.get_running_loop()
            self._wakeup = asyncio.Event()
            self._worker = loop.create_task(self._run(), name=self._name)
        return loop

    def _wake(self) -> None:
        assert self._wakeup is not None
        self._wakeup.set()

    async def _run(self) -> None:
        assert self._wakeup is not None
        while True:
            await self._wakeup.wait()
            self._wakeup.clear()
            while self._has_pending():
                await self._flush_next()
            if self._closed:
                return

    async def close(self) -> None:
        """Flush what is queued, then stop."""
        self._closed = True
        if self._worker is not None and not self._worker.done():
            self._wake()
            await self._worker


def settle(waiters: Sequence[asyncio.Future[R]], results: Sequence[R]) -> None:
    for fut, result in zip(waiters, results, strict=True):
        if not fut.done():
            fut.set_result(result)


def fail(waiters: Sequence[asyncio.Future[R]], exc: BaseException) -> None:
    for fut in waiters:
        if not fut.done():
            fut.set_exception(exc)


class GroupCommit(CommitWorker, Generic[T, R]):
    """Queue items; the worker flushes what has queued (up to `max_batch`) with `flush`, which returns one
    result per item in order (a write, or a read: the answers' round reads share one trip the same way).
    `writes=False` for reads: a read that works does not tell `outage` the store is back (it may still refuse
    writes, a disk full or read-only)."""

    def __init__(
        self,
        flush: Callable[[Sequence[T]], Awaitable[Sequence[R]]],
        max_batch: int = 1000,
        *,
        outage: StoreOutage | None = None,
        name: str = "group-commit",
        writes: bool = True,
    ) -> None:
        super().__init__(name)
        self._writes = writes
        self._flush = flush
        self._outage = outage  # the process's: a store outage is told once there, not once per batch
        self._max_batch = max_batch
        self._pending: list[tuple[T, asyncio.Future[R]]] = []

    async def submit(self, item: T) -> R:
        fut: asyncio.Future[R] = self._running_loop().create_future()
        self._pending.append((item, fut))
        self._wake()
        return await fut

    def _has_pending(self) -> bool:
        return bool(self._pending)

    async def _flush_next(self) -> None:
        batch, self._pending = self._pending[: self._max_batch], self._pending[self._max_batch :]
        waiters = [fut for _, fut in batch]
        try:
            results = await self._flush([item for item, _ in batch])
        except Exception as exc:  # noqa: BLE001 - every waiter must hear about the failure
            if self._outage is None or not self._outage.failed(exc):
                log.exception("a %s of %d items failed", self._name, len(batch))
            fail(waiters, exc)
            return
        if self._outage is not None and self._writes:
            self._outage.recovered()
        settle(waiters, results)
