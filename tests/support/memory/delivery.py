"""The durable work of the tick (bot.daily.store.DeliveryStore): claims with leases and their
outcomes, one by one and by the batch; the in-memory part of bot.store.delivery_sql. It reads channels
(MemoryChannels) and rounds (MemoryRounds) of the store it is mixed into."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import replace

from bot.daily.values import (
    DailyClaim,
    DueChannel,
    DueFinish,
    DuePost,
    PostFinish,
    RevealedRound,
    RevealFinish,
    SendClaim,
)
from bot.kernel.scoring import Scorer
from bot.kernel.values import ChannelRef, Round, RoundKind, SpaceFilter
from bot.store.settle import reveal_all
from tests.support.memory.tables import MemoryTables, Tables, utc


def _delivery(t: Tables, round_id: int, what: str) -> list:
    return t.delivery.setdefault((round_id, what), ["due", 0, None, 0])


class MemoryDelivery(MemoryTables):
    """Claims of due channels, posts and reveals; the batch methods compose the one-item ones (the
    reveals share one transaction)."""

    async def claim_due_channels(
        self, now: dt.datetime, lease_until: dt.datetime, limit: int, spaces: SpaceFilter | None = None
    ) -> list[DueChannel]:
        t = await self._db()
        due = sorted(
            (at, key[0], t.channels[key].ref.space_id, key[1], key)
            for key, at in t.next_post.items()
            if at <= now
            and not t.channels[key].paused
            and (key not in t.claimed or t.claimed[key] <= now)
            and (spaces is None or spaces(t.channels[key].ref))
        )[: max(limit, 0)]
        for *_, key in due:
            t.claimed[key] = utc(lease_until)
        return [DueChannel(t.channels[key].ref, at) for at, *_, key in due]

    async def _finish_due_channel(self, ref: ChannelRef, due_at: dt.datetime, next_at: dt.datetime | None) -> None:
        t = await self._db()
        key = (ref.platform, ref.channel_id)
        t.claimed.pop(key, None)
        if t.next_post.get(key) == due_at:
            if next_at is None:
                t.next_post.pop(key)
            else:
                t.next_post[key] = utc(next_at)

    def _claim_sends(
        self,
        t: Tables,
        what: str,
        now: dt.datetime,
        lease_until: dt.datetime,
        limit: int,
        round_id: int | None,
        force: bool,
        spaces: SpaceFilter | None,
    ) -> list[SendClaim]:
        out: list[SendClaim] = []
        for r in t.rounds.values():
            if len(out) >= limit:
                break
            if r.kind is not RoundKind.DAILY or (round_id is not None and r.id != round_id):
                continue
            if (r.revealed_at is None) != (what == "post") or (spaces is not None and not spaces(r.ref)):
                continue
            d = _delivery(t, r.id, what)
            state, attempts, due_at, doubts = d
            if state not in ("due", "sending", "failed", *(("gave_up",) if force else ())):
                continue
            if not (due_at is None or due_at <= now or (force and state in ("failed", "gave_up"))):
                continue
            doubtful = state == "sending"
            d[:] = ["sending", attempts + 1, utc(lease_until), doubts + int(doubtful)]
            if what == "post":
                t.rounds[r.id] = r = replace(r, post_state="sending")
            out.append(SendClaim(r, attempts + 1, doubtful, doubts + int(doubtful)))
        return out

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
        t = await self._db()
        return self._claim_sends(t, "post", now, lease_until, limit, round_id, force, spaces)

    async def _finish_post(
        self, round_id: int, state: str, *, message_id: str | None = None, retry_at: dt.datetime | None = None
    ) -> None:
        t = await self._db()
        if round_id not in t.rounds:
            return
        d = _delivery(t, round_id, "post")
        d[0], d[2] = state, utc(retry_at) if retry_at else None
        r = t.rounds[round_id]
        t.rounds[round_id] = replace(r, post_state=state, message_id=message_id or r.message_id)

    async def due_reveals(self, now: dt.datetime, limit: int, spaces: SpaceFilter | None = None) -> list[Round]:
        t = await self._db()
        due = [
            r
            for r in t.rounds.values()
            if r.kind is RoundKind.DAILY
            and r.revealed_at is None
            and r.closes_at is not None
            and r.closes_at <= now
            and (spaces is None or spaces(r.ref))
        ]
        return sorted(due, key=lambda r: (r.closes_at, r.id))[: max(limit, 0)]

    async def answer_counts(self, round_ids: Sequence[int]) -> dict[int, int]:
        t = await self._db()
        return {rid: len(t.answers[rid]) for rid in set(round_ids) if t.answers.get(rid)}

    async def claim_reveals(
        self,
        now: dt.datetime,
        lease_until: dt.datetime,
        limit: int,
        *,
        round_id: int | None = None,
        spaces: SpaceFilter | None = None,
    ) -> list[SendClaim]:
        t = await self._db()
        return self._claim_sends(t, "reveal", now, lease_until, limit, round_id, False, spaces)

    async def _finish_reveal(self, round_id: int, state: str, *, retry_at: dt.datetime | None = None) -> None:
        t = await self._db()
        if round_id in t.rounds:
            d = _delivery(t, round_id, "reveal")
            d[0], d[2] = state, utc(retry_at) if retry_at else None

    # the same work by the batch (the fake composes the one-item methods; the reveals share one transaction)
    async def claim_due_posts(
        self, now: dt.datetime, lease_until: dt.datetime, limit: int, spaces: SpaceFilter | None = None
    ) -> list[DuePost]:
        return [
            DuePost(due, await self.get_channel(due.ref), tuple(await self.open_daily_rounds(due.ref)))
            for due in await self.claim_due_channels(now, lease_until, limit, spaces)
        ]

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
        async with self._settling() as tx:
            done = await reveal_all(tx, round_ids, revealed_at, scorer, learn=learn)
        out = []
        for rid in done:
            claims = await self.claim_reveals(revealed_at, lease_until, 1, round_id=rid)
            round_ = (await self._db()).rounds[rid]
            answers = tuple(await self.round_answers(rid))
            out.append(
                RevealedRound(round_, answers, await self.get_channel(round_.ref), claims[0] if claims else None)
            )
        return out

    async def claim_daily_rounds(self, claims: Sequence[DailyClaim]) -> list[Round | None]:
        return [
            await self.claim_daily_round(
                c.ref, c.local_date, c.question_id, c.topic, c.opened_at, c.closes_at, lease_until=c.lease_until
            )
            for c in claims
        ]

    async def finish_posts(self, items: Sequence[PostFinish]) -> None:
        for i in items:
            await self._finish_post(i.round_id, i.state, message_id=i.message_id, retry_at=i.retry_at)

    async def finish_reveals(self, items: Sequence[RevealFinish]) -> None:
        for i in items:
            await self._finish_reveal(i.round_id, i.state, retry_at=i.retry_at)

    async def finish_due_channels(self, items: Sequence[DueFinish]) -> None:
        for i in items:
            await self._finish_due_channel(i.ref, i.due_at, i.next_at)
