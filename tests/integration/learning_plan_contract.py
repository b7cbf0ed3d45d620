"""Issue 31 in the store: review limits, vacation holds, plans and the questions reviews served
(bot.practice.store.ReviewPlanStore), streak freezes settled in the reveal (bot.store.settle, written once),
and the counts that aim the daily pick and flag questions (bot.daily.store.StreakDates, QuestionRates).

Mixed into the store test classes (SQLite, PostgreSQL, the in-memory fake), which give the `store` fixture.
Every count here comes from the store in one place and must read the same on all three.
"""

from __future__ import annotations

import datetime as dt

from bot.daily.values import PickInputs
from bot.kernel.scoring import score_daily_round
from bot.kernel.selection import SpaceRates
from bot.kernel.values import ChannelRef, Period, RoundKind, StreakState
from bot.practice.values import CardMove, LearnerPlan, ReviewPrefs
from tests.integration.contract_values import DAY, REF, REF2, T0, ans
from tests.integration.report_contract import new

LATER = T0 + dt.timedelta(days=10)


async def miss(store, user: str, question: str, at: dt.datetime = T0) -> None:
    """A practice miss: the learner's card of `question`, due a day later."""
    r = await store.create_practice_round(REF, user, question, "tensors", at)
    await store.add_answers([ans(r.id, user, 1, correct=False, at=at)], at)
    assert await store.reveal_round(r.id, at, None)


async def daily(store, day: int, right: set[str], wrong: set[str] = frozenset(), ref=REF) -> int:
    """The space's daily round of DAY + `day`, answered, revealed and scored; its id."""
    when = T0 + dt.timedelta(days=day)
    r = await store.claim_daily_round(ref, DAY + dt.timedelta(days=day), f"q{day}", "tensors", when, None)
    answers = [ans(r.id, u, 0, correct=True, at=when) for u in sorted(right)]
    answers += [ans(r.id, u, 1, correct=False, at=when) for u in sorted(wrong)]
    if answers:
        await store.add_answers(answers, when)
    assert await store.reveal_round(r.id, when + dt.timedelta(hours=1), score_daily_round)
    return r.id


