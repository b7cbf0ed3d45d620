"""The weekly recap's values and card."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from bot.kernel.values import TopicStats


@dataclass(frozen=True)
class RecapRound:
    """One revealed daily round of the recap's week, with how it was answered (a store aggregate)."""

    round_id: int
    local_date: dt.date
    question_id: str
    topic: str
    answered: int
    correct: int


@dataclass(frozen=True)
class RecapScorer:
    """A member's week: points from revealed daily rounds, and when they reached that total."""

    user_id: str
    points: int
    correct: int
    answered: int
    reached_at: dt.datetime  # the answer that brought the last points (ties: who got there first)


@dataclass(frozen=True)
class RecapDay:
    day: dt.date
    answered: int
    correct: int


@dataclass(frozen=True)
class HardestQuestion:
    question_id: str
    prompt: str
    correct_letter: str
    local_date: dt.date
    answered: int
    correct: int
    topic: str = ""
    code: str | None = None

    @property
    def accuracy(self) -> float:
        return self.correct / self.answered if self.answered else 0.0


@dataclass(frozen=True)
class RecalledMisses:
    """Space-wide: daily questions members missed, how many came back 7 or more local days after the miss, and how
    many of those were answered right that first time back (bot.practice.progress.count_misses)."""

    missed: int
    came_back: int
    right: int


@dataclass(frozen=True)
class RecapCard:
    """The past week of a channel (or a whole space): what the chart draws and its alt text says."""

    title: str
    start: dt.date  # first local date covered
    end: dt.date  # last local date covered
    days: tuple[RecapDay, ...]
    topics: tuple[TopicStats, ...]  # weakest first
    top: tuple[RecapScorer, ...]  # at most five, best first
    hardest: HardestQuestion | None
    names: tuple[tuple[str, str], ...] = ()  # user id -> display name (filled in by the platform)
    recalled: RecalledMisses | None = None  # the space's once-missed questions recalled a week or more later

    @property
    def answered(self) -> int:
        return sum(d.answered for d in self.days)

    @property
    def correct(self) -> int:
        return sum(d.correct for d in self.days)

    @property
    def empty(self) -> bool:
        return self.answered == 0

    def name(self, user_id: str) -> str:
        return dict(self.names).get(user_id, user_id)
