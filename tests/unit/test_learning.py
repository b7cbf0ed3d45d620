from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from fsrs import Rating

from bot.practice.memory import CardKey, due_queue, next_due, rating_for, retrievability, review, topic_mastery

MONDAY = datetime(2026, 12, 7, 9, 30, tzinfo=UTC)


def key(question: str, user: str = "U1") -> CardKey:
    return CardKey("slack", "T1", user, question)


def test_ratings_wrong_is_again_unsure_is_hard_right_is_good() -> None:
    assert rating_for(False) is Rating.Again
    assert rating_for(False, sure=False) is Rating.Again
    assert rating_for(True, sure=False) is Rating.Hard
    assert rating_for(True) is Rating.Good


def test_a_missed_question_is_due_again_within_a_day_and_a_right_one_later() -> None:
    missed, event = review(None, key("q-miss"), False, sure=True, at=MONDAY)
    right, _ = review(None, key("q-right"), True, sure=True, at=MONDAY)
    assert event.rating == int(Rating.Again) and event.reviewed_at == MONDAY
    assert MONDAY < missed.due <= MONDAY + timedelta(days=1)
    assert right.due > missed.due
    assert missed.lapses == 1 and missed.reviews == 1 and missed.confident_miss
    assert right.lapses == 0 and not right.confident_miss


def test_three_monday_misses_come_back_on_tuesday_most_overdue_first() -> None:
    cards = []
    for minutes, qid in ((0, "q-first"), (60, "q-second"), (120, "q-third")):
        card, _ = review(None, key(qid), False, sure=False, at=MONDAY + timedelta(minutes=minutes))
        cards.append(card)
    right, _ = review(None, key("q-known"), True, sure=True, at=MONDAY)
    tuesday = MONDAY + timedelta(days=1, hours=3)
    queue = due_queue([right, *reversed(cards)], tuesday)
    assert [c.key.question_id for c in queue] == ["q-first", "q-second", "q-third"]


def test_confident_misses_are_re_asked_before_older_unsure_ones() -> None:
    unsure, _ = review(None, key("q-unsure"), False, sure=False, at=MONDAY)
    sure, _ = review(None, key("q-sure"), False, sure=True, at=MONDAY + timedelta(hours=3))
    queue = due_queue([unsure, sure], MONDAY + timedelta(days=2))
    assert [c.key.question_id for c in queue] == ["q-sure", "q-unsure"]


def test_nothing_is_due_right_after_a_correct_answer_and_next_due_says_when() -> None:
    card, _ = review(None, key("q"), True, sure=True, at=MONDAY)
    assert due_queue([card], MONDAY + timedelta(minutes=1)) == []
    assert next_due([card]) == card.due
    assert next_due([]) is None


def test_a_second_review_builds_on_the_first() -> None:
    first, _ = review(None, key("q"), True, sure=True, at=MONDAY)
    second, _ = review(first, key("q"), True, sure=True, at=first.due)
    assert second.reviews == 2
    assert second.stability is not None and first.stability is not None
    assert second.stability > first.stability
    assert second.due - first.due > first.due - MONDAY


def test_retrievability_falls_with_time_and_mastery_is_per_topic() -> None:
    card, _ = review(None, key("q-a"), True, sure=True, at=MONDAY)
    other, _ = review(None, key("q-b"), False, sure=True, at=MONDAY)
    soon = retrievability(card, MONDAY + timedelta(days=1))
    later = retrievability(card, MONDAY + timedelta(days=30))
    assert 0 < later < soon <= 1
    mastery = topic_mastery([card, other], {"q-a": "autograd", "q-b": "tensors"}, MONDAY + timedelta(days=3))
    assert set(mastery) == {"autograd", "tensors"}
    assert mastery["autograd"] > mastery["tensors"]


def test_review_instants_in_any_zone_are_normalised_across_a_dst_change() -> None:
    berlin = ZoneInfo("Europe/Berlin")
    before_change = datetime(2026, 10, 24, 23, 0, tzinfo=berlin)
    card, event = review(None, key("q"), False, sure=True, at=before_change)
    assert event.reviewed_at.tzinfo is UTC and card.due.tzinfo is not None
    assert card.due - before_change <= timedelta(days=1)


def test_naive_instants_are_refused() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        review(None, key("q"), True, sure=True, at=datetime(2026, 12, 7, 9, 30))


def test_a_first_answer_is_scheduled_exactly_as_py_fsrs_schedules_a_new_card() -> None:
    """review() works a new card's first rating out once per rating; it must match py-fsrs at any instant."""
    from fsrs import Card

    from bot.practice.memory import _SCHEDULER

    moments = [MONDAY, MONDAY + timedelta(hours=13, seconds=7), datetime(2031, 2, 28, 23, 59, 59, 999, tzinfo=UTC)]
    for at in moments:
        for correct, sure in ((False, True), (True, False), (True, True)):
            ours, _ = review(None, key("q"), correct, sure=sure, at=at)
            theirs, _ = _SCHEDULER.review_card(Card(card_id=1, due=at), rating_for(correct, sure=sure), at)
            assert (ours.state, ours.step, ours.stability, ours.difficulty, ours.due, ours.last_review) == (
                int(theirs.state),
                theirs.step,
                theirs.stability,
                theirs.difficulty,
                theirs.due,
                theirs.last_review,
            )
