"""What teams need of the store."""

from __future__ import annotations

import datetime as dt
from typing import Protocol

from bot.kernel.store import SpaceStore
from bot.kernel.values import Period
from bot.teams.values import Team, TeamMember, TeamTotal, TeamWrite


class TeamStore(Protocol):
    """A space's teams and their members. Keys (`team_key` of the name) keep names unique in a space whatever
    their case; the primary key (platform, space, member) keeps a member in one team. Every write decides
    in one transaction, so two processes never make two teams of one name or put a member in two teams."""

    async def create_team(
        self, platform: str, space_id: str, key: str, name: str, user_id: str, now: dt.datetime
    ) -> TeamWrite:
        """Create the team and put its creator in it. NAME_TAKEN (name: the team holding the key) or IN_TEAM
        (name: the creator's team) write nothing."""
        ...

    async def join_team(self, platform: str, space_id: str, key: str, user_id: str, now: dt.datetime) -> TeamWrite:
        """Put the member in the team: DONE (name: the team's), NO_TEAM, or IN_TEAM (name: the member's team,
        this one or another)."""
        ...

    async def leave_team(self, platform: str, space_id: str, user_id: str) -> TeamWrite:
        """Take the member out of their team: DONE (name: the team's; `emptied` when it was the last member,
        and the team is gone with them) or NOT_IN_TEAM."""
        ...

    async def rename_team(self, platform: str, space_id: str, key: str, new_key: str, new_name: str) -> TeamWrite:
        """Rename the team, its members staying in it: DONE (name: the old name), NO_TEAM, or NAME_TAKEN
        (name: the other team holding new_key)."""
        ...

    async def remove_team(self, platform: str, space_id: str, key: str) -> TeamWrite:
        """Remove the team; its members are in no team after it. DONE (name: the team's) or NO_TEAM."""
        ...

    async def team_of(self, platform: str, space_id: str, user_id: str) -> Team | None:
        """The member's team in the space (with its member count), or None."""
        ...

    async def list_teams(self, platform: str, space_id: str) -> list[Team]:
        """The space's teams with their member counts, by key."""
        ...

    async def team_roster(self, platform: str, space_id: str) -> list[TeamMember]:
        """Every member of every team of the space (by team key, then member)."""
        ...

    async def member_points(self, platform: str, space_id: str, period: Period, period_key: str) -> dict[str, int]:
        """The points on one board (a week, a month or all time) of the space's team members who have any."""
        ...

    async def claim_season_team(
        self, platform: str, space_id: str, season: str, team: TeamTotal | None, now: dt.datetime
    ) -> TeamTotal | None:
        """The team of the month of `season` (YYYY-MM), decided once: the first call stores `team` (None: no
        team), later calls, from any process, return what it stored (rank 1)."""
        ...


class TeamServiceStore(TeamStore, SpaceStore, Protocol):
    """What teams read and write: teams, and the space's timezone (which week or month a board is)."""
