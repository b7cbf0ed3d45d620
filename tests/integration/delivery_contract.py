"""The durable daily work of the tick: claims with leases and their outcomes, one by one and by the
batch (bot.daily.store.DeliveryStore, and the next due post of ChannelStore).

Run on every store (SQLite, PostgreSQL, the in-memory fake) through StoreContract (store_contract.py).
"""

from __future__ import annotations

import asyncio
import datetime as dt

import pytest

from bot.daily.values import DueFinish, PostFinish, RevealFinish
from bot.kernel.scoring import score_daily_round
from bot.kernel.values import ChannelConfig, ChannelRef, Period
from tests.integration.contract_values import DAY, REF, REF2, T0, ans


class DeliveryContract:
    """Every process runs the same tick: each due post, send and reveal is claimed once per lease."""

    async def test_next_posts_are_claimed_once_per_lease_and_follow_config_changes(self, store):
        later = T0 + dt.timedelta(days=1)
        for ref in (REF, REF2):
            await store.save_channel(ChannelConfig(ref=ref))
        assert [c.ref for c in await store.unscheduled_channels()] == [REF, REF2]
        await store.set_next_post(REF, T0)
        await store.set_next_post(REF2, T0 + dt.timedelta(minutes=5))
        assert await store.get_next_post(REF) == T0 and await store.unscheduled_channels() == []
        lease = T0 + dt.timedelta(minutes=2)
        assert await store.claim_due_channels(T0 - dt.timedelta(seconds=1), lease, 10) == []
        claims = await asyncio.gather(*(store.claim_due_channels(T0, lease, 10) for _ in range(8)))
        assert sorted(len(c) for c in claims) == [0] * 7 + [1]
        (due,) = [c for batch in claims for c in batch]
        assert due.ref == REF and due.due_at == T0
        assert await store.claim_due_channels(T0 + dt.timedelta(minutes=1), lease, 10) == []  # leased
        # the lease ran out (the claimer died): another process takes it
        again = await store.claim_due_channels(lease, lease + dt.timedelta(minutes=2), 10)
        assert [d.ref for d in again] == [REF]
        await store.finish_due_channels([DueFinish(REF, T0, later)])
        assert await store.get_next_post(REF) == later
        five = T0 + dt.timedelta(minutes=5)
        assert [d.ref for d in await store.claim_due_channels(five, five + dt.timedelta(minutes=2), 10)] == [REF2]
        # a config change while a claim is held wins over the claimer's finish
        await store.set_next_post(REF2, later + dt.timedelta(hours=1))
        await store.finish_due_channels([DueFinish(REF2, T0 + dt.timedelta(minutes=5), later)])
        assert await store.get_next_post(REF2) == later + dt.timedelta(hours=1)
        # paused channels are never claimed; None means nothing is due
        await store.save_channel(ChannelConfig(ref=REF, paused=True))
        assert [d.ref for d in await store.claim_due_channels(later + dt.timedelta(days=1), lease, 10)] == [REF2]
        await store.set_next_post(REF, None)
        assert await store.get_next_post(REF) is None

    async def test_channels_due_at_one_instant_are_claimed_a_space_at_a_time(self, store):
        # saved and scheduled interleaved across three spaces (as updates leave them in a table), claimed in
        # space order: a batch of posts then holds whole spaces (one read of each space's pick inputs)
        refs = [ChannelRef("slack", f"T{k % 3}", f"c{k}") for k in range(9)]
        for ref in refs:
            await store.save_channel(ChannelConfig(ref=ref))
            await store.set_next_post(ref, T0)
        await store.save_channel(ChannelConfig(ref=ChannelRef("slack", "T0", "early")))
        await store.set_next_post(ChannelRef("slack", "T0", "early"), T0 - dt.timedelta(minutes=1))
        lease = T0 + dt.timedelta(minutes=2)
        first = await store.claim_due_channels(T0, lease, 4)
        assert [(d.ref.space_id, d.ref.channel_id) for d in first] == [
            ("T0", "early"),  # the earliest due first, whatever its space
            ("T0", "c0"),
            ("T0", "c3"),
            ("T0", "c6"),
        ]
        second = await store.claim_due_posts(T0, lease, 3)
        assert [d.due.ref.space_id for d in second] == ["T1"] * 3
        third = await store.claim_due_channels(T0, lease, 10)
        assert {d.ref.space_id for d in third} == {"T2"} and len(third) == 3

    async def test_claims_keep_to_the_spaces_given(self, store):
        from bot.kernel.values import SpaceFilter

        mine = ChannelRef("discord", str(1 << 22), "c1")  # shard 1 of 2
        theirs = ChannelRef("discord", str(2 << 22), "c2")  # shard 0 of 2
        own = ChannelRef("discord", "user:77", "dm-77")  # a learner's own space (DMs): shard 0, like DM events
        other = ChannelRef("slack", "T1", "c3")
        for ref in (mine, theirs, own, other):
            await store.save_channel(ChannelConfig(ref=ref))
            await store.set_next_post(ref, T0)
            await store.claim_daily_round(ref, DAY, "q1", "tensors", T0, T0 + dt.timedelta(hours=1))
        shard1 = SpaceFilter(shard_count=2, shard_ids=(1,))
        lease = T0 + dt.timedelta(minutes=2)
        assert {d.ref for d in await store.claim_due_channels(T0, lease, 10, shard1)} == {mine, other}
        assert {c.round.ref for c in await store.claim_posts(T0, lease, 10, spaces=shard1)} == {mine, other}
        late = T0 + dt.timedelta(hours=2)
        assert {r.ref for r in await store.due_reveals(late, 10, SpaceFilter(platforms=("slack",)))} == {other}
        assert {r.ref for r in await store.due_reveals(late, 10, SpaceFilter(shard_count=2, shard_ids=(0,)))} == {
            theirs,
            own,
            other,
        }
        assert SpaceFilter(shard_count=2, shard_ids=(0,))(own) and not shard1(own)

    async def test_unscheduled_channels_and_recaps_of_the_spaces_given(self, store):
        from bot.kernel.values import SpaceFilter

        mine = ChannelRef("discord", str(1 << 22), "c1")  # shard 1 of 2
        theirs = ChannelRef("discord", str(2 << 22), "c2")  # shard 0 of 2
        other = ChannelRef("slack", "T1", "c3")
        for ref in (mine, theirs, other):
            await store.save_channel(ChannelConfig(ref=ref))  # the recap is on by default
        shard1 = SpaceFilter(shard_count=2, shard_ids=(1,))
        slack = SpaceFilter(platforms=("slack",))
        assert [c.ref for c in await store.unscheduled_channels(shard1)] == [mine, other]
        assert [c.ref for c in await store.unscheduled_channels(slack)] == [other]
        assert [c.ref for c in await store.unscheduled_recaps(shard1)] == [mine, other]
        assert [c.ref for c in await store.unscheduled_recaps(slack)] == [other]
        assert [c.ref for c in await store.unscheduled_recaps()] == [mine, theirs, other]

    async def test_a_post_is_claimed_sent_once_retried_after_a_failure_and_doubted_after_a_crash(self, store):
        lease = T0 + dt.timedelta(minutes=2)
        r = await store.claim_daily_round(REF, DAY, "q1", "tensors", T0, T0 + dt.timedelta(days=1), lease_until=lease)
        assert r.post_state == "sending" and not r.is_posted
        assert await store.claim_posts(T0, lease, 10) == []  # the poster holds it
        assert await store.claim_posts(T0, lease, 10, round_id=r.id, force=True) == []  # even post-now waits
        # the poster died mid-send: after the lease, the round is claimed again, in doubt
        (claim,) = await store.claim_posts(lease, lease + dt.timedelta(minutes=2), 10)
        assert claim.round.id == r.id and claim.attempts == 2 and claim.doubtful and claim.doubts == 1
        retry = lease + dt.timedelta(minutes=10)
        await store.finish_posts([PostFinish(r.id, "failed", retry_at=retry)])
        assert await store.claim_posts(lease + dt.timedelta(minutes=5), retry, 10) == []  # backing off
        (forced,) = await store.claim_posts(lease + dt.timedelta(minutes=5), retry, 10, round_id=r.id, force=True)
        assert forced.attempts == 3 and not forced.doubtful and forced.doubts == 1
        await store.finish_posts([PostFinish(r.id, "sent", message_id="m1")])
        got = await store.get_round(r.id)
        assert got.message_id == "m1" and got.post_state == "sent" and got.is_posted
        assert await store.claim_posts(retry + dt.timedelta(days=1), retry, 10) == []
        # a claim without a lease (e.g. no platform ran) is work for the next tick
        r2 = await store.claim_daily_round(REF2, DAY, "q2", "tensors", T0, None)
        assert r2.post_state == "due"
        assert [c.round.id for c in await store.claim_posts(T0, lease, 10)] == [r2.id]

    async def test_due_reveals_and_reveal_sends(self, store):
        closes = T0 + dt.timedelta(hours=1)
        r = await store.claim_daily_round(REF, DAY, "q1", "tensors", T0, closes)
        await store.create_practice_round(REF, "ada", "q2", "tensors", T0)
        assert await store.due_reveals(closes - dt.timedelta(seconds=1), 10) == []
        assert [x.id for x in await store.due_reveals(closes, 10)] == [r.id]
        lease = closes + dt.timedelta(minutes=2)
        assert await store.claim_reveals(closes, lease, 10) == []  # not settled yet
        assert await store.reveal_round(r.id, closes, None)
        assert await store.due_reveals(closes, 10) == []
        claims = await asyncio.gather(*(store.claim_reveals(closes, lease, 10) for _ in range(4)))
        assert sorted(len(c) for c in claims) == [0, 0, 0, 1]
        await store.finish_reveals([RevealFinish(r.id, "failed", retry_at=lease)])
        (again,) = await store.claim_reveals(lease, lease + dt.timedelta(minutes=2), 10, round_id=r.id)
        assert again.attempts == 2 and not again.doubtful
        await store.finish_reveals([RevealFinish(r.id, "sent")])
        assert await store.claim_reveals(lease + dt.timedelta(days=1), lease, 10) == []

    async def test_answer_counts_of_the_rounds_asked(self, store):
        closes = T0 + dt.timedelta(hours=1)
        r1 = await store.claim_daily_round(REF, DAY, "q1", "tensors", T0, closes)
        r2 = await store.claim_daily_round(REF2, DAY, "q1", "tensors", T0, closes)
        r3 = await store.claim_daily_round(REF, DAY + dt.timedelta(days=1), "q2", "tensors", T0, closes)
        await store.add_answers([ans(r1.id, u) for u in ("ada", "bob", "cy")] + [ans(r2.id, "ada")], T0)
        assert await store.answer_counts([r1.id, r2.id, r3.id, r1.id]) == {r1.id: 3, r2.id: 1}  # none: left out
        assert await store.answer_counts([r2.id]) == {r2.id: 1}
        assert await store.answer_counts([]) == {}

    # ---- the same durable work by the batch (the tick's fan-out) -----------------------------------
    async def test_due_posts_are_claimed_by_the_batch_with_their_settings_and_open_rounds(self, store):

        later = T0 + dt.timedelta(days=1)
        for ref in (REF, REF2):
            await store.save_channel(ChannelConfig(ref=ref, timezone="Asia/Tokyo"))
            await store.set_next_post(ref, T0)
        old = await store.claim_daily_round(REF, DAY - dt.timedelta(days=1), "q1", "tensors", T0, T0)
        done = await store.claim_daily_round(REF, DAY - dt.timedelta(days=2), "q2", "tensors", T0, T0)
        await store.reveal_round(done.id, T0, None)
        await store.claim_daily_round(REF2, DAY, "q3", "tensors", T0, None)
        await store.create_practice_round(REF, "ada", "q4", "tensors", T0)
        lease = T0 + dt.timedelta(minutes=2)
        assert await store.claim_due_posts(T0 - dt.timedelta(seconds=1), lease, 10) == []
        claims = await asyncio.gather(*(store.claim_due_posts(T0, lease, 10) for _ in range(6)))
        assert sorted(len(c) for c in claims) == [0] * 5 + [2]  # once, whoever asks
        (batch,) = [c for c in claims if c]
        assert [p.due.ref for p in batch] == [REF, REF2] and {p.due.due_at for p in batch} == {T0}
        assert [p.config.timezone for p in batch] == ["Asia/Tokyo"] * 2
        assert [r.id for r in batch[0].open_rounds] == [old.id]  # open daily rounds only
        assert [r.question_id for r in batch[1].open_rounds] == ["q3"]
        assert await store.claim_due_posts(T0 + dt.timedelta(minutes=1), lease, 10) == []  # leased
        # a config change while the claim is held wins over the claimer's finish; the others move on
        await store.set_next_post(REF2, later + dt.timedelta(hours=1))
        await store.finish_due_channels([DueFinish(REF, T0, later), DueFinish(REF2, T0, later)])
        assert await store.get_next_post(REF) == later
        assert await store.get_next_post(REF2) == later + dt.timedelta(hours=1)
        assert [p.due.ref for p in await store.claim_due_posts(later, later + (lease - T0), 1)] == [REF]  # limit 1

    async def test_daily_rounds_are_claimed_by_the_batch_each_slot_once(self, store):
        from bot.daily.values import DailyClaim

        lease = T0 + dt.timedelta(minutes=2)
        taken = await store.claim_daily_round(REF2, DAY, "q0", "tensors", T0, None)
        other = ChannelRef("test", "space-b", "c3")
        closes = T0 + dt.timedelta(days=1)
        claims = [
            DailyClaim(REF, DAY, "q1", "tensors", T0, closes, lease_until=lease),
            DailyClaim(REF2, DAY, "q2", "autograd", T0, closes, lease_until=lease),  # the slot is taken
            DailyClaim(other, DAY, "q3", "autograd", T0, None),
        ]
        got = await store.claim_daily_rounds(claims)
        assert got[1] is None and got[0] is not None and got[2] is not None
        assert (got[0].ref, got[0].local_date, got[0].question_id, got[0].topic) == (REF, DAY, "q1", "tensors")
        assert got[0].closes_at == closes and got[0].post_state == "sending" and got[0].opened_at == T0
        assert (got[2].ref, got[2].closes_at, got[2].post_state) == (other, None, "due")
        assert await store.get_round(got[0].id) == got[0] and await store.get_round(got[2].id) == got[2]
        assert (await store.latest_daily_round(REF2)).id == taken.id
        # claimed with a lease, as claim_daily_round does: the poster holds it
        assert [c.round.id for c in await store.claim_posts(T0, lease, 10)] == [taken.id, got[2].id]
        assert await store.claim_daily_rounds(claims[:1]) == [None]
        assert await store.claim_daily_rounds([]) == []

    async def test_due_rounds_are_revealed_by_the_batch_with_their_answers_and_reveal_claims(self, store):

        closes = T0 + dt.timedelta(hours=1)
        await store.save_channel(ChannelConfig(ref=REF, ping_winners=True))
        r1 = await store.claim_daily_round(REF, DAY, "q1", "tensors", T0, closes)
        r2 = await store.claim_daily_round(REF2, DAY, "q2", "tensors", T0, closes)
        r3 = await store.claim_daily_round(REF, DAY - dt.timedelta(days=1), "q3", "tensors", T0, closes)
        await store.finish_posts([PostFinish(r1.id, "sent", message_id="m1"), PostFinish(r2.id, "sent")])
        await store.add_answers([ans(r1.id, "bob", 1, False), ans(r1.id, "ada"), ans(r2.id, "cy")], T0)
        await store.reveal_round(r3.id, closes, None)  # already revealed: not in the batch's result
        lease = closes + dt.timedelta(minutes=2)
        got = await store.reveal_due_rounds([r2.id, r3.id, r1.id], closes, score_daily_round, lease)
        assert [g.round.id for g in got] == [r2.id, r1.id]
        assert all(g.round.revealed_at == closes for g in got)
        assert [[a.user_id for a in g.answers] for g in got] == [["cy"], ["ada", "bob"]]
        assert got[0].config is None and got[1].config.ping_winners
        assert [(g.claim.round.id, g.claim.attempts, g.claim.doubtful) for g in got] == [
            (r2.id, 1, False),
            (r1.id, 1, False),
        ]
        assert got[1].claim.round.message_id == "m1"
        board = {row.user_id: row.correct for row in await store.leaderboard("test", "space", Period.ALL, "all", 10)}
        assert board == {"ada": 1, "bob": 0, "cy": 1}  # scored once
        assert await store.reveal_due_rounds([r1.id, r2.id], closes, score_daily_round, lease) == []
        # the batch holds its reveal posts (r3's, revealed alone, is still to claim)
        assert [c.round.id for c in await store.claim_reveals(closes, lease, 10)] == [r3.id]
        await store.finish_reveals(
            [RevealFinish(r1.id, "sent"), RevealFinish(r2.id, "failed", retry_at=lease), RevealFinish(r3.id, "none")]
        )
        (again,) = await store.claim_reveals(lease, lease + dt.timedelta(minutes=2), 10)
        assert again.round.id == r2.id and again.attempts == 2
        assert await store.reveal_due_rounds([], closes, score_daily_round, lease) == []

    async def test_a_reveal_batch_scores_as_its_rounds_revealed_one_by_one(self, store):
        """Rounds of one space in one batch, out of date order, the same users answering each, two asking one
        question: points, streaks (over the dates revealed before each round), boards and cards come out as
        when each round is revealed alone, in the same order."""
        from bot.kernel.scoring import period_keys

        closes = T0 + dt.timedelta(days=4)

        async def play(space: str, batch: bool) -> object:
            refs = [ChannelRef("test", space, f"{space}-{i}") for i in range(3)]
            for i, ref in enumerate(refs):
                await store.save_channel(ChannelConfig(ref=ref, speed_bonus=i != 1))
            old = await store.claim_daily_round(refs[0], DAY - dt.timedelta(days=1), "q0", "tensors", T0, closes)
            await store.add_answers([ans(old.id, "ada")], T0)
            await store.reveal_round(old.id, closes, score_daily_round)
            days = [DAY + dt.timedelta(days=2), DAY, DAY + dt.timedelta(days=1)]
            rounds = [
                await store.claim_daily_round(ref, day, q, "tensors", T0, closes)
                for ref, day, q in zip(refs, days, ["q1", "q2", "q1"], strict=True)
            ]
            for i, r in enumerate(rounds):
                later = T0 + dt.timedelta(seconds=i)
                await store.add_answers([ans(r.id, "ada", at=later), ans(r.id, "bob", 1, i == 1, later)], T0)
            await store.mark_unsure(rounds[1].id, "ada")
            ids = [r.id for r in rounds]
            if batch:
                got = await store.reveal_due_rounds(ids, closes, score_daily_round, closes)
                assert [g.round.id for g in got] == ids
                assert [[(a.user_id, a.points) for a in g.answers] for g in got] == [
                    [(a.user_id, a.points) for a in await store.round_answers(rid)] for rid in ids
                ]
            else:
                for rid in ids:
                    assert await store.reveal_round(rid, closes, score_daily_round)
            points = [sorted((a.user_id, a.points) for a in await store.round_answers(rid)) for rid in ids]
            streaks = [await store.streak("test", space, u) for u in ("ada", "bob")]
            boards = [
                await store.leaderboard("test", space, period, key, 10)
                for day in days
                for period, key in period_keys(day)
            ]
            ranks = [  # from the score buckets, which the batch moves once for its three rounds
                await store.rank_of("test", space, period, key, u)
                for day in days
                for period, key in period_keys(day)
                for u in ("ada", "bob", "cy")
            ]
            cards = [
                [(c.key.user_id, c.key.question_id, c.state, c.stability, c.due, c.reviews, c.confident_miss)]
                for u in ("ada", "bob")
                for c in await store.learner_cards("test", space, u)
            ]
            return points, streaks, boards, ranks, cards

        alone = await play("alone", batch=False)
        assert await play("batch", batch=True) == alone
        assert alone[1][0] is not None and alone[1][0].best >= 2
        ada, bob = alone[3][-3:-1]  # all time: the round revealed first, then three (bob right in one)
        assert (ada.rank, ada.answered, bob.rank, bob.points, bob.correct, bob.answered) == (1, 4, 2, 10, 1, 3)
        assert alone[3][-1] is None  # cy answered nothing

    async def test_a_batch_without_a_scorer_marks_only_answered_daily_rounds_for_their_card_updates(self, store):
        closes = T0 + dt.timedelta(hours=1)
        answered = await store.claim_daily_round(REF, DAY, "q1", "tensors", T0, closes)
        quiet = await store.claim_daily_round(REF2, DAY, "q2", "tensors", T0, closes)
        await store.add_answers([ans(answered.id, "ada")], T0)
        got = await store.reveal_due_rounds([answered.id, quiet.id], closes, None, closes)
        assert [g.round.id for g in got] == [answered.id, quiet.id]
        assert await store.learn_rounds(10) == 1  # the answered round's cards; the quiet one was never marked
        assert await store.learn_rounds(10) == 0
        assert [c.key.question_id for c in await store.learner_cards("test", "space", "ada")] == ["q1"]

    async def test_a_failed_batch_reveal_reveals_none_of_its_rounds(self, store):
        closes = T0 + dt.timedelta(hours=1)
        r1 = await store.claim_daily_round(REF, DAY, "q1", "tensors", T0, closes)
        r2 = await store.claim_daily_round(REF2, DAY, "q2", "tensors", T0, closes)
        await store.add_answers([ans(r1.id, "ada"), ans(r2.id, "ada")], T0)
        seen: list[int] = []

        def scorer(inp):  # type: ignore[no-untyped-def]
            seen.append(inp.round.id)
            if len(seen) == 2:
                raise RuntimeError("boom")
            return score_daily_round(inp)

        with pytest.raises(RuntimeError):
            await store.reveal_due_rounds([r1.id, r2.id], closes, scorer, closes + dt.timedelta(minutes=2))
        assert seen == [r1.id, r2.id]
        assert {r.id for r in await store.due_reveals(closes, 10)} == {r1.id, r2.id}
        assert await store.leaderboard("test", "space", Period.ALL, "all", 10) == []

    async def test_outcomes_in_one_batch_apply_in_the_order_given_even_for_one_round_twice(self, store):
        """A batch of finishes is one write; one that names a round (or a channel) twice applies its rows in
        order: the later state wins, and a message id is never dropped for a later row without one."""
        r1 = await store.claim_daily_round(REF, DAY, "q1", "tensors", T0, None, lease_until=T0)
        r2 = await store.claim_daily_round(REF2, DAY, "q2", "tensors", T0, None, lease_until=T0)
        retry = T0 + dt.timedelta(minutes=1)
        await store.finish_posts([PostFinish(r2.id, "failed", retry_at=retry), PostFinish(r1.id, "sent", "m1")])
        assert (await store.get_round(r1.id)).message_id == "m1"
        assert (await store.get_round(r1.id)).post_state == "sent"
        assert (await store.get_round(r2.id)).post_state == "failed"
        assert [c.round.id for c in await store.claim_posts(retry, retry + dt.timedelta(minutes=1), 10)] == [r2.id]
        await store.finish_posts([PostFinish(r2.id, "sent", "m2"), PostFinish(r2.id, "sent")])
        assert (await store.get_round(r2.id)).message_id == "m2"
        later = T0 + dt.timedelta(days=1)
        for ref in (REF, REF2):
            await store.save_channel(ChannelConfig(ref=ref))
            await store.set_next_post(ref, T0)
        after = later + dt.timedelta(days=1)
        await store.finish_due_channels([DueFinish(REF, T0, later), DueFinish(REF, later, after)])
        assert await store.get_next_post(REF) == after  # the second row saw the first's
        await store.finish_due_channels([DueFinish(REF2, T0, later), DueFinish(REF, T0, T0)])  # REF moved on
        assert (await store.get_next_post(REF), await store.get_next_post(REF2)) == (after, later)
