"""Seasons' optional platform capabilities."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from bot.kernel.values import ChannelRef
from bot.seasons.values import SeasonCard


@runtime_checkable
class SeasonPlatform(Protocol):
    """Posts the monthly season card."""

    async def post_season(self, ref: ChannelRef, card: SeasonCard) -> str | None:
        """Post `season_text(card)` in the channel (names as plain text, nobody notified)."""
        ...


@runtime_checkable
class ChampionPlatform(Protocol):
    """Has roles (Discord): moves the season's champion role."""

    async def move_champion(self, ref: ChannelRef, role_id: str, winner: str, previous: str | None) -> None:
        """Give the role to `winner` and take it from `previous` (last season's champion, if another)."""
        ...


@runtime_checkable
class RoleCheckPlatform(Protocol):
    """Has roles (Discord): says whether the bot can give a role."""

    async def champion_role_problem(self, ref: ChannelRef, role_id: str) -> str | None:
        """Why the bot cannot give this role in the space (e.g. no Manage Roles), or None when it can."""
        ...
