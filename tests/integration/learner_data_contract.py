"""One learner's data in a space, on every store: the misses `/quiz export` lists and `/quiz forget-me`.

Mixed into the store test classes (SQLite, PostgreSQL, the in-memory fake), which give the `store` fixture.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

from bot.kernel.scoring import score_daily_round
from bot.kernel.values import Period, RoundKind
from bot.mydata.forget import Forgotten
from tests.integration.contract_values import DAY, REF, T0, ans

OTHER_SPACE = replace(REF, space_id="space-2", channel_id="chan-9")
BOARDS = [(Period.ALL, "all"), (Period.WEEK, "2026-W49"), (Period.MONTH, "2026-11")]


async def _daily(store, ref, day, question, answers):
    r = await store.claim_daily_round(ref, day, question, "tensors", T0, None)
    await store.add_answers(answers(r.id), T0)
    assert await store.reveal_round(r.id, T0 + dt.timedelta(hours=1), score_daily_round)
    return r


async def _practice(store, user, question, correct, at, ref=REF):
    r = await store.create_practice_round(ref, user, question, "autograd", at)
    await store.add_answers([ans(r.id, user, 2, correct=correct, at=at)], at)
    assert await store.reveal_round(r.id, at, None)
    return r


class LearnerDataContract:
    async def test_misses_are_the_learners_own_revealed_wrong_answers_with_the_latest_attempt(self, store):
        at = T0 + dt.timedelta(minutes=3)
        daily = await _daily(
            store, REF, DAY, "q-daily", lambda rid: [ans(rid, "ada", 1, False, at), ans(rid, "bob", 1, False, at)]
        )
        open_round = await store.claim_daily_round(REF, DAY + dt.timedelta(days=1), "q-open", "tensors", T0, None)
        await store.add_answers([ans(open_round.id, "ada", 0, correct=False)], T0)  # not revealed: no verdict yet
        first = await _practice(store, "ada", "q-practice", False, T0 + dt.timedelta(hours=2))
        later = await _practice(store, "ada", "q-practice", True, T0 + dt.timedelta(hours=5))
        await _practice(store, "ada", "q-right", True, T0 + dt.timedelta(hours=6))
        await _practice(store, "ada", "q-elsewhere", False, T0, ref=OTHER_SPACE)

        misses = await store.learner_misses("test", "space", "ada")
        assert [m.question_id for m in misses] == ["q-practice", "q-daily"]  # latest attempt first
        practice, missed_daily = misses
        assert (practice.round_id, practice.kind, practice.attempts, practice.misses) == (
            later.id,
            RoundKind.PRACTICE,
            2,
            1,
        )
        assert practice.last_correct and practice.last_choice == 2 and practice.topic == "autograd"
        assert practice.last_answered_at == T0 + dt.timedelta(hours=5) and first.id != later.id
        assert (missed_daily.round_id, missed_daily.kind, missed_daily.last_correct) == (
            daily.id,
            RoundKind.DAILY,
            False,
        )
        assert (missed_daily.last_choice, missed_daily.last_answered_at) == (1, at)
        assert [m.question_id for m in await store.learner_misses("test", "space", "bob")] == ["q-daily"]
        assert await store.learner_misses("test", "space", "cyd") == []
        assert [m.question_id for m in await store.learner_misses("test", "space-2", "ada")] == ["q-elsewhere"]
        assert await store.learner_misses("other", "space", "ada") == []

    async def test_forget_me_deletes_the_learner_in_one_space_and_the_leaderboards_recount(self, store):
        users = ["ada", "bob", "cyd", "dan"]
        wins = {"ada": (True, True), "bob": (True, False), "cyd": (True, False), "dan": (False, False)}
        for i in range(2):
            await _daily(
                store,
                REF,
                DAY + dt.timedelta(days=i),
                f"q{i}",
                lambda rid, i=i: [ans(rid, u, 0, wins[u][i]) for u in users],
            )
        await _practice(store, "ada", "q-p", False, T0)
        await store.mark_unsure((await _practice(store, "ada", "q-p2", True, T0)).id, "ada")
        elsewhere = await _daily(store, OTHER_SPACE, DAY, "q0", lambda rid: [ans(rid, "ada", 0, True)])
        before_bob = await store.rank_of("test", "space", Period.ALL, "all", "bob")
        assert before_bob.rank == 2 and (await store.rank_of("test", "space", Period.ALL, "all", "ada")).rank == 1
        bob_cards = await store.learner_cards("test", "space", "bob")

        gone = await store.forget_learner("test", "space", "ada")

        assert (gone.answers, gone.rounds, gone.scores, gone.streaks) == (4, 2, 4, 1)  # scores: all, week, two months
        assert gone.cards == 4 and gone.reviews == 4
        for period, key in BOARDS:
            board = await store.leaderboard("test", "space", period, key, 10)
            assert [row.user_id for row in board] == ["bob", "cyd", "dan"]
            assert [row.rank for row in board] == [1, 1, 3]
            assert await store.rank_of("test", "space", period, key, "ada") is None
            for row in board:  # ranks from the buckets agree with the board
                mine = await store.rank_of("test", "space", period, key, row.user_id)
                assert (mine.rank, mine.points) == (row.rank, row.points)
        bob = await store.rank_of("test", "space", Period.ALL, "all", "bob")
        assert (bob.points, bob.correct, bob.answered) == (before_bob.points, before_bob.correct, before_bob.answered)
        assert await store.learner_cards("test", "space", "ada") == []
        assert await store.review_events("test", "space", "ada") == []
        assert await store.streak("test", "space", "ada") is None
        assert await store.user_topic_stats("test", "space", "ada") == []
        assert await store.learner_misses("test", "space", "ada") == []
        assert await store.question_counts("test", "space", RoundKind.PRACTICE, "ada") == {}
        assert await store.learner_cards("test", "space", "bob") == bob_cards
        assert await store.streak("test", "space", "bob") is not None
        # the other space keeps all of ada
        [kept] = await store.leaderboard("test", "space-2", Period.ALL, "all", 10)
        assert kept.user_id == "ada" and (await store.get_answer(elsewhere.id, "ada")) is not None
        assert len(await store.learner_cards("test", "space-2", "ada")) == 1
        assert await store.streak("test", "space-2", "ada") is not None
        # the daily rounds stay for the others; a second forget finds nothing
        assert len(await store.round_answers(elsewhere.id)) == 1
        assert await store.forget_learner("test", "space", "ada") == Forgotten()

    async def test_a_forgotten_learner_who_answers_again_starts_afresh(self, store):
        await _daily(store, REF, DAY, "q0", lambda rid: [ans(rid, "ada", 0, True), ans(rid, "bob", 0, False)])
        await store.forget_learner("test", "space", "ada")
        await _daily(store, REF, DAY + dt.timedelta(days=1), "q1", lambda rid: [ans(rid, "ada", 0, True)])
        ada = await store.rank_of("test", "space", Period.ALL, "all", "ada")
        assert (ada.rank, ada.points, ada.answered) == (1, 10, 1)  # no streak bonus carried over
        bob = await store.rank_of("test", "space", Period.ALL, "all", "bob")
        assert (bob.rank, bob.points) == (2, 0)
