"""Charts are drawn off the event loop and one at a time: matplotlib's style settings (rcParams) are global to
the process, so two charts drawn at once on two threads could take each other's."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

DRAW_LOCK = threading.Lock()


async def draw_off_loop(draw: Callable[[], T]) -> T:
    """Run `draw` (which imports matplotlib itself: its first import takes seconds) in a worker thread, holding
    DRAW_LOCK."""
    return await asyncio.to_thread(_locked, draw)


def _locked(draw: Callable[[], T]) -> T:
    with DRAW_LOCK:
        return draw()
