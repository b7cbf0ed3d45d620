"""What every SQL module of the store is written over: statements with `?` marks, and a store's ways to run them.

A store supplies `_read` (one statement), `_atomic` (one write statement in its own transaction),
`_atomic_steps` (several statements in one transaction; the rows of the last) and `_write_tx` (a transaction
port, SqlTx), and the value conversions its driver needs: `_ts` for a timestamp, `_day` for a date.
PostgreSQL numbers the marks (`numbered`). Each feature's SQL is a mixin over SqlBase in its own module
(bot/store/<feature>_sql.py); what differs between the engines (locks, the reveal's one trip to SQLite's
thread, upserts with engine-only syntax) stays in each engine.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import re
from collections.abc import Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from bot.daily.values import RevealedRound, SendClaim
from bot.kernel.scoring import Scorer
from bot.kernel.values import ChannelRef, DueChannel, SpaceFilter

Step = tuple[str, Sequence[Any]]


class SqlTx(Protocol):
    """One open write transaction of a SQL store, for the multi-statement writes written once below."""

    for_update: str  # " FOR UPDATE" where rows can be locked (PostgreSQL); "" on SQLite's single writer

    async def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]: ...

    async def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run a statement; how many rows it changed."""
        ...

    async def run_many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None: ...

    async def lock_packs(self, platform: str, space_id: str, *, wait: bool) -> bool:
        """Take the space's pack lock (imports and approvals one at a time); without `wait`, False at once
        when another holds it. SQLite's single writer holds it already."""
        ...

    async def lock_space(self, ref: ChannelRef) -> None:
        """The space's scoring lock, the one a reveal takes."""
        ...


@dataclasses.dataclass(frozen=True, slots=True)
class DueSends:
    """The deliveries of `what` (post or reveal) a claim takes: of daily rounds, those due at `now`, failed
    and due for a retry (with `force`: every failed or given-up one) or whose sending lease ran out; at most `limit`,
    in round order; `round_ids`: of these rounds only; `spaces`: in these spaces only. A claim gives each a
    sending lease until `lease_until`."""

    what: str
    now: dt.datetime
    lease_until: dt.datetime
    limit: int
    round_ids: Sequence[int] | None = None
    force: bool = False
    spaces: SpaceFilter | None = None

    def where(self, now_mark: str) -> str:
        """The rounds due, `now_mark` the statement's mark of `now` (the round and space filters aside)."""
        state = "revealed_at IS NULL" if self.what == "post" else "revealed_at IS NOT NULL"
        return f"kind = 'daily' AND {state} AND {sendable(self.what, now_mark, force=self.force)}"


def sendable(what: str, now_mark: str, *, force: bool = False) -> str:
    """Whether a daily round's send of `what` is free to claim by its state and its due instant (DueSends.where
    without asking whether the round is revealed: a reveal batch claims its reveal posts as it reveals them)."""
    states = "'due', 'sending', 'failed', 'gave_up'" if force else "'due', 'sending', 'failed'"
    failed = f" OR {what}_state IN ('failed', 'gave_up')" if force else ""
    return f"{what}_state IN ({states}) AND ({what}_due_at IS NULL OR {what}_due_at <= {now_mark}{failed})"


class _Rollback(Exception):
    """Leaves a `_write_tx` with nothing written."""


_MARK = re.compile(r"\?(\d*)")


@functools.lru_cache(maxsize=512)
def numbered(sql: str) -> str:
    """`?` marks as PostgreSQL's `$1, $2, ...`, and `?3` as `$3` (our statements hold no `?` inside literals)."""
    count = iter(range(1, 10_000))
    return _MARK.sub(lambda m: f"${m.group(1) or next(count)}", sql)


# marked practice answers with their answers, oldest round first ({learner}: one learner's only;
# {rounds}: the table as r, on SQLite with INDEXED BY, as its planner would otherwise scan every round for the marks)
PENDING_PRACTICE = (
    "SELECT r.id, r.platform, r.space_id, r.user_id, r.question_id, r.learn_pending, a.correct, a.answered_at "
    "FROM {rounds} JOIN answers a ON a.round_id = r.id AND a.user_id = r.user_id "
    "WHERE r.learn_pending IS NOT NULL {learner}ORDER BY r.id LIMIT ?"
)


# whether a learner has a marked practice answer, or answered a daily round marked for its card updates, in
# the space (each through its partial index)
PENDING_OF_LEARNER = (
    "SELECT 1 FROM rounds WHERE learn_pending IS NOT NULL AND platform = ?1 AND space_id = ?2 AND user_id = ?3 "
    "UNION ALL SELECT 1 FROM rounds r WHERE r.cards_pending IS NOT NULL AND r.platform = ?1 AND r.space_id = ?2 "
    "AND EXISTS (SELECT 1 FROM answers a WHERE a.round_id = r.id AND a.user_id = ?3) LIMIT 1"
)


