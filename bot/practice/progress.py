"""The learning report's counts (`/quiz progress`, and the weekly recap's line on missed questions): pure rules
over what the store reads, so every store counts the same way in one place (bot/store/progress_sql.py and the
in-memory fake both call `count_progress` and `count_misses`).

- Measured retention: of the reviews that came due (an answer to a question whose card was due by then), the
  share answered right, per local week (Monday first, in the space's timezone), beside the target.
- Recall of missed daily questions: of the daily questions a learner missed (revealed), the share answered
  right the first time they came back 7 or more local days after the miss (any kind of round).
- Calibration: the right-rate of answers given sure and not sure, and FSRS's predicted recall at each review
  against the observed right-rate, in a few buckets.
- Memory by topic: mean predicted recall of the seen questions now, and in 30 days with no more answers.

A rate is shown only from a number of answers up (MIN_*); below it the report says how many more it needs.
Nothing here reads points or leaderboards.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol
from zoneinfo import ZoneInfo

from bot.daily.cards import TopicMemory
from bot.kernel.values import Question
from bot.practice.memory import DESIRED_RETENTION, LearnerCard, ReviewEvent, retrievability

TARGET = DESIRED_RETENTION  # the retention the scheduler aims at


COMEBACK_DAYS = 7  # a missed question counts as recalled when answered right 7 or more local days later


WEEKS_SHOWN = 8  # retention by week: this week and the seven before it (from the first review on)


FORECAST_DAYS = 30


MIN_RATE = 10  # answers before a rate is shown (retention overall, sure, not sure)


MIN_WEEK = 5  # reviews that came due in a week before its rate is shown


MIN_COMEBACKS = 5  # missed questions back a week or more later before their share is shown


MIN_BUCKET = 5  # reviews in a predicted-recall bucket before its observed rate is shown


MIN_TOPIC = 3  # questions seen in a topic before its memory is shown


# predicted recall buckets: [low, high), the last one closed
BUCKETS: tuple[tuple[float, float], ...] = ((0.0, 0.7), (0.7, 0.85), (0.85, 0.95), (0.95, 1.0))


@dataclass(frozen=True)
class Tally:
    """How many answers, and how many of them right."""

    answered: int = 0
    right: int = 0

    def rate(self, least: int) -> float | None:
        """The share right, or None below `least` answers (never a guess from too few)."""
        return self.right / self.answered if self.answered >= max(1, least) else None

    def needs(self, least: int) -> int:
        """How many more answers a rate needs (0: it has enough)."""
        return max(0, least - self.answered)

    def __add__(self, other: Tally) -> Tally:
        return Tally(self.answered + other.answered, self.right + other.right)


@dataclass(frozen=True)
class WeekTally:
    start: dt.date  # the week's Monday, local
    reviews: Tally  # reviews that came due that week


@dataclass(frozen=True)
class BucketTally:
    low: float
    high: float
    reviews: Tally
    predicted: float | None  # mean predicted recall of its reviews (None: no review in it)


@dataclass(frozen=True)
class MissRecall:
    missed: int  # daily questions missed (revealed), each once
    came_back: int  # of them, answered again 7 or more local days after the miss
    right: int  # of those, right that first time back

    @property
    def tally(self) -> Tally:
        return Tally(self.came_back, self.right)

    @property
    def waiting(self) -> int:
        """Misses that have not come back a week or more later yet."""
        return self.missed - self.came_back


@dataclass(frozen=True)
class MissFact:
    """One learner's first miss of a daily question (revealed), with one later answer of theirs to that question
    (any round kind, revealed; None: none yet). The store reads one row per later answer."""

    user_id: str
    question_id: str
    missed_at: dt.datetime
    later_at: dt.datetime | None = None
    later_correct: bool | None = None


@dataclass(frozen=True)
class ProgressCounts:
    """Every count of one learner's report in a space (the store's `learner_progress`)."""

    weeks: tuple[WeekTally, ...]  # consecutive, oldest first, ending this week; () before any due review
    sure: Tally
    unsure: Tally
    buckets: tuple[BucketTally, ...]
    misses: MissRecall

    @property
    def retention(self) -> Tally:
        """Reviews that came due in the weeks shown."""
        total = Tally()
        for week in self.weeks:
            total += week.reviews
        return total

    @property
    def answered(self) -> int:
        """Rated answers in the review log (first answers included)."""
        return self.sure.answered + self.unsure.answered


class ProgressStore(Protocol):
    """What the learning report reads: every count of it, from the store in one place."""

    async def learner_progress(
        self, platform: str, space_id: str, user_id: str, tz: str, now: dt.datetime
    ) -> ProgressCounts:
        """One learner's counts in a space (`count_progress` over their review log and their missed daily
        questions; their marked practice answers are written first), weeks read in `tz`."""
        ...


def week_of(moment: dt.datetime, zone: ZoneInfo) -> dt.date:
    """The Monday of the local week `moment` falls in."""
    day = moment.astimezone(zone).date()
    return day - dt.timedelta(days=day.weekday())


def bucket_of(recall: float) -> int:
    for i, (low, high) in enumerate(BUCKETS):
        if low <= recall < high:
            return i
    return len(BUCKETS) - 1


def count_progress(
    events: Iterable[ReviewEvent], misses: Iterable[MissFact], tz: str, now: dt.datetime
) -> ProgressCounts:
    """The report's counts from a learner's review log (any order) and their miss facts."""
    zone = ZoneInfo(tz)
    this_week = week_of(now, zone)
    first_shown = this_week - dt.timedelta(weeks=WEEKS_SHOWN - 1)
    per_week: dict[dt.date, Tally] = {}
    sure, unsure = Tally(), Tally()
    in_bucket = [Tally() for _ in BUCKETS]
    predicted = [0.0 for _ in BUCKETS]
    for e in sorted(events, key=lambda e: (e.reviewed_at, e.key.question_id)):  # one order: the same float sums
        one = Tally(1, int(e.rating > 1))
        if e.sure:
            sure += one
        else:
            unsure += one
        if e.due_before is not None and e.due_before <= e.reviewed_at:
            week = week_of(e.reviewed_at, zone)
            if first_shown <= week <= this_week:
                per_week[week] = per_week.get(week, Tally()) + one
        if e.recall is not None:
            i = bucket_of(e.recall)
            in_bucket[i] += one
            predicted[i] += e.recall
    weeks: list[WeekTally] = []
    if per_week:
        week = min(per_week)
        while week <= this_week:
            weeks.append(WeekTally(week, per_week.get(week, Tally())))
            week += dt.timedelta(weeks=1)
    buckets = tuple(
        BucketTally(low, high, tally, predicted[i] / tally.answered if tally.answered else None)
        for i, ((low, high), tally) in enumerate(zip(BUCKETS, in_bucket, strict=True))
    )
    return ProgressCounts(tuple(weeks), sure, unsure, buckets, count_misses(misses, tz))


def count_misses(facts: Iterable[MissFact], tz: str, through: dt.date | None = None) -> MissRecall:
    """Missed daily questions (per learner and question), how many came back 7 or more local days after the
    miss, and how many of those were right that first time back; `through`: only misses and answers on local
    dates up to it."""
    zone = ZoneInfo(tz)
    missed: dict[tuple[str, str], dt.date] = {}
    back: dict[tuple[str, str], tuple[dt.datetime, bool]] = {}
    for f in facts:
        key = (f.user_id, f.question_id)
        miss_day = f.missed_at.astimezone(zone).date()
        if through is not None and miss_day > through:
            continue
        missed[key] = miss_day
        if f.later_at is None:
            continue
        day = f.later_at.astimezone(zone).date()
        if (day - miss_day).days < COMEBACK_DAYS or (through is not None and day > through):
            continue
        seen = (f.later_at, bool(f.later_correct))
        if key not in back or seen < back[key]:  # the first time back (a tie: the wrong one)
            back[key] = seen
    return MissRecall(len(missed), len(back), sum(1 for _, right in back.values() if right))


def memory_by_topic(
    cards: Sequence[LearnerCard], bank: Sequence[Question], pool: Sequence[Question], now: dt.datetime
) -> tuple[TopicMemory, ...]:
    """Memory by topic (`topic_forecasts`) as the learning report and the stats card show it: the cards of the
    shipped bank's questions and of `pool`'s (the packs practice draws from), a topic's total its questions in
    `pool`."""
    topic_of = {q.id: q.topic for q in bank} | {q.id: q.topic for q in pool}
    return topic_forecasts(cards, topic_of, Counter(q.topic for q in pool), now)


def topic_forecasts(
    cards: Sequence[LearnerCard], topic_of: Mapping[str, str], totals: Mapping[str, int], now: dt.datetime
) -> tuple[TopicMemory, ...]:
    """Memory by topic of the learner's cards (questions of `topic_of` only): the topics with enough seen
    questions (MIN_TOPIC, or all of a smaller topic) first, the weakest in 30 days first; then the others by
    name."""
    later_at = now + dt.timedelta(days=FORECAST_DAYS)
    recall: dict[str, list[tuple[float, float]]] = {}
    for card in cards:
        topic = topic_of.get(card.key.question_id)
        if topic is not None:
            recall.setdefault(topic, []).append((retrievability(card, now), retrievability(card, later_at)))
    found = []
    for topic, values in recall.items():
        total = totals.get(topic, len(values))
        least = min(MIN_TOPIC, totals[topic]) if topic in totals else MIN_TOPIC  # a smaller topic: all of it
        needs = max(0, least - len(values))
        found.append(
            TopicMemory(
                topic,
                len(values),
                total,
                sum(v for v, _ in values) / len(values) if not needs else None,
                sum(v for _, v in values) / len(values) if not needs else None,
                needs,
            )
        )
    return tuple(sorted(found, key=lambda t: (t.later is None, t.later or 0.0, t.topic)))
