"""What every feature receives instead of a god service: the clock, the bank, the platforms and
what a space's day is.
"""

from __future__ import annotations

import datetime as dt
from typing import Protocol


class SpaceStore(Protocol):
    """What the context reads of a space."""

    async def space_timezone(self, platform: str, space_id: str) -> str | None: ...


class OnceStore(Protocol):
    """De-duplication of platform deliveries, decided in the store."""

    async def remember_once(self, scope: str, key: str, now: dt.datetime, keep: dt.timedelta) -> bool:
        """True the first time (scope, key) is seen within `keep` of `now`, False for a repeat: one
        de-duplication shared by every process on the same database."""
        ...
