"""Group commit for answers: concurrent submissions share one transaction, and each caller is answered
only after that transaction has committed (nothing is acknowledged before it is durable)."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Callable

from bot.ports import AnswerWrite, NewAnswer, Store

log = logging.getLogger(__name__)

MAX_BATCH = 2000


class AnswerBatcher:
    def __init__(self, store: Store, now: Callable[[], dt.datetime], max_batch: int = MAX_BATCH) -> None:
        self._store = store
        self._now = now
        self._max_batch = max_batch
        self._pending: list[tuple[NewAnswer, asyncio.Future[AnswerWrite]]] = []
        self._wakeup: asyncio.Event | None = None
        self._worker: asyncio.Task[None] | None = None
        self._closed = False
        self._failing = False

    async def submit(self, answer: NewAnswer) -> AnswerWrite:
        """Queue one answer and wait until its batch is committed."""
        if self._closed:
            raise RuntimeError("the answer batcher is closed")
        loop = asyncio.get_running_loop()
        if self._worker is None or self._worker.done():
            self._wakeup = asyncio.Event()
            self._worker = loop.create_task(self._run(), name="answer-batcher")
        fut: asyncio.Future[AnswerWrite] = loop.create_future()
        self._pending.append((answer, fut))
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
                await self._flush(batch)
            if self._closed:
                return

    async def _flush(self, batch: list[tuple[NewAnswer, asyncio.Future[AnswerWrite]]]) -> None:
        try:
            results = await self._store.add_answers([a for a, _ in batch], self._now())
        except Exception as exc:  # noqa: BLE001 - every waiter must hear about the failure
            if self._failing:  # logged once per outage, not once per batch
                log.debug("writing %d answers failed again: %s", len(batch), exc)
            else:
                log.exception("writing %d answers failed", len(batch))
            self._failing = True
            for _, fut in batch:
                if not fut.done():
                    fut.set_exception(exc)
            return
        if self._failing:
            log.info("answers are written again")
            self._failing = False
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
