"""Values of backlog-safe reviews and interview-date plans: a learner's review limit and vacation hold, a plan,
a moved due date, and a day's share of reviews."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Literal

from bot.kernel.values import ChannelRef

REVIEW_LIMIT_DEFAULT = 20  # reviews offered a day unless the learner sets another limit


REVIEW_LIMIT_MAX = 100


PAUSE_MAX_DAYS = 60


GAP_DAYS = 7  # this many days without an answer: the overdue cards are spread over the next days


ServedKind = Literal["review", "plan"]  # a due card (counts toward the limit), or a plan's question


@dataclass(frozen=True)
class ReviewPrefs:
    """A learner's review settings in a space: the daily limit and the vacation hold."""

    daily_limit: int | None = None  # None: REVIEW_LIMIT_DEFAULT
    paused_at: dt.datetime | None = None  # UTC; None: not paused
    paused_until: dt.datetime | None = None
    resumed_at: dt.datetime | None = None  # when the last hold ended: a gap is counted from it

    @property
    def limit(self) -> int:
        return self.daily_limit if self.daily_limit is not None else REVIEW_LIMIT_DEFAULT


@dataclass(frozen=True)
class LearnerPlan:
    """An interview-date plan: until `plan_date` (the space's local date) the questions of `topics` (empty:
    every topic) of the channel it was made in are brought in at least twice; it ends by itself after."""

    platform: str
    space_id: str
    user_id: str
    channel_id: str
    plan_date: dt.date
    topics: tuple[str, ...]
    started_at: dt.datetime  # UTC

    @property
    def ref(self) -> ChannelRef:
        return ChannelRef(self.platform, self.space_id, self.channel_id)


@dataclass(frozen=True)
class CardMove:
    """A card's due date moved (compare-and-set: only if it is still `due`)."""

    question_id: str
    due: dt.datetime
    new_due: dt.datetime
