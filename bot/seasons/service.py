"""Monthly seasons: on the 1st of each month the space's top three of last month are archived and named.

A season is a calendar month of a space's daily rounds (id YYYY-MM, the month leaderboard's key). Its card
goes out with a channel's first daily post or weekly recap on or after the 1st (local date, at the posting
time), within the month's first SEASON_DAYS days. The store decides everything once: the space's archive
(`archive_season`, the first call wins, deferred while a daily round of that month is still open) and each
channel's card (`mark_season_post`), so any number of processes post it once. A month no one scored in gets
no card (the quiet option). On Discord an optional `champion_role` moves to the new champion.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import replace

from bot.kernel.cards import LeaderboardCard
from bot.kernel.context import Context
from bot.kernel.echo import echo
from bot.kernel.errors import BadSetting, NoSeason
from bot.kernel.parsing import parse_season
from bot.kernel.platform import NamePlatform
from bot.kernel.timing import local_date_of
from bot.kernel.values import ChannelConfig, ChannelRef, Period
from bot.seasons.ports import ChampionPlatform, RoleCheckPlatform, SeasonPlatform, TeamOfMonth
from bot.seasons.store import SeasonServiceStore
from bot.seasons.values import SeasonArchive, SeasonCard, SeasonTeam
from bot.settings import ConfigChange

log = logging.getLogger(__name__)


SEASON_DAYS = 7  # the card goes out with a channel's first post or recap in the month's first week


BOARD_SIZE = 10


PLACES = ("Champion", "2nd", "3rd")


MEDALS = ("🥇", "🥈", "🥉")


DISCORD_ONLY = "champion_role is a Discord setting: {platform} has no roles, so it stays off here."


def previous_season(day: dt.date) -> str:
    """The season (YYYY-MM) of the month before `day`'s."""
    last = day.replace(day=1) - dt.timedelta(days=1)
    return f"{last:%Y-%m}"


def season_label(season: str) -> str:
    """A season's month in words, e.g. November 2026."""
    return f"{dt.date.fromisoformat(season + '-01'):%B %Y}"


