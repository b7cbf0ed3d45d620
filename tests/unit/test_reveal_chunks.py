"""How a delivery lane cuts reveals into batches by whole spaces (and by answers), and holds a space for one
batch at a time (bot.daily.delivery.by_whole_spaces, SpaceGate)."""

from __future__ import annotations

import asyncio

import pytest

from bot.daily.delivery import SpaceGate, by_whole_spaces


def _space(item: str) -> str:
    return item[0]


@pytest.mark.parametrize(
    ("items", "size", "chunks"),
    [
        ("", 3, []),
        ("aab", 3, ["aab"]),
        ("aabb", 3, ["aa", "bb"]),  # b is not cut to fill the first chunk
        ("abcde", 2, ["ab", "cd", "e"]),
        ("aaaaab", 2, ["aa", "aa", "a", "b"]),  # only a space larger than a chunk is cut, into its own chunks
        ("abbbbbc", 3, ["a", "bbb", "bb", "c"]),
    ],
)
def test_chunks_hold_whole_spaces_and_keep_the_order(items: str, size: int, chunks: list[str]) -> None:
    tagged = [f"{s}{i}" for i, s in enumerate(items)]
    got = by_whole_spaces(tagged, _space, size)
    assert ["".join(_space(x) for x in chunk) for chunk in got] == chunks
    assert [x for chunk in got for x in chunk] == tagged  # every item once, in order
    assert all(len(chunk) <= size for chunk in got)


@pytest.mark.parametrize(
    ("items", "weights", "chunks"),
    [
        ("aab", [1, 1, 2], ["aab"]),  # as heavy as the budget: one chunk
        ("aabb", [2, 2, 1, 1], ["aa", "bb"]),  # b does not fit with a: not cut to fill the first chunk
        ("abc", [9, 1, 1], ["a", "bc"]),  # a round heavier than the budget is a batch alone
        ("aaab", [2, 3, 1, 1], ["a", "aa", "b"]),  # a space that does not fit is cut, into its own chunks
        ("abbbc", [0, 4, 4, 0, 0], ["a", "b", "bb", "c"]),
        ("aaaaa", [0, 0, 0, 0, 0], ["aaa", "aa"]),  # the size still holds when nothing weighs
    ],
)
def test_chunks_also_hold_at_most_the_budget(items: str, weights: list[int], chunks: list[str]) -> None:
    tagged = [f"{s}{i}" for i, s in enumerate(items)]
    weight = dict(zip(tagged, weights, strict=True))
    got = by_whole_spaces(tagged, _space, 3, weight.__getitem__, budget=4)
    assert ["".join(_space(x) for x in chunk) for chunk in got] == chunks
    assert [x for chunk in got for x in chunk] == tagged
    assert all(len(chunk) == 1 or sum(map(weight.__getitem__, chunk)) <= 4 for chunk in got)


async def test_batches_sharing_a_space_run_one_after_another_and_others_at_once() -> None:
    gate = SpaceGate()
    events: list[str] = []
    release = asyncio.Event()

    async def batch(name: str, spaces: list[tuple[str, str]]) -> None:
        async with gate.holding(spaces):
            events.append(f"{name} in")
            await release.wait()
            events.append(f"{name} out")

    first = asyncio.ensure_future(batch("first", [("slack", "T2"), ("slack", "T1")]))
    await asyncio.sleep(0)
    shares = asyncio.ensure_future(batch("shares", [("slack", "T1")]))
    other = asyncio.ensure_future(batch("other", [("slack", "T3"), ("discord", "9")]))
    for _ in range(5):
        await asyncio.sleep(0)
    assert events == ["first in", "other in"]  # "shares" waits for T1, "other" shares nothing
    release.set()
    await asyncio.gather(first, shares, other)
    assert events.index("shares in") > events.index("first out")


async def test_a_cancelled_wait_leaves_no_space_held() -> None:
    gate = SpaceGate()
    entered = asyncio.Event()
    release = asyncio.Event()

    async def holder() -> None:
        async with gate.holding([("slack", "T1")]):
            entered.set()
            await release.wait()

    async def waiter() -> None:
        async with gate.holding([("slack", "T0"), ("slack", "T1")]):
            raise AssertionError("it was cancelled while waiting")

    task = asyncio.ensure_future(holder())
    await entered.wait()
    waiting = asyncio.ensure_future(waiter())
    for _ in range(3):
        await asyncio.sleep(0)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    release.set()
    await task
    async with gate.holding([("slack", "T0"), ("slack", "T1")]):  # both free again
        pass
