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
from bot.store.rows import from_ts, parse_date, to_ts

log = logging.getLogger(__name__)

# every table, in foreign-key order: (name, ((column, kind), ...), primary key for a stable order)
TABLES: tuple[tuple[str, tuple[tuple[str, str], ...], tuple[str, ...]], ...] = (
    (
        "channels",
        (
            ("platform", "text"),
            ("channel_id", "text"),
            ("space_id", "text"),
            ("post_time", "time"),
            ("timezone", "text"),
            ("weekdays", "text"),
            ("topics", "text"),
            ("difficulties", "text"),
            ("paused", "bool"),
            ("reactions", "bool"),
            ("answer_window_s", "int"),
            ("speed_bonus", "bool"),
            ("updated_at", "ts"),
            ("ping_winners", "bool"),
            ("next_post_at", "ts"),
            ("claimed_until", "ts"),
            ("recap_day", "int"),
            ("next_recap_at", "ts"),
            ("recap_claimed_until", "ts"),
            ("threads", "bool"),
            ("packs", "text"),
            ("champion_role", "text"),
            ("manager_role", "text"),
            ("ping_role", "text"),
            ("ping_group", "text"),
        ),
        ("platform", "channel_id"),
    ),
    (
        "rounds",
        (
            ("id", "int"),
            ("kind", "text"),
            ("platform", "text"),
            ("space_id", "text"),
            ("channel_id", "text"),
            ("user_id", "text"),
            ("question_id", "text"),
            ("topic", "text"),
            ("local_date", "date"),
            ("opened_at", "ts"),
            ("closes_at", "ts"),
            ("revealed_at", "ts"),
            ("message_id", "text"),
            ("post_state", "text"),
            ("post_attempts", "int"),
            ("post_due_at", "ts"),
            ("post_doubts", "int"),
            ("reveal_state", "text"),
            ("reveal_attempts", "int"),
            ("reveal_due_at", "ts"),
            ("reveal_doubts", "int"),
            ("learn_pending", "int"),
        ),
        ("id",),
    ),
    (
        "answers",
        (
            ("round_id", "int"),
            ("user_id", "text"),
            ("choice", "int"),
            ("correct", "bool"),
            ("answered_at", "ts"),
            ("points", "int"),
        ),
        ("round_id", "user_id"),
    ),
    (
        "scores",
        (
            ("platform", "text"),
            ("space_id", "text"),
            ("period", "text"),
            ("period_key", "text"),
            ("user_id", "text"),
            ("points", "int"),
            ("correct", "int"),
            ("answered", "int"),
            ("reached_at", "ts"),
        ),
        ("platform", "space_id", "period", "period_key", "user_id"),
    ),
    (
        "score_buckets",
        (
            ("platform", "text"),
            ("space_id", "text"),
            ("period", "text"),
            ("period_key", "text"),
            ("points", "int"),
            ("users", "int"),
        ),
        ("platform", "space_id", "period", "period_key", "points"),
    ),
    (
        "streaks",
        (
            ("platform", "text"),
            ("space_id", "text"),
            ("user_id", "text"),
            ("current", "int"),
            ("best", "int"),
            ("last_date", "date"),
            ("kept", "int"),
            ("freezes", "int"),
            ("freezes_used", "int"),
            ("frozen", "int"),
        ),
        ("platform", "space_id", "user_id"),
    ),
    (
        "review_prefs",
        (
            ("platform", "text"),
            ("space_id", "text"),
            ("user_id", "text"),
            ("daily_limit", "int"),
            ("paused_at", "ts"),
            ("paused_until", "ts"),
            ("resumed_at", "ts"),
        ),
        ("platform", "space_id", "user_id"),
    ),
    (
        "learner_plans",
        (
            ("platform", "text"),
            ("space_id", "text"),
            ("user_id", "text"),
            ("channel_id", "text"),
            ("plan_date", "date"),
            ("topics", "text"),
            ("started_at", "ts"),
        ),
        ("platform", "space_id", "user_id"),
    ),
    (
        "review_days",
        (
            ("round_id", "int"),
            ("platform", "text"),
            ("space_id", "text"),
            ("user_id", "text"),
            ("local_date", "date"),
            ("question_id", "text"),
            ("kind", "text"),
        ),
        ("round_id",),
    ),
    (
        "recaps",
        (
            ("platform", "text"),
            ("channel_id", "text"),
            ("week_end", "date"),
            ("posted_at", "ts"),
        ),
        ("platform", "channel_id", "week_end"),
    ),
    (
        "learner_cards",
        (
            ("platform", "text"),
            ("space_id", "text"),
            ("user_id", "text"),
            ("question_id", "text"),
            ("state", "int"),
            ("step", "int"),
            ("stability", "float"),
            ("difficulty", "float"),
            ("due", "ts"),
            ("last_review", "ts"),
            ("reviews", "int"),
            ("lapses", "int"),
            ("confident_miss", "bool"),
        ),
        ("platform", "space_id", "user_id", "question_id"),
    ),
    (
        "review_log",
        (
            ("platform", "text"),
            ("space_id", "text"),
            ("user_id", "text"),
            ("question_id", "text"),
            ("reviewed_at", "ts"),
            ("rating", "int"),
            ("sure", "bool"),
            ("due_before", "ts"),
            ("recall", "float"),
        ),
        ("platform", "space_id", "user_id", "question_id", "reviewed_at"),
    ),
    ("answer_doubts", (("round_id", "int"), ("user_id", "text")), ("round_id", "user_id")),
    (
        "packs",
        (
            ("platform", "text"),
            ("space_id", "text"),
            ("name", "text"),
            ("version", "int"),
            ("questions", "int"),
            ("updated_at", "ts"),
        ),
        ("platform", "space_id", "name"),
    ),
    (
        "pack_questions",
        (
            ("platform", "text"),
            ("space_id", "text"),
            ("pack", "text"),
            ("position", "int"),
            ("question_id", "text"),
            ("body", "text"),
        ),
        ("platform", "space_id", "pack", "position"),
    ),
    ("round_questions", (("round_id", "int"), ("body", "text")), ("round_id",)),
    (
        "seasons",
        (("platform", "text"), ("space_id", "text"), ("season", "text"), ("archived_at", "ts")),
        ("platform", "space_id", "season"),
    ),
    (
        "season_places",
        (
            ("platform", "text"),
            ("space_id", "text"),
            ("season", "text"),
            ("rank", "int"),
            ("user_id", "text"),
            ("points", "int"),
            ("answers", "int"),
            ("correct", "int"),
        ),
        ("platform", "space_id", "season", "rank"),
    ),
    (
        "season_posts",
        (("platform", "text"), ("channel_id", "text"), ("season", "text"), ("posted_at", "ts")),
        ("platform", "channel_id", "season"),
    ),
    (
        "suggestions",
        (
            ("id", "int"),
            ("platform", "text"),
            ("space_id", "text"),
            ("channel_id", "text"),
            ("author_id", "text"),
            ("body", "text"),
            ("status", "text"),
            ("reason", "text"),
            ("created_at", "ts"),
            ("decided_by", "text"),
            ("decided_at", "ts"),
            ("question_id", "text"),
        ),
        ("id",),
    ),
    (
        "suggestion_quota",
        (("platform", "text"), ("space_id", "text"), ("user_id", "text"), ("day", "date"), ("used", "int")),
        ("platform", "space_id", "user_id", "day"),
    ),
    (
        "reminders",
        (
            ("platform", "text"),
            ("space_id", "text"),
            ("user_id", "text"),
            ("channel_id", "text"),
            ("remind_at", "time"),
            ("timezone", "text"),
            ("enabled", "bool"),
            ("next_at", "ts"),
        ),
        ("platform", "space_id", "user_id"),
    ),
    (
        "reminder_days",
        (
            ("platform", "text"),
            ("space_id", "text"),
            ("user_id", "text"),
            ("local_date", "date"),
            ("claimed_at", "ts"),
        ),
        ("platform", "space_id", "user_id", "local_date"),
    ),
    (
        "live_games",
        (
            ("id", "int"),
            ("platform", "text"),
            ("space_id", "text"),
            ("channel_id", "text"),
            ("starter_id", "text"),
            ("total", "int"),
            ("seconds", "int"),
            ("topic", "text"),
            ("started_at", "ts"),
            ("step", "text"),
            ("position", "int"),
            ("due_at", "ts"),
            ("claimed_until", "ts"),
            ("attempts", "int"),
            ("stopped_by", "text"),
            ("ended_at", "ts"),
        ),
        ("id",),
    ),
    (
        "live_questions",
        (("game_id", "int"), ("position", "int"), ("round_id", "int"), ("scored", "bool")),
        ("game_id", "position"),
    ),
    (
        "live_scores",
        (
            ("platform", "text"),
            ("space_id", "text"),
            ("user_id", "text"),
            ("points", "int"),
            ("games", "int"),
            ("wins", "int"),
        ),
        ("platform", "space_id", "user_id"),
    ),
    (
        "question_reports",
        (
            ("id", "int"),
            ("platform", "text"),
            ("space_id", "text"),
            ("question_id", "text"),
            ("pack", "text"),
            ("reporter", "text"),
            ("reason", "text"),
            ("body", "text"),
            ("created_at", "ts"),
            ("status", "text"),
            ("resolution", "text"),
            ("resolved_by", "text"),
            ("resolved_at", "ts"),
        ),
        ("id",),
    ),
    (
        "question_holds",
        (
            ("platform", "text"),
            ("space_id", "text"),
            ("question_id", "text"),
            ("held_at", "ts"),
            ("held_by", "text"),
        ),
        ("platform", "space_id", "question_id"),
    ),
    (  # "Add to Slack": the tokens are copied as stored, encrypted under the same STUDYBOT_SECRET_KEY
        "installations",
        (
            ("platform", "text"),
            ("workspace_id", "text"),
            ("bot_user_id", "text"),
            ("token_secret", "text"),
            ("installed_at", "ts"),
            ("bot_id", "text"),
            ("scopes", "text"),
            ("installed_by", "text"),
            ("enterprise_id", "text"),
            ("refresh_secret", "text"),
            ("token_expires_at", "ts"),
            ("refresh_claimed_until", "ts"),
        ),
        ("platform", "workspace_id"),
    ),
    (
        "teams",
        (("platform", "text"), ("space_id", "text"), ("team_key", "text"), ("name", "text"), ("created_at", "ts")),
        ("platform", "space_id", "team_key"),
    ),
    (
        "team_members",
        (("platform", "text"), ("space_id", "text"), ("user_id", "text"), ("team_key", "text"), ("joined_at", "ts")),
        ("platform", "space_id", "user_id"),
    ),
    (
        "season_teams",
        (
            ("platform", "text"),
            ("space_id", "text"),
            ("season", "text"),
            ("name", "text"),
            ("points", "int"),
            ("members", "int"),
            ("decided_at", "ts"),
        ),
        ("platform", "space_id", "season"),
    ),
    ("oauth_states", (("state", "text"), ("expires_at", "ts")), ("state",)),
    ("seen_once", (("scope", "text"), ("key", "text"), ("expires_at", "ts")), ("scope", "key")),
    (  # the dashboard's one-time sign-in links (token hashes) and sign-in attempts
        "login_links",
        (
            ("token_hash", "text"),
            ("platform", "text"),
            ("space_id", "text"),
            ("user_id", "text"),
            ("is_admin", "bool"),
            ("created_at", "ts"),
            ("expires_at", "ts"),
            ("used_at", "ts"),
        ),
        ("token_hash",),
    ),
    ("login_attempts", (("bucket", "text"), ("window_start", "ts"), ("attempts", "int")), ("bucket", "window_start")),
)
TABLE_NAMES: tuple[str, ...] = tuple(t[0] for t in TABLES)
# tables left alone on purpose; any other table the copy does not know makes it refuse (it could not be complete)
NOT_COPIED: dict[str, str] = {
    "schema_migrations": "each database records its own migrations (db migrate)",
    "running_spans": "when the bot ran is recorded by the processes on each database (bot.daily.uptime)",
}
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