def _clip(text: str, limit: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def season_text(card: SeasonCard, board_command: str) -> str:
    """The season card in words: the top three by name (plain text: the adapter escapes it, nobody is
    notified), the team of the month when there is one, and where the archive is. At most about 500
    characters."""
    lines = [f"🏆 Season {card.label} is over. The top three of the month:"]
    for medal, place, row in zip(MEDALS, PLACES, card.rows, strict=False):
        lines.append(
            f"{medal} {place}: {_clip(card.name(row.user_id))}, {row.points} points "
            f"({row.correct} of {row.answered} correct)"
        )
    if card.team is not None:
        team = card.team
        lines.append(
            f"👥 Team of the month: {_clip(team.name)}, {team.points} points "
            f"(its best three of {team.members} member{'' if team.members == 1 else 's'})"
        )
    if card.champion_role and card.rows:
        lines.append("The champion gets the season's champion role.")
    lines.append(f"The season is archived: {board_command.format(season=card.season)}")
    return "\n".join(lines)


class Seasons:
    """The season card from the scheduler's work, the season boards, and the champion_role setting's
    checks."""

    def __init__(self, ctx: Context, store: SeasonServiceStore) -> None:
        self.ctx = ctx
        self.store = store
        self.teams: TeamOfMonth | None = None  # set by the composition root (the teams feature)

    async def after_due(self, cfg: ChannelConfig, due_at: dt.datetime) -> None:
        """After a channel's daily post or recap due at `due_at`: post last month's season card if this is
        the channel's first on or after the 1st (once, whichever process). Never raises."""
        day = local_date_of(cfg, due_at)
        if day.day > SEASON_DAYS or cfg.paused:
            return
        try:
            await self._post(cfg, previous_season(day))
        except Exception:
            log.exception("the season card of %s/%s failed", cfg.ref.platform, cfg.ref.channel_id)

    async def _post(self, cfg: ChannelConfig, season: str) -> None:
        ref = cfg.ref
        platform = self.ctx.platforms.get(ref.platform)
        if not isinstance(platform, SeasonPlatform):
            return
        store, now = self.store, self.ctx.clock.now()
        if not await store.mark_season_post(ref, season, now):
            return  # posted before (this or another process)
        archive = await store.archive_season(ref.platform, ref.space_id, season, now)
        if archive is None:  # a daily round of the month is still open: the next post or recap tries again
            await store.unmark_season_post(ref, season)
            log.info("season %s of %s/%s waits for the month's last reveals", season, ref.platform, ref.space_id)
            return
        if not archive.rows:
            return  # no one scored that month: no card
        role = cfg.champion_role if isinstance(platform, ChampionPlatform) else None
        card = replace(await self.card(ref, archive, role), team=await self._team(ref, season))
        try:
            await platform.post_season(ref, card)
        except Exception as exc:
            await store.unmark_season_post(ref, season)  # tried again with the next post or recap
            log.warning("posting the season card %s in %s failed: %s", season, ref.channel_id, type(exc).__name__)
            return
        log.info("posted the season card %s in %s/%s", season, ref.platform, ref.channel_id)
        if role is not None and archive.champion is not None:
            await self._move_role(ref, role, archive)

    async def _move_role(self, ref: ChannelRef, role: str, archive: SeasonArchive) -> None:
        winner = archive.champion
        assert winner is not None
        previous = await self.store.champion_before(ref.platform, ref.space_id, archive.season)
        platform = self.ctx.platforms.get(ref.platform)
        if not isinstance(platform, ChampionPlatform):
            return
        try:
            await platform.move_champion(ref, role, winner, previous if previous != winner else None)
        except Exception as exc:  # e.g. Manage Roles was taken away since the setting was saved
            log.warning("moving the champion role in %s failed: %s", ref.space_id, type(exc).__name__)

    async def _team(self, ref: ChannelRef, season: str) -> SeasonTeam | None:
        """The team of the month (decided once for the space by the teams feature), or None."""
        if self.teams is None:
            return None
        try:
            team = await self.teams.team_of_month(ref.platform, ref.space_id, season)
        except Exception as exc:  # the card goes out without it
            log.warning("the team of the month of %s failed: %s", ref.space_id, type(exc).__name__)
            return None
        return None if team is None else SeasonTeam(team.name, team.points, team.members)

    async def card(self, ref: ChannelRef, archive: SeasonArchive, role: str | None = None) -> SeasonCard:
        """The season card with the platform's display names when it has them (ids otherwise)."""
        card = SeasonCard(archive.season, season_label(archive.season), archive.rows, champion_role=role)
        platform = self.ctx.platforms.get(ref.platform)
        if not isinstance(platform, NamePlatform):
            return card
        try:
            found = await platform.display_names(ref, [r.user_id for r in archive.rows])
        except Exception as exc:  # names are a nicety: ids are shown instead
            log.info("display names for the season card failed: %s", type(exc).__name__)
            return card
        return replace(card, names=tuple((uid, str(n)) for uid, n in found.items() if n))

    async def board(
        self, platform: str, space_id: str, season_text: str, asker: str | None = None, *, public: bool = False
    ) -> LeaderboardCard:
        """A season's board: the archived top three (its podium) and the whole month's top ten, plus the
        asker's rank. A season not started, still running or without results gets its own reply."""
        season = parse_season(season_text)
        store = self.store
        today, _tz = await self.ctx.space_today(platform, space_id)
        current, label = f"{today:%Y-%m}", season_label(season)
        if season > current:
            raise NoSeason(
                f"The {season} season has not started yet: seasons are calendar months, and this is {current}."
            )
        if season == current:
            raise NoSeason(
                f"The {season} season is still running: it is archived on the 1st of next month. "
                "This month's leaderboard shows it so far."
            )
        archive = await store.season_archive(platform, space_id, season)
        rows, me = await store.board_and_rank(platform, space_id, Period.MONTH, season, BOARD_SIZE, asker)
        if not rows and (archive is None or not archive.rows):
            raise NoSeason(f"No season results for {label} ({season}): no one scored in a daily question that month.")
        if archive is None:
            note = "Not archived yet: the season is archived with the first daily post of the next month."
        else:
            note = f"Archived on {archive.archived_at:%d %B %Y}."
        return LeaderboardCard(
            f"Season {label}",
            Period.MONTH,
            label,
            tuple(rows),
            None if public else me,
            public,
            archive.rows if archive else (),
            note,
        )

    async def check_setting(self, ref: ChannelRef, change: ConfigChange) -> None:
        """champion_role may be set only where there are roles (Discord), and only when the bot can give the
        role there (Manage Roles, a role below its own); `off` is always accepted on Discord."""
        if "champion_role" not in change:
            return
        platform = self.ctx.platforms.get(ref.platform)
        if not isinstance(platform, RoleCheckPlatform):
            raise BadSetting(DISCORD_ONLY.format(platform=echo(ref.platform.capitalize(), 20)))
        role = change.get("champion_role")
        if role is None:
            return
        why = await platform.champion_role_problem(ref, role)
        if why:
            raise BadSetting(why)
