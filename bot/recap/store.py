"""What the weekly recap needs of the store."""

from __future__ import annotations

import datetime as dt
from typing import Protocol

from bot.kernel.store import ChannelReads
from bot.kernel.values import (
    ChannelConfig,
    ChannelRef,
    DueChannel,
    SpaceFilter,
)
from bot.recap.values import RecalledMisses, RecapRound, RecapScorer


class RecapStore(Protocol):
    """Each channel's weekly recap: when it is due, and the week's figures."""

    # the weekly recap (the same durable work: a due instant on the channel, claimed by one tick)
    async def set_next_recap(self, ref: ChannelRef, at: dt.datetime | None) -> None:
        """The channel's next due recap (None: off or paused); releases any claim on it."""
        ...

    async def get_next_recap(self, ref: ChannelRef) -> dt.datetime | None: ...

    async def unscheduled_recaps(self, spaces: SpaceFilter | None = None) -> list[ChannelConfig]:
        """Running channels with the recap on but no next due recap stored, of these spaces (None: all)."""
        ...

    async def claim_due_recaps(
        self, now: dt.datetime, lease_until: dt.datetime, limit: int, spaces: SpaceFilter | None = None
    ) -> list[DueChannel]:
        """Atomically claim unpaused channels whose recap is due and not claimed by a live lease."""
        ...

    async def finish_due_recap(self, ref: ChannelRef, due_at: dt.datetime, next_at: dt.datetime | None) -> None:
        """Release a claimed recap; it moves to `next_at` unless a config change moved it."""
        ...

    async def mark_recap(self, ref: ChannelRef, week_end: dt.date, now: dt.datetime) -> bool:
        """True the first time the channel's week ending `week_end` is recapped (once per week, ever)."""
        ...

    async def unmark_recap(self, ref: ChannelRef, week_end: dt.date) -> None:
        """Forget a week's mark (its recap could not be sent, so it may be tried again)."""
        ...

    async def recap_rounds(
        self, platform: str, space_id: str, start: dt.date, end: dt.date, channel_id: str | None = None
    ) -> list[RecapRound]:
        """Revealed daily rounds of a space (or one channel) on local dates start..end, with answer counts."""
        ...

    async def recap_scorers(
        self, platform: str, space_id: str, start: dt.date, end: dt.date, limit: int, channel_id: str | None = None
    ) -> list[RecapScorer]:
        """The best members of those rounds: most points, then who reached their total first, then user id."""
        ...

    async def space_miss_recall(self, platform: str, space_id: str, tz: str, through: dt.date) -> RecalledMisses:
        """The space's missed daily questions (per member) and how many came back 7 or more local days (in
        `tz`) after the miss, right or not, on local dates up to `through` (bot.practice.progress.count_misses)."""
        ...


class RecapServiceStore(RecapStore, ChannelReads, Protocol):
    """What the recap reads and writes: its own rows and the channels' settings."""
