"""Seasons in SQL written once for both engines."""

from __future__ import annotations

import datetime as dt

from bot.kernel.values import (
    ChannelRef,
)
from bot.seasons.values import SeasonArchive
from bot.store.base import SqlBase, _Rollback
from bot.store.rows import (
    SEASON_CHAMPION_SQL,
    SEASON_HEADER_SQL,
    SEASON_INSERT_SQL,
    SEASON_OPEN_SQL,
    SEASON_PLACE_INSERT_SQL,
    SEASON_PLACES_SQL,
    SEASON_TOP_SQL,
    from_ts,
    month_span,
    season_from_rows,
    season_place_rows,
    season_places,
)


class SeasonSql(SqlBase):
    """Monthly seasons: the archive (claimed once) and the marks of posted cards."""

    async def season_archive(self, platform: str, space_id: str, season: str) -> SeasonArchive | None:
        key = (platform, space_id, season)
        header = await self._first(SEASON_HEADER_SQL, key)
        if header is None:
            return None
        rows = await self._read(SEASON_PLACES_SQL, key)  # written with the header, in its transaction
        return season_from_rows(platform, space_id, season, from_ts(header[0]), rows)

    async def champion_before(self, platform: str, space_id: str, season: str) -> str | None:
        row = await self._first(SEASON_CHAMPION_SQL, (platform, space_id, season))
        return None if row is None else str(row[0])

    async def mark_season_post(self, ref: ChannelRef, season: str, now: dt.datetime) -> bool:
        rows = await self._atomic(
            "INSERT INTO season_posts (platform, channel_id, season, posted_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT DO NOTHING RETURNING 1",
            (ref.platform, ref.channel_id, season, self._ts(now)),
        )
        return bool(rows)

    async def unmark_season_post(self, ref: ChannelRef, season: str) -> None:
        await self._atomic(
            "DELETE FROM season_posts WHERE platform = ? AND channel_id = ? AND season = ?",
            (ref.platform, ref.channel_id, season),
        )

    async def archive_season(self, platform: str, space_id: str, season: str, now: dt.datetime) -> SeasonArchive | None:
        """The space's season archived once: the header row is the claim (a second process waits for the
        first one's commit, then reads what it archived). None, with nothing written, while a daily round of
        the month is still open."""
        first, after = month_span(season)
        key = (platform, space_id, season)
        try:
            async with self._write_tx() as tx:
                won = await tx.rows(SEASON_INSERT_SQL + " ON CONFLICT DO NOTHING RETURNING 1", (*key, self._ts(now)))
                if not won:
                    header = await tx.rows(SEASON_HEADER_SQL, key)
                    places = await tx.rows(SEASON_PLACES_SQL, key)
                    return season_from_rows(platform, space_id, season, from_ts(header[0][0]), places)
                if await tx.rows(SEASON_OPEN_SQL, (platform, space_id, self._day(first), self._day(after))):
                    raise _Rollback
                top = season_places(await tx.rows(SEASON_TOP_SQL, key))
                await tx.run_many(SEASON_PLACE_INSERT_SQL, season_place_rows(key, top))
                return SeasonArchive(platform, space_id, season, top, now)
        except _Rollback:
            return None
