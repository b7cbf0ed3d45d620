"""Pure scoring rules: points for a daily round, streaks on the channel's local days, ranks."""

from __future__ import annotations

import datetime as dt
import functools
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from bot.kernel.values import Answer, Period, Round, StreakState

BASE_POINTS = 10


MAX_STREAK_BONUS = 5


SPEED_BONUSES = (3, 2, 1)  # the first three correct answers, when a channel switches it on


FREEZE_EVERY = 7  # one streak freeze earned per 7 daily dates in a row answered right


FREEZES_MAX = 2  # at most this many held


def streak_before(state: StreakState | None, previous_date: dt.date | None) -> int:
    """The streak a user carries into a round: alive only if their last correct day was the space's
    previous daily date (a missed or wrong day breaks it)."""
    if state is None or state.last_date is None or previous_date is None:
        return 0
    return state.current if state.last_date == previous_date else 0


def streak_bonus(carried: int) -> int:
    """+1 per consecutive correct daily answer carried into this one, at most +5."""
    return min(max(carried, 0), MAX_STREAK_BONUS)


def kept_of(state: StreakState) -> int:
    """The shown streak of a state (a row from before freezes holds only `current`)."""
    return max(state.kept, state.current)


def needs_missed(state: StreakState | None, previous_date: dt.date | None) -> bool:
    """Whether the reveal must count the learner's missed dates: a freeze is held and the previous daily
    date of the space had no right answer of theirs."""
    return (
        state is not None
        and state.freezes > 0
        and state.last_date is not None
        and previous_date is not None
        and state.last_date < previous_date
    )


def carry_kept(state: StreakState | None, previous_date: dt.date | None, missed: int) -> StreakState:
    """The shown streak as it stands before a new right answer: a held freeze bridges each missed daily date
    (`missed`: the space's revealed daily dates after the learner's last right one, before this one; a
    freeze is used on each, oldest first), and with more missed dates than freezes it breaks. Returns
    the state with `kept`, `freezes`, `freezes_used` and `frozen` carried (`current` is left as it was)."""
    if state is None:
        return StreakState(0, 0, None)
    kept = kept_of(state)
    if state.last_date is None or previous_date is None or state.last_date >= previous_date:
        return replace(state, kept=kept)
    missed = max(missed, 1)  # the previous date itself was missed
    used = min(missed, state.freezes)
    if missed <= state.freezes:
        return replace(
            state,
            kept=kept,
            freezes=state.freezes - used,
            freezes_used=state.freezes_used + used,
            frozen=state.frozen + used,
        )
    return replace(state, kept=0, freezes=0, freezes_used=state.freezes_used + used, frozen=0)


def next_state(
    state: StreakState | None, day: dt.date, carried: int, previous_date: dt.date | None, missed: int
) -> StreakState:
    """A learner's streak after a right answer on `day` (the first of that day): the scored streak grows from
    `carried`, the shown one from what carry_kept leaves; every 7th day of the shown streak earns a freeze
    (at most FREEZES_MAX held)."""
    before = carry_kept(state, previous_date, missed)
    kept = before.kept + 1
    freezes = before.freezes + (1 if kept % FREEZE_EVERY == 0 and before.freezes < FREEZES_MAX else 0)
    best = max(carried + 1, kept, state.best if state else 0)
    return StreakState(carried + 1, best, day, kept, freezes, before.freezes_used, before.frozen)


def score_daily_round(data: RevealInput) -> RevealResult:
    """Points and new streak states for every answer of one daily round. Points come from the scored streak
    alone: freezes never add any."""
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
            missed = data.missed.get(answer.user_id, FREEZES_MAX + 1)
            new_state = next_state(state, day, carried, data.previous_date, missed)
        points[answer.user_id] = BASE_POINTS + streak_bonus(carried) + speed.get(answer.user_id, 0)
        streaks[answer.user_id] = new_state
    return RevealResult(points, streaks)


@dataclass(frozen=True)
class ShownStreak:
    """The streak /stats shows: days, freezes held and used in all, and whether it never used one."""

    days: int
    best: int
    freezes: int
    freezes_used: int
    frozen: int  # freezes used within this streak (0: it never used one)


def shown_streak(state: StreakState | None, latest_revealed: dt.date | None, missed: int) -> ShownStreak:
    """The streak as it stands now: `missed` is the count of the space's revealed daily dates after the
    learner's last right one, up to `latest_revealed` included (freezes bridge them as the next reveal will)."""
    if state is None:
        return ShownStreak(0, 0, 0, 0, 0)
    after = carry_kept(state, latest_revealed, missed)  # as the reveal of the next daily date would carry it
    return ShownStreak(after.kept, max(state.best, kept_of(state)), after.freezes, after.freezes_used, after.frozen)


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
    # per learner holding a freeze whose streak missed the previous date: the space's revealed daily dates
    # after their last right one and before this round's (counted up to FREEZES_MAX + 1; absent: more)
    missed: Mapping[str, int] = field(default_factory=dict)


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


# points to add to one user's total on a board: (user id, points, correct answers, when the user reached the new
# total or None when nothing scored, rounds answered); one round's, or the sum of a reveal batch's rounds
ScoreRow = tuple[str, int, int, dt.datetime | None, int]
# a reveal batch's score rows by board (boards in key order, each user once a board), and its score bucket
# moves by board: (points total, change in users)
BoardRows = Mapping[Board, Sequence[ScoreRow]]
BoardMoves = Mapping[Board, Sequence[tuple[int, int]]]
