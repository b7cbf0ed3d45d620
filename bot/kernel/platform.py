"""What the core pushes to a chat platform: the ChatPlatform port, its optional capabilities, and the
registry of the platforms a process runs.

An optional capability is a runtime-checkable Protocol of one method: a feature asks
`isinstance(platform, DirectPlatform)` instead of looking a method up by name.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from typing import Literal, Protocol, runtime_checkable

from bot.kernel.cards import QuestionCard, RevealCard
from bot.kernel.values import ChannelRef, CommandNames


class ChatPlatform(Protocol):
    """Outbound pushes to one chat platform. Inbound events reach the core through the feature services."""

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


SendKind = Literal["question", "reveal"]  # which daily send of a round: its question or its reveal


class CannotLook(Exception):
    """The platform cannot be asked for a send's message in this channel (e.g. a Slack app installed without
    the history scopes): the send is treated as on a platform without IdempotentSends."""


@runtime_checkable
class IdempotentSends(Protocol):
    """Daily posts and reveals the platform recognises. Each post_question and post_reveal carries its round
    and kind (Discord: a nonce with enforce_nonce, so a resend within Discord's window returns the first
    message; Slack: message metadata), and the platform can be asked afterwards whether that message exists:
    a send whose outcome is unknown (the process stopped mid-send, a call failed) is settled by asking,
    never by guessing."""

    async def find_sent(self, ref: ChannelRef, round_id: int, kind: SendKind, since: dt.datetime) -> str | None:
        """The id of the bot's own message of this round and kind in the channel, posted since `since` (the
        first intent to send it); None when the platform says there is none. Raises CannotLook when it
        cannot be asked here; any other error means it could not be asked now (ask again later)."""
        ...


@runtime_checkable
class NoticePlatform(Protocol):
    """A plain note in a channel (e.g. that a day's question was skipped while the bot was offline)."""

    async def post_notice(self, ref: ChannelRef, text: str) -> None: ...


@runtime_checkable
class DirectPlatform(Protocol):
    """Writes to one member directly (a DM: reminders, a decided suggestion); without it suggestions fall
    back to `send_private`."""

    async def send_direct(self, ref: ChannelRef, user_id: str, text: str) -> None:
        """A direct message to the member (`ref`: the space and channel it concerns). Raises
        bot.kernel.errors.DirectMessageBlocked when the platform says the member cannot be messaged."""
        ...


@runtime_checkable
class TimezonePlatform(Protocol):
    """Knows members' own timezones."""

    async def user_timezone(self, ref: ChannelRef, user_id: str) -> str | None:
        """The member's own IANA timezone when the platform knows it (None: it does not)."""
        ...


@runtime_checkable
class ChannelNamePlatform(Protocol):
    """Knows channels' names (the dashboard shows #name instead of a platform's channel id)."""

    async def channel_names(self, space_id: str, channel_ids: Sequence[str]) -> dict[str, str]:
        """Each channel's name as members see it, without '#'; a channel it cannot name is left out."""
        ...


@runtime_checkable
class NamePlatform(Protocol):
    """Knows members' display names (for the recap's top five and the season card)."""

    async def display_names(self, ref: ChannelRef, user_ids: Sequence[str]) -> dict[str, str]: ...


@runtime_checkable
class AdminPlatform(Protocol):
    """Knows who may manage the quiz in a space, by the rule its commands use (the dashboard asks it)."""

    async def is_space_admin(self, space_id: str, user_id: str) -> bool:
        """Whether this member is a quiz admin of the space (False when it cannot tell)."""
        ...


class Platforms:
    """The platforms this process pushes to, by name, with how each spells the commands messages point to."""

    def __init__(self, platforms: dict[str, ChatPlatform] | None = None) -> None:
        self._platforms: dict[str, ChatPlatform] = dict(platforms or {})
        self._commands: dict[str, CommandNames] = {}

    def add(self, platform: ChatPlatform, commands: CommandNames | None = None) -> None:
        """Push to this platform; `commands` is how its members type the commands messages point to."""
        self._platforms[platform.name] = platform
        self._commands[platform.name] = commands or CommandNames()

    def remove(self, name: str) -> None:
        """Stop pushing to that platform (another process runs it)."""
        self._platforms.pop(name, None)
        self._commands.pop(name, None)

    def get(self, name: str) -> ChatPlatform | None:
        return self._platforms.get(name)

    def __getitem__(self, name: str) -> ChatPlatform:
        return self._platforms[name]

    def __contains__(self, name: object) -> bool:
        return name in self._platforms

    def __iter__(self) -> Iterator[str]:
        return iter(self._platforms)

    def commands_of(self, name: str) -> CommandNames:
        return self._commands.get(name) or CommandNames()
