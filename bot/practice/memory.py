"""Learner memory: one FSRS card per (platform, space, user, question), ratings and the review queue.

Pure rules over values; py-fsrs (FSRS-6, default parameters, desired retention 0.9) does the scheduling.
Fuzzing is off so that a review's due instant depends only on the history, which keeps every process and
every test in agreement, and there are no minute-long learning steps: a learner meets a question at most a
few times a day, so every card is scheduled in days (a miss is due again the next day).
Nothing here touches leaderboards: scores come from rounds, memory from cards.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from fsrs import Card, Rating, Scheduler, State

DESIRED_RETENTION = 0.9


LEARN_BATCH = 200  # practice answers' card updates written per transaction (Store.learn_practice)
LEARN_ROUNDS = 50  # daily rounds' card updates written per transaction, of one space (Store.learn_rounds)


_SCHEDULER = Scheduler(
    desired_retention=DESIRED_RETENTION, learning_steps=(), relearning_steps=(), enable_fuzzing=False
)


@dataclass(frozen=True)
class CardKey:
    """Whose memory of which question: cards never cross users or spaces."""

    platform: str
    space_id: str
    user_id: str
    question_id: str


@dataclass(frozen=True)
class LearnerCard:
    """The FSRS memory state of one learner for one question, as the stores keep it."""

    key: CardKey
    state: int  # fsrs.State: 2 review (no learning steps are used)
    step: int | None
    stability: float | None
    difficulty: float | None
    due: datetime  # UTC
    last_review: datetime | None
    reviews: int = 0
    lapses: int = 0
    confident_miss: bool = False  # the last answer was wrong while the learner was sure


@dataclass(frozen=True)
class ReviewEvent:
    """One rated answer, kept as the card's review log."""

    key: CardKey
    rating: int  # fsrs.Rating: 1 again, 2 hard, 3 good
    reviewed_at: datetime
    sure: bool
    due_before: datetime | None = None  # the card's due instant before this answer (None: its first answer)
    recall: float | None = None  # FSRS's predicted recall at this answer, 0..1 (None: its first answer)


@dataclass(frozen=True)
class PendingAnswer:
    """A revealed practice answer whose card update is still to be written (bot.store.settle.learn_practice)."""

    round_id: int
    key: CardKey
    correct: bool
    sure: bool
    answered_at: datetime


def rating_for(correct: bool, *, sure: bool = True) -> Rating:
    """Wrong is Again; right but not sure is Hard; right is Good. Easy is never given."""
    if not correct:
        return Rating.Again
    return Rating.Good if sure else Rating.Hard


def _utc(moment: datetime) -> datetime:
    if moment.tzinfo is UTC:  # the common case: stores and clocks give UTC
        return moment
    if moment.tzinfo is None:
        raise ValueError("review instants must be timezone-aware")
    return moment.astimezone(UTC)


# py-fsrs makes an id from the clock and sleeps a millisecond when a Card gets none; ours are keyed by CardKey
_CARD_ID = 1


_STATES = {int(s): s for s in State}


def _to_fsrs(card: LearnerCard) -> Card:
    return Card(
        card_id=_CARD_ID,
        state=_STATES[card.state],
        step=card.step,
        stability=card.stability,
        difficulty=card.difficulty,
        due=_utc(card.due),
        last_review=_utc(card.last_review) if card.last_review else None,
    )


def _first_review(rating: Rating) -> tuple[Card, timedelta]:
    """What py-fsrs makes of a new card's first rating: the same for every card and instant (no fuzzing),
    so it is worked out once per rating; the due instant is the review instant plus the interval."""
    start = datetime(2000, 1, 1, tzinfo=UTC)
    after, _log = _SCHEDULER.review_card(Card(card_id=_CARD_ID, due=start), rating, review_datetime=start)
    return after, after.due - start


_FIRST = {rating: _first_review(rating) for rating in (Rating.Again, Rating.Hard, Rating.Good)}


def review(
    card: LearnerCard | None, key: CardKey, correct: bool, *, sure: bool, at: datetime
) -> tuple[LearnerCard, ReviewEvent]:
    """The card after one answer (a first answer creates it) and the review event to log."""
    rating = rating_for(correct, sure=sure)
    now = _utc(at)
    if card is None:  # py-fsrs's first review, worked out once per rating (no Card built per answer)
        first, interval = _FIRST[rating]
        updated = LearnerCard(
            key=key,
            state=int(first.state),
            step=first.step,
            stability=first.stability,
            difficulty=first.difficulty,
            due=now + interval,
            last_review=now,
            reviews=1,
            lapses=0 if correct else 1,
            confident_miss=not correct and sure,
        )
        return updated, ReviewEvent(key, int(rating), now, sure)
    before = _to_fsrs(card)
    recall = float(_SCHEDULER.get_card_retrievability(before, now))  # what FSRS expected of this answer
    after, _log = _SCHEDULER.review_card(before, rating, review_datetime=now)
    reviews, lapses = card.reviews, card.lapses
    updated = LearnerCard(
        key=key,
        state=int(after.state),
        step=after.step,
        stability=after.stability,
        difficulty=after.difficulty,
        due=after.due,
        last_review=after.last_review,
        reviews=reviews + 1,
        lapses=lapses + (0 if correct else 1),
        confident_miss=not correct and sure,
    )
    return updated, ReviewEvent(key, int(rating), now, sure, _utc(card.due), recall)


def retrievability(card: LearnerCard, at: datetime) -> float:
    """The predicted chance, 0..1, that the learner recalls the question at `at`."""
    return float(_SCHEDULER.get_card_retrievability(_to_fsrs(card), _utc(at)))


def due_queue(cards: Iterable[LearnerCard], at: datetime) -> list[LearnerCard]:
    """Cards due at `at`: confident misses first, then the most overdue first."""
    now = _utc(at)
    due = [c for c in cards if _utc(c.due) <= now]
    return sorted(due, key=lambda c: (not c.confident_miss, _utc(c.due), c.key.question_id))


def next_due(cards: Iterable[LearnerCard]) -> datetime | None:
    """When the next review falls due, or None with no cards."""
    return min((_utc(c.due) for c in cards), default=None)


def topic_mastery(cards: Iterable[LearnerCard], topic_of: dict[str, str], at: datetime) -> dict[str, float]:
    """Mean retrievability of the seen questions of each topic."""
    sums: dict[str, list[float]] = {}
    for card in cards:
        topic = topic_of.get(card.key.question_id)
        if topic is not None:
            sums.setdefault(topic, []).append(retrievability(card, at))
    return {topic: sum(values) / len(values) for topic, values in sums.items()}
