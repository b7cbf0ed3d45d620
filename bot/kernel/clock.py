"""The real clock behind the Clock port."""

from __future__ import annotations

import datetime as dt
from typing import Protocol


class SystemClock:
    """Wall-clock time, as an aware UTC datetime."""

    def now(self) -> dt.datetime:
        return dt.datetime.now(dt.UTC)


class Clock(Protocol):
    """Where the core gets the time: always an aware UTC datetime."""

    def now(self) -> dt.datetime: ...
