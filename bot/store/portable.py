"""Store methods whose SQL reads the same on SQLite and PostgreSQL, written once.

Statements use `?` marks. A store supplies three ways to run them: `_read` (one statement),
`_atomic` (one write statement in its own transaction) and `_atomic_steps` (several statements in one
transaction; the rows of the last), and the value conversions its driver needs: `_ts` for a timestamp,
`_day` for a date. PostgreSQL numbers the marks (`numbered`). What differs between the engines (locks,
the reveal's one trip to SQLite's thread, upserts with engine-only syntax) stays in each store.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from bot.errors import PackBusy, PackError, PackExists
from bot.export import Miss
from bot.forget import Forgotten
from bot.installs import WorkspaceInstall
from bot.learning import LearnerCard, ReviewEvent
from bot.model import (
    Answer,
    ChannelConfig,
    ChannelRef,
    DailyClaim,
    DueChannel,
    DueFinish,
    DuePost,
    LeaderboardRow,
    Period,
    PostFinish,
    RecapRound,
    RecapScorer,
    RevealFinish,
    Round,
    RoundKind,
    SeasonArchive,
    SendClaim,
    SpaceFilter,
    StreakState,
    Suggestion,
    TopicStats,
)
from bot.store.learner_sql import MISSES, forget_steps, miss_from_row
from bot.store.rows import (
    ANSWER_COLUMNS,
    CARD_COLUMNS,
    CHANNEL_UPSERT_SQL,
    EVENT_COLUMNS,
    INSTALL_COLUMNS,
    ROUND_COLUMNS,
    SEASON_CHAMPION_SQL,
    SEASON_HEADER_SQL,
    SEASON_INSERT_SQL,
    SEASON_OPEN_SQL,
    SEASON_PLACE_INSERT_SQL,
    SEASON_PLACES_SQL,
    SEASON_TOP_SQL,
    SUGGESTION_COLUMNS,
    answer_counts,
    answer_from_row,
    approved_question,
    asked_where,
    card_from_row,
    config_from_row,
    config_to_row,
    event_from_row,
    from_ts,
    install_from_row,
    month_span,
    pack_full,
    parse_date,
    round_from_row,
    season_from_rows,
    season_place_rows,
    season_places,
    suggestion_from_row,
)

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


PENDING_OF_LEARNER = (
    "SELECT 1 FROM rounds WHERE learn_pending IS NOT NULL AND platform = ? AND space_id = ? AND user_id = ? LIMIT 1"
)


def _by_round(items: Sequence[PostFinish] | Sequence[RevealFinish]) -> list[Any]:
    """Round updates in id order, as answer batches lock their rounds (FOR SHARE ... ORDER BY id): a batch of
    updates and a batch of answers never wait on each other in a circle (a stable sort: one round's keep theirs)."""
    return sorted(items, key=lambda i: i.round_id)


class PortableSql:
    """The Store methods written once over `_read`, `_atomic` and `_atomic_steps` (see the module)."""

    # the column list config_from_row reads (the stores render the posting time differently)
    channel_columns: str
    native_values: bool  # config_to_row(native=...): the driver takes Python's own types
    text_order: str  # appended to a text column in ORDER BY so both engines sort it byte by byte

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
        """Claim channels whose `due` column has passed and whose `lease` is free (the daily post, the recap)."""
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
        sending lease ran out."""
        raise NotImplementedError

    def _space_filter(self, spaces: SpaceFilter | None, first: int) -> tuple[str, list[object]]:
        """The store's SQL of a SpaceFilter, its marks numbered from `first`."""
        raise NotImplementedError

    def _maybe_ts(self, moment: dt.datetime | None) -> object:
        return None if moment is None else self._ts(moment)

    async def _first(self, sql: str, params: Sequence[Any] = ()) -> Any:
        rows = await self._read(sql, params)
        return rows[0] if rows else None

    # ---- channels --------------------------------------------------------------------------------

    async def save_channel(self, config: ChannelConfig) -> None:
        row = config_to_row(config, dt.datetime.now(dt.UTC), native=self.native_values)
        await self._atomic(CHANNEL_UPSERT_SQL, row)

    async def get_channel(self, ref: ChannelRef) -> ChannelConfig | None:
        row = await self._first(
            f"SELECT {self.channel_columns} FROM channels WHERE platform = ? AND channel_id = ?",
            (ref.platform, ref.channel_id),
        )
        return config_from_row(row) if row else None

    async def list_channels(self, platform: str | None = None) -> list[ChannelConfig]:
        if platform is None:
            rows = await self._read(f"SELECT {self.channel_columns} FROM channels ORDER BY platform, channel_id")
        else:
            rows = await self._read(
                f"SELECT {self.channel_columns} FROM channels WHERE platform = ? ORDER BY channel_id", (platform,)
            )
        return [config_from_row(r) for r in rows]

    async def space_timezone(self, platform: str, space_id: str) -> str | None:
        row = await self._first(
            "SELECT timezone FROM channels WHERE platform = ? AND space_id = ? ORDER BY updated_at DESC LIMIT 1",
            (platform, space_id),
        )
        return row[0] if row else None

    async def unscheduled_channels(self, spaces: SpaceFilter | None = None) -> list[ChannelConfig]:
        where, params = self._space_filter(spaces, 1)
        rows = await self._read(
            f"SELECT {self.channel_columns} FROM channels WHERE NOT paused AND next_post_at IS NULL{where} "
            "ORDER BY platform, channel_id",
            params,
        )
        return [config_from_row(r) for r in rows]

    async def set_next_post(self, ref: ChannelRef, at: dt.datetime | None) -> None:
        await self._atomic(
            "UPDATE channels SET next_post_at = ?, claimed_until = NULL WHERE platform = ? AND channel_id = ?",
            (self._maybe_ts(at), ref.platform, ref.channel_id),
        )

    async def get_next_post(self, ref: ChannelRef) -> dt.datetime | None:
        row = await self._first(
            "SELECT next_post_at FROM channels WHERE platform = ? AND channel_id = ?", (ref.platform, ref.channel_id)
        )
        return from_ts(row[0]) if row and row[0] else None

    async def claim_due_channels(
        self, now: dt.datetime, lease_until: dt.datetime, limit: int, spaces: SpaceFilter | None = None
    ) -> list[DueChannel]:
        return await self._claim_due("next_post_at", "claimed_until", now, lease_until, limit, spaces)

    async def finish_due_channel(self, ref: ChannelRef, due_at: dt.datetime, next_at: dt.datetime | None) -> None:
        await self._finish_due("next_post_at", "claimed_until", ref, due_at, next_at)

    async def _finish_due(
        self, due: str, lease: str, ref: ChannelRef, due_at: dt.datetime, next_at: dt.datetime | None
    ) -> None:
        """Move `due` on to next_at (unless a change moved it meanwhile) and free the lease."""
        await self._atomic(
            f"UPDATE channels SET {due} = CASE WHEN {due} = ? THEN ? ELSE {due} END, "
            f"{lease} = NULL WHERE platform = ? AND channel_id = ?",
            (self._ts(due_at), self._maybe_ts(next_at), ref.platform, ref.channel_id),
        )

    # ---- deliveries of the daily round -----------------------------------------------------------

    async def claim_posts(
        self,
        now: dt.datetime,
        lease_until: dt.datetime,
        limit: int,
        *,
        round_id: int | None = None,
        force: bool = False,
        spaces: SpaceFilter | None = None,
    ) -> list[SendClaim]:
        return await self._claim_sends("post", now, lease_until, limit, round_id, force, spaces)

    async def finish_post(
        self, round_id: int, state: str, *, message_id: str | None = None, retry_at: dt.datetime | None = None
    ) -> None:
        await self._atomic(
            "UPDATE rounds SET post_state = ?, post_due_at = ?, message_id = COALESCE(?, message_id) WHERE id = ?",
            (state, self._maybe_ts(retry_at), message_id, round_id),
        )

    async def claim_reveals(
        self,
        now: dt.datetime,
        lease_until: dt.datetime,
        limit: int,
        *,
        round_id: int | None = None,
        spaces: SpaceFilter | None = None,
    ) -> list[SendClaim]:
        return await self._claim_sends("reveal", now, lease_until, limit, round_id, False, spaces)

    async def finish_reveal(self, round_id: int, state: str, *, retry_at: dt.datetime | None = None) -> None:
        await self._atomic(
            "UPDATE rounds SET reveal_state = ?, reveal_due_at = ? WHERE id = ?",
            (state, self._maybe_ts(retry_at), round_id),
        )

    # ---- the same work by the batch (the tick's fan-out: a few trips per batch, not per channel) --

    async def claim_due_posts(
        self, now: dt.datetime, lease_until: dt.datetime, limit: int, spaces: SpaceFilter | None = None
    ) -> list[DuePost]:
        dues = await self.claim_due_channels(now, lease_until, limit, spaces)
        configs: dict[tuple[str, str], ChannelConfig] = {}
        opened: dict[tuple[str, str], list[Round]] = {}
        for platform in sorted({d.ref.platform for d in dues}):
            ids = [d.ref.channel_id for d in dues if d.ref.platform == platform]
            marks = ",".join("?" * len(ids))
            for row in await self._read(
                f"SELECT {self.channel_columns} FROM channels WHERE platform = ? AND channel_id IN ({marks})",
                (platform, *ids),
            ):
                cfg = config_from_row(row)
                configs[(platform, cfg.ref.channel_id)] = cfg
            for row in await self._read(
                f"SELECT {ROUND_COLUMNS} FROM rounds WHERE platform = ? AND channel_id IN ({marks}) "
                "AND revealed_at IS NULL AND kind = 'daily' ORDER BY id",
                (platform, *ids),
            ):
                round_ = round_from_row(row)
                opened.setdefault((platform, round_.ref.channel_id), []).append(round_)
        keys = [(d.ref.platform, d.ref.channel_id) for d in dues]
        return [DuePost(d, configs.get(k), tuple(opened.get(k, ()))) for d, k in zip(dues, keys, strict=True)]

    async def claim_daily_rounds(self, claims: Sequence[DailyClaim]) -> list[Round | None]:
        if not claims:
            return []
        # one statement; the slots taken insert nothing (see claim_daily_round)
        rows = await self._atomic(
            "INSERT INTO rounds (kind, platform, space_id, channel_id, question_id, topic, local_date, "
            "opened_at, closes_at, post_state, post_attempts, post_due_at) VALUES "
            + ",".join("('daily',?,?,?,?,?,?,?,?,?,?,?)" for _ in claims)
            + f" ON CONFLICT DO NOTHING RETURNING {ROUND_COLUMNS}",
            [v for c in claims for v in self._daily_claim_row(c)],
        )
        won = {(r.ref.platform, r.ref.channel_id, r.local_date): r for r in map(round_from_row, rows)}
        return [won.get((c.ref.platform, c.ref.channel_id, c.local_date)) for c in claims]

    def _daily_claim_row(self, c: DailyClaim) -> tuple[object, ...]:
        return (
            c.ref.platform,
            c.ref.space_id,
            c.ref.channel_id,
            c.question_id,
            c.topic,
            self._day(c.local_date),
            self._ts(c.opened_at),
            self._maybe_ts(c.closes_at),
            "sending" if c.lease_until else "due",
            1 if c.lease_until else 0,
            self._maybe_ts(c.lease_until),
        )

    async def finish_posts(self, items: Sequence[PostFinish]) -> None:
        if items:
            await self._atomic_many(
                "UPDATE rounds SET post_state = ?, post_due_at = ?, message_id = COALESCE(?, message_id) WHERE id = ?",
                [(i.state, self._maybe_ts(i.retry_at), i.message_id, i.round_id) for i in _by_round(items)],
            )

    async def finish_reveals(self, items: Sequence[RevealFinish]) -> None:
        if items:
            await self._atomic_many(
                "UPDATE rounds SET reveal_state = ?, reveal_due_at = ? WHERE id = ?",
                [(i.state, self._maybe_ts(i.retry_at), i.round_id) for i in _by_round(items)],
            )

    async def finish_due_channels(self, items: Sequence[DueFinish]) -> None:
        if items:
            await self._atomic_many(
                "UPDATE channels SET next_post_at = CASE WHEN next_post_at = ? THEN ? ELSE next_post_at END, "
                "claimed_until = NULL WHERE platform = ? AND channel_id = ?",
                [
                    (self._ts(i.due_at), self._maybe_ts(i.next_at), i.ref.platform, i.ref.channel_id)
                    for i in sorted(items, key=lambda i: (i.ref.platform, i.ref.channel_id))
                ],
            )

    # ---- rounds ----------------------------------------------------------------------------------

    async def claim_daily_round(
        self,
        ref: ChannelRef,
        local_date: dt.date,
        question_id: str,
        topic: str,
        opened_at: dt.datetime,
        closes_at: dt.datetime | None,
        *,
        lease_until: dt.datetime | None = None,
    ) -> Round | None:
        # ON CONFLICT DO NOTHING covers the unique (channel, local date) of daily rounds: on PostgreSQL a
        # concurrent claimer waits for the winner's commit and then inserts nothing.
        rows = await self._atomic(
            "INSERT INTO rounds (kind, platform, space_id, channel_id, question_id, topic, local_date, "
            "opened_at, closes_at, post_state, post_attempts, post_due_at) "
            f"VALUES ('daily',?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT DO NOTHING RETURNING {ROUND_COLUMNS}",
            (
                ref.platform,
                ref.space_id,
                ref.channel_id,
                question_id,
                topic,
                self._day(local_date),
                self._ts(opened_at),
                self._maybe_ts(closes_at),
                "sending" if lease_until else "due",
                1 if lease_until else 0,
                self._maybe_ts(lease_until),
            ),
        )
        return round_from_row(rows[0]) if rows else None

    async def open_daily_rounds(self, ref: ChannelRef | None = None, *, unpromised: bool = False) -> list[Round]:
        only = " AND closes_at IS NULL" if unpromised else ""
        if ref is None:
            rows = await self._read(
                f"SELECT {ROUND_COLUMNS} FROM rounds WHERE revealed_at IS NULL AND kind = 'daily'{only} ORDER BY id"
            )
        else:
            rows = await self._read(
                f"SELECT {ROUND_COLUMNS} FROM rounds WHERE platform = ? AND channel_id = ? "
                f"AND revealed_at IS NULL AND kind = 'daily'{only} ORDER BY id",
                (ref.platform, ref.channel_id),
            )
        return [round_from_row(r) for r in rows]

    async def create_practice_round(
        self, ref: ChannelRef, user_id: str, question_id: str, topic: str, opened_at: dt.datetime
    ) -> Round:
        rows = await self._atomic(
            "INSERT INTO rounds (kind, platform, space_id, channel_id, user_id, question_id, topic, opened_at) "
            f"VALUES ('practice',?,?,?,?,?,?,?) RETURNING {ROUND_COLUMNS}",
            (ref.platform, ref.space_id, ref.channel_id, user_id, question_id, topic, self._ts(opened_at)),
        )
        return round_from_row(rows[0])

    async def get_round(self, round_id: int) -> Round | None:
        row = await self._first(f"SELECT {ROUND_COLUMNS} FROM rounds WHERE id = ?", (round_id,))
        return round_from_row(row) if row else None

    async def latest_daily_round(self, ref: ChannelRef) -> Round | None:
        row = await self._first(
            f"SELECT {ROUND_COLUMNS} FROM rounds WHERE platform = ? AND channel_id = ? AND kind = 'daily' "
            "ORDER BY local_date DESC LIMIT 1",
            (ref.platform, ref.channel_id),
        )
        return round_from_row(row) if row else None

    async def set_message_id(self, round_id: int, message_id: str) -> None:
        await self._atomic("UPDATE rounds SET message_id = ? WHERE id = ?", (message_id, round_id))

    async def round_by_message(self, platform: str, message_id: str) -> Round | None:
        row = await self._first(
            f"SELECT {ROUND_COLUMNS} FROM rounds WHERE platform = ? AND message_id = ? ORDER BY id DESC LIMIT 1",
            (platform, message_id),
        )
        return round_from_row(row) if row else None

    async def question_counts(
        self, platform: str, space_id: str, kind: RoundKind, user_id: str | None = None
    ) -> dict[str, int]:
        where, params = asked_where(platform, space_id, kind, user_id, "?")
        rows = await self._read(f"SELECT question_id, COUNT(*) FROM rounds WHERE {where} GROUP BY question_id", params)
        return {r[0]: int(r[1]) for r in rows}

    async def last_question_id(
        self, platform: str, space_id: str, kind: RoundKind, user_id: str | None = None
    ) -> str | None:
        where, params = asked_where(platform, space_id, kind, user_id, "?")
        row = await self._first(f"SELECT question_id FROM rounds WHERE {where} ORDER BY id DESC LIMIT 1", params)
        return row[0] if row else None

    async def question_history(
        self, platform: str, space_id: str, kind: RoundKind, user_id: str | None = None
    ) -> tuple[dict[str, int], str | None]:
        where, params = asked_where(platform, space_id, kind, user_id, "?")
        rows = await self._read(
            f"SELECT question_id, COUNT(*), MAX(id) FROM rounds WHERE {where} GROUP BY question_id", params
        )
        last = max(rows, key=lambda r: int(r[2]))[0] if rows else None  # the question of the latest round
        return {r[0]: int(r[1]) for r in rows}, last

    async def open_daily_question_ids(self, platform: str, space_id: str) -> set[str]:
        rows = await self._read(
            "SELECT question_id FROM rounds WHERE platform = ? AND space_id = ? AND kind = 'daily' "
            "AND revealed_at IS NULL",
            (platform, space_id),
        )
        return {r[0] for r in rows}

    async def set_reveal_at(self, round_id: int, at: dt.datetime) -> None:
        await self._atomic(
            "UPDATE rounds SET closes_at = ? WHERE id = ? AND closes_at IS NULL AND revealed_at IS NULL",
            (self._ts(at), round_id),
        )

    async def save_round_question(self, round_id: int, body: str) -> None:
        """Keep the question a round posted, as posted (the first one saved stays)."""
        await self._atomic(
            "INSERT INTO round_questions (round_id, body) VALUES (?, ?) ON CONFLICT DO NOTHING", (round_id, body)
        )

    async def round_question(self, round_id: int) -> str | None:
        row = await self._first("SELECT body FROM round_questions WHERE round_id = ?", (round_id,))
        return row[0] if row else None

    # ---- the weekly recap ------------------------------------------------------------------------

    async def set_next_recap(self, ref: ChannelRef, at: dt.datetime | None) -> None:
        await self._atomic(
            "UPDATE channels SET next_recap_at = ?, recap_claimed_until = NULL WHERE platform = ? AND channel_id = ?",
            (self._maybe_ts(at), ref.platform, ref.channel_id),
        )

    async def get_next_recap(self, ref: ChannelRef) -> dt.datetime | None:
        row = await self._first(
            "SELECT next_recap_at FROM channels WHERE platform = ? AND channel_id = ?", (ref.platform, ref.channel_id)
        )
        return from_ts(row[0]) if row and row[0] else None

    async def unscheduled_recaps(self, spaces: SpaceFilter | None = None) -> list[ChannelConfig]:
        where, params = self._space_filter(spaces, 1)
        rows = await self._read(
            f"SELECT {self.channel_columns} FROM channels WHERE NOT paused AND recap_day IS NOT NULL "
            f"AND next_recap_at IS NULL{where} ORDER BY platform, channel_id",
            params,
        )
        return [config_from_row(r) for r in rows]

    async def claim_due_recaps(
        self, now: dt.datetime, lease_until: dt.datetime, limit: int, spaces: SpaceFilter | None = None
    ) -> list[DueChannel]:
        return await self._claim_due("next_recap_at", "recap_claimed_until", now, lease_until, limit, spaces)

    async def finish_due_recap(self, ref: ChannelRef, due_at: dt.datetime, next_at: dt.datetime | None) -> None:
        await self._finish_due("next_recap_at", "recap_claimed_until", ref, due_at, next_at)

    async def mark_recap(self, ref: ChannelRef, week_end: dt.date, now: dt.datetime) -> bool:
        rows = await self._atomic(
            "INSERT INTO recaps (platform, channel_id, week_end, posted_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT DO NOTHING RETURNING 1",
            (ref.platform, ref.channel_id, self._day(week_end), self._ts(now)),
        )
        return bool(rows)

    async def unmark_recap(self, ref: ChannelRef, week_end: dt.date) -> None:
        await self._atomic(
            "DELETE FROM recaps WHERE platform = ? AND channel_id = ? AND week_end = ?",
            (ref.platform, ref.channel_id, self._day(week_end)),
        )

    # ---- monthly seasons (archive_season decides in each store's own transaction) -------------------

    async def season_archive(self, platform: str, space_id: str, season: str) -> SeasonArchive | None:
        key = (platform, space_id, season)
        header = await self._first(SEASON_HEADER_SQL, key)
        if header is None:
            return None
        rows = await self._read(SEASON_PLACES_SQL, key)  # written with the header, in its transaction
        return season_from_rows(platform, space_id, season, from_ts(header[0]), rows)

    async def champion_before(self, platform: str, space_id: str, season: str) -> str | None:
        row = await self._first(SEASON_CHAMPION_SQL, (platform, space_id, season))
        return None if row is None else str(row[0])

    async def mark_season_post(self, ref: ChannelRef, season: str, now: dt.datetime) -> bool:
        rows = await self._atomic(
            "INSERT INTO season_posts (platform, channel_id, season, posted_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT DO NOTHING RETURNING 1",
            (ref.platform, ref.channel_id, season, self._ts(now)),
        )
        return bool(rows)

    async def unmark_season_post(self, ref: ChannelRef, season: str) -> None:
        await self._atomic(
            "DELETE FROM season_posts WHERE platform = ? AND channel_id = ? AND season = ?",
            (ref.platform, ref.channel_id, season),
        )

    async def recap_rounds(
        self, platform: str, space_id: str, start: dt.date, end: dt.date, channel_id: str | None = None
    ) -> list[RecapRound]:
        channel = "" if channel_id is None else " AND r.channel_id = ?"
        rows = await self._read(
            "SELECT r.id, r.local_date, r.question_id, r.topic, COUNT(a.user_id), "
            "COUNT(a.user_id) FILTER (WHERE a.correct) FROM rounds r LEFT JOIN answers a ON a.round_id = r.id "
            "WHERE r.platform = ? AND r.space_id = ? AND r.kind = 'daily' AND r.revealed_at IS NOT NULL "
            f"AND r.local_date >= ? AND r.local_date <= ?{channel} GROUP BY r.id ORDER BY r.local_date, r.id",
            (platform, space_id, self._day(start), self._day(end), *(() if channel_id is None else (channel_id,))),
        )
        return [RecapRound(int(r[0]), parse_date(r[1]), r[2], r[3], int(r[4]), int(r[5])) for r in rows]  # type: ignore[arg-type]

    async def recap_scorers(
        self, platform: str, space_id: str, start: dt.date, end: dt.date, limit: int, channel_id: str | None = None
    ) -> list[RecapScorer]:
        channel = "" if channel_id is None else " AND r.channel_id = ?"
        rows = await self._read(
            "SELECT a.user_id, COALESCE(SUM(a.points), 0) AS pts, COUNT(*) FILTER (WHERE a.correct), COUNT(*), "
            "COALESCE(MAX(a.answered_at) FILTER (WHERE a.points > 0), MIN(a.answered_at)) AS reached "
            "FROM answers a JOIN rounds r ON r.id = a.round_id WHERE r.platform = ? AND r.space_id = ? "
            "AND r.kind = 'daily' AND r.revealed_at IS NOT NULL AND r.local_date >= ? AND r.local_date <= ?"
            f"{channel} GROUP BY a.user_id ORDER BY pts DESC, reached, a.user_id{self.text_order} LIMIT ?",
            (
                platform,
                space_id,
                self._day(start),
                self._day(end),
                *(() if channel_id is None else (channel_id,)),
                limit,
            ),
        )
        return [RecapScorer(r[0], int(r[1]), int(r[2]), int(r[3]), from_ts(r[4])) for r in rows]

    # ---- answers, ranks and stats ----------------------------------------------------------------

    async def get_answer(self, round_id: int, user_id: str) -> Answer | None:
        row = await self._first(
            f"SELECT {ANSWER_COLUMNS} FROM answers WHERE round_id = ? AND user_id = ?", (round_id, user_id)
        )
        return answer_from_row(row) if row else None

    async def round_answers(self, round_id: int) -> list[Answer]:
        rows = await self._read(
            f"SELECT {ANSWER_COLUMNS} FROM answers WHERE round_id = ? ORDER BY answered_at, user_id", (round_id,)
        )
        return [answer_from_row(r) for r in rows]

    async def rank_of(
        self, platform: str, space_id: str, period: Period, period_key: str, user_id: str
    ) -> LeaderboardRow | None:
        # one statement, one snapshot: the user's score and the users above it in the buckets
        row = await self._first(
            "SELECT s.points, s.correct, s.answered, (SELECT COALESCE(SUM(b.users), 0) FROM score_buckets b "
            "WHERE b.platform = s.platform AND b.space_id = s.space_id AND b.period = s.period "
            "AND b.period_key = s.period_key AND b.points > s.points) "
            "FROM scores s WHERE s.platform = ? AND s.space_id = ? AND s.period = ? AND s.period_key = ? "
            "AND s.user_id = ?",
            (platform, space_id, period.value, period_key, user_id),
        )
        if row is None:
            return None
        return LeaderboardRow(int(row[3]) + 1, user_id, int(row[0]), int(row[1]), int(row[2]))

    async def user_topic_stats(self, platform: str, space_id: str, user_id: str) -> list[tuple[RoundKind, TopicStats]]:
        rows = await self._read(
            "SELECT r.kind, r.topic, COUNT(*), COUNT(*) FILTER (WHERE a.correct) FROM answers a "
            "JOIN rounds r ON r.id = a.round_id WHERE a.user_id = ? AND r.platform = ? AND r.space_id = ? "
            "AND r.revealed_at IS NOT NULL GROUP BY r.kind, r.topic ORDER BY r.topic, r.kind",
            (user_id, platform, space_id),
        )
        return [(RoundKind(k), TopicStats(t, int(n), int(c))) for k, t, n, c in rows]

    async def streak(self, platform: str, space_id: str, user_id: str) -> StreakState | None:
        row = await self._first(
            "SELECT current, best, last_date FROM streaks WHERE platform = ? AND space_id = ? AND user_id = ?",
            (platform, space_id, user_id),
        )
        return StreakState(int(row[0]), int(row[1]), parse_date(row[2])) if row else None

    async def latest_revealed_date(self, platform: str, space_id: str) -> dt.date | None:
        row = await self._first(
            "SELECT MAX(local_date) FROM rounds WHERE platform = ? AND space_id = ? AND kind = 'daily' "
            "AND revealed_at IS NOT NULL",
            (platform, space_id),
        )
        return parse_date(row[0]) if row else None

    async def remember_once(self, scope: str, key: str, now: dt.datetime, keep: dt.timedelta) -> bool:
        """True the first time (scope, key) is seen within `keep` of `now`; False for a repeat."""
        rows = await self._atomic_steps(
            [
                ("DELETE FROM seen_once WHERE expires_at <= ?", (self._ts(now),)),
                (
                    "INSERT INTO seen_once (scope, key, expires_at) VALUES (?, ?, ?) "
                    "ON CONFLICT DO NOTHING RETURNING 1",
                    (scope, key, self._ts(now + keep)),
                ),
            ]
        )
        return bool(rows)

    # ---- learner memory --------------------------------------------------------------------------

    async def settle_learner(self, platform: str, space_id: str, user_id: str) -> None:
        raise NotImplementedError  # bot.store.settle.SettlingStore

    async def _settled(self, platform: str, space_id: str, user_id: str) -> None:
        """Before a learner's cards are read: their marked practice answers are written into them."""
        if await self._read(PENDING_OF_LEARNER, (platform, space_id, user_id)):
            await self.settle_learner(platform, space_id, user_id)

    async def learner_cards(self, platform: str, space_id: str, user_id: str) -> list[LearnerCard]:
        await self._settled(platform, space_id, user_id)
        rows = await self._read(
            f"SELECT {CARD_COLUMNS} FROM learner_cards WHERE platform = ? AND space_id = ? AND user_id = ? "
            "ORDER BY question_id",
            (platform, space_id, user_id),
        )
        return [card_from_row(r) for r in rows]

    async def review_events(self, platform: str, space_id: str, user_id: str) -> list[ReviewEvent]:
        await self._settled(platform, space_id, user_id)
        rows = await self._read(
            f"SELECT {EVENT_COLUMNS} FROM review_log WHERE platform = ? AND space_id = ? AND user_id = ? "
            "ORDER BY reviewed_at, question_id",
            (platform, space_id, user_id),
        )
        return [event_from_row(r) for r in rows]

    async def learner_misses(self, platform: str, space_id: str, user_id: str) -> list[Miss]:
        """The questions the learner answered wrong in the space, newest first (`/quiz export`)."""
        return [miss_from_row(r) for r in await self._read(MISSES, (platform, space_id, user_id))]

    async def mark_unsure(self, round_id: int, user_id: str) -> None:
        await self._atomic(
            "INSERT INTO answer_doubts (round_id, user_id) VALUES (?, ?) ON CONFLICT DO NOTHING", (round_id, user_id)
        )

    # ---- a space's own packs ---------------------------------------------------------------------

    async def list_packs(self, platform: str, space_id: str) -> list[tuple[str, int, int]]:
        """(name, questions, version) of the space's own packs, by name."""
        rows = await self._read(
            "SELECT name, questions, version FROM packs WHERE platform = ? AND space_id = ? ORDER BY name",
            (platform, space_id),
        )
        return [(r[0], int(r[1]), int(r[2])) for r in rows]

    async def pack_questions(self, platform: str, space_id: str, name: str) -> list[tuple[str, str]]:
        """(question id, body) of one of the space's packs in import order ([] when there is no such pack)."""
        rows = await self._read(
            "SELECT question_id, body FROM pack_questions WHERE platform = ? AND space_id = ? AND pack = ? "
            "ORDER BY position",
            (platform, space_id, name),
        )
        return [(r[0], r[1]) for r in rows]

    async def question_answer_counts(self, platform: str, space_id: str) -> list[tuple[str, int, tuple[int, ...], int]]:
        """Per question asked in the space, of its revealed rounds only (an open round shows nothing before its
        reveal): (question id, rounds, answers per choice A-D, correct answers)."""
        asked = await self._read(
            "SELECT question_id, COUNT(*) FROM rounds WHERE platform = ? AND space_id = ? "
            "AND revealed_at IS NOT NULL GROUP BY question_id",
            (platform, space_id),
        )
        chosen = await self._read(
            "SELECT r.question_id, a.choice, COUNT(*), COUNT(*) FILTER (WHERE a.correct) FROM answers a "
            "JOIN rounds r ON r.id = a.round_id WHERE r.platform = ? AND r.space_id = ? "
            "AND r.revealed_at IS NOT NULL GROUP BY r.question_id, a.choice",
            (platform, space_id),
        )
        return answer_counts(asked, chosen)

    # ---- installations (Slack OAuth) -------------------------------------------------------------

    async def save_install(self, install: WorkspaceInstall) -> None:
        """Insert or replace the workspace's installation (a reinstall brings a new token)."""
        await self._atomic(
            f"INSERT INTO installations ({INSTALL_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (platform, workspace_id) DO UPDATE SET bot_user_id = excluded.bot_user_id, "
            "token_secret = excluded.token_secret, installed_at = excluded.installed_at, "
            "bot_id = excluded.bot_id, scopes = excluded.scopes, installed_by = excluded.installed_by, "
            "enterprise_id = excluded.enterprise_id, refresh_secret = excluded.refresh_secret, "
            "token_expires_at = excluded.token_expires_at, refresh_claimed_until = NULL",
            (
                install.platform,
                install.workspace_id,
                install.bot_user_id,
                install.token_secret,
                self._ts(install.installed_at),
                install.bot_id,
                install.scopes,
                install.installed_by,
                install.enterprise_id,
                install.refresh_secret,
                None if install.token_expires_at is None else self._ts(install.token_expires_at),
            ),
        )

    async def find_install(self, platform: str, workspace_id: str) -> WorkspaceInstall | None:
        row = await self._first(
            f"SELECT {INSTALL_COLUMNS} FROM installations WHERE platform = ? AND workspace_id = ?",
            (platform, workspace_id),
        )
        return install_from_row(row) if row else None

    async def delete_install(self, platform: str, workspace_id: str) -> bool:
        rows = await self._atomic(
            "DELETE FROM installations WHERE platform = ? AND workspace_id = ? RETURNING 1", (platform, workspace_id)
        )
        return bool(rows)

    async def claim_token_refresh(
        self, platform: str, workspace_id: str, token_secret: str, now: dt.datetime, until: dt.datetime
    ) -> bool:
        """One statement: the row is claimed only while it still holds that token and no claim is live."""
        rows = await self._atomic(
            "UPDATE installations SET refresh_claimed_until = ? WHERE platform = ? AND workspace_id = ? "
            "AND token_secret = ? AND (refresh_claimed_until IS NULL OR refresh_claimed_until <= ?) RETURNING 1",
            (self._ts(until), platform, workspace_id, token_secret, self._ts(now)),
        )
        return bool(rows)

    async def save_refreshed_token(
        self,
        platform: str,
        workspace_id: str,
        old_secret: str,
        token_secret: str,
        refresh_secret: str,
        expires_at: dt.datetime | None,
    ) -> bool:
        """Compare-and-set on the stored token: a reinstall or another renewal in between wins."""
        rows = await self._atomic(
            "UPDATE installations SET token_secret = ?, refresh_secret = ?, token_expires_at = ?, "
            "refresh_claimed_until = NULL WHERE platform = ? AND workspace_id = ? AND token_secret = ? RETURNING 1",
            (
                token_secret,
                refresh_secret,
                None if expires_at is None else self._ts(expires_at),
                platform,
                workspace_id,
                old_secret,
            ),
        )
        return bool(rows)

    async def save_oauth_state(self, state: str, expires_at: dt.datetime) -> None:
        await self._atomic("INSERT INTO oauth_states (state, expires_at) VALUES (?, ?)", (state, self._ts(expires_at)))

    async def consume_oauth_state(self, state: str, now: dt.datetime) -> bool:
        rows = await self._atomic_steps(
            [
                ("DELETE FROM oauth_states WHERE expires_at <= ?", (self._ts(now),)),
                ("DELETE FROM oauth_states WHERE state = ? RETURNING 1", (state,)),
            ]
        )
        return bool(rows)

    # ---- members' suggestions (bot.suggestions; approval takes each store's own locks) -------------

    async def add_suggestion(
        self, ref: ChannelRef, author_id: str, body: str, now: dt.datetime, day: dt.date, limit: int
    ) -> Suggestion | None:
        """The day's count is raised first (its row lock holds off the author's other suggestions until
        commit), and the suggestion is inserted only while the count is within the limit. The counts are
        kept two days, so a forget-me does not reset the limit."""
        key = (ref.platform, ref.space_id, author_id)
        rows = await self._atomic_steps(
            [
                # days before yesterday are over in every timezone: their counts go (a forgotten
                # learner's too), whoever they belong to
                ("DELETE FROM suggestion_quota WHERE day < ?", (self._day(day - dt.timedelta(days=1)),)),
                (
                    "INSERT INTO suggestion_quota (platform, space_id, user_id, day, used) VALUES (?, ?, ?, ?, 1) "
                    "ON CONFLICT (platform, space_id, user_id, day) DO UPDATE SET used = suggestion_quota.used + 1",
                    (*key, self._day(day)),
                ),
                (
                    "INSERT INTO suggestions (platform, space_id, channel_id, author_id, body, created_at) "
                    "SELECT ?, ?, ?, ?, ?, ? WHERE (SELECT used FROM suggestion_quota WHERE platform = ? "
                    f"AND space_id = ? AND user_id = ? AND day = ?) <= ? RETURNING {SUGGESTION_COLUMNS}",
                    (
                        ref.platform,
                        ref.space_id,
                        ref.channel_id,
                        author_id,
                        body,
                        self._ts(now),
                        *key,
                        self._day(day),
                        limit,
                    ),
                ),
            ]
        )
        return suggestion_from_row(rows[0]) if rows else None

    async def get_suggestion(self, platform: str, space_id: str, suggestion_id: int) -> Suggestion | None:
        row = await self._first(
            f"SELECT {SUGGESTION_COLUMNS} FROM suggestions WHERE id = ? AND platform = ? AND space_id = ?",
            (suggestion_id, platform, space_id),
        )
        return suggestion_from_row(row) if row else None

    async def list_suggestions(self, platform: str, space_id: str, status: str, limit: int) -> list[Suggestion]:
        rows = await self._read(
            f"SELECT {SUGGESTION_COLUMNS} FROM suggestions WHERE platform = ? AND space_id = ? AND status = ? "
            "ORDER BY id LIMIT ?",
            (platform, space_id, status, limit),
        )
        return [suggestion_from_row(r) for r in rows]

    async def reject_suggestion(
        self, platform: str, space_id: str, suggestion_id: int, reason: str, decided_by: str, now: dt.datetime
    ) -> Suggestion | None:
        rows = await self._atomic(
            "UPDATE suggestions SET status = 'rejected', reason = ?, decided_by = ?, decided_at = ? "
            "WHERE id = ? AND platform = ? AND space_id = ? AND status = 'pending' "
            f"RETURNING {SUGGESTION_COLUMNS}",
            (reason, decided_by, self._ts(now), suggestion_id, platform, space_id),
        )
        return suggestion_from_row(rows[0]) if rows else None

    # ---- writes of several statements (over the store's SqlTx) -----------------------------------

    async def _count_packs(self, tx: SqlTx, platform: str, space_id: str) -> int:
        rows = await tx.rows("SELECT COUNT(*) FROM packs WHERE platform = ? AND space_id = ?", (platform, space_id))
        return int(rows[0][0])

    async def forget_learner(self, platform: str, space_id: str, user_id: str) -> Forgotten:
        """One transaction under the space's scoring lock, so no reveal folds scores into it halfway (the
        learner's marked practice updates are written first, so the count of cards is every card)."""
        await self._settled(platform, space_id, user_id)
        counts: dict[str, int] = {}
        async with self._write_tx() as tx:
            await tx.lock_space(ChannelRef(platform, space_id, ""))
            for what, sql, params in forget_steps(platform, space_id, user_id):
                changed = await tx.run(sql, params)
                if what:
                    counts[what] = changed
        return Forgotten(**counts)

    async def save_pack(
        self,
        platform: str,
        space_id: str,
        name: str,
        questions: Sequence[tuple[str, str]],
        *,
        replace: bool,
        max_packs: int,
        now: dt.datetime,
    ) -> int:
        """Create (or, with replace, replace) a space's pack with (question id, body) rows, all or nothing;
        returns its new version. One import per space at a time: a second one while the first runs gets
        PackBusy at once; PackExists / PackError (too many packs) change nothing."""
        async with self._write_tx() as tx:
            if not await tx.lock_packs(platform, space_id, wait=False):
                raise PackBusy(
                    "Another import into this space is running right now; nothing was imported. "
                    "Try again when it has finished."
                )
            found = await tx.rows(
                "SELECT version FROM packs WHERE platform = ? AND space_id = ? AND name = ?", (platform, space_id, name)
            )
            if found and not replace:
                raise PackExists(f"The pack {name} already exists in this space; import with --replace to replace it.")
            if not found:
                count = await self._count_packs(tx, platform, space_id)
                if count >= max_packs:
                    raise PackError(f"This space has {count} packs, the most it may hold; remove one first.")
            version = (int(found[0][0]) if found else 0) + 1
            await tx.run(
                "DELETE FROM pack_questions WHERE platform = ? AND space_id = ? AND pack = ?",
                (platform, space_id, name),
            )
            await tx.run_many(
                "INSERT INTO pack_questions (platform, space_id, pack, position, question_id, body) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [(platform, space_id, name, i, qid, body) for i, (qid, body) in enumerate(questions)],
            )
            await tx.run(
                "INSERT INTO packs (platform, space_id, name, version, questions, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (platform, space_id, name) DO UPDATE SET version = excluded.version, "
                "questions = excluded.questions, updated_at = excluded.updated_at",
                (platform, space_id, name, version, len(questions), self._ts(now)),
            )
            return version

    async def approve_suggestion(
        self,
        platform: str,
        space_id: str,
        suggestion_id: int,
        pack: str,
        decided_by: str,
        now: dt.datetime,
        *,
        max_packs: int,
        max_questions: int,
    ) -> Suggestion | None:
        """The space's pack lock (the one imports take) is waited for, so approvals and imports into the
        space run one at a time; the suggestion's row lock makes a second approval of it find it decided."""
        async with self._write_tx() as tx:
            await tx.lock_packs(platform, space_id, wait=True)
            found = await tx.rows(
                "SELECT body FROM suggestions WHERE id = ? AND platform = ? AND space_id = ? AND status = 'pending'"
                + tx.for_update,
                (suggestion_id, platform, space_id),
            )
            if not found:
                return None
            row = await tx.rows(
                "SELECT questions FROM packs WHERE platform = ? AND space_id = ? AND name = ?",
                (platform, space_id, pack),
            )
            packs = await self._count_packs(tx, platform, space_id)
            pack_full(pack, packs, int(row[0][0]) if row else None, max_packs, max_questions)
            present = await tx.rows(
                "SELECT question_id, position FROM pack_questions WHERE platform = ? AND space_id = ? AND pack = ?",
                (platform, space_id, pack),
            )
            qid, body = approved_question(suggestion_id, found[0][0], {r[0] for r in present})
            await tx.run(
                "INSERT INTO pack_questions (platform, space_id, pack, position, question_id, body) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (platform, space_id, pack, max((int(r[1]) for r in present), default=-1) + 1, qid, body),
            )
            await tx.run(
                "INSERT INTO packs AS p (platform, space_id, name, version, questions, updated_at) "
                "VALUES (?, ?, ?, 1, 1, ?) ON CONFLICT (platform, space_id, name) DO UPDATE SET "
                "version = p.version + 1, questions = p.questions + 1, updated_at = excluded.updated_at",
                (platform, space_id, pack, self._ts(now)),
            )
            decided = await tx.rows(
                "UPDATE suggestions SET status = 'approved', decided_by = ?, decided_at = ?, question_id = ? "
                f"WHERE id = ? RETURNING {SUGGESTION_COLUMNS}",
                (decided_by, self._ts(now), qid, suggestion_id),
            )
            return suggestion_from_row(decided[0])

    async def archive_season(self, platform: str, space_id: str, season: str, now: dt.datetime) -> SeasonArchive | None:
        """The space's season archived once: the header row is the claim (a second process waits for the
        first one's commit, then reads what it archived). None, with nothing written, while a daily round of
        the month is still open."""
        first, after = month_span(season)
        key = (platform, space_id, season)
        try:
            async with self._write_tx() as tx:
                won = await tx.rows(SEASON_INSERT_SQL + " ON CONFLICT DO NOTHING RETURNING 1", (*key, self._ts(now)))
                if not won:
                    header = await tx.rows(SEASON_HEADER_SQL, key)
                    places = await tx.rows(SEASON_PLACES_SQL, key)
                    return season_from_rows(platform, space_id, season, from_ts(header[0][0]), places)
                if await tx.rows(SEASON_OPEN_SQL, (platform, space_id, self._day(first), self._day(after))):
                    raise _Rollback
                top = season_places(await tx.rows(SEASON_TOP_SQL, key))
                await tx.run_many(SEASON_PLACE_INSERT_SQL, season_place_rows(key, top))
                return SeasonArchive(platform, space_id, season, top, now)
        except _Rollback:
            return None
