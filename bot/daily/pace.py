"""A delivery process's pace: how many posts and reveals a second it starts at most (STUDYBOT_DELIVERY_RATE).

Without it a delivery process runs the 09:00 fan-out as fast as its CPU and the store let it, and the fan-out
takes that CPU, and the database server's, from the answers of the interactive processes beside it for as
long as it runs. Paced, the same work is spread over more of the minute the posts may take, and answers keep
their share. The platforms' own rate limits still apply on top of this (Discord's lane is slower anyway).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable


class Pace:
    """Spaces out the starts of a process's reveal batches and post groups so that, over time, at most `rate`
    items (a channel's post, a round's reveal) a second are started; `rate` 0 never waits. Time that passes
    with nothing to start is not saved up for a burst later."""

    def __init__(
        self,
        rate: float,
        monotonic: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        self.rate = rate
        self._monotonic = monotonic
        self._sleep = sleep
        self._next = float("-inf")  # when the next start may go

    async def take(self, items: int) -> None:
        """Wait until `items` more may start, and count them as started."""
        if self.rate <= 0 or items <= 0:
            return
        now = self._monotonic()
        start = max(now, self._next)
        self._next = start + items / self.rate
        if start > now:
            await self._sleep(start - now)
