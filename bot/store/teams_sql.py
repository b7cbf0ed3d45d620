"""Teams in SQL written once for both engines. Every write runs under the space's lock (the one a reveal
takes), so a space's team writes happen one at a time on any number of processes; the keys do the rest: a
team's folded name is its key in the space, and a member's row is keyed by the member alone."""

from __future__ import annotations

import datetime as dt
from typing import Any

from bot.kernel.values import ChannelRef, Period
from bot.store.base import SqlBase, SqlTx
from bot.teams.values import Team, TeamMember, TeamOutcome, TeamTotal, TeamWrite

_TEAM = "SELECT name, created_at FROM teams WHERE platform = ? AND space_id = ? AND team_key = ?"
_MEMBERS_TEAM = (
    "SELECT t.name FROM team_members m JOIN teams t ON t.platform = m.platform AND t.space_id = m.space_id "
    "AND t.team_key = m.team_key WHERE m.platform = ? AND m.space_id = ? AND m.user_id = ?"
)
_ADD_MEMBER = (
    "INSERT INTO team_members (platform, space_id, user_id, team_key, joined_at) VALUES (?, ?, ?, ?, ?) "
    "ON CONFLICT DO NOTHING RETURNING 1"
)
_COUNT = (
    "(SELECT COUNT(*) FROM team_members c WHERE c.platform = t.platform AND c.space_id = t.space_id "
    "AND c.team_key = t.team_key)"
)

# what /quiz forget-me deletes of teams (bot.store.learner_sql.FORGET: ?1 platform, ?2 space, ?3 user): the
# learner's membership, and a team they were the last member of
FORGET_TEAMS: tuple[tuple[str, str], ...] = (
    ("teams", "DELETE FROM team_members WHERE platform = ?1 AND space_id = ?2 AND user_id = ?3"),
    (
        "",
        "DELETE FROM teams WHERE platform = ?1 AND space_id = ?2 AND NOT EXISTS (SELECT 1 FROM team_members m "
        "WHERE m.platform = teams.platform AND m.space_id = teams.space_id AND m.team_key = teams.team_key)",
    ),
)


