"""`studybot db copy`: move every row between two stores (SQLite -> PostgreSQL and back).

Rows travel as plain Python values (aware datetimes, dates, times, bools, ints, text); each store's own
encoding is applied at its end (SQLite keeps fixed-width ISO text and 0/1, PostgreSQL proper types). Round
ids are kept, so answers still point at their rounds; the PostgreSQL identity restarts after the highest id.

The destination must be empty. It is written in one transaction that checks its row counts before it
commits; at the end the counts of every table are compared between source and destination once more. Every
table is copied (Slack installations too, their tokens as stored: still encrypted under the same
STUDYBOT_SECRET_KEY); a table this version does not know, in either database, makes the copy refuse.
Stop the bots writing to the source while copying.

Run as `studybot db copy --from URL --to URL`, or `python -m bot.store.copy --from URL --to URL`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import logging
import sys
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from bot.kernel.errors import CopyError
from bot.store.copy_tables import NOT_COPIED, TABLE_NAMES, TABLES
from bot.store.rows import from_ts, parse_date, to_ts

log = logging.getLogger(__name__)

BATCH = 5000


class BulkStore(Protocol):
    """What a store offers for copying (SqliteStore and PostgresStore both do)."""

    async def count_rows(self, tables: Sequence[str]) -> dict[str, int]: ...
    async def list_tables(self) -> list[str]: ...
    def export_rows(
        self, tables: Sequence[tuple[str, Sequence[str], Sequence[str]]], batch: int = ...
    ) -> AsyncGenerator[tuple[str, list[tuple[Any, ...]]]]: ...
    async def import_rows(
        self, batches: AsyncIterator[tuple[str, Sequence[str], list[tuple[Any, ...]]]]
    ) -> dict[str, int]: ...


Convert = Callable[[Any], Any]


def _keep(v: Any) -> Any:
    return v


def _hhmm(v: Any) -> Any:
    return None if v is None else f"{v:%H:%M}"


def _opt(f: Convert) -> Convert:
    return lambda v: None if v is None else f(v)


# SQLite's stored values <-> plain values; PostgreSQL (asyncpg) already speaks plain values
_FROM_SQLITE: dict[str, Convert] = {
    "text": _keep,
    "int": _keep,
    "bool": _opt(bool),
    "ts": _opt(from_ts),
    "date": parse_date,
    "time": _opt(dt.time.fromisoformat),
    "float": _keep,
}
_TO_SQLITE: dict[str, Convert] = {
    "text": _keep,
    "int": _keep,
    "bool": _opt(int),
    "ts": _opt(to_ts),
    "date": _opt(dt.date.isoformat),
    "time": _hhmm,
    "float": _keep,
}


def dialect_of(store: object) -> str:
    """'sqlite' or 'postgres': how a store encodes its rows."""
    from bot.store.sqlite import SqliteStore

    if isinstance(store, SqliteStore):
        return "sqlite"
    dialect = getattr(store, "dialect", None)
    if dialect not in ("sqlite", "postgres"):
        raise CopyError(f"cannot copy to or from a {type(store).__name__}")
    return str(dialect)


def _codec(store: object, table: dict[str, Convert]) -> Callable[[str], list[Convert]]:
    """Per-table column converters for a store (identity for PostgreSQL)."""
    kinds = {name: [kind for _, kind in columns] for name, columns, _ in TABLES}
    if dialect_of(store) == "sqlite":
        return lambda name: [table[k] for k in kinds[name]]
    return lambda name: [_keep for _ in kinds[name]]


async def copy_data(src: BulkStore, dst: BulkStore, *, batch: int = BATCH) -> dict[str, int]:
    """Copy every row of every table from one opened store to another, empty one; returns rows per table.

    Raises CopyError when either database has a table the copy does not know, when the destination is not
    empty, or when any table's count differs at the end."""
    if src is dst:
        raise CopyError("the source and the destination are the same store")
    unknown = sorted({*await src.list_tables(), *await dst.list_tables()} - {*TABLE_NAMES, *NOT_COPIED})
    if unknown:
        raise CopyError(
            f"this studybot does not know the table{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}, so it "
            "cannot copy everything; nothing was copied (copy with the studybot version that made "
            f"{'them' if len(unknown) > 1 else 'it'})"
        )
    before = await dst.count_rows(TABLE_NAMES)
    busy = {t: n for t, n in before.items() if n}
    if busy:
        raise CopyError(
            "the destination is not empty ("
            + ", ".join(f"{t}: {n} rows" for t, n in busy.items())
            + "); copy into an empty database"
        )
    decode, encode = _codec(src, _FROM_SQLITE), _codec(dst, _TO_SQLITE)
    exported: dict[str, int] = dict.fromkeys(TABLE_NAMES, 0)
    specs = [(name, [c for c, _ in columns], list(order)) for name, columns, order in TABLES]
    column_names = {name: cols for name, cols, _ in specs}

    async def stream() -> AsyncGenerator[tuple[str, Sequence[str], list[tuple[Any, ...]]]]:
        for name in TABLE_NAMES:  # every table shows up, even an empty one
            yield name, column_names[name], []
        async with contextlib.aclosing(src.export_rows(specs, batch)) as rows_by_table:
            async for name, rows in rows_by_table:
                conv = [(d, e) for d, e in zip(decode(name), encode(name), strict=True)]
                out = [tuple(e(d(v)) for (d, e), v in zip(conv, row, strict=True)) for row in rows]
                exported[name] += len(out)
                yield name, column_names[name], out

    try:
        async with contextlib.aclosing(stream()) as batches:
            imported = await dst.import_rows(batches)
    except Exception as exc:  # the destination's one transaction rolled back
        raise CopyError(f"the copy failed and nothing was written: {type(exc).__name__}: {exc}") from exc
    src_counts = await src.count_rows(TABLE_NAMES)
    dst_counts = await dst.count_rows(TABLE_NAMES)
    wrong = [
        f"{t}: source {src_counts[t]}, copied {exported[t]}, destination {dst_counts[t]}"
        for t in TABLE_NAMES
        if not src_counts[t] == exported[t] == imported.get(t, 0) == dst_counts[t]
    ]
    if wrong:
        raise CopyError("row counts differ after the copy (was a bot writing to the source?): " + "; ".join(wrong))
    log.info("copied %s", ", ".join(f"{t}={n}" for t, n in dst_counts.items()))
    return dst_counts


