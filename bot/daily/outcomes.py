"""The outcomes of the daily game's sends, stored together when several finish at once (the tick's fan-out)
and kept until the store takes them, and the rules every send shares: timing, and asking the platform about
an earlier attempt whose outcome is unknown."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from bot.daily.store import DeliveryStore
from bot.daily.values import DueFinish, PostFinish, RevealFinish, SendClaim
from bot.kernel.group_commit import GroupCommit
from bot.kernel.outage import StoreOutage
from bot.kernel.platform import CannotLook, ChatPlatform, IdempotentSends, SendKind
from bot.kernel.values import ChannelRef

log = logging.getLogger(__name__)

T = TypeVar("T")

STORE_RETRY_FIRST = 0.5  # seconds before an outcome the store refused is written again (doubling ...)
STORE_RETRY_MAX = 10.0  # ... up to this
CLOSE_TRIES = 3  # at shutdown, outcomes the store still refuses after this many tries are left to the leases
CLOSE_RETRY = 0.2  # seconds between those tries


def retry_delay(attempts: int) -> dt.timedelta:
    """Backoff between send attempts: 5 s, 10 s, 20 s ... at most 5 minutes."""
    return min(dt.timedelta(seconds=5 * 2 ** max(attempts - 1, 0)), dt.timedelta(minutes=5))


@dataclass(frozen=True)
class Earlier:
    """What the platform said about a send's earlier attempts: `message_id` of the message that went out, or
    None. `asked`: the platform was asked (False: this is the first attempt, or the platform cannot be asked,
    and the send simply goes out)."""

    asked: bool
    message_id: str | None = None


async def earlier_send(platform: ChatPlatform, claim: SendClaim, kind: SendKind, since: dt.datetime) -> Earlier:
    """Whether an earlier attempt of this claimed send went out. The first attempt asks nothing; a later one
    (the process stopped mid-send, or a call failed after it may have reached the platform) asks a platform
    with IdempotentSends; one without (the console) is sent again, which may duplicate it (logged). Raises
    when the platform could not be asked now: the caller retries later, it never guesses."""
    round_ = claim.round
    if claim.attempts <= 1 and not claim.doubtful:
        return Earlier(asked=False)
    what = "question" if kind == "question" else "reveal post"
    if isinstance(platform, IdempotentSends):
        try:
            found = await platform.find_sent(round_.ref, round_.id, kind, since)
        except CannotLook as exc:
            log.warning(
                "round %d: cannot ask %s whether its %s went out (%s)", round_.id, round_.ref.platform, what, exc
            )
        else:
            if found is not None:
                log.info("round %d: its %s is out already (message %s); not sending it again", round_.id, what, found)
            return Earlier(asked=True, message_id=found)
    if claim.doubtful:
        log.warning(
            "round %d: an earlier %s send was interrupted and may have gone out; sending again "
            "(this may be its one duplicate)",
            round_.id,
            what,
        )
    return Earlier(asked=False)


class SendOutcomes:
    """Group commits of post, reveal and due-channel outcomes (one store call for what finishes together).
    An outcome the store refuses (it is down, the disk is full) is kept and written again with backoff until
    the store takes it: a message id that went out is never dropped. Its submitter waits until then."""

    def __init__(
        self,
        store: DeliveryStore,
        outage: StoreOutage | None = None,
        *,
        retry_first: float | None = None,
        retry_max: float | None = None,
    ) -> None:
        self._store = store
        self._retry_first = STORE_RETRY_FIRST if retry_first is None else retry_first
        self._retry_max = STORE_RETRY_MAX if retry_max is None else retry_max
        self._closing = False
        self._closed = asyncio.Event()  # wakes a retry's wait at shutdown
        self._posts: GroupCommit[PostFinish, None] = GroupCommit(self._store_posts, outage=outage)
        self._reveals: GroupCommit[RevealFinish, None] = GroupCommit(self._store_reveals, outage=outage)
        self._dues: GroupCommit[DueFinish, None] = GroupCommit(self._store_dues, outage=outage)

    async def _durably(self, what: str, write: Callable[[Sequence[T]], Awaitable[None]], items: Sequence[T]) -> None:
        """write(items) until the store takes them (see the class); at shutdown CLOSE_TRIES tries at most."""
        delay, failures = self._retry_first, 0
        while True:
            try:
                await write(items)
            except Exception as exc:
                failures += 1
                if self._closing and failures >= CLOSE_TRIES:
                    log.error(
                        "could not store %d %s outcome(s) before shutdown (%s): their leases run out and the "
                        "platform is asked again",
                        len(items),
                        what,
                        type(exc).__name__,
                    )
                    raise
                if failures == 1:
                    log.warning(
                        "could not store %d %s outcome(s) (%s); keeping them and writing them when the store is back",
                        len(items),
                        what,
                        type(exc).__name__,
                    )
                if not self._closing:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._closed.wait(), delay)
                else:
                    await asyncio.sleep(min(self._retry_first, CLOSE_RETRY))
                delay = min(delay * 2, self._retry_max)
                continue
            if failures:
                log.info("stored %d %s outcome(s) kept while the store refused them", len(items), what)
            return

    async def _store_posts(self, items: Sequence[PostFinish]) -> list[None]:
        await self._durably("post", self._store.finish_posts, items)
        return [None] * len(items)

    async def _store_reveals(self, items: Sequence[RevealFinish]) -> list[None]:
        await self._durably("reveal", self._store.finish_reveals, items)
        return [None] * len(items)

    async def _store_dues(self, items: Sequence[DueFinish]) -> list[None]:
        await self._durably("due-channel", self._store.finish_due_channels, items)
        return [None] * len(items)

    async def post(self, item: PostFinish) -> None:
        await self._posts.submit(item)

    async def reveal(self, item: RevealFinish) -> None:
        await self._reveals.submit(item)

    async def due(self, ref: ChannelRef, due_at: dt.datetime, next_at: dt.datetime | None) -> None:
        await self._dues.submit(DueFinish(ref, due_at, next_at))

    async def close(self) -> None:
        self._closing = True
        self._closed.set()
        for commit in (self._posts, self._reveals, self._dues):
            await commit.close()
