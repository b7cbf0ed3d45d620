"""Teams: members create, join and leave named teams of their space (one team each); admins rename or remove
them; the team board ranks teams by the sum of their best three members' daily points in a period (with
their member counts), so a big team does not win by size. Live games add team totals to their final table
through `totals`, and the monthly season card names the team of the month through `team_of_month`."""

from __future__ import annotations

import logging
from collections.abc import Mapping

from bot.kernel.context import Context
from bot.kernel.echo import echo
from bot.kernel.errors import NotAllowed
from bot.kernel.scoring import period_keys
from bot.kernel.values import Actor, ChannelRef, Period
from bot.teams.cards import TeamBoardCard, list_text
from bot.teams.store import TeamServiceStore
from bot.teams.values import Team, TeamOutcome, TeamRefused, TeamTotal, TeamWrite, team_key, team_name, team_totals

log = logging.getLogger(__name__)

BOARD_SIZE = 10
ADMINS_ONLY = "Only members who can manage this server or workspace (or the quiz's manager role) can {what} a team."


class Teams:
    """A space's teams: membership, admins' renames and removals, and the team board."""

    def __init__(self, ctx: Context, store: TeamServiceStore) -> None:
        self.ctx = ctx
        self.store = store

    def _command(self, platform: str, action: str, name: str = "") -> str:
        names = self.ctx.commands_of(platform)
        return names.team_named.format(action=action, name=name) if name else names.team.format(action=action)

    def _in_team(self, platform: str, write: TeamWrite) -> TeamRefused:
        leave = self._command(platform, "leave")
        return TeamRefused(f"You are in team {write.name} already: one team per member here ({leave} first).")

    async def create(self, ref: ChannelRef, user_id: str, name: str) -> str:
        """Create a team of the space and put its creator in it."""
        name = team_name(name)
        write = await self.store.create_team(
            ref.platform, ref.space_id, team_key(name), name, user_id, self.ctx.clock.now()
        )
        if write.outcome is TeamOutcome.NAME_TAKEN:
            join = self._command(ref.platform, "join", str(write.name))
            raise TeamRefused(
                f"There is a team called {write.name} here already: join it ({join}) or pick another name."
            )
        if write.outcome is TeamOutcome.IN_TEAM:
            raise self._in_team(ref.platform, write)
        log.info("team created in %s/%s", ref.platform, ref.space_id)
        join = self._command(ref.platform, "join", name)
        return f"Team {name} is created, and you are in it. Others join with {join}."

    async def join(self, ref: ChannelRef, user_id: str, name: str) -> str:
        name = team_name(name)
        write = await self.store.join_team(ref.platform, ref.space_id, team_key(name), user_id, self.ctx.clock.now())
        if write.outcome is TeamOutcome.NO_TEAM:
            listing = self._command(ref.platform, "list")
            raise TeamRefused(f"There is no team called {echo(name, 40)} here: {listing} shows them.")
        if write.outcome is TeamOutcome.IN_TEAM:
            if write.name is not None and team_key(write.name) == team_key(name):
                raise TeamRefused(f"You are in team {write.name} already.")
            raise self._in_team(ref.platform, write)
        return f"You joined team {write.name}. Your daily points count toward it (its best three members' do)."

    async def leave(self, ref: ChannelRef, user_id: str) -> str:
        write = await self.store.leave_team(ref.platform, ref.space_id, user_id)
        if write.outcome is TeamOutcome.NOT_IN_TEAM:
            raise TeamRefused("You are not in a team here.")
        gone = " You were its last member, so the team is gone." if write.emptied else ""
        return f"You left team {write.name}.{gone}"

    async def list_teams(self, ref: ChannelRef, user_id: str) -> str:
        """The space's teams with their member counts, and the asker's team."""
        teams = await self.store.list_teams(ref.platform, ref.space_id)
        mine = await self.store.team_of(ref.platform, ref.space_id, user_id)
        hint = f"Create one with {self._command(ref.platform, 'create', 'NAME')}."
        if teams:
            hint = f"Join one with {self._command(ref.platform, 'join', 'NAME')}, or create one."
        return list_text(teams, mine, hint)

    async def roster(self, platform: str, space_id: str, user_id: str) -> tuple[list[Team], Team | None]:
        """The space's teams (with their member counts) and the member's own: what the dashboard's team forms
        offer."""
        return await self.store.list_teams(platform, space_id), await self.store.team_of(platform, space_id, user_id)

    def _admin(self, actor: Actor, what: str) -> None:
        if not actor.is_admin:
            raise NotAllowed(ADMINS_ONLY.format(what=what))

    async def rename(self, actor: Actor, ref: ChannelRef, name: str, new_name: str) -> str:
        """An admin renames a team (its members stay in it)."""
        self._admin(actor, "rename")
        name, new_name = team_name(name), team_name(new_name)
        write = await self.store.rename_team(ref.platform, ref.space_id, team_key(name), team_key(new_name), new_name)
        if write.outcome is TeamOutcome.NO_TEAM:
            raise TeamRefused(f"There is no team called {echo(name, 40)} here.")
        if write.outcome is TeamOutcome.NAME_TAKEN:
            raise TeamRefused(f"There is a team called {write.name} here already: pick another name.")
        log.info("team renamed in %s/%s by %s", ref.platform, ref.space_id, actor.user_id)
        return f"Team {write.name} is now called {new_name}."

    async def remove(self, actor: Actor, ref: ChannelRef, name: str) -> str:
        """An admin removes a team; its members are in no team after it (their own points stay)."""
        self._admin(actor, "remove")
        name = team_name(name)
        write = await self.store.remove_team(ref.platform, ref.space_id, team_key(name))
        if write.outcome is TeamOutcome.NO_TEAM:
            raise TeamRefused(f"There is no team called {echo(name, 40)} here.")
        log.info("team removed in %s/%s by %s", ref.platform, ref.space_id, actor.user_id)
        return f"Team {write.name} is removed; its members are in no team now (their own points stay)."

    async def totals(self, platform: str, space_id: str, points: Mapping[str, int]) -> list[TeamTotal]:
        """Each team of the space with the sum of its best three members' `points` (user id -> points; a
        member missing from it has 0) and its member count, best first: a live game's final table."""
        return team_totals(await self.store.team_roster(platform, space_id), points)

    async def team_lines(self, platform: str, space_id: str, points: Mapping[str, int]) -> tuple[str, ...]:
        """A live game's team totals under its final table: one line per team with a player in the game (the
        sum of its best three players' points and its member count), best first; () without teams."""
        roster = await self.store.team_roster(platform, space_id)
        played = {m.key for m in roster if m.user_id in points}
        playing = team_totals(roster, points)
        return tuple(
            f"{t.rank}. {t.name}: {t.points} points ({t.members} member{'' if t.members == 1 else 's'})"
            for t in playing
            if t.key in played
        )

    async def standings(self, platform: str, space_id: str, period: Period, period_key: str) -> list[TeamTotal]:
        """Every team of the space on one board of daily points (a week, a month or all time)."""
        points = await self.store.member_points(platform, space_id, period, period_key)
        return await self.totals(platform, space_id, points)

    async def board(
        self, platform: str, space_id: str, period: Period, asker: str | None = None, *, public: bool = False
    ) -> TeamBoardCard:
        """The top teams of this week, this month or all time (the space's timezone), plus the asker's team."""
        today, _tz = await self.ctx.space_today(platform, space_id)
        key = dict(period_keys(today))[period]
        totals = await self.standings(platform, space_id, period, key)
        mine = None
        if asker is not None and not public:
            team = await self.store.team_of(platform, space_id, asker)
            mine = next((t for t in totals if team is not None and t.key == team.key), None)
        label = {Period.WEEK: f"week {key}", Period.MONTH: f"{today:%B %Y}", Period.ALL: "all time"}[period]
        empty = f"No teams here yet: create one with {self._command(platform, 'create', 'NAME')}."
        return TeamBoardCard(f"Team board: {label}", period, label, tuple(totals[:BOARD_SIZE]), mine, public, empty)

    async def team_of_month(self, platform: str, space_id: str, season: str) -> TeamTotal | None:
        """The season's (a calendar month's) best team by its best three members' points, decided once for the
        space (the first season card to ask stores it); None when no team scored that month."""
        totals = await self.standings(platform, space_id, Period.MONTH, season)
        best = totals[0] if totals and totals[0].points > 0 else None
        return await self.store.claim_season_team(platform, space_id, season, best, self.ctx.clock.now())