async def copy_database(src_url: str, dst_url: str, *, batch: int = BATCH) -> dict[str, int]:
    """Open both databases by URL (migrating the destination), copy everything and close them."""
    from bot.store.urls import sqlite_path, store_for_url

    if src_url.startswith("sqlite:"):
        path = sqlite_path(src_url)
        if path != ":memory:" and not await asyncio.to_thread(Path(path).exists):
            raise CopyError(f"the source database {path} does not exist")
    src, dst = store_for_url(src_url), store_for_url(dst_url)
    await src.open()
    try:
        await dst.open()
        try:
            return await copy_data(src, dst, batch=batch)  # type: ignore[arg-type]
        finally:
            await dst.close()
    finally:
        await src.close()


def main(argv: list[str] | None = None) -> int:
    """python -m bot.store.copy --from URL --to URL"""
    parser = argparse.ArgumentParser(prog="python -m bot.store.copy", description=__doc__.split("\n")[0])
    parser.add_argument("--from", dest="src", required=True, metavar="URL", help="source database URL")
    parser.add_argument("--to", dest="dst", required=True, metavar="URL", help="destination database URL (empty)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        counts = asyncio.run(copy_database(args.src, args.dst))
    except (CopyError, ConnectionError) as exc:
        print(f"copy failed: {exc}", file=sys.stderr)
        return 1
    for table, n in counts.items():
        print(f"{table:<14} {n:>10,}")
    print("copied; row counts match")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