class SqlBase:
    """The helpers every SQL mixin is written over; each engine implements the abstract ones."""

    # the column list config_from_row reads (the stores render the posting time differently)
    channel_columns: str

    native_values: bool  # config_to_row(native=...): the driver takes Python's own types

    text_order: str  # appended to a text column in ORDER BY so both engines sort it byte by byte

    # the enabled reminders with a next instant, as the engine's partial index reminders_due names them (SQLite
    # through that index by name: for a lane's `platform IN (...)` its planner scanned every reminder instead)
    due_reminders_sql: str

    async def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        raise NotImplementedError

    async def _atomic(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        raise NotImplementedError

    async def _atomic_steps(self, steps: Sequence[Step]) -> list[Any]:
        raise NotImplementedError

    async def _atomic_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """One write statement run once per row, in order, in one transaction (PostgreSQL sends them in
        one pipeline instead of a trip each)."""
        await self._atomic_steps([(sql, r) for r in rows])

    def _write_tx(self) -> AbstractAsyncContextManager[SqlTx]:
        """A write transaction (the store's own locking), committed when the block ends, rolled back when
        it raises."""
        raise NotImplementedError

    def _ts(self, moment: dt.datetime) -> object:
        raise NotImplementedError

    def _day(self, day: dt.date) -> object:
        raise NotImplementedError

    async def _claim_due(
        self, due: str, lease: str, now: dt.datetime, lease_until: dt.datetime, limit: int, spaces: SpaceFilter | None
    ) -> list[DueChannel]:
        """Claim channels whose `due` column has passed and whose `lease` is free (the daily post, the recap):
        the earliest due first, and among those due at one instant a space's channels together."""
        raise NotImplementedError

    async def _claim_sends(
        self,
        what: str,
        now: dt.datetime,
        lease_until: dt.datetime,
        limit: int,
        round_id: int | None,
        force: bool,
        spaces: SpaceFilter | None,
    ) -> list[SendClaim]:
        """Claim deliveries of `what` (post or reveal) that are due, failed and due for a retry, or whose
        sending lease ran out; `round_id`: of that round only."""
        only = None if round_id is None else (round_id,)
        return await self._claim_due_sends(DueSends(what, now, lease_until, limit, only, force, spaces))

    async def _claim_due_sends(self, due: DueSends) -> list[SendClaim]:
        """The claim of `due` (two processes never claim the same delivery), in round order."""
        raise NotImplementedError

    async def reveal_due_rounds(
        self,
        round_ids: Sequence[int],
        revealed_at: dt.datetime,
        scorer: Scorer | None,
        lease_until: dt.datetime,
        *,
        learn: bool = True,
    ) -> list[RevealedRound]:
        if not round_ids:
            return []
        return await self._reveal_batch(round_ids, revealed_at, scorer, lease_until, learn)

    async def _reveal_batch(
        self, ids: Sequence[int], at: dt.datetime, scorer: Scorer | None, lease_until: dt.datetime, learn: bool
    ) -> list[RevealedRound]:
        """Reveal these rounds (bot.store.settle.reveal, each once) in one transaction, then claim the reveal
        posts of those revealed now: each revealed round as the transaction left it, in the order given."""
        raise NotImplementedError

    def _space_filter(self, spaces: SpaceFilter | None, first: int) -> tuple[str, list[object]]:
        """The store's SQL of a SpaceFilter, its marks numbered from `first`."""
        raise NotImplementedError

    def _maybe_ts(self, moment: dt.datetime | None) -> object:
        return None if moment is None else self._ts(moment)

    async def _first(self, sql: str, params: Sequence[Any] = ()) -> Any:
        rows = await self._read(sql, params)
        return rows[0] if rows else None

    async def _finish_due(
        self, due: str, lease: str, ref: ChannelRef, due_at: dt.datetime, next_at: dt.datetime | None
    ) -> None:
        """Move `due` on to next_at (unless a change moved it meanwhile) and free the lease."""
        await self._atomic(
            f"UPDATE channels SET {due} = CASE WHEN {due} = ? THEN ? ELSE {due} END, "
            f"{lease} = NULL WHERE platform = ? AND channel_id = ?",
            (self._ts(due_at), self._maybe_ts(next_at), ref.platform, ref.channel_id),
        )

    async def _count_packs(self, tx: SqlTx, platform: str, space_id: str) -> int:
        rows = await tx.rows("SELECT COUNT(*) FROM packs WHERE platform = ? AND space_id = ?", (platform, space_id))
        return int(rows[0][0])
