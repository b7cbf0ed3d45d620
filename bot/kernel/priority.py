"""Which work may wait: the scheduler's fan-out and other background jobs run in `background()`, so a
store serving one connection at a time lets a learner's answer or read go ahead of them."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

_BACKGROUND: contextvars.ContextVar[bool] = contextvars.ContextVar("studybot_background", default=False)


@contextlib.contextmanager
def background() -> Iterator[None]:
    """Mark the work done inside (and in the tasks it starts) as background work."""
    token = _BACKGROUND.set(True)
    try:
        yield
    finally:
        _BACKGROUND.reset(token)


def in_background() -> bool:
    """Whether the running code is background work (see `background`)."""
    return _BACKGROUND.get()