class LearningPlanContract:
    # ---- review settings -------------------------------------------------------------------------

    async def test_a_learners_limit_and_hold_are_kept_per_space_and_a_hold_keeps_its_start(self, store):
        assert await store.review_prefs("test", "space", "ada") == ReviewPrefs()
        await store.set_review_limit("test", "space", "ada", 5)
        assert (await store.review_prefs("test", "space", "ada")).limit == 5
        assert (await store.review_prefs("test", "other", "ada")).limit == 20
        until = T0 + dt.timedelta(days=10)
        held = await store.pause_reviews("test", "space", "ada", T0, until)
        assert held == ReviewPrefs(5, T0, until)
        longer = await store.pause_reviews(
            "test", "space", "ada", T0 + dt.timedelta(days=2), until + dt.timedelta(days=3)
        )
        assert longer == ReviewPrefs(5, T0, until + dt.timedelta(days=3))  # the hold running keeps its start
        assert await store.review_prefs("test", "space", "ada") == longer

    async def test_a_hold_ends_once_and_moves_only_the_due_dates_still_as_read(self, store):
        for q in ("q1", "q2", "q3"):
            await miss(store, "ada", q)
        cards = {c.key.question_id: c for c in await store.learner_cards("test", "space", "ada")}
        await store.pause_reviews("test", "space", "ada", T0, LATER)
        moves = [CardMove(q, cards[q].due, cards[q].due + dt.timedelta(days=10)) for q in ("q1", "q2")]
        stale = CardMove("q3", cards["q3"].due - dt.timedelta(hours=1), LATER)  # its due date changed meanwhile
        assert await store.end_review_pause("test", "space", "ada", T0, LATER, [*moves, stale])
        after = {c.key.question_id: c.due for c in await store.learner_cards("test", "space", "ada")}
        assert after == {
            "q1": cards["q1"].due + dt.timedelta(days=10),
            "q2": cards["q2"].due + dt.timedelta(days=10),
            "q3": cards["q3"].due,
        }
        assert await store.review_prefs("test", "space", "ada") == ReviewPrefs(resumed_at=LATER)
        # a second process ending the same hold changes nothing (the moves are not applied twice)
        again = [CardMove(q, after[q], after[q] + dt.timedelta(days=10)) for q in ("q1", "q2")]
        assert not await store.end_review_pause("test", "space", "ada", T0, LATER + dt.timedelta(days=1), again)
        assert {c.key.question_id: c.due for c in await store.learner_cards("test", "space", "ada")} == after

    async def test_moving_due_dates_is_compare_and_set_and_counts_what_moved(self, store):
        await miss(store, "ada", "q1")
        await miss(store, "bob", "q1")
        [card] = await store.learner_cards("test", "space", "ada")
        moved = await store.move_card_dues(
            "test", "space", "ada", [CardMove("q1", card.due, LATER), CardMove("q9", card.due, LATER)]
        )
        assert moved == 1
        assert [c.due for c in await store.learner_cards("test", "space", "ada")] == [LATER]
        assert [c.due for c in await store.learner_cards("test", "space", "bob")] == [card.due]  # not bob's
        assert await store.move_card_dues("test", "space", "ada", [CardMove("q1", card.due, T0)]) == 0
        assert await store.move_card_dues("test", "space", "ada", []) == 0

    async def test_the_last_answer_counts_daily_and_practice_answers(self, store):
        assert await store.last_reviewed_at("test", "space", "ada") is None
        await miss(store, "ada", "q1", T0)
        r = await store.claim_daily_round(REF, DAY, "q2", "tensors", T0, None)
        later = T0 + dt.timedelta(hours=3)
        await store.add_answers([ans(r.id, "ada", 0, at=later)], later)
        assert await store.last_reviewed_at("test", "space", "ada") == T0  # before the reveal: not yet
        assert await store.reveal_round(r.id, later, score_daily_round)
        assert await store.last_reviewed_at("test", "space", "ada") == later
        assert await store.last_reviewed_at("test", "other", "ada") is None

    async def test_a_reviews_questions_are_counted_once_a_day_each(self, store):
        day, other = dt.date(2026, 11, 30), dt.date(2026, 12, 1)
        first = await store.open_review_round(REF, "ada", "q1", "tensors", T0, day, "review")
        assert first.user_id == "ada" and first.question_id == "q1" and first.revealed_at is None
        assert (await store.get_round(first.id)).kind.value == "practice"
        await store.open_review_round(REF, "ada", "q1", "tensors", T0, day, "review")  # asked again, unanswered
        await store.open_review_round(REF2, "ada", "q2", "tensors", T0, day, "plan")
        await store.open_review_round(REF, "ada", "q3", "tensors", T0, other, "review")
        await store.open_review_round(REF, "bob", "q4", "tensors", T0, day, "review")
        assert await store.served_reviews("test", "space", "ada", day) == [("q1", "review"), ("q2", "plan")]
        assert await store.served_reviews("test", "space", "ada", other) == [("q3", "review")]
        assert await store.served_reviews("test", "other", "ada", day) == []

    async def test_a_plan_is_saved_replaced_read_and_dropped(self, store):
        plan = LearnerPlan("test", "space", "ada", "chan", dt.date(2027, 1, 20), ("autograd", "tensors"), T0)
        assert await store.learner_plan("test", "space", "ada") is None
        await store.save_plan(plan)
        assert await store.learner_plan("test", "space", "ada") == plan
        every = LearnerPlan("test", "space", "ada", "chan-2", dt.date(2027, 2, 1), (), LATER)
        await store.save_plan(every)
        assert await store.learner_plan("test", "space", "ada") == every
        assert await store.learner_plan("test", "space", "bob") is None
        assert await store.drop_plan("test", "space", "ada")
        assert not await store.drop_plan("test", "space", "ada")
        assert await store.learner_plan("test", "space", "ada") is None

    async def test_forget_me_deletes_the_learners_review_settings_plan_and_served_days(self, store):
        await store.set_review_limit("test", "space", "ada", 5)
        await store.set_review_limit("test", "space", "bob", 6)
        await store.save_plan(LearnerPlan("test", "space", "ada", "chan", dt.date(2027, 1, 20), (), T0))
        await store.open_review_round(REF, "ada", "q1", "tensors", T0, DAY, "review")
        gone = await store.forget_learner("test", "space", "ada")
        assert gone.review_settings == 2  # the limit and the plan
        assert await store.review_prefs("test", "space", "ada") == ReviewPrefs()
        assert await store.learner_plan("test", "space", "ada") is None
        assert await store.served_reviews("test", "space", "ada", DAY) == []
        assert (await store.review_prefs("test", "space", "bob")).limit == 6

    # ---- streak freezes, settled in the reveal ------------------------------------------------------

    async def test_seven_right_days_earn_a_freeze_that_bridges_one_missed_day_and_not_two(self, store):
        for day in range(7):
            await daily(store, day, {"ada", "bob"})
        assert await store.streak("test", "space", "ada") == StreakState(7, 7, DAY + dt.timedelta(days=6), 7, 1)
        await daily(store, 7, {"bob"})  # ada misses day 7 (answers nothing)
        await daily(store, 8, {"ada", "bob"})  # the freeze bridges it: the shown streak goes on
        ada = await store.streak("test", "space", "ada")
        assert (ada.kept, ada.freezes, ada.freezes_used, ada.frozen, ada.current) == (8, 0, 1, 1, 1)
        await daily(store, 9, set(), {"ada"})  # a wrong answer is a missed day too
        await daily(store, 10, {"ada"})  # no freeze left: the streak breaks
        ada = await store.streak("test", "space", "ada")
        assert (ada.kept, ada.freezes, ada.freezes_used, ada.frozen, ada.current, ada.best) == (1, 0, 1, 0, 1, 8)
        # points come from the scored streak alone: the freeze added none (10, 11, 12, 13, 14, 15, 15; then 10)
        [row] = [r for r in await store.leaderboard("test", "space", Period.ALL, "all", 10) if r.user_id == "ada"]
        assert row.points == 10 + 11 + 12 + 13 + 14 + 15 + 15 + 10 + 10

    async def test_two_freezes_at_most_and_two_missed_days_use_both(self, store):
        for day in range(21):
            await daily(store, day, {"ada"})
        assert (await store.streak("test", "space", "ada")).freezes == 2  # earned on days 7, 14; 21 finds two
        await daily(store, 21, set(), {"ada"})
        await daily(store, 22, set())
        await daily(store, 23, {"ada"})
        ada = await store.streak("test", "space", "ada")
        assert (ada.kept, ada.freezes, ada.freezes_used, ada.frozen) == (22, 0, 2, 2)
        twentieth, last = DAY + dt.timedelta(days=20), DAY + dt.timedelta(days=23)
        assert await store.missed_daily_dates("test", "space", twentieth, last, 3) == 3  # 21, 22 and 23 (included)

    async def test_a_reveal_batch_counts_the_missed_days_as_one_reveal_after_another(self, store):
        for day in range(7):
            await daily(store, day, {"ada"})
        ids = []
        for day, users in ((7, set()), (8, {"ada"}), (9, set()), (10, {"ada"})):
            when = T0 + dt.timedelta(days=day)
            r = await store.claim_daily_round(REF, DAY + dt.timedelta(days=day), f"q{day}", "tensors", when, None)
            if users:
                await store.add_answers([ans(r.id, "ada", 0, at=when)], when)
            ids.append(r.id)
        at = T0 + dt.timedelta(days=11)
        revealed = await store.reveal_due_rounds(ids, at, score_daily_round, at + dt.timedelta(minutes=1))
        assert len(revealed) == 4
        ada = await store.streak("test", "space", "ada")
        # day 7 missed: the freeze bridged it (day 8); day 9 missed without one: broken (day 10)
        assert (ada.kept, ada.freezes, ada.freezes_used, ada.current) == (1, 0, 1, 1)

    # ---- the daily rounds' card updates, written after the tick's reveals ---------------------------

    async def test_a_reveal_batch_marks_its_daily_rounds_and_their_cards_are_written_later_once(self, store):
        other = ChannelRef("test", "other", "chan-o")  # (a channel id is one channel of its platform)
        closes = T0 + dt.timedelta(hours=1)
        rounds = []
        for ref, question, users in ((REF, "q1", ("ada", "bo")), (REF2, "q2", ("bo",)), (other, "q1", ("ada",))):
            r = await store.claim_daily_round(ref, DAY, question, "tensors", T0, closes)
            await store.add_answers([ans(r.id, u, 0, correct=u == "ada", at=T0) for u in users], T0)
            rounds.append(r.id)
        silent = await store.claim_daily_round(ChannelRef("test", "other", "chan-o2"), DAY, "q3", "tensors", T0, closes)
        ids = [*rounds, silent.id]
        assert len(await store.reveal_due_rounds(ids, closes, score_daily_round, closes)) == 4
        assert await store.learn_rounds(50, ("test", "space", "cy")) == 0  # cy answered none of them
        # a read of ada's cards in the space first writes the marked rounds she answered there (one)
        [card] = await store.learner_cards("test", "space", "ada")
        assert (card.key.question_id, card.reviews, card.lapses) == ("q1", 1, 0)
        # the tick writes the rest, a space a call: bo's q2 in `space`, then ada's q1 in `other` (the round
        # nobody answered there was not marked); then nothing is left, and the rounds revealed again mark nothing
        assert (await store.learn_rounds(50), await store.learn_rounds(50)) == (1, 1)
        assert await store.learn_rounds(50) == 0
        assert await store.reveal_due_rounds(ids, closes, score_daily_round, closes) == []
        assert await store.learn_rounds(50) == 0
        bo = {c.key.question_id: c for c in await store.learner_cards("test", "space", "bo")}
        assert sorted(bo) == ["q1", "q2"] and all(c.reviews == 1 and c.lapses == 1 for c in bo.values())
        [elsewhere] = await store.learner_cards("test", "other", "ada")
        assert elsewhere.key.question_id == "q1" and elsewhere.reviews == 1  # each card reviewed once
        assert len(await store.review_events("test", "space", "ada")) == 1

    async def test_a_learner_forgotten_before_the_card_updates_loses_theirs_and_keeps_the_others(self, store):
        closes = T0 + dt.timedelta(hours=1)
        r = await store.claim_daily_round(REF, DAY, "q1", "tensors", T0, closes)
        await store.add_answers([ans(r.id, "ada", 0, at=T0), ans(r.id, "bo", 0, at=T0)], T0)
        assert len(await store.reveal_due_rounds([r.id], closes, score_daily_round, closes)) == 1
        await store.forget_learner("test", "space", "ada")  # writes the round's cards first, then forgets hers
        assert await store.learn_rounds(50) == 0
        assert await store.learner_cards("test", "space", "ada") == []
        assert [c.key.question_id for c in await store.learner_cards("test", "space", "bo")] == ["q1"]

    async def test_missed_daily_dates_count_revealed_daily_dates_of_the_space_once_each(self, store):
        await daily(store, 0, {"ada"})
        await daily(store, 1, set())
        await daily(store, 1, set(), ref=REF2)  # a second channel on the same date: one date
        await daily(store, 2, set())
        await store.claim_daily_round(REF, DAY + dt.timedelta(days=3), "q3", "tensors", T0, None)  # not revealed
        first, third = DAY, DAY + dt.timedelta(days=3)
        assert await store.missed_daily_dates("test", "space", first, third, 5) == 2
        assert await store.missed_daily_dates("test", "space", first, third, 1) == 1
        assert await store.missed_daily_dates("test", "space", DAY + dt.timedelta(days=1), third, 5) == 1
        assert await store.missed_daily_dates("test", "other", first, third, 5) == 0

    # ---- what aims the daily pick ------------------------------------------------------------------

    async def test_the_pick_inputs_of_many_spaces_read_as_each_spaces_own_reads(self, store):
        other = ChannelRef("test", "other", "chan")
        await daily(store, 0, {"a", "b"}, {"c"})
        await daily(store, 1, {"a"}, ref=REF2)
        await daily(store, 2, {"b"}, {"a"}, ref=other)
        await store.claim_daily_round(REF, DAY + dt.timedelta(days=3), "q0", "tensors", T0, None)  # open: asked
        for user in ("ann", "bob", "cy"):
            await store.add_report(new(user=user, question="q1"), since=T0.replace(hour=0), daily_limit=5)
        await store.add_report(new(user="ann", question="q2", space="other"), since=T0.replace(hour=0), daily_limit=5)
        assert await store.resolve_reports("test", "other", "q2", "hold", "admin", T0) == 1
        spaces = [("test", "space"), ("test", "other"), ("test", "empty"), ("test", "space")]
        got = await store.daily_pick_inputs(spaces, 3)
        assert set(got) == {("test", "space"), ("test", "other"), ("test", "empty")}
        for platform, space in got:
            counts, last = await store.question_history(platform, space, RoundKind.DAILY)
            rates = await store.daily_answer_rates(platform, space)
            held = await store.held_question_ids(platform, space, 3)
            assert got[(platform, space)] == PickInputs(counts, last, held, rates)
        assert got[("test", "space")].counts == {"q0": 2, "q1": 1} and got[("test", "space")].last == "q0"
        assert got[("test", "space")].held == {"q1"} and got[("test", "other")].held == {"q2"}
        assert got[("test", "other")].rates == SpaceRates({"q2": (2, 1)}, {"chan": (2, 1)})
        assert got[("test", "empty")] == PickInputs({}, None, set(), SpaceRates())
        assert await store.daily_pick_inputs([], 3) == {}

    async def test_answer_rates_follow_each_kind_of_reveal_and_a_forgotten_learner(self, store):
        """The store keeps the rates as rounds are revealed (one round, a batch) and as a learner's answers are
        forgotten: always what the answer log of the space's revealed daily rounds says, each round once."""
        first = await daily(store, 0, {"a", "b"}, {"c"})  # q0 on its own: 3 answers, 2 right
        when = T0 + dt.timedelta(days=1)
        closes = when + dt.timedelta(hours=1)
        r1 = await store.claim_daily_round(REF, DAY + dt.timedelta(days=1), "q0", "tensors", when, closes)
        r2 = await store.claim_daily_round(REF2, DAY + dt.timedelta(days=1), "q1", "tensors", when, closes)
        await store.add_answers(
            [ans(r1.id, "a", 0, correct=True, at=when), ans(r1.id, "c", 1, correct=False, at=when)]
            + [ans(r2.id, "a", 0, correct=True, at=when)],
            when,
        )
        assert await store.daily_answer_rates("test", "space") == SpaceRates({"q0": (3, 2)}, {"chan": (3, 2)})
        revealed = await store.reveal_due_rounds([r1.id, r2.id], closes, score_daily_round, closes)
        assert sorted(r.round.id for r in revealed) == sorted([r1.id, r2.id])
        both = SpaceRates({"q0": (5, 3), "q1": (1, 1)}, {"chan": (5, 3), "chan-2": (1, 1)})
        assert await store.daily_answer_rates("test", "space") == both
        assert not await store.reveal_round(first, closes, score_daily_round)  # revealed already: counted once
        assert await store.reveal_due_rounds([r1.id], closes, score_daily_round, closes) == []
        assert await store.daily_answer_rates("test", "space") == both
        await store.forget_learner("test", "space", "a")  # two right answers to q0, the only answer to q1
        assert await store.daily_answer_rates("test", "space") == SpaceRates({"q0": (3, 1)}, {"chan": (3, 1)})
        inputs = await store.daily_pick_inputs([("test", "space")], 3)
        assert inputs[("test", "space")].rates == SpaceRates({"q0": (3, 1)}, {"chan": (3, 1)})

    async def test_answer_rates_count_revealed_daily_rounds_per_channel_and_question(self, store):
        await daily(store, 0, {"a", "b", "c"}, {"d"})
        await daily(store, 1, {"a"}, {"b"}, ref=REF2)
        open_ = await store.claim_daily_round(REF, DAY + dt.timedelta(days=2), "q0", "tensors", T0, None)
        await store.add_answers([ans(open_.id, "z", 0)], T0)  # open: shows nowhere before its reveal
        practice = await store.create_practice_round(REF, "ada", "q0", "tensors", T0)
        await store.add_answers([ans(practice.id, "ada", 0)], T0)
        assert await store.reveal_round(practice.id, T0, None)  # practice: not a daily answer
        rates = await store.daily_answer_rates("test", "space")
        assert rates == SpaceRates({"q0": (4, 3), "q1": (2, 1)}, {"chan": (4, 3), "chan-2": (2, 1)})
        assert await store.daily_answer_rates("test", "other") == SpaceRates()
