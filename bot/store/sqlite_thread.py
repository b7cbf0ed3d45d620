"""One sqlite3 connection on a thread of its own, for asyncio code: the SQLite store's connection.

sqlite3 blocks while a statement runs, and a connection serves only the thread that opened it. So the
connection is opened on one dedicated thread and lives there; a coroutine hands it work with `call(fn,
*args)`, which runs fn(connection, *args) on that thread, and awaits the result (or the error). Calls run one
at a time, in the order they were made. A whole transaction can go in one call (bot.store.sqlite_in_thread):
one trip to the thread and back instead of one per statement.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
import warnings
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from queue import SimpleQueue
from typing import Any, Concatenate, ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

# work for the thread, and the future of the loop that waits for it; None ends the thread
_Job = tuple[asyncio.Future[Any], Callable[[], Any]] | None


def _serve(jobs: SimpleQueue[_Job]) -> None:
    """The thread's life: run each job in turn and hand its result or error to the loop that waits for it."""
    while (job := jobs.get()) is not None:
        future, work = job
        try:
            result = work()
        except BaseException as exc:  # any error belongs to the caller
            _hand_over(future, _fail, exc)
        else:
            _hand_over(future, _succeed, result)


def _hand_over(future: asyncio.Future[Any], settle: Callable[[asyncio.Future[Any], Any], None], value: Any) -> None:
    with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
        future.get_loop().call_soon_threadsafe(settle, future, value)


def _succeed(future: asyncio.Future[Any], result: Any) -> None:
    if not future.done():  # a caller cancelled meanwhile; the work was done all the same
        future.set_result(result)


def _fail(future: asyncio.Future[Any], exc: BaseException) -> None:
    if not future.done():
        future.set_exception(exc)


async def _run(jobs: SimpleQueue[_Job], work: Callable[[], T]) -> T:
    future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
    jobs.put((future, work))
    return await future


class SqliteThread:
    """An open sqlite3 connection and the thread it lives on (see the module's docstring). The connection
    is only ever used on that thread; this side holds it to hand it to the work it sends there."""

    def __init__(self, con: sqlite3.Connection, jobs: SimpleQueue[_Job]) -> None:
        self._con = con
        self._jobs = jobs
        self._closed = False

    @classmethod
    async def connect(cls, path: str, *, isolation_level: str | None = None) -> SqliteThread:
        """Start the thread and open the database on it (sqlite3.connect's errors as they are).
        `isolation_level=None`: sqlite3 starts no transaction by itself (the store says BEGIN)."""
        jobs: SimpleQueue[_Job] = SimpleQueue()
        # the thread knows only its queue, so an instance never closed can still be collected (see __del__)
        threading.Thread(target=_serve, args=(jobs,), name="sqlite-connection").start()
        try:
            con = await _run(jobs, partial(sqlite3.connect, path, isolation_level=isolation_level))
        except BaseException:
            jobs.put(None)
            raise
        return cls(con, jobs)

    async def call(
        self, fn: Callable[Concatenate[sqlite3.Connection, P], T], /, *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """fn(connection, *args, **kwargs) on the connection's thread, after every call made before it: its
        result, or the error it raised. Cancelling the caller does not stop fn once the thread has begun it."""
        if self._closed:
            raise sqlite3.ProgrammingError("Cannot operate on a closed database.")
        return await _run(self._jobs, partial(fn, self._con, *args, **kwargs))

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; how many rows it changed (sqlite3's rowcount: -1 for a statement that
        changes none)."""
        return await self.call(_execute, sql, params)

    async def execute_fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """Run one statement; all its rows."""
        return await self.call(_fetchall, sql, params)

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> int:
        """Run one statement once per row; how many rows it changed in all."""
        return await self.call(_executemany, sql, rows)

    async def commit(self) -> None:
        """Commit the transaction in progress, if any (with isolation_level=None, a COMMIT statement does)."""
        await self.call(sqlite3.Connection.commit)

    async def close(self) -> None:
        """Close the connection once every call made before has run; then the thread ends. Again: nothing."""
        if self._closed:
            return
        self._closed = True
        try:
            await _run(self._jobs, self._con.close)
        finally:
            self._jobs.put(None)

    def __del__(self) -> None:
        if not self._closed:
            self._closed = True
            warnings.warn(f"{self!r} was never closed", ResourceWarning, stacklevel=1)
            self._jobs.put(None)  # the thread ends; the connection closes when it is collected


def _execute(con: sqlite3.Connection, sql: str, params: Sequence[Any]) -> int:
    return con.execute(sql, params).rowcount


def _fetchall(con: sqlite3.Connection, sql: str, params: Sequence[Any]) -> list[Any]:
    return con.execute(sql, params).fetchall()


def _executemany(con: sqlite3.Connection, sql: str, rows: Iterable[Sequence[Any]]) -> int:
    return con.executemany(sql, rows).rowcount
