"""Monthly seasons: an archived season and its card."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from bot.kernel.scoring import LeaderboardRow


@dataclass(frozen=True)
class SeasonArchive:
    """A space's archived season (a calendar month, id YYYY-MM): its top three, best first (rank = place;
    ties go to who reached the score first), empty when no one scored that month."""

    platform: str
    space_id: str
    season: str
    rows: tuple[LeaderboardRow, ...]
    archived_at: dt.datetime

    @property
    def champion(self) -> str | None:
        return self.rows[0].user_id if self.rows else None


@dataclass(frozen=True)
class SeasonTeam:
    """The team of the month on the season card: the sum of its best three members' points that month."""

    name: str
    points: int
    members: int


@dataclass(frozen=True)
class SeasonCard:
    """The season card posted on the 1st: last month's top three, with display names when known."""

    season: str
    label: str  # e.g. "November 2026"
    rows: tuple[LeaderboardRow, ...]
    names: tuple[tuple[str, str], ...] = ()
    champion_role: str | None = None  # the Discord role the champion gets, when the channel has one
    team: SeasonTeam | None = None  # the team of the month, when the space has teams and one scored

    def name(self, user_id: str) -> str:
        return dict(self.names).get(user_id, user_id)
