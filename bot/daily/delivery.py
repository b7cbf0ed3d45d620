"""The durable delivery engine every process's tick runs: claim -> act -> finish.

One tick reveals rounds whose promised instant passed, re-sends failed reveals, posts due channels and re-sends
failed or interrupted posts. Each item is claimed in the store first, so any number of processes can run it at
once; a failure of one item never stops the others. Each platform is a lane of its own (one platform's rate
limits never hold up another's), and in a lane about SEND_CAP reveals and posts together are in flight:
more are claimed as slots free, so a claim's lease starts when its work does, and a tick with thousands of
channels due drains them all. A lane's reveals and posts run side by side; a channel's post waits only for
the reveal of its own due rounds (see _Lane). A reveal batch is cut by rounds and by their answers (Batching),
so a busy day's batches take no more memory than a quiet day's. A delivery process paces the starts of its
batches and groups (bot.daily.pace), so its fan-out leaves the answers beside it their share of the machine.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import itertools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Hashable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from bot.daily.channels import ChannelSettings
from bot.daily.outcomes import SendOutcomes, retry_delay
from bot.daily.pace import Pace
from bot.daily.posting import Opening, Posting
from bot.daily.reveals import Reveals
from bot.daily.store import DeliveryStore
from bot.daily.uptime import Heartbeat
from bot.daily.values import DuePost, RevealedRound, RevealFinish, SendClaim
from bot.kernel.clock import elapsed_seconds
from bot.kernel.context import Context
from bot.kernel.priority import background
from bot.kernel.scoring import score_daily_round
from bot.kernel.values import DueChannel, Round, SpaceFilter

log = logging.getLogger(__name__)

T = TypeVar("T")

WORK_BATCH = 50  # due channels or rounds claimed at most in one trip
SEND_CAP = 50  # items (each one or two platform calls) in flight per platform lane
# answers a reveal batch holds at most: a batch's transaction holds about 800 bytes an answer at its peak and its
# reveal posts about 250 until they are out (PostgreSQL, 50 rounds of 2,000 answers: 81 and 25 MB)
REVEAL_ANSWERS = 5_000


@dataclass(frozen=True)
class Batching:
    """How a lane cuts its work: `size` due rounds revealed in one store transaction (and due channels posted
    in one group), `units` reveal batches and post groups each in flight at once. A batch also holds at most
    `answers` answers (a round with more is revealed alone): a batch's memory grows with its answers. `rate`
    paces them (bot.daily.pace; a delivery process's STUDYBOT_DELIVERY_RATE)."""

    size: int
    units: int
    answers: int = REVEAL_ANSWERS
    rate: float = 0.0  # posts and reveals this process starts a second at most (Pace); 0: no pace


# A process that answers too (STUDYBOT_ROLE=all): about SEND_CAP items in flight, as when reveals and posts took
# turns. Larger batches, or more at once, made its answers wait (bench.daily_minute), and, with the fan-out in a
# delivery process of its own on the same machine, the other process's answers too.
ANSWERING_BATCHES = Batching(size=10, units=3)
# A delivery process (STUDYBOT_ROLE=delivery): no answer of its own waits behind a batch, so its batches are
# larger: fewer store trips per channel (PostgreSQL, quiet day, 2,000 channels, this process's CPU per channel
# and the server's: 0.66 and 0.64 ms with ANSWERING_BATCHES, 0.46 and 0.36 ms with 30 a batch, 0.39 and 0.28 ms
# with 50; 60 with one in flight was no cheaper). A claim takes WORK_BATCH channels at most.
DELIVERY_BATCHES = Batching(size=50, units=2)
REVEAL_BATCH = ANSWERING_BATCHES.size  # rounds a transaction in a process that answers (bench.reveal_batch)
MAX_PER_TICK = 1_000_000  # a bound on the items one drain takes in a tick (it normally ends when none is due)


async def drain(
    fetch: Callable[[int, int], Awaitable[Sequence[T]]],
    work: Callable[[T], Awaitable[None]],
    cap: int = SEND_CAP,
) -> None:
    """Run `work` on what `fetch(n, busy)` returns (at most n items; `busy` are in flight), at most `cap`
    at once, fetching again as half the slots free, until a fetch returns nothing and all work is done.
    Cancelled (a stop during a tick), it cancels the work in flight and waits for it: nothing outlives it."""
    pending: set[asyncio.Task[None]] = set()
    taken = 0
    exhausted = False
    try:
        while True:
            free = cap - len(pending)
            if not exhausted and free >= max(1, cap // 2) and taken < MAX_PER_TICK:
                items = await fetch(min(free, WORK_BATCH), len(pending))
                exhausted = not items
                taken += len(items)
                pending.update(asyncio.ensure_future(work(item)) for item in items)
            if not pending:
                return
            done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            exhausted = exhausted and not done  # finished work may have left more due (a skipped day)
            for task in done:
                task.result()  # work() handles its own failures; a bug here should not pass silently
    finally:
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending)


def by_whole_spaces(
    items: Sequence[T],
    space: Callable[[T], Hashable],
    size: int,
    weigh: Callable[[T], int] = lambda _: 0,
    budget: int | None = None,
) -> list[list[T]]:
    """Cut `items` (in space order: a space's items next to each other) into chunks of at most `size` items
    that weigh at most `budget` together (an item heavier than that is a chunk alone) and hold whole spaces;
    only a space that does not fit in one chunk is cut, into chunks of its own. Two chunks then rarely share
    a space, so two reveal batches seldom wait for one space's lock."""

    def fits(count: int, weight: int) -> bool:
        return count <= size and (budget is None or weight <= budget)

    chunks: list[list[T]] = []
    current: list[T] = []
    load = 0
    for _, group in itertools.groupby(items, key=space):
        whole = list(group)
        weights = [weigh(item) for item in whole]
        total = sum(weights)
        if current and not fits(len(current) + len(whole), load + total):
            chunks.append(current)
            current, load = [], 0
        if not fits(len(whole), total):  # cut: its chunks wait for each other (SpaceGate)
            part: list[T] = []
            held = 0
            for item, weight in zip(whole, weights, strict=True):
                if part and not fits(len(part) + 1, held + weight):
                    chunks.append(part)
                    part, held = [], 0
                part.append(item)
                held += weight
            chunks.append(part)
            continue
        current.extend(whole)
        load += total
    if current:
        chunks.append(current)
    return chunks


class SpaceGate:
    """A lane's reveal batches that share a space run one after another: the later one waits here, holding
    no store connection, transaction or row lock, instead of inside its transaction for the space's lock
    (which the store still takes: other processes' batches, and other features, wait on that)."""

    def __init__(self) -> None:
        self._locks: dict[tuple[str, str], asyncio.Lock] = {}

    @contextlib.asynccontextmanager
    async def holding(self, spaces: Iterable[tuple[str, str]]) -> AsyncIterator[None]:
        """Hold these spaces (taken in one order, so two batches never wait for each other in a circle)."""
        held: list[asyncio.Lock] = []
        try:
            for key in sorted(set(spaces)):
                lock = self._locks.setdefault(key, asyncio.Lock())
                await lock.acquire()
                held.append(lock)
            yield
        finally:
            for lock in reversed(held):
                lock.release()


def _space_of(item: Round | DueChannel) -> tuple[str, str]:
    return (item.ref.platform, item.ref.space_id)


def _pair_space(pair: tuple[DuePost, Opening | None]) -> tuple[str, str]:
    return _space_of(pair[0].due)


@dataclass(frozen=True)
class _PostGroup:
    """Due channels posted together: `reveal` their due rounds this group reveals first (in one batch),
    `waits` those of the lane's reveals (the group's own too) that must be announced before the posts."""

    items: list[tuple[DuePost, Opening | None]]
    reveal: list[Round]
    waits: list[asyncio.Future[None]]


async def together(*parts: Coroutine[object, object, None]) -> None:
    """Run the parts side by side; the first to raise (anything, a kill too) cancels the others, which are
    waited for, and its exception is raised as it is. Cancelled, it cancels them all and waits for them."""
    tasks = [asyncio.ensure_future(part) for part in parts]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        for task in tasks:
            if task.done() and not task.cancelled() and task.exception() is not None:
                raise task.exception()  # type: ignore[misc]
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.wait(tasks)


class Delivery:
    """Runs the tick's daily work (see the module)."""

    def __init__(
        self,
        ctx: Context,
        store: DeliveryStore,
        channels: ChannelSettings,
        posting: Posting,
        reveals: Reveals,
        outcomes: SendOutcomes,
        batching: Batching = ANSWERING_BATCHES,
    ) -> None:
        self.ctx = ctx
        self.batching = batching
        self.store = store
        self.channels = channels
        self.posting = posting
        self.reveals = reveals
        self.outcomes = outcomes
        self.pace = Pace(batching.rate)  # one for the process's lanes together

    def heartbeat(self, elapsed: Callable[[], float] | None = None) -> Heartbeat:
        """A new process's heartbeat over this store (bot.daily.uptime); its scheduler beats once per tick."""
        return Heartbeat(self.ctx.clock, self.store, elapsed=elapsed or elapsed_seconds)

    async def run_due_work(self, spaces: SpaceFilter | None = None) -> None:
        """One tick of daily work. It is background work (bot.kernel.priority): answers and reads go first in
        the store's queue."""
        with background():
            if spaces is not None and spaces.platforms and len(spaces.platforms) > 1:
                lanes = [replace(spaces, platforms=(name,)) for name in spaces.platforms]
                await asyncio.gather(*(_Lane(self, lane).run() for lane in lanes))
            else:
                await _Lane(self, spaces).run()


class _Lane:
    """One platform's share of a tick: what is in flight and what failed, so nothing is taken twice.

    Reveals and posts run side by side: a due channel's post reveals the channel's due rounds first (in a
    batch with the rounds of the channels claimed with it), or waits for the reveal drain's batch that holds
    them, so a channel's reveal still goes out before its next question."""

    def __init__(self, delivery: Delivery, spaces: SpaceFilter | None) -> None:
        self.d = delivery
        self.spaces = spaces
        self.now = delivery.ctx.clock.now()
        self.failed: set[int] = set()  # reveals that raised: still due, not fetched again this tick
        self.active: set[int] = set()  # reveals in flight
        self.taken: dict[int, asyncio.Future[None]] = {}  # reveals this lane took: done once announced
        # the same by channel: a post waits for its channel's reveals in flight, also those its claim no longer
        # read as open (the store's reveal committed before the claim, the announcement not out yet)
        self.taken_in: dict[tuple[str, str], list[asyncio.Future[None]]] = {}
        self.unsettled = 0  # of them, those not done yet (perhaps still open in the store)
        self.answers: dict[int, int] = {}  # due rounds' answers, as counted (a closed round takes no more)
        self.gate = SpaceGate()

    async def run(self) -> None:
        await together(self._reveals(), self._posts())

    def _lease(self) -> dt.datetime:
        """A claim's lease, from when it is taken: a long (or paced) tick's later claims get their whole lease."""
        return self.d.ctx.clock.now() + self.d.ctx.send_lease

    async def _reveals(self) -> None:
        store, now, spaces = self.d.store, self.now, self.spaces
        await drain(self._due_reveal_batches, self._reveal_batch, self.d.batching.units)
        await drain(lambda n, _b: store.claim_reveals(now, self._lease(), n, spaces=spaces), self._resend_reveal)

    async def _posts(self) -> None:
        store, now, spaces = self.d.store, self.now, self.spaces
        # a skipped day may leave a later one due within the grace: the drain takes it in the same tick
        await drain(self._due_post_groups, self._post_group, self.d.batching.units)
        await drain(lambda n, _b: store.claim_posts(now, self._lease(), n, spaces=spaces), self._resend_post)

    # ---- reveals -------------------------------------------------------------------------------------

    async def _due_reveals(self, n: int, busy: int) -> list[Round]:
        rows = await self.d.store.due_reveals(self.now, n + busy + self.unsettled + len(self.failed), self.spaces)
        return [r for r in rows if r.id not in self.failed and r.id not in self.taken][:n]

    def _in_order(self, rounds: Sequence[Round]) -> list[Round]:
        # by space, then as due: a batch locks its spaces in one order (two batches never wait on each
        # other in a circle on PostgreSQL), and a space's rounds keep their order
        return sorted(rounds, key=lambda r: (r.ref.platform, r.ref.space_id, r.closes_at or self.now, r.id))

    async def _due_reveal_batches(self, n: int, busy: int) -> list[list[Round]]:
        rounds = self._in_order(await self._due_reveals(n * self.d.batching.size, 0))
        chunks = (await self._batches(rounds))[:n]  # the rest are still due: a later fetch reads them again
        for chunk in chunks:
            self._take(chunk)
        return chunks

    async def _batches(self, rounds: Sequence[Round]) -> list[list[Round]]:
        """Rounds (in order) cut into reveal batches of whole spaces, by rounds and by answers."""
        uncounted = [r.id for r in rounds if r.id not in self.answers]
        if uncounted:
            try:
                counts = await self.d.store.answer_counts(uncounted)
            except Exception:  # the reveal itself meets a store that fails, and handles it
                log.warning("counting the answers of %d due rounds failed", len(uncounted), exc_info=True)
                counts = {}
            self.answers.update((rid, counts.get(rid, 0)) for rid in uncounted)
        batching = self.d.batching
        return by_whole_spaces(rounds, _space_of, batching.size, lambda r: self.answers[r.id], batching.answers)

    def _take(self, rounds: Sequence[Round]) -> None:
        """Mark rounds as this lane's to reveal (before any await: neither drain takes them again)."""
        loop = asyncio.get_running_loop()
        for round_ in rounds:
            if round_.id not in self.taken:
                future = self.taken[round_.id] = loop.create_future()
                self.taken_in.setdefault((round_.ref.platform, round_.ref.channel_id), []).append(future)
                self.unsettled += 1

    def _settle(self, ids: Sequence[int]) -> None:
        for id_ in ids:
            future = self.taken.get(id_)
            if future is not None and not future.done():
                future.set_result(None)
                self.unsettled -= 1

    async def _reveal_one(self, round_: Round) -> None:
        self.active.add(round_.id)
        try:
            await self.d.reveals.reveal_round(round_.id, round_)
        except Exception:
            self.failed.add(round_.id)
            log.exception("reveal of round %d failed", round_.id)
        finally:
            self.active.discard(round_.id)

    async def _reveal_batch(self, chunk: list[Round]) -> None:
        ctx, ids = self.d.ctx, [r.id for r in chunk]
        self.active.update(ids)
        try:
            await self.d.pace.take(len(ids))  # (inside: a stop while it waits still settles the batch's rounds)
            async with self.gate.holding(map(_space_of, chunk)):
                at = ctx.clock.now()
                try:
                    revealed = await self.d.store.reveal_due_rounds(
                        ids, at, score_daily_round, at + ctx.send_lease, learn=ctx.learning
                    )
                except Exception:  # none of them was revealed: one by one, so one bad round holds up no other
                    log.warning(
                        "revealing %d rounds together failed; revealing them one by one", len(ids), exc_info=True
                    )
                    for round_ in chunk:
                        await self._reveal_one(round_)
                    return
            before = {r.id: r for r in chunk}
            await asyncio.gather(*(self._announce(before[item.round.id], item, at) for item in revealed))
        finally:
            self.active.difference_update(ids)
            self._settle(ids)

    async def _announce(self, round_: Round, item: RevealedRound, at: dt.datetime) -> None:
        try:
            await self.d.reveals.announce(round_, item, at)
        except Exception:
            self.failed.add(round_.id)
            log.exception("reveal of round %d failed", round_.id)

    async def _resend_reveal(self, claim: SendClaim) -> None:
        try:
            await self.d.reveals.send_reveal(claim)
        except Exception:
            log.exception("reveal post of round %d failed", claim.round.id)
            retry = self.now + retry_delay(claim.attempts)
            await self.d.outcomes.reveal(RevealFinish(claim.round.id, "failed", retry))

    # ---- posts ---------------------------------------------------------------------------------------

    async def _due_post_groups(self, n: int, busy: int) -> list[_PostGroup]:
        """Claim due channels (n groups' worth) and split them into groups of the batch size, in space order; a
        group first reveals its channels' due rounds in one batch (those the reveal drain holds: it waits for
        them), then posts."""
        size = self.d.batching.size
        items = await self.d.store.claim_due_posts(
            self.now, self._lease(), min(n * size, max(size, WORK_BATCH)), self.spaces
        )
        openings = await self.d.posting.open_due(items)
        pairs = sorted(zip(items, openings, strict=True), key=_pair_space)
        groups: list[_PostGroup] = []
        for chunk in by_whole_spaces(pairs, _pair_space, size):
            due = [
                r for item, _ in chunk for r in item.open_rounds if r.closes_at is not None and r.closes_at <= self.now
            ]
            mine = [r for r in due if r.id not in self.taken and r.id not in self.failed]
            self._take(mine)
            waits = [
                future
                for item, _ in chunk
                for future in self.taken_in.get((item.due.ref.platform, item.due.ref.channel_id), ())
                if not future.done()
            ]
            groups.append(_PostGroup(chunk, self._in_order(mine), waits))
        return groups

    async def _post_group(self, group: _PostGroup) -> None:
        if group.reveal:
            for batch in await self._batches(group.reveal):
                await self._reveal_batch(batch)
        if group.waits:
            await asyncio.wait(group.waits)
        await self.d.pace.take(len(group.items))
        await asyncio.gather(*(self._post(item) for item in group.items))

    async def _post(self, item: tuple[DuePost, Opening | None]) -> None:
        due, opening = item
        # the rounds this lane revealed are no longer open: the post does not try them again
        left = tuple(r for r in due.open_rounds if r.id not in self.taken or r.id in self.failed)
        if len(left) != len(due.open_rounds):
            due = replace(due, open_rounds=left)
        try:
            await self.d.posting.run_due_post(due.due, due, opening)
        except Exception:
            log.exception("daily post of %s/%s failed", due.due.ref.platform, due.due.ref.channel_id)
            await self.d.outcomes.due(due.due.ref, due.due.due_at, self.now + dt.timedelta(minutes=1))

    async def _resend_post(self, claim: SendClaim) -> None:
        try:
            await self.d.posting.send_post(claim, await self.d.channels.channel_config(claim.round.ref))
        except Exception:
            log.exception("post of round %d failed", claim.round.id)
