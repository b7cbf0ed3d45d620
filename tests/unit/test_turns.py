"""The store's turn lock (bot.store.turns): foreground work goes before background work (bot.priority)."""

from __future__ import annotations

import asyncio

import pytest

from bot.kernel.priority import background, in_background
from bot.store.turns import TurnLock


async def _turns(n: int = 10) -> None:
    for _ in range(n):  # event-loop turns, not time
        await asyncio.sleep(0)


async def _take(lock: TurnLock, name: str, order: list[str], *, later: bool = False) -> None:
    if later:
        with background():
            async with lock:
                order.append(name)
                await _turns(2)
    else:
        async with lock:
            order.append(name)
            await _turns(2)


def test_background_is_marked_inside_the_block_only():
    assert not in_background()
    with background():
        assert in_background()
    assert not in_background()


async def test_background_reaches_the_tasks_started_inside_it():
    seen: list[bool] = []

    async def probe() -> None:
        seen.append(in_background())

    with background():
        inside = asyncio.ensure_future(probe())
    outside = asyncio.ensure_future(probe())
    await asyncio.gather(inside, outside)
    assert seen == [True, False]


async def test_a_foreground_waiter_goes_before_background_waiters_that_came_first():
    lock, order = TurnLock(), []
    await lock.acquire()
    tasks = [asyncio.ensure_future(_take(lock, f"reveal{i}", order, later=True)) for i in range(3)]
    await _turns()
    tasks.append(asyncio.ensure_future(_take(lock, "answers", order)))
    await _turns()
    lock.release()
    await asyncio.gather(*tasks)
    assert order == ["answers", "reveal0", "reveal1", "reveal2"]
    assert not lock.locked()


async def test_each_kind_keeps_its_order_and_background_work_is_not_starved_between_batches():
    lock, order = TurnLock(), []
    await lock.acquire()
    tasks = [asyncio.ensure_future(_take(lock, "reveal", order, later=True))]
    await _turns()
    tasks += [asyncio.ensure_future(_take(lock, f"answers{i}", order)) for i in range(2)]
    await _turns()
    lock.release()
    await asyncio.gather(*tasks)
    assert order == ["answers0", "answers1", "reveal"]
    # an answer batch ends with a reveal waiting: the turn is handed to it on release, before the next
    # batch (asked for once the last one's replies are out) comes
    await lock.acquire()
    reveal = asyncio.ensure_future(_take(lock, "reveal2", order, later=True))
    await _turns()
    lock.release()
    answers = asyncio.ensure_future(_take(lock, "answers2", order))
    await asyncio.gather(reveal, answers)
    assert order[3:] == ["reveal2", "answers2"]


async def test_a_waiter_cancelled_after_it_was_handed_the_lock_passes_it_on():
    lock, order = TurnLock(), []
    await lock.acquire()
    first = asyncio.ensure_future(_take(lock, "cancelled", order))
    second = asyncio.ensure_future(_take(lock, "next", order))
    await _turns()
    lock.release()  # handed to `first`, which is cancelled before it runs
    first.cancel()
    with pytest.raises(asyncio.CancelledError):
        await first
    await second
    assert order == ["next"] and not lock.locked()


async def test_a_waiter_cancelled_while_waiting_leaves_the_queue():
    lock, order = TurnLock(), []
    await lock.acquire()
    gone = asyncio.ensure_future(_take(lock, "gone", order, later=True))
    await _turns()
    gone.cancel()
    with pytest.raises(asyncio.CancelledError):
        await gone
    lock.release()
    assert not lock.locked() and order == []
    await _take(lock, "after", order)
    assert order == ["after"]


def test_releasing_a_lock_not_held_is_an_error():
    with pytest.raises(RuntimeError, match="not held"):
        TurnLock().release()
