"""Backlog-safe reviews, the pure rules: which cards are due and in what order (the most at risk first), a
day's share within the learner's limit, a vacation hold's moves of due dates, and a catch-up spread over
the next days after a gap. Dates are the space's local days (DST-correct: a move keeps the wall time)."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from bot.kernel.timing import resolve_local
from bot.practice.memory import LearnerCard, retrievability
from bot.practice.values import GAP_DAYS, CardMove

SPREAD_DAYS_MAX = 366  # a catch-up is never spread further (what is left goes to the last day)


def at_risk_order(cards: Iterable[LearnerCard], at: dt.datetime) -> list[LearnerCard]:
    """Confident misses first, then the lowest predicted recall, then the most overdue."""
    return sorted(cards, key=lambda c: (not c.confident_miss, retrievability(c, at), c.due, c.key.question_id))


def due_cards(cards: Iterable[LearnerCard], at: dt.datetime, retention: float | None = None) -> list[LearnerCard]:
    """The cards due at `at`, the most at risk first. With a plan's `retention` (above the scheduler's 0.9),
    a card whose predicted recall fell to it is due too: a higher desired retention, shorter intervals."""
    due = [c for c in cards if c.due <= at or (retention is not None and retrievability(c, at) <= retention)]
    return at_risk_order(due, at)


@dataclass(frozen=True)
class Share:
    """A day's share of reviews: the due cards offered now, in order, and how many wait for later days."""

    offer: tuple[LearnerCard, ...]
    waiting: int  # due but beyond today's limit


def todays_share(due: Sequence[LearnerCard], served: Collection[str], limit: int) -> Share:
    """Of the due cards (most at risk first): those served today and still due (asked, not answered yet:
    they use no more of the limit), and others up to what is left of the limit."""
    room = max(0, limit - len(served))
    fresh = [c for c in due if c.key.question_id not in served]
    taken = {c.key.question_id for c in fresh[:room]}
    offer = tuple(c for c in due if c.key.question_id in served or c.key.question_id in taken)
    return Share(offer, len(fresh) - len(taken))


def shift_local(moment: dt.datetime, days: int, tz: str) -> dt.datetime:
    """`moment` moved by whole local days in `tz`, at the same wall time (a gap moves to its end)."""
    zone = ZoneInfo(tz)
    local = moment.astimezone(zone)
    return resolve_local(local.date() + dt.timedelta(days=days), local.time(), zone)


def paused_days(paused_at: dt.datetime, ended: dt.datetime, tz: str) -> int:
    """The local days a hold lasted (a hold ended on the day it began moves nothing)."""
    zone = ZoneInfo(tz)
    return max(0, (ended.astimezone(zone).date() - paused_at.astimezone(zone).date()).days)


def pause_moves(cards: Iterable[LearnerCard], paused_at: dt.datetime, days: int, tz: str) -> list[CardMove]:
    """Every card's due date moved by the paused days; a card reviewed during the hold (a daily answer) was
    scheduled afresh and keeps its date."""
    if days <= 0:
        return []
    return [
        CardMove(c.key.question_id, c.due, shift_local(c.due, days, tz))
        for c in cards
        if c.last_review is None or c.last_review < paused_at
    ]


def had_gap(last_answer: dt.datetime | None, at: dt.datetime) -> bool:
    """GAP_DAYS or more without an answer."""
    return last_answer is not None and at - last_answer >= dt.timedelta(days=GAP_DAYS)


def spread_moves(
    overdue: Sequence[LearnerCard],
    later: Iterable[LearnerCard],
    room_today: int,
    limit: int,
    at: dt.datetime,
    tz: str,
) -> list[CardMove]:
    """After a gap: of the overdue cards (most at risk first), today keeps what the limit leaves room for;
    the rest fall due at the start of the next local days, each day filled up to the limit with the cards
    already due then (`later`) counted."""
    rest = list(overdue[max(0, room_today) :])
    if not rest:
        return []
    zone = ZoneInfo(tz)
    today = at.astimezone(zone).date()
    already = Counter(c.due.astimezone(zone).date() for c in later)
    moves: list[CardMove] = []
    day = today
    for _ in range(SPREAD_DAYS_MAX):
        day += dt.timedelta(days=1)
        room = limit - already[day]
        if room <= 0:
            continue
        start = resolve_local(day, dt.time(0, 0), zone)
        taken, rest = rest[:room], rest[room:]
        moves += [CardMove(c.key.question_id, c.due, start) for c in taken]
        if not rest:
            return moves
    start = resolve_local(day, dt.time(0, 0), zone)
    return moves + [CardMove(c.key.question_id, c.due, start) for c in rest]
