"""Pure scoring rules: points for a daily round, streaks on the channel's local days, ranks."""

from __future__ import annotations

import datetime as dt
import functools
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from bot.kernel.values import Answer, Period, Round, StreakState

BASE_POINTS = 10


MAX_STREAK_BONUS = 5


SPEED_BONUSES = (3, 2, 1)  # the first three correct answers, when a channel switches it on


def streak_before(state: StreakState | None, previous_date: dt.date | None) -> int:
    """The streak a user carries into a round: alive only if their last correct day was the space's
    previous daily date (a missed or wrong day breaks it)."""
    if state is None or state.last_date is None or previous_date is None:
        return 0
    return state.current if state.last_date == previous_date else 0


def streak_bonus(carried: int) -> int:
    """+1 per consecutive correct daily answer carried into this one, at most +5."""
    return min(max(carried, 0), MAX_STREAK_BONUS)


def score_daily_round(data: RevealInput) -> RevealResult:
    """Points and new streak states for every answer of one daily round."""
    day = data.round.local_date
    assert day is not None, "daily rounds have a local date"
    points: dict[str, int] = {}
    streaks: dict[str, StreakState] = {}
    correct_in_order = sorted((a for a in data.answers if a.correct), key=lambda a: (a.answered_at, a.user_id))
    speed = {a.user_id: b for a, b in zip(correct_in_order, SPEED_BONUSES, strict=False)} if data.speed_bonus else {}
    for answer in data.answers:
        state = data.streaks.get(answer.user_id)
        if not answer.correct:
            points[answer.user_id] = 0
            continue
        if state is not None and state.last_date == day:
            # a second channel of the space on the same local day: that day already counted
            carried, new_state = state.current - 1, state
        else:
            carried = streak_before(state, data.previous_date)
            new_state = StreakState(carried + 1, max(carried + 1, state.best if state else 0), day)
        points[answer.user_id] = BASE_POINTS + streak_bonus(carried) + speed.get(answer.user_id, 0)
        streaks[answer.user_id] = new_state
    return RevealResult(points, streaks)


def current_streak(state: StreakState | None, latest_revealed: dt.date | None) -> int:
    """The streak shown in stats: alive if the last correct day is the latest revealed daily date."""
    if state is None or state.last_date is None:
        return 0
    if latest_revealed is None or state.last_date >= latest_revealed:
        return state.current
    return 0


@functools.lru_cache(maxsize=64)
def period_keys(local_date: dt.date) -> tuple[tuple[Period, str], ...]:
    """The leaderboard buckets a daily round's local date falls in (kept for the last dates asked: every
    reveal of a day asks for the same)."""
    iso = local_date.isocalendar()
    return (Period.WEEK, f"{iso.year}-W{iso.week:02d}"), (Period.MONTH, f"{local_date:%Y-%m}"), (Period.ALL, "all")


def bucket_moves(old: Mapping[str, int], points: Mapping[str, int]) -> list[tuple[int, int]]:
    """How the score buckets (users per points total) of one board change when `points` are added to the
    users' `old` totals (a user missing from `old` is new to the board): (points total, change in users)
    pairs, lowest total first, no zero changes."""
    delta: Counter[int] = Counter()
    for uid, p in points.items():
        if uid in old:
            delta[old[uid]] -= 1
            delta[old[uid] + p] += 1
        else:
            delta[p] += 1
    return sorted((pts, n) for pts, n in delta.items() if n)


def ranked(rows: Iterable[Iterable[Any]]) -> list[LeaderboardRow]:
    """Leaderboard rows from (user, points, correct, answered) ordered by points, highest first: standard
    competition ranking (ties share a rank, the next rank skips them)."""
    out: list[LeaderboardRow] = []
    for i, (uid, pts, corr, ans) in enumerate(rows):
        rank = out[-1].rank if out and out[-1].points == pts else i + 1
        out.append(LeaderboardRow(rank, uid, int(pts), int(corr), int(ans)))
    return out


@dataclass(frozen=True)
class RevealInput:
    """What scoring needs to settle a daily round (read inside the reveal transaction)."""

    round: Round
    answers: tuple[Answer, ...]
    previous_date: dt.date | None  # the space's last revealed daily date before this round's date
    streaks: dict[str, StreakState]
    speed_bonus: bool


@dataclass(frozen=True)
class RevealResult:
    points: dict[str, int]  # user -> points for this round
    streaks: dict[str, StreakState]  # new states for users whose streak changed


Scorer = Callable[[RevealInput], RevealResult]


@dataclass(frozen=True)
class LeaderboardRow:
    rank: int
    user_id: str
    points: int
    correct: int
    answered: int


class Board(NamedTuple):
    """One leaderboard: a space's scores for one period (a week, a month or all time)."""

    platform: str
    space_id: str
    period: Period
    period_key: str


# a round's points for one user on a board: (user id, points, correct as 0 or 1, when the user reached the new
# total, or None when the round scored nothing for them)
ScoreRow = tuple[str, int, int, dt.datetime | None]
