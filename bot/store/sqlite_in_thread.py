"""Whole SQLite transactions that run on the connection's thread, each sent there in one call
(SqliteThread.call): BEGIN IMMEDIATE, the statements and COMMIT (or ROLLBACK) in one trip to the thread and
back instead of a trip per statement. A reveal is some 20 statements; a trip each would cost more than the
statements do.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Coroutine, Sequence
from sqlite3 import Connection
from types import TracebackType
from typing import Any, TypeVar

from bot.daily.values import SendClaim
from bot.kernel.scoring import Scorer
from bot.kernel.values import SpaceFilter
from bot.store.base import DueSends, Step
from bot.store.rows import ROUND_COLUMNS, round_from_row, to_ts
from bot.store.settle import reveal_all
from bot.store.sqlite_batch_settle import SqliteBatchSettle
from bot.store.sqlite_settle import SqliteSettle

T = TypeVar("T")

# what reveal_batch returns: the revealed rounds' rows (in the order given), the claims of their reveal posts,
# and each revealed round's answer rows and channel row (None: no channel)
RevealedRows = tuple[list[Any], list[SendClaim], dict[int, list[Any]], dict[int, Any]]


class _Immediate:
    """A BEGIN IMMEDIATE transaction around a block: COMMIT when it ends, ROLLBACK when it raises."""

    __slots__ = ("con",)

    def __init__(self, con: Connection) -> None:
        self.con = con

    def __enter__(self) -> None:
        self.con.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.con.execute("COMMIT" if kind is None else "ROLLBACK")


def write(con: Connection, sql: str, params: Sequence[Any]) -> list[Any]:
    """One write statement in its own transaction; its rows (RETURNING)."""
    with _Immediate(con):
        return con.execute(sql, params).fetchall()


def write_steps(con: Connection, steps: Sequence[Step]) -> list[Any]:
    """Several statements in one transaction; the rows of the last."""
    rows: list[Any] = []
    with _Immediate(con):
        for sql, params in steps:
            rows = con.execute(sql, params).fetchall()
    return rows


def settle(
    con: Connection, step: Callable[..., Coroutine[Any, Any, T]], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> T:
    """step(tx, *args, **kwargs), a bot.store.settle coroutine, to its end in one transaction."""
    with _Immediate(con):
        return _run_now(step(SqliteSettle(con), *args, **kwargs))


def claim_sends(con: Connection, due: DueSends) -> list[SendClaim]:
    """The claim of due deliveries in one transaction."""
    with _Immediate(con):
        return _claim_sends(con, due)


def reveal_batch(
    con: Connection,
    round_ids: tuple[int, ...],
    revealed_at: dt.datetime,
    scorer: Scorer | None,
    learn: bool,
    lease_until: dt.datetime,
) -> RevealedRows:
    """Reveal each round (bot.store.settle.reveal), then claim the reveal posts of those revealed; all in one
    transaction. The revealed rounds' rows, answers and channels are those the reveals read and wrote
    (SqliteBatchSettle)."""
    with _Immediate(con):
        tx = SqliteBatchSettle(con)
        tx.read_batch(round_ids)
        done = _run_now(reveal_all(tx, round_ids, revealed_at, scorer, learn=learn))
        if not done:
            return [], [], {}, {}
        revealed = [tx.claimed_rows[rid] for rid in done]
        claims = _claim_sends(con, DueSends("reveal", revealed_at, lease_until, len(done), done))
        answers = {rid: tx.answer_rows[rid] for rid in done}
        configs = {rid: tx.channel_rows.get((str(r[2]), str(r[4]))) for rid, r in zip(done, revealed, strict=True)}
    return revealed, claims, answers, configs


def _run_now(coro: Coroutine[Any, Any, T]) -> T:
    """Run a bot.store.settle coroutine to its end at once (over SqliteSettle its steps never suspend)."""
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]
    coro.close()
    raise RuntimeError("a reveal step waited on something other than the connection")


def _claim_sends(con: Connection, due: DueSends) -> list[SendClaim]:
    """The due deliveries (with their states before), then the claim of them (rows RETURNING), in round order."""
    select, args, update = claim_sends_sql(due)
    before = {int(r[0]): r[1] for r in con.execute(select, args).fetchall()}
    if not before:
        return []
    lease = to_ts(due.lease_until)
    rows = con.execute(update.format(marks=",".join("?" * len(before))), (lease, *before)).fetchall()
    out = [SendClaim(round_from_row(r[:-2]), int(r[-2]), before[int(r[0])] == "sending", int(r[-1])) for r in rows]
    return sorted(out, key=lambda c: c.round.id)


def claim_sends_sql(due: DueSends) -> tuple[str, tuple[object, ...], str]:
    """The select of the deliveries due (its args) and the update that claims them (its `{marks}`: one
    per id selected; its first arg the lease)."""
    where, params = space_sql(due.spaces)
    what, cond = due.what, due.where("?") + where
    args: list[object] = [to_ts(due.now), *params]
    if due.round_ids is not None:
        cond += f" AND id IN ({','.join('?' * len(due.round_ids))})"
        args += due.round_ids
    # through the partial index of the sends to retry (see sqlite.DUE_INDEX); `force` asks for the rounds
    # that index leaves out (given up)
    indexed = "" if due.force else f" INDEXED BY rounds_{what}_work"
    select = f"SELECT id, {what}_state FROM rounds{indexed} WHERE {cond} ORDER BY id LIMIT ?"
    update = (
        f"UPDATE rounds SET {what}_state = 'sending', {what}_attempts = {what}_attempts + 1, "
        f"{what}_due_at = ?, {what}_doubts = {what}_doubts + ({what}_state = 'sending') "
        f"WHERE id IN ({{marks}}) RETURNING {ROUND_COLUMNS}, {what}_attempts, {what}_doubts"
    )
    return select, (*args, due.limit), update


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
