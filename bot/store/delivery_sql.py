"""The daily game's durable work in SQL written once: due channels, slots, send claims and their outcomes."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from bot.daily.values import DailyClaim, DueFinish, DuePost, PostFinish, RevealFinish, SendClaim
from bot.kernel.values import (
    ChannelConfig,
    ChannelRef,
    DueChannel,
    Round,
    SpaceFilter,
)
from bot.store.base import SqlBase
from bot.store.rows import (
    ROUND_COLUMNS,
    config_from_row,
    round_from_row,
)


def _by_round(items: Sequence[PostFinish] | Sequence[RevealFinish]) -> list[Any]:
    """Round updates in id order, as answer batches lock their rounds (FOR SHARE ... ORDER BY id): a batch of
    updates and a batch of answers never wait on each other in a circle (a stable sort: one round's keep theirs)."""
    return sorted(items, key=lambda i: i.round_id)


class DeliverySql(SqlBase):
    """Due channels, daily slots and send claims, and their outcomes."""

    async def claim_due_channels(
        self, now: dt.datetime, lease_until: dt.datetime, limit: int, spaces: SpaceFilter | None = None
    ) -> list[DueChannel]:
        return await self._claim_due("next_post_at", "claimed_until", now, lease_until, limit, spaces)

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
