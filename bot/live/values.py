"""A live game's values and its pure rules: the step a game is at, its players' standings, and the scoring
(500 points for a right answer, plus up to 500 for speed, linear over the question's open time)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from bot.kernel.errors import QuizError
from bot.kernel.values import ChannelRef

QUESTIONS_MIN, QUESTIONS_MAX, QUESTIONS_DEFAULT = 3, 30, 10
SECONDS_MIN, SECONDS_MAX, SECONDS_DEFAULT = 10, 120, 20
RIGHT_POINTS = 500  # a right answer
SPEED_POINTS = 500  # at most, for a right answer given the moment the question opened
UNSEEN_DAYS = 30  # questions the space has not seen for this long come first


class GameRunning(QuizError):
    """A live game already runs in that channel (one at a time)."""


class LiveStep(StrEnum):
    """What a game does next: post question `position`, close it, post the podium, or nothing (done)."""

    POST = "post"
    CLOSE = "close"
    END = "end"
    DONE = "done"


@dataclass(frozen=True)
class NewLiveGame:
    """A game about to be stored (its first question is due at `started_at`)."""

    ref: ChannelRef
    starter_id: str
    total: int
    seconds: int
    topic: str | None
    started_at: dt.datetime


@dataclass(frozen=True)
class LiveGame:
    """A stored game and the step it is at (`due_at`: when that step is due; None once done)."""

    id: int
    ref: ChannelRef
    starter_id: str
    total: int
    seconds: int
    topic: str | None
    started_at: dt.datetime
    step: LiveStep
    position: int
    due_at: dt.datetime | None
    attempts: int = 0
    stopped_by: str | None = None
    ended_at: dt.datetime | None = None

    @property
    def running(self) -> bool:
        return self.step is not LiveStep.DONE


@dataclass(frozen=True)
class LiveQuestion:
    """One question of a game: the round it was asked in, and whether its answers' points are written."""

    game_id: int
    position: int
    round_id: int
    question_id: str
    scored: bool = False


@dataclass(frozen=True)
class Standing:
    """One player's total in a game (or on the space's live board: `games` played and `wins`)."""

    user_id: str
    points: int
    right: int = 0
    answered: int = 0
    games: int = 0
    wins: int = 0


@dataclass(frozen=True)
class Placed:
    """A standing with its place (ties share one)."""

    rank: int
    standing: Standing


def live_points(opened_at: dt.datetime, closes_at: dt.datetime, answered_at: dt.datetime, correct: bool) -> int:
    """A right answer scores RIGHT_POINTS plus SPEED_POINTS times the share of the open time left when it came
    (so the sooner, the more); a wrong one scores 0."""
    if not correct:
        return 0
    window = (closes_at - opened_at).total_seconds()
    left = (closes_at - answered_at).total_seconds()
    share = min(1.0, max(0.0, left / window)) if window > 0 else 0.0
    return RIGHT_POINTS + round(SPEED_POINTS * share)


def order(standings: Iterable[Standing]) -> list[Standing]:
    """Most points first; then most right answers (on the board: most wins), then the user id."""
    return sorted(standings, key=lambda s: (-s.points, -s.right, -s.wins, s.user_id))


def placed(standings: Iterable[Standing]) -> list[Placed]:
    """The standings in order with their places: equal points share a place (1, 2, 2, 4)."""
    out: list[Placed] = []
    for i, s in enumerate(order(standings)):
        rank = out[-1].rank if out and out[-1].standing.points == s.points else i + 1
        out.append(Placed(rank, s))
    return out


def winners(standings: Sequence[Standing]) -> frozenset[str]:
    """Who won a game: every player with the most points, if anyone scored."""
    best = max((s.points for s in standings), default=0)
    return frozenset(s.user_id for s in standings if best > 0 and s.points == best)
