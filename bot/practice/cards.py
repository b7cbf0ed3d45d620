"""Practice and review cards."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from bot.kernel.topics import TOPICS


@dataclass(frozen=True)
class ReviewEmpty:
    """A review found nothing to ask: the text says when the next review is due."""

    text: str


def review_title(position: int, total: int, topic: str, *, unseen: bool = False) -> str:
    """`unseen`: nothing was due, so the review brings questions of the learner's weak topics not seen yet."""
    return f"Review {position}/{total}{' (new to you)' if unseen else ''}: {TOPICS.get(topic, topic)}"


def review_score_text(right: int, total: int) -> str:
    return f"Review done: {right} of {total} right."


def nothing_to_review_text(next_due: dt.datetime | None, tz: str) -> str:
    """A review with nothing due and nothing new in the weakest topic: when the next review comes."""
    if next_due is None:
        return "Nothing to review yet: your misses come back here once you have answered a few questions."
    when = next_due.astimezone(ZoneInfo(tz))
    return f"Nothing to review right now. Your next review is due {when:%a %d %b %H:%M} ({tz})."


@dataclass(frozen=True)
class ReviewNote:
    """The private reply to `/quiz review limit|pause|resume` (Discord `/review limit:|pause:|resume:`)."""

    text: str


def _reviews(count: int) -> str:
    return f"{count} review{'s' if count != 1 else ''}"


def limit_text(limit: int, today: int, waiting: int, review_command: str) -> str:
    later = " (the rest wait for the coming days, the most at risk first)" if waiting else ""
    return (
        f"Reviews: at most {limit} a day from now on. Today: {_reviews(today)} to go{later}; "
        f"start with {review_command}."
    )


def limit_reached_text(limit: int, limit_command: str) -> str:
    """Today's limit is used up and due cards wait (how many is not the point: never the whole debt)."""
    return (
        f"That was today's {_reviews(limit)}: the others wait for the coming days, the most at risk first. "
        f"{limit_command} changes how many a day (1-100)."
    )


def paused_text(until: dt.datetime, tz: str, resume_command: str) -> str:
    when = until.astimezone(ZoneInfo(tz))
    return (
        f"Your reviews are paused until {when:%a %d %b %H:%M} ({tz}): no reviews and no reminders until then. "
        f"When the pause ends, your due dates move by the days it lasted, so nothing piles up. "
        f"{resume_command} ends it sooner."
    )


def resumed_text(days: int, today: int) -> str:
    moved = f"your due dates moved by {days} day{'s' if days != 1 else ''}" if days else "no due date moved"
    return f"Reviews resumed: {moved}. Today: {_reviews(today)}."
