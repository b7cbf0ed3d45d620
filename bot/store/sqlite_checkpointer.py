"""The SQLite store's WAL checkpoints, done in the background on a second connection of their own.

Checkpoints move the WAL into the database file. Run inside a commit (SQLite's default) they stall that
commit, and every answer waiting on it, for tens of milliseconds; a second connection does them in the
background instead, without blocking the writer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor

from bot.store.sqlite_thread import SqliteThread
from bot.store.turns import ConnectionTurns

log = logging.getLogger(__name__)

CHECKPOINT_EVERY = 0.25  # seconds between background WAL checkpoints
# Past this much WAL content a checkpoint is finished between two write transactions: it copies what was
# written since the unlocked pass and syncs the database file, a few ms that writes (not reads) wait.
WAL_RESET_AT = 8 * 1024 * 1024
CATCH_UP_PASSES = 4  # unlocked passes before the held one, until one takes less than SHORT_PASS seconds
SHORT_PASS = 0.01
HOLD_AT_MOST = 1.0  # seconds writes wait for a held pass; past it they go on and that pass ends unlocked
WAL_KEEP = 16 * 1024 * 1024  # when the WAL starts over, its file is cut back to this size (journal_size_limit)
# A pass the idle thread has not finished after this long means it gets no CPU (every core is busy): passes then
# run on a thread of normal priority for STARVED_FOR seconds, so the WAL cannot grow without end.
STARVED_AFTER = 2.0
STARVED_FOR = 30.0


class Checkpointer:
    """Checkpoints the database at `path` every CHECKPOINT_EVERY seconds on a connection that lives on one
    worker thread, so a checkpoint in progress always finishes before that connection is closed.

    A PASSIVE checkpoint never blocks the writer, but under a steady stream of commits it never catches up
    with the end of the WAL either, and SQLite starts the WAL over only once all of it is in the database:
    the file would grow without end. So once the WAL holds more than WAL_RESET_AT, the checkpoint is
    finished between two write transactions (`turns.pause_writes`; reads go on): only the frames written
    since the unlocked pass are left to copy, and the next write starts the WAL over (cut to WAL_KEEP).

    The passes run on a thread that gets a CPU only when nothing else wants one (_run_when_idle): a pass
    copying a large WAL otherwise delays the wake-ups of the threads serving learners (leaderboard reads
    right after a bulk load took 3-7 ms instead of 0.2). As such a thread can be starved, writes wait for a
    held pass HOLD_AT_MOST seconds at most; then they go on, and that pass ends unlocked. And when a pass waits
    on the idle thread longer than STARVED_AFTER, the passes of the next STARVED_FOR seconds run on a thread of
    normal priority with a connection of its own (`starved_passes` counts them)."""

    def __init__(self, path: str, turns: ConnectionTurns) -> None:
        self.path = path
        self._turns = turns
        self._task: asyncio.Task[None] | None = None
        self._thread: ThreadPoolExecutor | None = None
        self.holds = 0  # checkpoints finished with writes paused, and for how long in all (s)
        self.hold_seconds = 0.0
        self.hold_max = 0.0
        self.starved_passes = 0
        self._urgent: ThreadPoolExecutor | None = None

    async def start(self, db: SqliteThread) -> None:
        """Take the checkpoints over from the store's connection `db` and begin."""
        await db.execute("PRAGMA wal_autocheckpoint=0")
        await db.execute(f"PRAGMA journal_size_limit={WAL_KEEP}")
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="sqlite-checkpoint", initializer=_run_when_idle)
        self._task = asyncio.create_task(self._run(self._thread), name="sqlite-checkpoint")

    async def stop(self) -> None:
        """Stop, once the checkpoint in progress (if any) is done and its connection closed."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        for pool in (self._thread, self._urgent):
            if pool is not None:
                pool.shutdown(wait=True)
        self._thread = self._urgent = None

    async def _run(self, thread: ThreadPoolExecutor) -> None:
        loop = asyncio.get_running_loop()
        con = _checkpoint_connection(self.path)  # here, once: the idle thread may be starved from the start
        page = _page_size(con)

        idle_pass: asyncio.Future[tuple[int, int, int]] | None = None
        urgent_con: sqlite3.Connection | None = None
        starved_until = 0.0

        async def one_pass() -> tuple[int, int, int]:
            nonlocal idle_pass, urgent_con, starved_until
            if loop.time() >= starved_until and (idle_pass is None or idle_pass.done()):
                idle_pass = loop.run_in_executor(thread, _checkpoint, con)
                idle_pass.add_done_callback(_retrieved)
                done, _ = await asyncio.wait([idle_pass], timeout=STARVED_AFTER)
                if done:
                    return idle_pass.result()
                starved_until = loop.time() + STARVED_FOR
                log.debug("the idle checkpoint thread gets no CPU; checkpoints run at normal priority for a while")
            if self._urgent is None:
                self._urgent = ThreadPoolExecutor(1, thread_name_prefix="sqlite-checkpoint-urgent")
            if urgent_con is None:
                urgent_con = await loop.run_in_executor(self._urgent, _checkpoint_connection, self.path)
            self.starved_passes += 1
            return await asyncio.shield(loop.run_in_executor(self._urgent, _checkpoint, urgent_con))

        try:
            while True:
                await asyncio.sleep(CHECKPOINT_EVERY)
                try:
                    _, logged, copied = await one_pass()
                    if logged * page > WAL_RESET_AT:  # `logged` is where the WAL ended when this pass began
                        for _ in range(CATCH_UP_PASSES):  # each copies what came meanwhile: the held pass is short
                            began = loop.time()
                            await one_pass()
                            if loop.time() - began < SHORT_PASS:
                                break
                        paused = await self._turns.pause_writes()  # the transaction in progress ends first
                        held = loop.time()
                        finishing = asyncio.ensure_future(one_pass())
                        try:
                            await asyncio.wait([finishing], timeout=HOLD_AT_MOST)
                        finally:
                            self._turns.resume_writes(paused)
                            held = loop.time() - held
                            self.holds += 1
                            self.hold_seconds += held
                            self.hold_max = max(self.hold_max, held)
                        await finishing  # unlocked now, if the hold ran out
                except sqlite3.Error as exc:  # busy or locked: the next round catches up
                    log.debug("background checkpoint skipped: %s", exc)
        finally:
            # queued behind any checkpoint still running on that thread
            await asyncio.shield(loop.run_in_executor(thread, con.close))
            if urgent_con is not None and self._urgent is not None:
                await asyncio.shield(loop.run_in_executor(self._urgent, urgent_con.close))


def _retrieved(future: asyncio.Future[tuple[int, int, int]]) -> None:
    """Mark an idle pass's outcome as seen: one given up on as starved may end in a busy error later."""
    if not future.cancelled():
        future.exception()


def _run_when_idle() -> None:
    """Give the calling thread Linux's SCHED_IDLE policy: it runs only when a CPU would otherwise be idle.
    Elsewhere, or where it is refused, the thread keeps its priority."""
    if hasattr(os, "sched_setscheduler") and hasattr(os, "SCHED_IDLE"):
        try:
            os.sched_setscheduler(threading.get_native_id(), os.SCHED_IDLE, os.sched_param(0))
        except OSError as exc:
            log.debug("the checkpoint thread keeps its priority: %s", exc)


def _checkpoint_connection(path: str) -> sqlite3.Connection:
    return sqlite3.connect(path, check_same_thread=False)


def _page_size(con: sqlite3.Connection) -> int:
    return int(con.execute("PRAGMA page_size").fetchone()[0])


def _checkpoint(con: sqlite3.Connection) -> tuple[int, int, int]:
    """A PASSIVE checkpoint (it never waits for a writer or a reader): (busy, frames in the WAL, frames copied)."""
    busy, logged, copied = con.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    return int(busy), int(logged), int(copied)
