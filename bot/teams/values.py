"""Teams and their totals: a team's score on a board is the sum of its best three members' points, so a big
team does not win by size. The rule (`team_totals`) is pure: the daily team board and a live game's final
table both use it."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from bot.kernel.echo import echo, one_line
from bot.kernel.errors import BadSetting, QuizError

BEST_OF = 3  # the members whose points count toward a team's total
NAME_MIN, NAME_MAX = 2, 32
NAME_PUNCTUATION = frozenset(" -'.")  # besides letters and digits; nothing that is markup or a mention


class TeamRefused(QuizError):
    """A team command that cannot be done (the name is taken, no such team, already in one, ...)."""


@dataclass(frozen=True)
class Team:
    """A team of a space: its name as created (or renamed) and how many members it has."""

    key: str  # the name folded: names are unique in a space whatever their case
    name: str
    members: int


@dataclass(frozen=True)
class TeamMember:
    """One member of one team (the store's roster of a space)."""

    key: str
    name: str
    user_id: str


@dataclass(frozen=True)
class TeamTotal:
    """A team on a board: its rank, the sum of its best three members' points and its member count."""

    rank: int
    name: str
    points: int
    members: int
    key: str = ""

    @property
    def counted(self) -> int:
        """How many members' points make the total (at most three)."""
        return min(self.members, BEST_OF)


class TeamOutcome(StrEnum):
    """What a team write did, as the store decided it."""

    DONE = "done"
    NAME_TAKEN = "name_taken"  # another team of the space has that name (whatever its case)
    NO_TEAM = "no_team"  # no team of that name in the space
    IN_TEAM = "in_team"  # the member is in a team already (one team per member per space)
    NOT_IN_TEAM = "not_in_team"


@dataclass(frozen=True)
class TeamWrite:
    """The store's verdict on a team write: the outcome and the team it concerns (for NAME_TAKEN the team
    holding the name, for IN_TEAM the member's team); `emptied`: the last member left, so the team is gone."""

    outcome: TeamOutcome
    name: str | None = None
    emptied: bool = False


def team_key(name: str) -> str:
    """The key a name is unique by in its space: compatibility-normalised and case-folded."""
    return unicodedata.normalize("NFKC", name).casefold()


def team_name(text: str) -> str:
    """A team name as typed, checked: 2-32 characters of letters, digits, spaces and - ' . (no mention, no
    markup, no emoji), inner spaces collapsed. BadSetting says what is accepted."""
    name = one_line(unicodedata.normalize("NFC", text))
    said = echo(name, 40)
    if not name:
        raise BadSetting("Give the team a name: 2 to 32 letters, digits, spaces, - ' or .")
    if any(not (ch.isalnum() or ch in NAME_PUNCTUATION) for ch in name):
        raise BadSetting(
            f"'{said}' cannot be a team name: use letters, digits, spaces, - ' or . only (no mentions, "
            "markup or emoji)."
        )
    if not any(ch.isalnum() for ch in name):
        raise BadSetting(f"'{said}' cannot be a team name: it needs a letter or a digit.")
    if not NAME_MIN <= len(name) <= NAME_MAX:
        raise BadSetting(f"'{said}' cannot be a team name: use {NAME_MIN} to {NAME_MAX} characters.")
    return name


def team_totals(roster: Iterable[TeamMember], points: Mapping[str, int]) -> list[TeamTotal]:
    """Every team of the roster with the sum of its best three members' points (a member without points has
    0) and its member count; the highest total first, then by name (ties share a rank)."""
    teams: dict[str, tuple[str, list[int]]] = {}
    for m in roster:
        teams.setdefault(m.key, (m.name, []))[1].append(int(points.get(m.user_id, 0)))
    scored = sorted(
        ((sum(sorted(p, reverse=True)[:BEST_OF]), name, len(p), key) for key, (name, p) in teams.items()),
        key=lambda t: (-t[0], t[3]),
    )
    out: list[TeamTotal] = []
    for i, (total, name, members, key) in enumerate(scored):
        rank = out[-1].rank if out and out[-1].points == total else i + 1
        out.append(TeamTotal(rank, name, total, members, key))
    return out
