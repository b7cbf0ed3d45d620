"""The store's turn to use a connection. SQLite's one connection: a lock whose waiters from background work
(bot.priority) queue behind everyone else's. A PostgreSQL pool: background work holds at most some of it.

A learner's answer batch then waits for the transaction in progress at most, never for the dozens of
reveal and post transactions the scheduler queues at 09:00. Background work still gets its turn: a
turn is handed over on release, and between two answer batches a background waiter is usually first."""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import AsyncIterator
from types import TracebackType

from bot.kernel.priority import in_background


class TurnLock:
    """An asyncio lock with two queues: foreground waiters are handed the lock before background ones;
    each queue is first come, first served."""

    def __init__(self) -> None:
        self._held = False
        self._now: collections.deque[asyncio.Future[None]] = collections.deque()
        self._later: collections.deque[asyncio.Future[None]] = collections.deque()

    def locked(self) -> bool:
        return self._held

    async def acquire(self) -> bool:
        if not self._held and not self._now and not self._later:
            self._held = True
            return True
        queue = self._later if in_background() else self._now
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue.append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():  # handed the lock, then cancelled: pass it on
                self.release()
            else:
                with contextlib.suppress(ValueError):  # a release may have dropped it already
                    queue.remove(turn)
            raise
        return True  # the releaser handed the lock over: it stayed held

    def release(self) -> None:
        if not self._held:
            raise RuntimeError("TurnLock released while not held")
        for queue in (self._now, self._later):
            while queue:
                turn = queue.popleft()
                if not turn.done():
                    turn.set_result(None)
                    return
        self._held = False

    async def __aenter__(self) -> None:
        await self.acquire()

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


class ConnectionTurns:
    """SQLite's one connection: every statement takes `lock` (a TurnLock), and a write transaction also
    waits while `paused` is set (a checkpoint being finished: see bot.store.sqlite_checkpointer)."""

    def __init__(self) -> None:
        self.lock = TurnLock()
        self.paused: asyncio.Future[None] | None = None  # set while a checkpoint is being finished

    @contextlib.asynccontextmanager
    async def write(self) -> AsyncIterator[None]:
        """The lock for a write transaction, taken only while no checkpoint is being finished (reads go on
        during one). Every write takes its turn here: one that went ahead would leave the checkpoint
        unfinished, and the WAL would not start over."""
        while True:
            paused = self.paused
            if paused is not None:
                await asyncio.shield(paused)
            await self.lock.acquire()
            if self.paused is None:
                break
            self.lock.release()
        try:
            yield
        finally:
            self.lock.release()

    async def pause_writes(self) -> asyncio.Future[None]:
        """Once the transaction in progress ends, no write begins until the future returned is resolved
        (by resume_writes); reads go on."""
        async with self.lock:
            paused = self.paused = asyncio.get_running_loop().create_future()
        return paused

    def resume_writes(self, paused: asyncio.Future[None]) -> None:
        self.paused = None
        paused.set_result(None)


class BackgroundSlots:
    """At most `slots` connections of a pool held by background work at once; other work is not counted."""

    def __init__(self, slots: int) -> None:
        self._slots = asyncio.Semaphore(max(1, slots))

    @contextlib.asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        if in_background():
            async with self._slots:
                yield
        else:
            yield
