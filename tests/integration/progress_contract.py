"""The learning report's counts (bot.practice.progress.ProgressStore) and the recap's recalled misses
(RecapStore.space_miss_recall): the same numbers on every store, in Berlin across the spring-forward night
(2026-03-29, 02:00 CET -> 03:00 CEST), where "7 local days later" is only 167 hours later.

Mixed into the store test classes (SQLite, PostgreSQL, the in-memory fake), which give the `store` fixture (and
`reopen`, a second store on the same database: another process).
"""

from __future__ import annotations

import datetime as dt

from bot.kernel.scoring import score_daily_round
from bot.kernel.values import ChannelRef, Period, PracticeAnswer
from bot.practice.progress import MissRecall, Tally, WeekTally
from bot.recap.values import RecalledMisses
from tests.integration.contract_values import REF, ans

BERLIN = "Europe/Berlin"
UTC = dt.UTC
OTHER = ChannelRef("test", "space-2", "chan-elsewhere")
NOW = dt.datetime(2026, 3, 31, 10, 0, tzinfo=UTC)


def at(day: int, hour: int, minute: int = 0, month: int = 3) -> dt.datetime:
    return dt.datetime(2026, month, day, hour, minute, tzinfo=UTC)


async def daily(store, ref, day: dt.date, question: str, answers, *, reveal: bool = True, unsure=()) -> None:
    """A daily round posted at 08:00 UTC that day; `answers`: (user, correct, minute after 08:00)."""
    opened = dt.datetime.combine(day, dt.time(8, 0), UTC)
    r = await store.claim_daily_round(ref, day, question, "tensors", opened, None)
    for user, correct, minute in answers:
        when = opened + dt.timedelta(minutes=minute)
        await store.add_answers([ans(r.id, user, 0 if correct else 1, correct=correct, at=when)], when)
    for user in unsure:
        await store.mark_unsure(r.id, user)
    if reveal:
        assert await store.reveal_round(r.id, opened + dt.timedelta(hours=12), score_daily_round)


async def practice(
    store, user: str, question: str, when: dt.datetime, correct: bool, *, sure: bool = True, marked=False
):
    """A practice answer, its card written at its reveal (or, `marked`, left for learn_practice to write)."""
    r = await store.create_practice_round(REF, user, question, "tensors", when)
    await store.add_answers([ans(r.id, user, 0 if correct else 1, correct=correct, at=when)], when)
    if marked:
        assert await store.reveal_practice([PracticeAnswer(r.id, user, correct, sure, when)], when) == [True]
    else:
        assert await store.reveal_round(r.id, when, None, unsure=() if sure else {user})


async def fortnight(store) -> None:
    """Ada misses q1 (Mon 23 Mar) and q2 (Tue 24 Mar) as daily questions; q1 comes back right on Mon 30 Mar
    at 09:00 CEST (7 local days, 167 hours later), q2 wrong at 00:30 CEST that night (6 local days). Bob
    misses q1 "not sure" and gets it wrong at 23:30 CEST on Sun 29 Mar (6 local days) and at 00:30 CEST on
    Mon 30 Mar (7 local days; still Sunday in UTC). Ada's q4 (practice) is missed on Monday and right,
    due, on Wednesday. A wrong daily answer not revealed yet, and one in another space, never count."""
    await daily(store, REF, dt.date(2026, 3, 23), "q1", [("ada", False, 5), ("bob", False, 6)], unsure=["bob"])
    await daily(store, REF, dt.date(2026, 3, 24), "q2", [("ada", False, 5)])
    await daily(store, REF, dt.date(2026, 3, 25), "q3", [("ada", False, 5)], reveal=False)
    await daily(store, OTHER, dt.date(2026, 3, 23), "q1", [("ada", False, 5)])
    await practice(store, "ada", "q4", at(23, 10), False)
    await practice(store, "ada", "q4", at(25, 10), True)
    await practice(store, "bob", "q1", at(29, 21, 30), False)
    await practice(store, "bob", "q1", at(29, 22, 30), False)
    await practice(store, "ada", "q2", at(29, 22, 30), False, sure=False)
    await practice(store, "ada", "q1", at(30, 7), True, marked=True)  # its card update is still to be written


