"""What the core pushes to a chat platform: the ChatPlatform port and its optional capabilities.

An optional capability is a runtime-checkable Protocol: a feature asks `isinstance(platform, DirectPlatform)`
instead of looking a method up by name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from bot.kernel.cards import QuestionCard, RevealCard
from bot.kernel.values import (
    ChannelRef,
)


class ChatPlatform(Protocol):
    """Outbound pushes to one chat platform. Inbound events reach the core through the service.

    A platform may also offer `async post_notice(ref, text)`: a plain note in a channel (e.g. that a day's
    question was skipped while the bot was offline); the service uses it when present. Likewise
    `async post_recap(ref, card, png)` (see RecapPlatform): the weekly recap chart, when the platform has it."""

    name: str

    async def post_question(self, ref: ChannelRef, card: QuestionCard) -> str:
        """Post a daily question card in a channel; returns the platform's message id."""
        ...

    async def post_reveal(self, ref: ChannelRef, card: RevealCard) -> str | None:
        """Mark the question message as revealed (if any) and post the reveal in the channel."""
        ...

    async def send_private(self, ref: ChannelRef, user_id: str, text: str) -> None:
        """A note only this user sees (ephemeral message or DM)."""
        ...


class DirectPlatform(Protocol):
    """The optional part of a ChatPlatform that writes to one member directly (a DM: reminders, a decided
    suggestion) and knows members' own timezones; without it suggestions fall back to `send_private`."""

    async def send_direct(self, ref: ChannelRef, user_id: str, text: str) -> None:
        """A direct message to the member (`ref`: the space and channel it concerns). Raises
        bot.errors.DirectMessageBlocked when the platform says the member cannot be messaged."""
        ...

    async def user_timezone(self, ref: ChannelRef, user_id: str) -> str | None:
        """The member's own IANA timezone when the platform knows it (None: it does not)."""
        ...


class NamePlatform(Protocol):
    """The optional part of a ChatPlatform that knows members' display names (for the recap's top five)."""

    async def display_names(self, ref: ChannelRef, user_ids: Sequence[str]) -> dict[str, str]: ...
