"""Issue 30 item 2: the one outage reporter of a process (bot.kernel.outage). What counts as the store's outage
(and what does not), and that an outage is told once when it starts and once when it ends, however many
requests, ticks and probes fail in between."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import aiohttp
import asyncpg
import pytest

from bot.kernel.errors import StoreUnavailable
from bot.kernel.group_commit import GroupCommit
from bot.kernel.outage import StoreOutage, describe, is_outage
from bot.store.postgres import PostgresStore


def disk_full(tmp_path: Path) -> sqlite3.OperationalError:
    """A real SQLITE_FULL: a database capped at its size, written to until it has no page left."""
    con = sqlite3.connect(tmp_path / "full.db")
    try:
        con.execute("CREATE TABLE junk (x BLOB)")
        con.execute("PRAGMA max_page_count = 20")
        with pytest.raises(sqlite3.OperationalError) as full:
            for _ in range(100):
                con.execute("INSERT INTO junk VALUES (zeroblob(4000))")
        return full.value
    finally:
        con.close()


async def refused_by_a_store() -> BaseException:
    """What a PostgreSQL store raises when nothing listens: an OSError coming up through bot.store."""
    store = PostgresStore("postgresql://postgres@127.0.0.1:1/postgres", min_size=0, max_size=1)
    await store.open(migrate=False)  # a pool of no connection yet: the first read connects
    try:
        await store.get_round(1)
    except OSError as exc:
        return exc
    finally:
        await store.close()
    raise AssertionError("port 1 accepted a connection")


def raised_here() -> OSError:
    try:
        raise ConnectionRefusedError(111, "Connect call failed")
    except OSError as exc:
        return exc


async def test_the_store_s_outages_are_told_from_everything_else(tmp_path: Path) -> None:
    full = disk_full(tmp_path)
    assert full.sqlite_errorname == "SQLITE_FULL" and is_outage(full)
    assert is_outage(sqlite3.OperationalError("disk I/O error"))
    assert is_outage(sqlite3.OperationalError("attempt to write a readonly database"))
    assert is_outage(asyncpg.exceptions.DiskFullError("could not extend file"))
    assert is_outage(asyncpg.exceptions.ConnectionDoesNotExistError("connection was closed"))
    assert is_outage(asyncpg.exceptions.AdminShutdownError("terminating connection due to administrator command"))
    assert is_outage(asyncpg.exceptions.InterfaceError("connection is closed"))
    assert is_outage(await refused_by_a_store())  # OSError raised inside the store: the server is gone
    wrapped = StoreUnavailable("not recorded")
    wrapped.__cause__ = full
    assert is_outage(wrapped) and describe(wrapped) == "OperationalError: database or disk is full"

    # a bug, a constraint, or a platform's network error is no outage of the store
    assert not is_outage(sqlite3.OperationalError("no such table: rounds"))
    assert not is_outage(sqlite3.IntegrityError("UNIQUE constraint failed: answers.round_id"))
    assert not is_outage(asyncpg.exceptions.UniqueViolationError("duplicate key"))
    assert not is_outage(
        asyncpg.exceptions.InterfaceError("cannot perform operation: another operation is in progress")
    )
    assert not is_outage(raised_here())  # an OSError that never went through the store
    assert not is_outage(aiohttp.ClientConnectionError("Slack is unreachable"))
    assert not is_outage(KeyError("user"))
    assert not is_outage(None)


async def test_an_outage_is_told_once_when_it_starts_and_once_when_it_ends(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="bot.kernel.outage")
    outage = StoreOutage()
    outage.recovered()  # nothing to end
    down = sqlite3.OperationalError("database or disk is full")
    assert not outage.failed(KeyError("a bug"))  # not an outage: the caller logs it
    assert not outage.down
    for _ in range(50):
        assert outage.failed(down)
    assert outage.down
    for _ in range(3):
        outage.recovered()
    assert not outage.down
    assert outage.failed(down)  # a second outage is told again
    outage.recovered()
    told = [(r.levelname, r.getMessage()) for r in caplog.records if r.levelno >= logging.INFO]
    assert [level for level, _ in told] == ["ERROR", "WARNING", "ERROR", "WARNING"], told
    assert told[0][1].startswith("the database is unavailable (OperationalError: database or disk is full)")
    assert told[1][1].startswith("the database is back after ")
    assert outage.outages == 2


async def test_the_probe_ends_an_outage_nobody_writes_through(caplog: pytest.LogCaptureFixture) -> None:
    """With no traffic, the store's return is noticed by the probe (a small write every probe_every seconds):
    its failures are silent, its first success says once that the database is back, and then it stops."""
    caplog.set_level(logging.INFO)
    results: list[BaseException | None] = [sqlite3.OperationalError("disk I/O error")] * 3 + [None]
    calls = 0

    async def probe() -> None:
        nonlocal calls
        calls += 1
        result = results[min(calls - 1, len(results) - 1)]
        if result is not None:
            raise result

    outage = StoreOutage(probe, probe_every=0.01)
    assert outage.failed(sqlite3.OperationalError("disk I/O error"))
    for _ in range(200):
        if not outage.down:
            break
        await asyncio.sleep(0.01)
    assert not outage.down and calls == 4
    await asyncio.sleep(0.05)
    assert calls == 4  # stopped once the store was back
    assert [r.levelname for r in caplog.records if r.name == "bot.kernel.outage"] == ["ERROR", "WARNING"]
    await outage.close()


async def test_closing_stops_the_probe() -> None:
    async def probe() -> None:
        raise sqlite3.OperationalError("disk I/O error")

    outage = StoreOutage(probe, probe_every=0.01)
    outage.failed(sqlite3.OperationalError("disk I/O error"))
    await asyncio.sleep(0.05)
    await outage.close()
    assert outage.down  # still down: nothing recorded; the probe is gone with the process


async def test_a_group_read_that_works_does_not_end_an_outage_a_group_write_does() -> None:
    """A store that reads but cannot write (a disk full, a read-only file): the answers' shared reads of
    rounds go through, and must not tell the process the store is back; the next write that works does."""
    outage = StoreOutage()
    assert outage.failed(sqlite3.OperationalError("attempt to write a readonly database"))

    async def echo(items: Sequence[int]) -> list[int]:
        return list(items)

    reads = GroupCommit(echo, outage=outage, name="round read", writes=False)
    writes = GroupCommit(echo, outage=outage)
    assert await asyncio.gather(reads.submit(1), reads.submit(2)) == [1, 2]
    assert outage.down
    assert await writes.submit(3) == 3
    assert not outage.down
    await reads.close()
    await writes.close()
