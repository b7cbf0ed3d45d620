"""Seasons' optional platform capabilities."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from bot.kernel.values import ChannelRef
from bot.seasons.values import SeasonCard


class MonthTeam(Protocol):
    """A team as the season card names it (the teams feature's TeamTotal)."""

    @property
    def name(self) -> str: ...

    @property
    def points(self) -> int: ...

    @property
    def members(self) -> int: ...


class TeamOfMonth(Protocol):
    """The month's best team (the teams feature provides it; the composition root hands it in)."""

    async def team_of_month(self, platform: str, space_id: str, season: str) -> MonthTeam | None:
        """The season's best team by its best three members' points, decided once for the space; None when no
        team scored."""
        ...


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
