"""What seasons need of the store."""

from __future__ import annotations

import datetime as dt
from typing import Protocol

from bot.kernel.store import BoardReads
from bot.kernel.values import (
    ChannelRef,
)
from bot.seasons.values import SeasonArchive


class SeasonStore(Protocol):
    """Archived monthly seasons and the cards announcing them."""

    # monthly seasons (a space's top three per calendar month, archived once)
    async def archive_season(self, platform: str, space_id: str, season: str, now: dt.datetime) -> SeasonArchive | None:
        """Archive the space's season (YYYY-MM) once: its month's top three (points, then who reached the
        score first), possibly none. The first call decides, across processes; later calls return what it
        stored. None (nothing stored) while a daily round dated in that month is still open."""
        ...

    async def season_archive(self, platform: str, space_id: str, season: str) -> SeasonArchive | None:
        """The archived season, or None if it was never archived."""
        ...

    async def champion_before(self, platform: str, space_id: str, season: str) -> str | None:
        """The champion of the latest archived season before `season` that had one."""
        ...

    async def mark_season_post(self, ref: ChannelRef, season: str, now: dt.datetime) -> bool:
        """True the first time the channel posts the card of `season` (once per channel and season, ever)."""
        ...

    async def unmark_season_post(self, ref: ChannelRef, season: str) -> None:
        """Forget the mark (the card could not be sent, so it may be tried again)."""
        ...


class SeasonServiceStore(SeasonStore, BoardReads, Protocol):
    """What seasons read and write: archives, their cards' marks, and the month's board."""
