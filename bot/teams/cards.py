"""The team board and the team list as plain text (adapters escape it; team names hold no markup anyway)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.kernel.values import Period
from bot.teams.values import BEST_OF, Team, TeamTotal

LISTED = 50  # teams a list shows (the rest are counted)


def members_text(n: int) -> str:
    return f"{n} member{'' if n == 1 else 's'}"


def total_line(t: TeamTotal) -> str:
    """One team on a board, e.g. `2. Green Tea: 42 pts (best 3 of 10 members)`."""
    return f"{t.rank}. {t.name}: {t.points} pts (best {t.counted} of {members_text(t.members)})"


@dataclass(frozen=True)
class TeamBoardCard:
    """The team board of a period: the top teams by the sum of their best three members' points, with their
    member counts, and the asker's team."""

    title: str
    period: Period
    period_label: str
    rows: tuple[TeamTotal, ...]
    mine: TeamTotal | None = None  # the asker's team (None: not in one, or a public board)
    public: bool = False  # to be posted in the channel
    empty: str = ""  # what the board says when the space has no teams

    @property
    def note(self) -> str:
        return f"A team scores the daily points of its best {BEST_OF} members, so size alone does not win."

    @property
    def lines(self) -> tuple[str, ...]:
        if not self.rows:
            return (self.empty,)
        out = [total_line(t) for t in self.rows]
        if self.mine is not None and all(t.key != self.mine.key for t in self.rows):
            out.append(f"Your team: {total_line(self.mine)}")
        return tuple(out)

    @property
    def text(self) -> str:
        return "\n".join([self.title, *self.lines, self.note])


def list_text(teams: list[Team], mine: Team | None, hint: str) -> str:
    """`/quiz team list`: the space's teams with their member counts, and the asker's."""
    if not teams:
        return f"No teams here yet. {hint}"
    lines = [f"Teams here ({len(teams)}):"]
    lines += [f"- {t.name}: {members_text(t.members)}" for t in teams[:LISTED]]
    if len(teams) > LISTED:
        lines.append(f"... and {len(teams) - LISTED} more")
    lines.append(f"You are in {mine.name}." if mine is not None else hint)
    return "\n".join(lines)
