"""The outcomes of the daily game's sends, stored together when several finish at once (the tick's fan-out),
and the timing rules every send shares."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from bot.daily.store import DeliveryStore
from bot.daily.values import DueFinish, PostFinish, RevealFinish
from bot.kernel.group_commit import GroupCommit
from bot.kernel.outage import StoreOutage
from bot.kernel.values import ChannelRef


def retry_delay(attempts: int) -> dt.timedelta:
    """Backoff between send attempts: 5 s, 10 s, 20 s ... at most 5 minutes."""
    return min(dt.timedelta(seconds=5 * 2 ** max(attempts - 1, 0)), dt.timedelta(minutes=5))


class SendOutcomes:
    """Group commits of post, reveal and due-channel outcomes (one store call for what finishes together)."""

    def __init__(self, store: DeliveryStore, outage: StoreOutage | None = None) -> None:
        self._store = store
        self._posts: GroupCommit[PostFinish, None] = GroupCommit(self._store_posts, outage=outage)
        self._reveals: GroupCommit[RevealFinish, None] = GroupCommit(self._store_reveals, outage=outage)
        self._dues: GroupCommit[DueFinish, None] = GroupCommit(self._store_dues, outage=outage)

    async def _store_posts(self, items: Sequence[PostFinish]) -> list[None]:
        await self._store.finish_posts(items)
        return [None] * len(items)

    async def _store_reveals(self, items: Sequence[RevealFinish]) -> list[None]:
        await self._store.finish_reveals(items)
        return [None] * len(items)

    async def _store_dues(self, items: Sequence[DueFinish]) -> list[None]:
        await self._store.finish_due_channels(items)
        return [None] * len(items)

    async def post(self, item: PostFinish) -> None:
        await self._posts.submit(item)

    async def reveal(self, item: RevealFinish) -> None:
        await self._reveals.submit(item)

    async def due(self, ref: ChannelRef, due_at: dt.datetime, next_at: dt.datetime | None) -> None:
        await self._dues.submit(DueFinish(ref, due_at, next_at))

    async def close(self) -> None:
        for commit in (self._posts, self._reveals, self._dues):
            await commit.close()
