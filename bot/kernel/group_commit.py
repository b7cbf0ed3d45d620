from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

log = logging.getLogger(__name__)


T = TypeVar("T")


R = TypeVar("R")


class GroupCommit(Generic[T, R]):
    """Queue items; a single worker flushes what has queued (up to `max_batch`) with `flush`, which returns
    one result per item in order."""

    def __init__(self, flush: Callable[[Sequence[T]], Awaitable[Sequence[R]]], max_batch: int = 1000) -> None:
        self._flush = flush
        self._max_batch = max_batch
        self._pending: list[tuple[T, asyncio.Future[R]]] = []
        self._wakeup: asyncio.Event | None = None
        self._worker: asyncio.Task[None] | None = None
        self._closed = False

    async def submit(self, item: T) -> R:
        if self._closed:
            raise RuntimeError("the group commit is closed")
        loop = asyncio.get_running_loop()
        if self._worker is None or self._worker.done():
            self._wakeup = asyncio.Event()
            self._worker = loop.create_task(self._run(), name="group-commit")
        fut: asyncio.Future[R] = loop.create_future()
        self._pending.append((item, fut))
        assert self._wakeup is not None
        self._wakeup.set()
        return await fut

    async def _run(self) -> None:
        assert self._wakeup is not None
        while True:
            await self._wakeup.wait()
            self._wakeup.clear()
            while self._pending:
                batch, self._pending = self._pending[: self._max_batch], self._pending[self._max_batch :]
                await self._one(batch)
            if self._closed:
                return

    async def _one(self, batch: list[tuple[T, asyncio.Future[R]]]) -> None:
        try:
            results = await self._flush([item for item, _ in batch])
        except Exception as exc:  # noqa: BLE001 - every waiter must hear about the failure
            log.exception("a group commit of %d items failed", len(batch))
            for _, fut in batch:
                if not fut.done():
                    fut.set_exception(exc)
            return
        for (_, fut), result in zip(batch, results, strict=True):
            if not fut.done():
                fut.set_result(result)

    async def close(self) -> None:
        """Flush what is queued, then stop."""
        self._closed = True
        if self._worker is not None and not self._worker.done():
            assert self._wakeup is not None
            self._wakeup.set()
            await self._worker
