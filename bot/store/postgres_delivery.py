"""The daily fan-out's claims and outcomes on PostgreSQL in one statement each (bot.store.delivery_sql writes
them for both engines as a claim and reads, or as one row per outcome in a transaction: three trips or more).

A finish batch is one UPDATE over its rows passed as arrays (unnest), with no BEGIN and COMMIT around it: a
single statement is atomic by itself. It first locks its rows in the order the engine-neutral version updates
them (rounds by id, channels by platform and channel), so it never waits in a circle with an answer batch or
another finish. A batch that names one row twice keeps the row-by-row version: its outcomes apply in order."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from bot.daily.values import DueFinish, DuePost, PostFinish, RevealFinish
from bot.kernel.values import Round, SpaceFilter
from bot.store import rows as stored
from bot.store.delivery_sql import DeliverySql
from bot.store.postgres_settle import CHANNEL_COLUMNS

# a materialized CTE that is read in full before the UPDATE touches a row (its count gates the statement)
_LOCKED = "(SELECT COUNT(*) FROM locked) >= 0"

FINISH_POSTS = (
    "WITH u AS (SELECT * FROM unnest($1::bigint[], $2::text[], $3::timestamptz[], $4::text[]) "
    "AS u(id, state, due_at, message_id)), "
    "locked AS MATERIALIZED (SELECT id FROM rounds WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE) "
    "UPDATE rounds r SET post_state = u.state, post_due_at = u.due_at, "
    "message_id = COALESCE(u.message_id, r.message_id) "
    f"FROM u WHERE r.id = u.id AND {_LOCKED}"
)
FINISH_REVEALS = (
    "WITH u AS (SELECT * FROM unnest($1::bigint[], $2::text[], $3::timestamptz[]) AS u(id, state, due_at)), "
    "locked AS MATERIALIZED (SELECT id FROM rounds WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE) "
    "UPDATE rounds r SET reveal_state = u.state, reveal_due_at = u.due_at "
    f"FROM u WHERE r.id = u.id AND {_LOCKED}"
)
FINISH_DUE_CHANNELS = (
    "WITH u AS (SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::timestamptz[]) "
    "AS u(platform, channel_id, due_at, next_at)), "
    "locked AS MATERIALIZED (SELECT 1 FROM channels WHERE (platform, channel_id) IN "
    '(SELECT platform, channel_id FROM u) ORDER BY platform COLLATE "C", channel_id COLLATE "C" FOR UPDATE) '
    "UPDATE channels c SET next_post_at = CASE WHEN c.next_post_at = u.due_at THEN u.next_at "
    "ELSE c.next_post_at END, claimed_until = NULL "
    f"FROM u WHERE c.platform = u.platform AND c.channel_id = u.channel_id AND {_LOCKED}"
)


def claim_due_posts_sql(where: str) -> str:
    """Claim due channels (as bot.store.postgres._claim_due does) and return, per channel claimed, its due
    instant, its settings (rows.config_from_row's columns) and its open daily rounds, in id order. A space's
    channels due at one instant are claimed together (channels_due's order)."""
    return (
        "WITH due AS (UPDATE channels c SET claimed_until = $1 FROM (SELECT platform AS due_platform, "
        "channel_id AS due_channel FROM channels WHERE next_post_at IS NOT NULL AND next_post_at <= $2 "
        f"AND NOT paused AND (claimed_until IS NULL OR claimed_until <= $2){where} "
        "ORDER BY next_post_at, platform, space_id, channel_id LIMIT $3 "
        "FOR UPDATE SKIP LOCKED) d WHERE c.platform = d.due_platform AND c.channel_id = d.due_channel "
        f"RETURNING c.next_post_at AS due_at, {CHANNEL_COLUMNS}) "
        f"SELECT due.*, ARRAY(SELECT ROW({stored.ROUND_COLUMNS_OF_R}) FROM rounds r WHERE r.platform = due.platform "
        "AND r.channel_id = due.channel_id AND r.revealed_at IS NULL AND r.kind = 'daily' ORDER BY r.id) FROM due"
    )


class PgDelivery(DeliverySql):
    """DeliverySql's claim of due posts and its three finishes, one statement each on PostgreSQL."""

    async def claim_due_posts(
        self, now: dt.datetime, lease_until: dt.datetime, limit: int, spaces: SpaceFilter | None = None
    ) -> list[DuePost]:
        where, params = self._space_filter(spaces, 4)
        found = []
        for row in await self._atomic(claim_due_posts_sql(where), [lease_until, now, limit, *params]):
            due_at, *config, opened = row
            cfg = stored.config_from_row(config)
            due = stored.due_channels([(cfg.ref.platform, cfg.ref.space_id, cfg.ref.channel_id, due_at)])[0]
            found.append(DuePost(due, cfg, tuple(_rounds(opened))))
        return sorted(found, key=lambda d: stored.due_order(d.due))  # as the claim of due channels returns them

    async def finish_posts(self, items: Sequence[PostFinish]) -> None:
        if _repeats([i.round_id for i in items]):
            await super().finish_posts(items)
        elif items:
            ids, states, due, messages = zip(
                *((i.round_id, i.state, i.retry_at, i.message_id) for i in items), strict=True
            )
            await self._atomic(FINISH_POSTS, [list(ids), list(states), list(due), list(messages)])

    async def finish_reveals(self, items: Sequence[RevealFinish]) -> None:
        if _repeats([i.round_id for i in items]):
            await super().finish_reveals(items)
        elif items:
            ids, states, due = zip(*((i.round_id, i.state, i.retry_at) for i in items), strict=True)
            await self._atomic(FINISH_REVEALS, [list(ids), list(states), list(due)])

    async def finish_due_channels(self, items: Sequence[DueFinish]) -> None:
        if _repeats([(i.ref.platform, i.ref.channel_id) for i in items]):
            await super().finish_due_channels(items)
        elif items:
            platforms, channels, due, next_at = zip(
                *((i.ref.platform, i.ref.channel_id, i.due_at, i.next_at) for i in items), strict=True
            )
            await self._atomic(FINISH_DUE_CHANNELS, [list(platforms), list(channels), list(due), list(next_at)])


def _repeats(keys: Sequence[object]) -> bool:
    return len(set(keys)) != len(keys)


def _rounds(records: Sequence[Any]) -> list[Round]:
    return [stored.round_from_row(tuple(r)) for r in records]
