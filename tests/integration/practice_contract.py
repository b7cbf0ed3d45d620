"""Practice rounds and learner memory (bot.practice.store.PracticeStore, and the card updates of the
reveal).

Mixed into the store test classes (SQLite, PostgreSQL, the in-memory fake), which give the `store` fixture (and
`reopen`, a second store on the same database).
"""

from __future__ import annotations

import datetime as dt

import pytest

from bot.kernel.scoring import RevealResult, score_daily_round
from bot.kernel.values import Period, PracticeAnswer
from bot.practice.memory import CardKey
from tests.integration.contract_values import DAY, REF, T0, ans


class LearnerCardContract:
    """Learner memory: one FSRS card per (platform, space, user, question), written by reveals (daily and
    practice) inside their transaction, with a review log; never on a leaderboard."""

    async def test_a_practice_answer_creates_a_card_and_a_log_entry_at_once(self, store):
        r = await store.create_practice_round(REF, "ada", "q1", "tensors", T0)
        await store.add_answers([ans(r.id, "ada", 1, correct=False)], T0)
        assert await store.reveal_round(r.id, T0, None)
        [card] = await store.learner_cards("test", "space", "ada")
        assert card.key == CardKey("test", "space", "ada", "q1")
        assert card.reviews == 1 and card.lapses == 1 and card.confident_miss
        assert T0 < card.due <= T0 + dt.timedelta(days=1)
        assert card.due.tzinfo is not None and card.stability is not None and card.difficulty is not None
        [event] = await store.review_events("test", "space", "ada")
        assert (event.rating, event.reviewed_at, event.sure) == (1, T0, True)
        assert await store.learner_cards("test", "space", "bob") == []
        assert await store.learner_cards("test", "other-space", "ada") == []
        assert await store.leaderboard("test", "space", Period.ALL, "all", 10) == []

    async def test_unsure_practice_answers_rate_hard_and_a_second_answer_updates_the_one_card(self, store):
        first = await store.create_practice_round(REF, "ada", "q1", "tensors", T0)
        await store.add_answers([ans(first.id, "ada", 0, correct=True)], T0)
        assert await store.reveal_round(first.id, T0, None, unsure={"ada"})
        later = T0 + dt.timedelta(days=5)
        second = await store.create_practice_round(REF, "ada", "q1", "tensors", later)
        await store.add_answers([ans(second.id, "ada", 0, correct=True, at=later)], later)
        assert await store.reveal_round(second.id, later, None)
        [card] = await store.learner_cards("test", "space", "ada")
        assert card.reviews == 2 and card.lapses == 0 and card.last_review == later
        events = await store.review_events("test", "space", "ada")
        assert [(e.rating, e.sure, e.reviewed_at) for e in events] == [(2, False, T0), (3, True, later)]

    async def test_a_daily_answer_updates_the_card_only_when_the_round_is_revealed(self, store):
        r = await store.claim_daily_round(REF, DAY, "q1", "tensors", T0, None)
        at = T0 + dt.timedelta(minutes=5)
        await store.add_answers([ans(r.id, "ada", 2, correct=False, at=at), ans(r.id, "bob", 0, at=at)], at)
        await store.mark_unsure(r.id, "bob")
        await store.mark_unsure(r.id, "bob")  # twice is once
        assert await store.learner_cards("test", "space", "ada") == []
        assert await store.reveal_round(r.id, T0 + dt.timedelta(hours=8), score_daily_round)
        [ada] = await store.learner_cards("test", "space", "ada")
        [bob] = await store.learner_cards("test", "space", "bob")
        assert ada.lapses == 1 and ada.last_review == at and ada.confident_miss
        assert bob.lapses == 0 and bob.due >= ada.due and bob.stability > ada.stability
        [bob_event] = await store.review_events("test", "space", "bob")
        assert (bob_event.rating, bob_event.sure) == (2, False)
        top = await store.leaderboard("test", "space", Period.ALL, "all", 10)
        assert [(row.user_id, row.answered) for row in top] == [("bob", 1), ("ada", 1)]  # scores unchanged

    async def test_a_reveal_without_learning_leaves_the_cards_alone(self, store):
        r = await store.create_practice_round(REF, "ada", "q1", "tensors", T0)
        await store.add_answers([ans(r.id, "ada")], T0)
        assert await store.reveal_round(r.id, T0, None, learn=False)
        assert await store.learner_cards("test", "space", "ada") == []
        assert await store.review_events("test", "space", "ada") == []

    async def test_a_failed_reveal_leaves_the_cards_unchanged(self, store):
        r = await store.claim_daily_round(REF, DAY, "q1", "tensors", T0, None)
        await store.add_answers([ans(r.id, "ada", correct=False)], T0)

        def broken(data):
            return RevealResult({"nobody": 10}, {})  # points for a user who did not answer: fails the fold

        with pytest.raises(KeyError):
            await store.reveal_round(r.id, T0, broken)
        assert await store.learner_cards("test", "space", "ada") == []
        assert await store.reveal_round(r.id, T0, score_daily_round)
        assert len(await store.learner_cards("test", "space", "ada")) == 1

    async def test_many_learners_at_one_reveal(self, store):
        r = await store.claim_daily_round(REF, DAY, "q1", "tensors", T0, None)
        users = [f"u{i:04d}" for i in range(1200)]
        await store.add_answers([ans(r.id, u, correct=i % 2 == 0) for i, u in enumerate(users)], T0)
        assert await store.reveal_round(r.id, T0, score_daily_round)
        for i in (0, 1, 777, 1199):
            [card] = await store.learner_cards("test", "space", users[i])
            assert card.lapses == i % 2

    async def test_practice_reveals_in_one_batch_each_once_with_a_card_met_twice_reviewed_twice(self, store):
        first = await store.create_practice_round(REF, "ada", "q1", "tensors", T0)
        again = await store.create_practice_round(REF, "ada", "q1", "tensors", T0)
        other = await store.create_practice_round(REF, "bob", "q2", "tensors", T0)
        daily = await store.claim_daily_round(REF, DAY, "q3", "tensors", T0, None)
        at = T0 + dt.timedelta(minutes=1)
        later = at + dt.timedelta(seconds=5)
        await store.add_answers([ans(first.id, "ada", correct=False, at=at), ans(other.id, "bob", at=at)], at)
        await store.add_answers([ans(again.id, "ada", at=later)], later)
        batch = [
            PracticeAnswer(first.id, "ada", False, True, at),
            PracticeAnswer(again.id, "ada", True, False, at + dt.timedelta(seconds=5)),
            PracticeAnswer(other.id, "bob", True, True, at),
            PracticeAnswer(daily.id, "ada", True, True, at),  # not a practice round: left alone
        ]
        assert await store.reveal_practice(batch, at + dt.timedelta(seconds=9)) == [True, True, True, False]
        assert (await store.get_round(daily.id)).revealed_at is None
        assert await store.reveal_practice(batch[:1], at) == [False]  # revealed already
        [ada] = await store.learner_cards("test", "space", "ada")
        assert (ada.reviews, ada.lapses, ada.key.question_id) == (2, 1, "q1")
        assert ada.last_review == at + dt.timedelta(seconds=5) and not ada.confident_miss
        events = await store.review_events("test", "space", "ada")
        assert [(e.rating, e.sure) for e in events] == [(1, True), (2, False)]
        [bob] = await store.learner_cards("test", "space", "bob")
        assert bob.reviews == 1 and bob.lapses == 0
        assert (await store.get_round(other.id)).revealed_at == at + dt.timedelta(seconds=9)

    async def test_practice_reveals_without_learning_write_no_card(self, store):
        r = await store.create_practice_round(REF, "ada", "q1", "tensors", T0)
        await store.add_answers([ans(r.id, "ada")], T0)
        assert await store.reveal_practice([PracticeAnswer(r.id, "ada", True, True, T0)], T0, learn=False) == [True]
        assert await store.learner_cards("test", "space", "ada") == []
        assert (await store.get_round(r.id)).revealed_at == T0
        assert await store.learn_practice(500) == 0

    async def test_practice_card_updates_are_marked_then_written_oldest_first_each_once(self, store):
        rounds = []
        for i, user in enumerate(("ada", "bob", "ada")):
            r = await store.create_practice_round(REF, user, f"q{i}", "tensors", T0)
            await store.add_answers([ans(r.id, user, correct=user == "bob", at=T0 + dt.timedelta(seconds=i))], T0)
            rounds.append(r)
        batch = [PracticeAnswer(r.id, r.user_id, True, r.user_id != "bob", T0) for r in rounds]
        assert await store.reveal_practice(batch, T0 + dt.timedelta(minutes=1)) == [True, True, True]
        assert await store.learn_practice(2) == 2  # the two oldest rounds: ada's q0, bob's q1
        assert await store.learn_practice(2) == 1
        assert await store.learn_practice(2) == 0  # each written once
        events = await store.review_events("test", "space", "ada")
        assert [(e.key.question_id, e.rating, e.sure) for e in events] == [("q0", 1, True), ("q2", 1, True)]
        [bob] = await store.review_events("test", "space", "bob")
        assert (bob.rating, bob.sure) == (2, False)  # right but not sure: Hard

    async def test_reading_a_learners_cards_writes_their_marked_updates_first_and_no_one_elses(self, store):
        mine = await store.create_practice_round(REF, "ada", "q1", "tensors", T0)
        theirs = await store.create_practice_round(REF, "bob", "q1", "tensors", T0)
        await store.add_answers([ans(mine.id, "ada", correct=False), ans(theirs.id, "bob")], T0)
        batch = [PracticeAnswer(mine.id, "ada", False, True, T0), PracticeAnswer(theirs.id, "bob", True, True, T0)]
        await store.reveal_practice(batch, T0)
        [card] = await store.learner_cards("test", "space", "ada")
        assert card.confident_miss and card.lapses == 1
        assert await store.learn_practice(500) == 1  # bob's is still marked
        assert await store.learn_practice(500) == 0

    async def test_forget_me_drops_a_learners_marked_practice_updates(self, store):
        r = await store.create_practice_round(REF, "ada", "q1", "tensors", T0)
        await store.add_answers([ans(r.id, "ada")], T0)
        await store.reveal_practice([PracticeAnswer(r.id, "ada", True, True, T0)], T0)
        await store.forget_learner("test", "space", "ada")
        assert await store.learn_practice(500) == 0
        assert await store.learner_cards("test", "space", "ada") == []


class PracticeRestartContract:
    """A practice answer acknowledged before a crash still reaches the learner's card after a restart."""

    async def test_marked_card_updates_survive_a_restart_and_are_written_once(self, reopen):
        first = await reopen()
        r = await first.create_practice_round(REF, "ada", "q1", "tensors", T0)
        await first.add_answers([ans(r.id, "ada", correct=False)], T0)
        assert await first.reveal_practice([PracticeAnswer(r.id, "ada", False, True, T0)], T0) == [True]
        await first.close()  # the process died before it wrote the card update
        second = await reopen()
        assert await second.learn_practice(500) == 1
        assert await second.learn_practice(500) == 0
        [card] = await second.learner_cards("test", "space", "ada")
        assert card.lapses == 1 and card.confident_miss
        await second.close()
