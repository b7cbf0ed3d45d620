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


def review_title(position: int, total: int, topic: str) -> str:
    return f"Review {position}/{total}: {TOPICS.get(topic, topic)}"


def review_score_text(right: int, total: int) -> str:
    return f"Review done: {right} of {total} right."


def nothing_to_review_text(next_due: dt.datetime | None, tz: str) -> str:
    """A review with nothing due and nothing new in the weakest topic: when the next review comes."""
    if next_due is None:
        return "Nothing to review yet: your misses come back here once you have answered a few questions."
    when = next_due.astimezone(ZoneInfo(tz))
    return f"Nothing to review right now. Your next review is due {when:%a %d %b %H:%M} ({tz})."
