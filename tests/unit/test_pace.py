"""bot.daily.pace: a delivery process starts at most STUDYBOT_DELIVERY_RATE posts and reveals a second (fake time)."""

from __future__ import annotations

import pytest

from bot.daily.pace import Pace


class FakeTime:
    """A monotonic clock that only moves when someone sleeps on it, or when the test moves it."""

    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def monotonic(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def paced(rate: float) -> tuple[Pace, FakeTime]:
    time = FakeTime()
    return Pace(rate, monotonic=time.monotonic, sleep=time.sleep), time


async def test_starts_are_spaced_by_their_items_over_the_rate() -> None:
    pace, time = paced(rate=100)
    for items in (50, 50, 20, 10):
        await pace.take(items)
    # the first goes at once; each next one waits for the items before it: 50, 50, then 20 at 100 a second
    assert time.slept == pytest.approx([0.5, 0.5, 0.2])
    assert time.now == pytest.approx(101.2)


async def test_time_with_nothing_to_start_is_not_saved_up_for_a_burst() -> None:
    pace, time = paced(rate=10)
    await pace.take(10)  # until 101.0
    time.now += 60  # a quiet minute
    await pace.take(10)  # at once
    await pace.take(10)  # one second later, not at once: the quiet minute bought no burst
    assert time.slept == pytest.approx([1.0])


async def test_items_that_take_longer_than_the_pace_are_never_waited_for() -> None:
    pace, time = paced(rate=100)
    await pace.take(50)
    time.now += 2.0  # the work itself took longer than its half second
    await pace.take(50)
    assert time.slept == []


@pytest.mark.parametrize(("rate", "items"), [(0, 50), (0, 10_000), (100, 0)])
async def test_rate_0_and_nothing_to_start_never_wait(rate: float, items: int) -> None:
    pace, time = paced(rate)
    for _ in range(5):
        await pace.take(items)
    assert time.slept == [] and time.now == 100.0