class ProgressContract:
    """Every count of the learning report comes from the store, the same on each."""

    async def test_a_learners_counts_in_berlin_across_the_spring_forward_night(self, store):
        await fortnight(store)
        counts = await store.learner_progress("test", "space", "ada", BERLIN, NOW)
        # due reviews: q4 on Wed 25 Mar (week of 23 Mar); q2 at 00:30 CEST Mon 30 Mar and q1 on Mon 30 Mar
        assert counts.weeks == (
            WeekTally(dt.date(2026, 3, 23), Tally(1, 1)),
            WeekTally(dt.date(2026, 3, 30), Tally(2, 1)),
        )
        assert counts.retention == Tally(3, 2)
        assert counts.sure == Tally(5, 2)  # q1, q2 daily (wrong), q4 wrong then right, q1 right
        assert counts.unsure == Tally(1, 0)  # q2 at night, "not sure"
        assert counts.misses == MissRecall(missed=2, came_back=1, right=1)
        events = await store.review_events("test", "space", "ada")
        predicted = [e.recall for e in events if e.recall is not None]
        assert len(predicted) == 3 and all(0 < p < 1 for p in predicted)
        assert sum(b.reviews.answered for b in counts.buckets) == 3
        assert sum(b.reviews.right for b in counts.buckets) == 2
        filled = [b for b in counts.buckets if b.reviews.answered]
        assert all(b.low <= b.predicted < b.high for b in filled if b.predicted is not None)
        assert abs(sum((b.predicted or 0) * b.reviews.answered for b in filled) - sum(predicted)) < 1e-9
        # the log keeps what FSRS expected: the card's due instant before each review
        [q1_daily, q1_back] = [e for e in events if e.key.question_id == "q1"]
        assert q1_daily.due_before is None and q1_daily.recall is None  # a first answer: no card yet
        assert q1_back.due_before is not None and q1_back.due_before <= q1_back.reviewed_at
        # nothing of this is on a leaderboard beyond the daily answers' zero points
        board = await store.leaderboard("test", "space", Period.ALL, "all", 10)
        assert {(row.user_id, row.points) for row in board} <= {("ada", 0), ("bob", 0)}

    async def test_the_same_answers_read_in_utc_count_local_utc_days(self, store):
        await fortnight(store)
        counts = await store.learner_progress("test", "space", "ada", "UTC", NOW)
        # 22:30 UTC on Sunday 29 Mar is still in the week of 23 Mar in UTC
        assert counts.weeks == (
            WeekTally(dt.date(2026, 3, 23), Tally(2, 1)),
            WeekTally(dt.date(2026, 3, 30), Tally(1, 1)),
        )

    async def test_the_space_line_counts_every_member_once_per_question(self, store):
        await fortnight(store)
        through_monday = await store.space_miss_recall("test", "space", BERLIN, dt.date(2026, 3, 30))
        assert through_monday == RecalledMisses(missed=3, came_back=2, right=1)
        through_sunday = await store.space_miss_recall("test", "space", BERLIN, dt.date(2026, 3, 29))
        assert through_sunday == RecalledMisses(missed=3, came_back=0, right=0)
        in_utc = await store.space_miss_recall("test", "space", "UTC", dt.date(2026, 3, 30))
        assert in_utc == RecalledMisses(missed=3, came_back=1, right=1)  # Bob's last try: Sunday in UTC
        assert await store.space_miss_recall("test", "space-2", BERLIN, dt.date(2026, 4, 30)) == RecalledMisses(1, 0, 0)
        assert await store.space_miss_recall("test", "nowhere", BERLIN, dt.date(2026, 4, 30)) == RecalledMisses(0, 0, 0)

    async def test_a_learner_with_nothing_yet(self, store):
        counts = await store.learner_progress("test", "space", "ada", BERLIN, NOW)
        assert counts.weeks == () and counts.answered == 0 and counts.misses == MissRecall(0, 0, 0)
        assert all(b.reviews == Tally() and b.predicted is None for b in counts.buckets)


class ProgressProcessContract:
    """Another process (a second store on the same database) reads the same counts, marked practice answers
    included."""

    async def test_a_second_process_counts_the_same(self, reopen):
        first = await reopen()
        await fortnight(first)
        second = await reopen()
        assert await second.learner_progress("test", "space", "ada", BERLIN, NOW) == await first.learner_progress(
            "test", "space", "ada", BERLIN, NOW
        )
        counts = await second.learner_progress("test", "space", "ada", BERLIN, NOW)
        assert counts.retention == Tally(3, 2)
        await first.close()
        await second.close()