class TeamSql(SqlBase):
    """A space's teams and members, and each season's team of the month."""

    async def _locked(self, tx: SqlTx, platform: str, space_id: str) -> None:
        await tx.lock_space(ChannelRef(platform, space_id, ""))

    async def _members_team(self, tx: SqlTx, platform: str, space_id: str, user_id: str) -> str | None:
        rows = await tx.rows(_MEMBERS_TEAM, (platform, space_id, user_id))
        return str(rows[0][0]) if rows else None

    async def create_team(
        self, platform: str, space_id: str, key: str, name: str, user_id: str, now: dt.datetime
    ) -> TeamWrite:
        async with self._write_tx() as tx:
            await self._locked(tx, platform, space_id)
            held = await tx.rows(_TEAM, (platform, space_id, key))
            if held:
                return TeamWrite(TeamOutcome.NAME_TAKEN, str(held[0][0]))
            mine = await self._members_team(tx, platform, space_id, user_id)
            if mine is not None:
                return TeamWrite(TeamOutcome.IN_TEAM, mine)
            await tx.run(
                "INSERT INTO teams (platform, space_id, team_key, name, created_at) VALUES (?, ?, ?, ?, ?)",
                (platform, space_id, key, name, self._ts(now)),
            )
            await tx.run(_ADD_MEMBER, (platform, space_id, user_id, key, self._ts(now)))
            return TeamWrite(TeamOutcome.DONE, name)

    async def join_team(self, platform: str, space_id: str, key: str, user_id: str, now: dt.datetime) -> TeamWrite:
        async with self._write_tx() as tx:
            await self._locked(tx, platform, space_id)
            team = await tx.rows(_TEAM, (platform, space_id, key))
            if not team:
                return TeamWrite(TeamOutcome.NO_TEAM)
            if await tx.rows(_ADD_MEMBER, (platform, space_id, user_id, key, self._ts(now))):
                return TeamWrite(TeamOutcome.DONE, str(team[0][0]))
            return TeamWrite(TeamOutcome.IN_TEAM, await self._members_team(tx, platform, space_id, user_id))

    async def leave_team(self, platform: str, space_id: str, user_id: str) -> TeamWrite:
        async with self._write_tx() as tx:
            await self._locked(tx, platform, space_id)
            gone = await tx.rows(
                "DELETE FROM team_members WHERE platform = ? AND space_id = ? AND user_id = ? RETURNING team_key",
                (platform, space_id, user_id),
            )
            if not gone:
                return TeamWrite(TeamOutcome.NOT_IN_TEAM)
            key = gone[0][0]
            team = await tx.rows(_TEAM, (platform, space_id, key))
            left = await tx.rows(
                "SELECT COUNT(*) FROM team_members WHERE platform = ? AND space_id = ? AND team_key = ?",
                (platform, space_id, key),
            )
            emptied = int(left[0][0]) == 0
            if emptied:
                await tx.run(
                    "DELETE FROM teams WHERE platform = ? AND space_id = ? AND team_key = ?", (platform, space_id, key)
                )
            return TeamWrite(TeamOutcome.DONE, str(team[0][0]) if team else None, emptied)

    async def rename_team(self, platform: str, space_id: str, key: str, new_key: str, new_name: str) -> TeamWrite:
        async with self._write_tx() as tx:
            await self._locked(tx, platform, space_id)
            team = await tx.rows(_TEAM, (platform, space_id, key))
            if not team:
                return TeamWrite(TeamOutcome.NO_TEAM)
            old_name, created_at = team[0]
            if new_key != key:
                held = await tx.rows(_TEAM, (platform, space_id, new_key))
                if held:
                    return TeamWrite(TeamOutcome.NAME_TAKEN, str(held[0][0]))
                await tx.run(
                    "INSERT INTO teams (platform, space_id, team_key, name, created_at) VALUES (?, ?, ?, ?, ?)",
                    (platform, space_id, new_key, new_name, created_at),
                )
                await tx.run(
                    "UPDATE team_members SET team_key = ? WHERE platform = ? AND space_id = ? AND team_key = ?",
                    (new_key, platform, space_id, key),
                )
                await tx.run(
                    "DELETE FROM teams WHERE platform = ? AND space_id = ? AND team_key = ?", (platform, space_id, key)
                )
            else:
                await tx.run(
                    "UPDATE teams SET name = ? WHERE platform = ? AND space_id = ? AND team_key = ?",
                    (new_name, platform, space_id, key),
                )
            return TeamWrite(TeamOutcome.DONE, str(old_name))

    async def remove_team(self, platform: str, space_id: str, key: str) -> TeamWrite:
        async with self._write_tx() as tx:
            await self._locked(tx, platform, space_id)
            team = await tx.rows(_TEAM, (platform, space_id, key))
            if not team:
                return TeamWrite(TeamOutcome.NO_TEAM)
            where = " WHERE platform = ? AND space_id = ? AND team_key = ?"
            await tx.run("DELETE FROM team_members" + where, (platform, space_id, key))
            await tx.run("DELETE FROM teams" + where, (platform, space_id, key))
            return TeamWrite(TeamOutcome.DONE, str(team[0][0]))

    async def team_of(self, platform: str, space_id: str, user_id: str) -> Team | None:
        row = await self._first(
            f"SELECT t.team_key, t.name, {_COUNT} FROM team_members m JOIN teams t ON t.platform = m.platform "
            "AND t.space_id = m.space_id AND t.team_key = m.team_key "
            "WHERE m.platform = ? AND m.space_id = ? AND m.user_id = ?",
            (platform, space_id, user_id),
        )
        return Team(str(row[0]), str(row[1]), int(row[2])) if row else None

    async def list_teams(self, platform: str, space_id: str) -> list[Team]:
        rows = await self._read(
            f"SELECT t.team_key, t.name, {_COUNT} FROM teams t WHERE t.platform = ? AND t.space_id = ? "
            f"ORDER BY t.team_key{self.text_order}",
            (platform, space_id),
        )
        return [Team(str(k), str(n), int(c)) for k, n, c in rows]

    async def team_roster(self, platform: str, space_id: str) -> list[TeamMember]:
        rows = await self._read(
            "SELECT m.team_key, t.name, m.user_id FROM team_members m JOIN teams t ON t.platform = m.platform "
            "AND t.space_id = m.space_id AND t.team_key = m.team_key WHERE m.platform = ? AND m.space_id = ? "
            f"ORDER BY m.team_key{self.text_order}, m.user_id{self.text_order}",
            (platform, space_id),
        )
        return [TeamMember(str(k), str(n), str(u)) for k, n, u in rows]

    async def member_points(self, platform: str, space_id: str, period: Period, period_key: str) -> dict[str, int]:
        rows = await self._read(
            "SELECT s.user_id, s.points FROM team_members m JOIN scores s ON s.platform = m.platform "
            "AND s.space_id = m.space_id AND s.user_id = m.user_id "
            "WHERE m.platform = ? AND m.space_id = ? AND s.period = ? AND s.period_key = ?",
            (platform, space_id, period.value, period_key),
        )
        return {str(u): int(p) for u, p in rows}

    async def claim_season_team(
        self, platform: str, space_id: str, season: str, team: TeamTotal | None, now: dt.datetime
    ) -> TeamTotal | None:
        key = (platform, space_id, season)
        rows = await self._atomic_steps(
            [
                (
                    "INSERT INTO season_teams (platform, space_id, season, name, points, members, decided_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                    (
                        *key,
                        None if team is None else team.name,
                        0 if team is None else team.points,
                        0 if team is None else team.members,
                        self._ts(now),
                    ),
                ),
                (
                    "SELECT name, points, members FROM season_teams WHERE platform = ? AND space_id = ? AND season = ?",
                    key,
                ),
            ]
        )
        return season_team(rows[0]) if rows and rows[0][0] is not None else None


def season_team(row: Any) -> TeamTotal:
    return TeamTotal(1, str(row[0]), int(row[1]), int(row[2]))
