"""Archived monthly seasons and the marks of their cards (bot.seasons.store.SeasonStore). An archive
reads the month's board (MemoryBoards) of the store it is mixed into."""

from __future__ import annotations

import datetime as dt

from bot.kernel.values import ChannelRef, Period, RoundKind
from bot.seasons.values import SeasonArchive
from bot.store.rows import month_span, season_places
from tests.support.memory.tables import MemoryTables, add_once, in_space, utc


class MemorySeasons(MemoryTables):
    """A season is archived once; later calls return what the first one stored."""

    async def archive_season(self, platform: str, space_id: str, season: str, now: dt.datetime) -> SeasonArchive | None:
        t = await self._db()
        key = (platform, space_id, season)
        if key in t.seasons:
            return t.seasons[key]
        first, after = month_span(season)
        for r in t.rounds.values():
            if (
                in_space(r, platform, space_id)
                and r.kind is RoundKind.DAILY
                and r.revealed_at is None
                and r.local_date is not None
                and first <= r.local_date < after
            ):
                return None
        board = await self.leaderboard(platform, space_id, Period.MONTH, season, -1)
        places = season_places((r.user_id, r.points, r.correct, r.answered) for r in board if r.points > 0)
        if key in t.seasons:  # another call archived it while the board was read
            return t.seasons[key]
        t.seasons[key] = SeasonArchive(platform, space_id, season, places, utc(now))
        return t.seasons[key]

    async def season_archive(self, platform: str, space_id: str, season: str) -> SeasonArchive | None:
        return (await self._db()).seasons.get((platform, space_id, season))

    async def champion_before(self, platform: str, space_id: str, season: str) -> str | None:
        t = await self._db()
        earlier = sorted(
            (a for (p, sp, key), a in t.seasons.items() if p == platform and sp == space_id and key < season),
            key=lambda a: a.season,
        )
        champions = [a.champion for a in earlier if a.champion]
        return champions[-1] if champions else None

    async def mark_season_post(self, ref: ChannelRef, season: str, now: dt.datetime) -> bool:
        t = await self._db()
        utc(now)
        return add_once(t.season_posts, (ref.platform, ref.channel_id, season))

    async def unmark_season_post(self, ref: ChannelRef, season: str) -> None:
        (await self._db()).season_posts.discard((ref.platform, ref.channel_id, season))
