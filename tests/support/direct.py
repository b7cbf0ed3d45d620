"""A recording platform that also sends direct messages and knows members' timezones (for reminders)."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.kernel.errors import DirectMessageBlocked
from bot.kernel.values import ChannelRef
from tests.support.fakes import FakePlatform


@dataclass
class DirectFakePlatform(FakePlatform):
    direct: list[tuple[ChannelRef, str, str]] = field(default_factory=list)
    timezones: dict[str, str] = field(default_factory=dict)  # user -> IANA name the platform reports
    blocked: set[str] = field(default_factory=set)  # users whose DMs are closed
    failing: set[str] = field(default_factory=set)  # users whose DMs fail for another reason (an outage)
    attempts: int = 0

    async def send_direct(self, ref: ChannelRef, user_id: str, text: str) -> None:
        self.attempts += 1
        if user_id in self.blocked:
            raise DirectMessageBlocked("Cannot send messages to this user")
        if user_id in self.failing:
            raise ConnectionError("the platform is down")
        self.direct.append((ref, user_id, text))

    async def user_timezone(self, ref: ChannelRef, user_id: str) -> str | None:
        return self.timezones.get(user_id)
