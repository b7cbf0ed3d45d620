"""A learner's daily reminder and its card."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.kernel.values import ChannelRef

if TYPE_CHECKING:
    pass


@dataclass(frozen=True)
class Reminder:
    """One learner's reminder in one space, as the stores keep it."""

    platform: str
    space_id: str
    user_id: str
    channel_id: str  # where it was turned on: today's question is looked up there
    at: dt.time  # local wall time
    timezone: str  # IANA name the time is read in
    enabled: bool = True
    next_at: dt.datetime | None = None  # UTC: the next due instant (None: off)

    def __post_init__(self) -> None:
        if self.next_at is not None and self.next_at.tzinfo is None:
            raise ValueError("a reminder's next instant must be timezone-aware")

    @property
    def ref(self) -> ChannelRef:
        return ChannelRef(self.platform, self.space_id, self.channel_id)


@dataclass(frozen=True)
class RemindCard:
    """The private reply to `/quiz remind ...`."""

    text: str
    enabled: bool
