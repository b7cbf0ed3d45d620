"""A space's teams and their members, and each season's team of the month (bot.teams.store.TeamStore): the
in-memory part of bot.store.teams_sql. Each call is one atomic change (no await after `_db`)."""

from __future__ import annotations

import datetime as dt

from bot.kernel.values import Period
from bot.teams.values import Team, TeamMember, TeamOutcome, TeamTotal, TeamWrite
from tests.support.memory.tables import MemoryTables, Tables, utc


def _members(t: Tables, platform: str, space_id: str, key: str) -> list[str]:
    return sorted(u for (p, s, u), k in t.team_members.items() if (p, s, k) == (platform, space_id, key))


class MemoryTeams(MemoryTables):
    """Teams keyed by (platform, space, folded name); members by (platform, space, user)."""

    async def create_team(
        self, platform: str, space_id: str, key: str, name: str, user_id: str, now: dt.datetime
    ) -> TeamWrite:
        t = await self._db()
        utc(now)
        if (platform, space_id, key) in t.teams:
            return TeamWrite(TeamOutcome.NAME_TAKEN, t.teams[(platform, space_id, key)])
        mine = t.team_members.get((platform, space_id, user_id))
        if mine is not None:
            return TeamWrite(TeamOutcome.IN_TEAM, t.teams[(platform, space_id, mine)])
        t.teams[(platform, space_id, key)] = name
        t.team_members[(platform, space_id, user_id)] = key
        return TeamWrite(TeamOutcome.DONE, name)

    async def join_team(self, platform: str, space_id: str, key: str, user_id: str, now: dt.datetime) -> TeamWrite:
        t = await self._db()
        utc(now)
        if (platform, space_id, key) not in t.teams:
            return TeamWrite(TeamOutcome.NO_TEAM)
        mine = t.team_members.get((platform, space_id, user_id))
        if mine is not None:
            return TeamWrite(TeamOutcome.IN_TEAM, t.teams[(platform, space_id, mine)])
        t.team_members[(platform, space_id, user_id)] = key
        return TeamWrite(TeamOutcome.DONE, t.teams[(platform, space_id, key)])

    async def leave_team(self, platform: str, space_id: str, user_id: str) -> TeamWrite:
        t = await self._db()
        key = t.team_members.pop((platform, space_id, user_id), None)
        if key is None:
            return TeamWrite(TeamOutcome.NOT_IN_TEAM)
        name = t.teams[(platform, space_id, key)]
        emptied = not _members(t, platform, space_id, key)
        if emptied:
            del t.teams[(platform, space_id, key)]
        return TeamWrite(TeamOutcome.DONE, name, emptied)

    async def rename_team(self, platform: str, space_id: str, key: str, new_key: str, new_name: str) -> TeamWrite:
        t = await self._db()
        old = t.teams.get((platform, space_id, key))
        if old is None:
            return TeamWrite(TeamOutcome.NO_TEAM)
        if new_key != key and (platform, space_id, new_key) in t.teams:
            return TeamWrite(TeamOutcome.NAME_TAKEN, t.teams[(platform, space_id, new_key)])
        for user in _members(t, platform, space_id, key):
            t.team_members[(platform, space_id, user)] = new_key
        del t.teams[(platform, space_id, key)]
        t.teams[(platform, space_id, new_key)] = new_name
        return TeamWrite(TeamOutcome.DONE, old)

    async def remove_team(self, platform: str, space_id: str, key: str) -> TeamWrite:
        t = await self._db()
        name = t.teams.pop((platform, space_id, key), None)
        if name is None:
            return TeamWrite(TeamOutcome.NO_TEAM)
        for user in _members(t, platform, space_id, key):
            del t.team_members[(platform, space_id, user)]
        return TeamWrite(TeamOutcome.DONE, name)

    async def team_of(self, platform: str, space_id: str, user_id: str) -> Team | None:
        t = await self._db()
        key = t.team_members.get((platform, space_id, user_id))
        if key is None:
            return None
        return Team(key, t.teams[(platform, space_id, key)], len(_members(t, platform, space_id, key)))

    async def list_teams(self, platform: str, space_id: str) -> list[Team]:
        t = await self._db()
        return [
            Team(k, name, len(_members(t, platform, space_id, k)))
            for (p, s, k), name in sorted(t.teams.items())
            if (p, s) == (platform, space_id)
        ]

    async def team_roster(self, platform: str, space_id: str) -> list[TeamMember]:
        t = await self._db()
        return sorted(
            (
                TeamMember(k, t.teams[(p, s, k)], u)
                for (p, s, u), k in t.team_members.items()
                if (p, s) == (platform, space_id)
            ),
            key=lambda m: (m.key, m.user_id),
        )

    async def member_points(self, platform: str, space_id: str, period: Period, period_key: str) -> dict[str, int]:
        t = await self._db()
        board = t.scores.get((platform, space_id, period, period_key), {})
        return {u: board[u][0] for (p, s, u) in t.team_members if (p, s) == (platform, space_id) and u in board}

    async def claim_season_team(
        self, platform: str, space_id: str, season: str, team: TeamTotal | None, now: dt.datetime
    ) -> TeamTotal | None:
        t = await self._db()
        utc(now)
        key = (platform, space_id, season)
        if key not in t.season_teams:
            t.season_teams[key] = None if team is None else TeamTotal(1, team.name, team.points, team.members)
        return t.season_teams[key]
