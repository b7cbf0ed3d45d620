from __future__ import annotations

import asyncio
import datetime as dt

import pytest

from bot.daily.answer_batcher import AnswerBatcher
from bot.kernel.errors import Busy
from bot.kernel.values import AnswerWrite, NewAnswer

NOW = dt.datetime(2026, 12, 7, 9, 30, tzinfo=dt.UTC)


class SlowStore:
    """A store whose writes wait until the test lets them through."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.written: list[NewAnswer] = []

    async def add_answers(self, answers: list[NewAnswer], now: dt.datetime) -> list[AnswerWrite]:
        await self.gate.wait()
        self.written.extend(answers)
        return [AnswerWrite("recorded") for _ in answers]


def answer(i: int) -> NewAnswer:
    return NewAnswer(1, f"user{i}", i % 4, True, NOW)


async def test_beyond_the_queue_limit_answers_are_refused_at_once_and_never_written() -> None:
    store = SlowStore()
    batcher = AnswerBatcher(store, lambda: NOW, max_pending=3)  # type: ignore[arg-type]
    first = asyncio.ensure_future(batcher.submit(answer(0)))
    await asyncio.sleep(0)  # the worker takes answer 0 into its (blocked) write
    await asyncio.sleep(0)
    waiting = [asyncio.ensure_future(batcher.submit(answer(i))) for i in (1, 2, 3)]
    await asyncio.sleep(0)
    with pytest.raises(Busy, match="did not record your answer"):
        await batcher.submit(answer(4))
    assert batcher.refused == 1 and batcher.pending == 3
    store.gate.set()
    results = await asyncio.gather(first, *waiting)
    assert [r.status for r in results] == ["recorded"] * 4
    assert sorted(a.user_id for a in store.written) == ["user0", "user1", "user2", "user3"]
    await batcher.submit(answer(5))  # room again once the queue drained
    await batcher.close()
    assert "user4" not in {a.user_id for a in store.written}


async def test_an_answer_is_refused_when_the_oldest_waiting_one_is_older_than_the_budget() -> None:
    store = SlowStore()
    clock = [100.0]
    batcher = AnswerBatcher(store, lambda: NOW, max_wait=2.0, monotonic=lambda: clock[0])  # type: ignore[arg-type]
    first = asyncio.ensure_future(batcher.submit(answer(0)))
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    second = asyncio.ensure_future(batcher.submit(answer(1)))
    await asyncio.sleep(0)
    clock[0] = 101.5
    third = asyncio.ensure_future(batcher.submit(answer(2)))  # 1.5 s: still within the budget
    await asyncio.sleep(0)
    clock[0] = 102.5
    with pytest.raises(Busy):
        await batcher.submit(answer(3))
    store.gate.set()
    assert [r.status for r in await asyncio.gather(first, second, third)] == ["recorded"] * 3
    await batcher.close()
    assert len(store.written) == 3
