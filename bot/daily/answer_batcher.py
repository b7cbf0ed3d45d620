"""Group commit for answers: concurrent submissions share one transaction, and each caller is answered
only after that transaction has committed (nothing is acknowledged before it is durable).

The queue is bounded: when more than `max_pending` answers wait, or the oldest has waited longer than
`max_wait` seconds, a new answer is refused at once with `Busy` (never acknowledged, never written), so memory
and latency stay bounded when more answers arrive than the store can take."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import time
from collections.abc import Callable, Sequence
from typing import Protocol

from bot.kernel.errors import Busy
from bot.kernel.group_commit import CommitWorker, fail, settle
from bot.kernel.outage import StoreOutage
from bot.kernel.values import AnswerWrite, NewAnswer

log = logging.getLogger(__name__)

MAX_BATCH = 2000
MAX_PENDING = 10_000  # well under a second of answers at this machine's capacity
MAX_WAIT_SECONDS = 2.0  # platforms expect an acknowledgement within 3 s


class AnswerWriter(Protocol):
    """Where a batch of answers is written (the store's one transaction per batch)."""

    async def add_answers(self, answers: Sequence[NewAnswer], now: dt.datetime) -> list[AnswerWrite]:
        """Insert a batch in one transaction; each is recorded only if its round is open and the user has
        not answered it. Returns only after the commit."""
        ...


BUSY = "The bot is busy right now and did not record your answer; please try again in a moment."


class AnswerBatcher(CommitWorker):
    """The answers' group commit, bounded (see the module)."""

    def __init__(
        self,
        store: AnswerWriter,
        now: Callable[[], dt.datetime],
        max_batch: int = MAX_BATCH,
        max_pending: int = MAX_PENDING,
        max_wait: float = MAX_WAIT_SECONDS,
        monotonic: Callable[[], float] = time.monotonic,
        *,
        outage: StoreOutage | None = None,
    ) -> None:
        super().__init__("answer-batcher")
        self._outage = outage or StoreOutage()  # the process's (the Context's): an outage is told once
        self._store = store
        self._now = now
        self._max_batch = max_batch
        self._max_pending = max_pending
        self._max_wait = max_wait
        self._monotonic = monotonic
        # the queue, as three lists in step: each answer, its waiter, and when it was queued (monotonic, oldest
        # first); a batch is the lists themselves when it takes all of them (thousands of answers a second)
        self._answers: list[NewAnswer] = []
        self._waiters: list[asyncio.Future[AnswerWrite]] = []
        self._queued_at: list[float] = []
        self.refused = 0
        self._failing = False

    def submit(self, answer: NewAnswer) -> asyncio.Future[AnswerWrite]:
        """Queue one answer; the future is its verdict, set once its batch has committed (a plain call that
        returns the future, not a coroutine: awaiting it costs no extra frame per answer)."""
        queued_at = self._monotonic()
        if self._overloaded(queued_at):
            self.refused += 1
            raise Busy(BUSY)
        fut: asyncio.Future[AnswerWrite] = self._running_loop().create_future()
        self._answers.append(answer)
        self._waiters.append(fut)
        self._queued_at.append(queued_at)
        self._wake()
        return fut

    def _has_pending(self) -> bool:
        return bool(self._answers)

    async def _flush_next(self) -> None:
        await self._flush(*self._take())

    def _take(self) -> tuple[list[NewAnswer], list[asyncio.Future[AnswerWrite]]]:
        """The next batch off the queue: its answers and their waiters."""
        n = self._max_batch
        answers, waiters = self._answers, self._waiters
        if len(answers) <= n:
            self._answers, self._waiters, self._queued_at = [], [], []
            return answers, waiters
        self._answers, self._waiters = answers[n:], waiters[n:]
        del self._queued_at[:n]
        return answers[:n], waiters[:n]

    @property
    def pending(self) -> int:
        return len(self._answers)

    def _overloaded(self, now: float) -> bool:
        if len(self._answers) >= self._max_pending:
            return True
        return bool(self._queued_at) and now - self._queued_at[0] > self._max_wait

    async def _flush(self, batch: list[NewAnswer], waiters: list[asyncio.Future[AnswerWrite]]) -> None:
        try:
            results = await self._store.add_answers(batch, self._now())
        except Exception as exc:  # noqa: BLE001 - every waiter must hear about the failure
            if self._outage.failed(exc):  # the store's outage: told once, by the process's StoreOutage
                pass
            elif self._failing:  # another failure: logged once while it lasts, not once per batch
                log.debug("writing %d answers failed again: %s", len(batch), exc)
            else:
                log.exception("writing %d answers failed", len(batch))
                self._failing = True
            fail(waiters, exc)
            return
        if self._failing:
            log.info("answers are written again")
            self._failing = False
        self._outage.recovered()
        settle(waiters, results)
