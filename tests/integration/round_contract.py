"""Rounds and their answers (bot.daily.store.RoundStore, the kernel's RoundReads, the answer batch).

Run on every store (SQLite, PostgreSQL, the in-memory fake) through StoreContract (store_contract.py).
"""

from __future__ import annotations

import asyncio
import datetime as dt

from bot.daily.values import PostFinish
from bot.kernel.scoring import score_daily_round
from bot.kernel.values import ChannelConfig, ChannelRef, RoundKind
from bot.store import rounds_sql
from tests.integration.contract_values import DAY, REF, REF2, T0, ans


class RoundContract:
    """One daily round per channel and local date, decided in the store; one answer per round and user."""

    async def test_one_daily_round_per_channel_and_local_date(self, store):
        first = await store.claim_daily_round(REF, DAY, "q1", "tensors", T0, None)
        assert first is not None and first.kind is RoundKind.DAILY and first.local_date == DAY
        assert await store.claim_daily_round(REF, DAY, "q2", "tensors", T0, None) is None
        assert await store.claim_daily_round(REF2, DAY, "q2", "tensors", T0, None) is not None
        assert await store.claim_daily_round(REF, DAY + dt.timedelta(days=1), "q2", "tensors", T0, None) is not None

    async def test_concurrent_claims_have_one_winner(self, store):
        results = await asyncio.gather(
            *(store.claim_daily_round(REF, DAY, f"q{i}", "tensors", T0, None) for i in range(20))
        )
        assert sum(r is not None for r in results) == 1

    async def test_past_daily_rounds_are_the_revealed_ones_members_saw_newest_first(self, store):
        async def day(ref, n, answers, *, sent=True, reveal=True):
            r = await store.claim_daily_round(ref, DAY + dt.timedelta(days=n), f"q{n}", "tensors", T0, None)
            await store.finish_posts([PostFinish(r.id, "sent" if sent else "gave_up", f"m{r.id}" if sent else None)])
            await store.add_answers([ans(r.id, user, choice, choice == 1) for user, choice in answers], T0)
            if reveal:
                assert await store.reveal_round(r.id, T0 + dt.timedelta(days=n, hours=1), score_daily_round)
            return r

        first = await day(REF, 0, [("ada", 1), ("bob", 1), ("cyd", 2)])
        other = await day(REF2, 1, [("bob", 0)])
        await day(REF, 2, [], sent=False)  # never reached the channel: members never saw it
        second = await day(REF, 3, [("ada", 3)])
        await day(REF, 4, [("ada", 1)], reveal=False)  # still open: its answers stay hidden
        await store.create_practice_round(REF, "ada", "q-practice", "tensors", T0)
        elsewhere = await store.claim_daily_round(ChannelRef("test", "space-9", "c9"), DAY, "q9", "tensors", T0, None)
        await store.finish_posts([PostFinish(elsewhere.id, "sent", "m-9")])
        assert await store.reveal_round(elsewhere.id, T0, score_daily_round)

        past = await store.past_daily_rounds("test", "space", "ada", limit=10)
        assert [p.round.id for p in past] == [second.id, other.id, first.id]
        assert [(p.chosen, p.mine) for p in past] == [({3: 1}, 3), ({0: 1}, None), ({1: 2, 2: 1}, 1)]
        assert past[2].round == await store.get_round(first.id)
        assert [p.round.id for p in await store.past_daily_rounds("test", "space", "ada", limit=1, offset=1)] == [
            other.id
        ]
        one = await store.past_daily_rounds("test", "space", "bob", limit=10, channel_id=REF.channel_id)
        assert [(p.round.id, p.mine) for p in one] == [(second.id, None), (first.id, 1)]
        assert await store.past_daily_rounds("test", "space", "ada", limit=10, offset=3) == []
        assert await store.past_daily_rounds("other", "space", "ada", limit=10) == []

    async def test_round_fields_round_trip(self, store):
        closes = T0 + dt.timedelta(hours=3)
        r = await store.claim_daily_round(REF, DAY, "q1", "autograd", T0, closes)
        got = await store.get_round(r.id)
        assert got == r
        assert got.opened_at == T0 and got.closes_at == closes and got.opened_at.tzinfo is not None
        assert got.is_open and got.message_id is None
        await store.set_message_id(r.id, "m-1")
        assert (await store.get_round(r.id)).message_id == "m-1"
        assert (await store.round_by_message("test", "m-1")).id == r.id
        assert await store.round_by_message("other", "m-1") is None
        assert await store.get_round(r.id + 1000) is None

    async def test_reactions_read_their_rounds_and_channel_settings_together(self, store, monkeypatch):
        """reaction_rounds: per (platform, message), in the order asked, the latest round posted as it and
        whether its channel takes reaction answers (yes for a channel not stored, a new channel's default);
        None for a message of no round or of another platform. SQL stores split a long list (here into
        lists of two)."""
        monkeypatch.setattr(rounds_sql, "IDS_PER_STATEMENT", 2)
        r1 = await store.claim_daily_round(REF, DAY, "q1", "autograd", T0, None)
        r2 = await store.claim_daily_round(REF2, DAY, "q2", "tensors", T0, None)
        r3 = await store.create_practice_round(REF, "ada", "q3", "autograd", T0)
        for r, message in ((r1, "m-1"), (r2, "m-2"), (r3, "m-3")):
            await store.set_message_id(r.id, message)
        one, two, three = [await store.get_round(r.id) for r in (r1, r2, r3)]
        await store.save_channel(ChannelConfig(ref=REF2, reactions=False))
        asked = [("test", "m-2"), ("test", "m-9"), ("test", "m-1"), ("other", "m-1"), ("test", "m-3"), ("test", "m-2")]
        assert await store.reaction_rounds(asked) == [
            (two, False),
            None,
            (one, True),
            None,
            (three, True),
            (two, False),
        ]
        await store.save_channel(ChannelConfig(ref=REF, reactions=False))
        assert await store.reaction_rounds([("test", "m-1")]) == [(one, False)]
        assert await store.reaction_rounds([]) == []

    async def test_rounds_are_read_together_in_the_order_asked(self, store, monkeypatch):
        """get_rounds: one round per id asked, in that order, None for an id not stored, the same round again
        for an id asked twice; SQL stores split a long list (here into lists of two)."""
        monkeypatch.setattr(rounds_sql, "IDS_PER_STATEMENT", 2)
        r1 = await store.claim_daily_round(REF, DAY, "q1", "tensors", T0, None)
        r2 = await store.create_practice_round(REF, "ada", "q2", "autograd", T0)
        r3 = await store.claim_daily_round(REF2, DAY, "q3", "tensors", T0, T0 + dt.timedelta(days=1))
        missing = r3.id + 1000
        got = await store.get_rounds([r3.id, missing, r1.id, r2.id, r3.id])
        assert got == [r3, None, r1, r2, r3]
        assert got[2] == await store.get_round(r1.id) and got[1] is None
        assert await store.get_rounds([]) == []

    async def test_open_and_latest_daily_rounds(self, store):
        r1 = await store.claim_daily_round(REF, DAY, "q1", "tensors", T0, None)
        r2 = await store.claim_daily_round(REF, DAY + dt.timedelta(days=1), "q2", "tensors", T0, None)
        await store.create_practice_round(REF, "ada", "q3", "tensors", T0)
        assert [r.id for r in await store.open_daily_rounds(REF)] == [r1.id, r2.id]
        await store.reveal_round(r1.id, T0, None)
        assert [r.id for r in await store.open_daily_rounds(REF)] == [r2.id]
        assert [r.id for r in await store.open_daily_rounds()] == [r2.id]
        r3 = await store.claim_daily_round(REF2, DAY, "q4", "tensors", T0, T0 + dt.timedelta(days=1))
        assert [r.id for r in await store.open_daily_rounds(unpromised=True)] == [r2.id]  # r3 has a promise
        assert [r.id for r in await store.open_daily_rounds(REF2, unpromised=True)] == []
        assert [r.id for r in await store.open_daily_rounds(REF2)] == [r3.id]
        assert (await store.latest_daily_round(REF)).id == r2.id
        assert await store.latest_daily_round(REF2) is not None

    async def test_question_counts_and_last_question(self, store):
        for i, q in enumerate(["a", "b", "a"]):
            await store.claim_daily_round(REF, DAY + dt.timedelta(days=i), q, "tensors", T0, None)
        await store.create_practice_round(REF, "ada", "c", "tensors", T0)
        await store.create_practice_round(REF, "bob", "d", "tensors", T0)
        assert await store.question_counts("test", "space", RoundKind.DAILY) == {"a": 2, "b": 1}
        assert await store.question_counts("test", "space", RoundKind.PRACTICE, "ada") == {"c": 1}
        assert await store.last_question_id("test", "space", RoundKind.DAILY) == "a"
        assert await store.last_question_id("test", "space", RoundKind.PRACTICE, "bob") == "d"
        assert await store.last_question_id("test", "other", RoundKind.DAILY) is None
        # both at once (what the next pick reads)
        assert await store.question_history("test", "space", RoundKind.DAILY) == ({"a": 2, "b": 1}, "a")
        assert await store.question_history("test", "space", RoundKind.PRACTICE, "bob") == ({"d": 1}, "d")
        assert await store.question_history("test", "other", RoundKind.DAILY) == ({}, None)

    async def test_open_channel_question_ids_of_a_space(self, store):
        r = await store.claim_daily_round(REF, DAY, "q1", "tensors", T0, None)
        await store.claim_daily_round(ChannelRef("test", "other", "c"), DAY, "q2", "tensors", T0, None)
        await store.create_practice_round(REF, "ada", "q3", "tensors", T0)
        assert await store.open_channel_question_ids("test", "space") == {"q1"}
        await store.reveal_round(r.id, T0, None)
        assert await store.open_channel_question_ids("test", "space") == set()

    async def test_a_round_without_a_promise_gets_one_once(self, store):
        r = await store.claim_daily_round(REF, DAY, "q1", "tensors", T0, None)
        promise = T0 + dt.timedelta(days=1)
        await store.set_reveal_at(r.id, promise)
        await store.set_reveal_at(r.id, promise + dt.timedelta(hours=1))  # a promise, once given, stays
        assert (await store.get_round(r.id)).closes_at == promise
        assert [x.id for x in await store.due_reveals(promise, 10)] == [r.id]

    # ---- answers ---------------------------------------------------------------------------------
    async def test_answer_statuses(self, store):
        r = await store.claim_daily_round(REF, DAY, "q1", "tensors", T0, None)
        done = await store.claim_daily_round(REF2, DAY, "q1", "tensors", T0, None)
        await store.reveal_round(done.id, T0, None)
        writes = await store.add_answers(
            [ans(r.id, "ada", 2), ans(r.id, "bob", 1), ans(r.id, "ada", 3), ans(done.id, "cy"), ans(10_000, "dee")],
            T0,
        )
        assert [w.status for w in writes] == ["recorded", "recorded", "duplicate", "closed", "unknown"]
        assert writes[2].existing_choice == 2
        again = await store.add_answers([ans(r.id, "bob", 0)], T0)
        assert again[0].status == "duplicate" and again[0].existing_choice == 1
        got = await store.get_answer(r.id, "ada")
        assert got.choice == 2 and got.correct and got.points is None and got.answered_at == T0
        assert [a.user_id for a in await store.round_answers(r.id)] == ["ada", "bob"]
        # a batch with one answer stored before: the others are still written, each once
        mixed = await store.add_answers([ans(r.id, "cy", 3), ans(r.id, "bob", 2), ans(r.id, "dee", 0)], T0)
        assert [(w.status, w.existing_choice) for w in mixed] == [
            ("recorded", None),
            ("duplicate", 1),
            ("recorded", None),
        ]
        assert {a.user_id: a.choice for a in await store.round_answers(r.id)} == {"ada": 2, "bob": 1, "cy": 3, "dee": 0}

    async def test_answers_after_the_window_are_closed(self, store):
        r = await store.claim_daily_round(REF, DAY, "q1", "tensors", T0, T0 + dt.timedelta(hours=1))
        assert (await store.add_answers([ans(r.id, "ada")], T0 + dt.timedelta(minutes=59)))[0].status == "recorded"
        assert (await store.add_answers([ans(r.id, "bob")], T0 + dt.timedelta(hours=1)))[0].status == "closed"

    async def test_a_large_batch_is_written_in_one_call(self, store):
        r = await store.claim_daily_round(REF, DAY, "q1", "tensors", T0, None)
        batch = [ans(r.id, f"u{i}", i % 4, i % 2 == 0) for i in range(2500)]
        writes = await store.add_answers(batch, T0)
        assert all(w.status == "recorded" for w in writes) and len(writes) == 2500
        assert len(await store.round_answers(r.id)) == 2500
        # a large batch with a few answers stored before (written again in chunks, learning which went in)
        again = [ans(r.id, f"u{i}", 3, False) for i in range(2400, 5000)]
        writes = await store.add_answers(again, T0)
        assert [w.status for w in writes] == ["duplicate"] * 100 + ["recorded"] * 2500
        assert {w.existing_choice for w in writes[:100]} == {i % 4 for i in range(2400, 2500)}
        assert len(await store.round_answers(r.id)) == 5000

    async def test_concurrent_batches_for_the_same_user_record_once(self, store):
        r = await store.claim_daily_round(REF, DAY, "q1", "tensors", T0, None)
        results = await asyncio.gather(*(store.add_answers([ans(r.id, "ada", i % 4)], T0) for i in range(8)))
        assert sorted(w[0].status for w in results).count("recorded") == 1
        assert len(await store.round_answers(r.id)) == 1
