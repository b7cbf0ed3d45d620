"""Whole SQLite transactions that run on the connection's thread, each sent there in one call
(SqliteThread.call): BEGIN IMMEDIATE, the statements and COMMIT (or ROLLBACK) in one trip to the thread and
back instead of a trip per statement. A reveal is some 20 statements; a trip each would cost more than the
statements do.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Coroutine, Iterable, Sequence
from sqlite3 import Connection
from typing import Any, TypeVar

from bot.daily.values import SendClaim
from bot.kernel.scoring import Scorer
from bot.kernel.values import SpaceFilter
from bot.store.base import Step
from bot.store.rows import ANSWER_COLUMNS, ROUND_COLUMNS, round_from_row, to_ts
from bot.store.settle import reveal
from bot.store.sqlite_settle import SqliteSettle

T = TypeVar("T")

# the column order of rows.config_from_row (named, as migrations may add columns in any order)
CHANNEL_COLUMNS = (
    "platform, channel_id, space_id, post_time, timezone, weekdays, topics, difficulties, paused, reactions, "
    "answer_window_s, speed_bonus, updated_at, ping_winners, recap_day, threads, packs, champion_role"
)
_CHANNEL_ROW = f"SELECT {CHANNEL_COLUMNS} FROM channels WHERE platform = ? AND channel_id = ?"

# what reveal_batch returns: the revealed rounds' rows (in the order given), each claimed reveal post's state
# before (by id) and its row, and each revealed round's answer rows and channel row (None: no channel)
RevealedRows = tuple[list[Any], dict[int, str], list[Any], dict[int, list[Any]], dict[int, Any]]


def _in_tx(con: Connection, fn: Callable[..., T], *args: Any) -> T:
    """fn(con, *args) in one BEGIN IMMEDIATE transaction."""
    con.execute("BEGIN IMMEDIATE")
    try:
        out = fn(con, *args)
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")
    return out


def write(con: Connection, sql: str, params: Sequence[Any]) -> list[Any]:
    """One write statement in its own transaction; its rows (RETURNING)."""
    return _in_tx(con, _fetchall, sql, params)


def write_steps(con: Connection, steps: Sequence[Step]) -> list[Any]:
    """Several statements in one transaction; the rows of the last."""
    return _in_tx(con, _steps, steps)


def settle(
    con: Connection, step: Callable[..., Coroutine[Any, Any, T]], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> T:
    """step(tx, *args, **kwargs), a bot.store.settle coroutine, to its end in one transaction."""
    done: T = _in_tx(con, _settle_whole, step, args, kwargs)
    return done


def claim_sends(
    con: Connection, select: str, args: Sequence[Any], update: str, lease: str
) -> tuple[dict[int, str], list[Any]]:
    """The claim of due deliveries (claim_sends_sql's statements) in one transaction: their states before
    (by id) and the claimed rows."""
    return _in_tx(con, _claim_sends, select, args, update, lease)


def reveal_batch(
    con: Connection,
    round_ids: tuple[int, ...],
    revealed_at: dt.datetime,
    scorer: Scorer | None,
    learn: bool,
    lease_until: dt.datetime,
) -> RevealedRows:
    """Reveal each round (bot.store.settle.reveal), then claim the reveal posts of those revealed and read
    their rows, answers and channels; all in one transaction."""
    return _in_tx(con, _reveal_batch, round_ids, revealed_at, scorer, learn, lease_until)


def _fetchall(con: Connection, sql: str, params: Sequence[Any]) -> list[Any]:
    return con.execute(sql, params).fetchall()


def _steps(con: Connection, steps: Sequence[Step]) -> list[Any]:
    rows: list[Any] = []
    for sql, params in steps:
        rows = con.execute(sql, params).fetchall()
    return rows


def _run_now(coro: Coroutine[Any, Any, T]) -> T:
    """Run a bot.store.settle coroutine to its end at once (over SqliteSettle its steps never suspend)."""
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]
    coro.close()
    raise RuntimeError("a reveal step waited on something other than the connection")


def _settle_whole(
    con: Connection, step: Callable[..., Coroutine[Any, Any, T]], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> T:
    return _run_now(step(SqliteSettle(con), *args, **kwargs))


def _claim_sends(
    con: Connection, select: str, args: Sequence[Any], update: str, lease: str
) -> tuple[dict[int, str], list[Any]]:
    before = {int(r[0]): r[1] for r in con.execute(select, args).fetchall()}
    if not before:
        return before, []
    rows = con.execute(update.format(marks=",".join("?" * len(before))), (lease, *before)).fetchall()
    return before, rows


def _reveal_batch(
    con: Connection,
    round_ids: tuple[int, ...],
    revealed_at: dt.datetime,
    scorer: Scorer | None,
    learn: bool,
    lease_until: dt.datetime,
) -> RevealedRows:
    tx = SqliteSettle(con)
    done = [rid for rid in round_ids if _run_now(reveal(tx, rid, revealed_at, scorer, learn=learn))]
    if not done:
        return [], {}, [], {}, {}
    marks = ",".join("?" * len(done))
    revealed = con.execute(f"SELECT {ROUND_COLUMNS} FROM rounds WHERE id IN ({marks})", done).fetchall()
    order = {rid: i for i, rid in enumerate(done)}
    revealed.sort(key=lambda r: order[int(r[0])])
    select, args, update = claim_sends_sql("reveal", revealed_at, len(done), done, False, None)
    before, claims = _claim_sends(con, select, args, update, to_ts(lease_until))
    answers = {
        rid: con.execute(
            f"SELECT {ANSWER_COLUMNS} FROM answers WHERE round_id = ? ORDER BY answered_at, user_id", (rid,)
        ).fetchall()
        for rid in done
    }
    configs = {int(r[0]): con.execute(_CHANNEL_ROW, (r[2], r[4])).fetchone() for r in revealed}
    return revealed, before, claims, answers, configs


def claim_sends_sql(
    what: str,
    now: dt.datetime,
    limit: int,
    round_ids: Sequence[int] | None,
    force: bool,
    spaces: SpaceFilter | None,
) -> tuple[str, tuple[object, ...], str]:
    """The select of due deliveries of `what` (its args) and the update that claims them (see claim_sends)."""
    where, params = space_sql(spaces)
    state = "revealed_at IS NULL" if what == "post" else "revealed_at IS NOT NULL"
    cond = (
        f"kind = 'daily' AND {state} AND {what}_state IN ('due', 'sending', 'failed') "
        f"AND ({what}_due_at IS NULL OR {what}_due_at <= ?"
        + (f" OR {what}_state = 'failed'" if force else "")
        + ")"
        + where
    )
    args: list[object] = [to_ts(now), *params]
    if round_ids is not None:
        cond += f" AND id IN ({','.join('?' * len(round_ids))})"
        args += round_ids
    select = f"SELECT id, {what}_state FROM rounds WHERE {cond} ORDER BY id LIMIT ?"
    update = (
        f"UPDATE rounds SET {what}_state = 'sending', {what}_attempts = {what}_attempts + 1, "
        f"{what}_due_at = ?, {what}_doubts = {what}_doubts + ({what}_state = 'sending') "
        f"WHERE id IN ({{marks}}) RETURNING {ROUND_COLUMNS}, {what}_attempts, {what}_doubts"
    )
    return select, (*args, limit), update


def send_claims(before: dict[int, str], rows: Iterable[Any]) -> list[SendClaim]:
    """The claims from claim_sends' result, in round order."""
    if not before:
        return []
    out = [SendClaim(round_from_row(r[:-2]), int(r[-2]), before[int(r[0])] == "sending", int(r[-1])) for r in rows]
    return sorted(out, key=lambda c: c.round.id)


def space_sql(spaces: SpaceFilter | None) -> tuple[str, list[object]]:
    """The SQL of a SpaceFilter: its platforms, and on the sharded platform its shards ((id >> 22) % count;
    CAST makes a non-numeric space id 0, so it is on shard 0)."""
    if spaces is None:
        return "", []
    sql, params = "", list[object]()
    if spaces.platforms is not None:
        names = list(spaces.platforms) or [""]
        sql += f" AND platform IN ({','.join('?' * len(names))})"
        params += names
    if spaces.shard_count:
        ids = list(spaces.shard_ids) or [-1]
        sql += f" AND (platform <> ? OR ((CAST(space_id AS INTEGER) >> 22) % ?) IN ({','.join('?' * len(ids))}))"
        params += [spaces.shard_platform, spaces.shard_count, *ids]
    return sql, params
