"""A space's own question packs and what each round asked (bot.packs.store.PackStore).

Mixed into the store test classes (SQLite, PostgreSQL, the in-memory fake), which give the `store` fixture.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bot.kernel.values import ChannelConfig, ChannelRef, PracticeAnswer
from tests.integration.contract_values import DAY, REF, REF2, T0, ans


class PackContract:
    """A space's own question packs (bot.packs): all or nothing, per space, limited, versioned."""

    async def test_a_pack_is_saved_listed_and_read_in_order(self, store):
        from bot.kernel.errors import PackExists

        rows = [("q2", '{"id": "q2"}'), ("q1", '{"id": "q1"}')]
        assert await store.save_pack("test", "space", "mine", rows, replace=False, max_packs=50, now=T0) == 1
        assert await store.list_packs("test", "space") == [("mine", 2, 1)]
        assert await store.pack_questions("test", "space", "mine") == rows
        assert await store.list_packs("test", "other") == []  # nothing crosses spaces
        assert await store.pack_questions("test", "other", "mine") == []
        with pytest.raises(PackExists):
            await store.save_pack("test", "space", "mine", [("x", "{}")], replace=False, max_packs=50, now=T0)
        assert await store.pack_questions("test", "space", "mine") == rows  # unchanged
        assert await store.save_pack("test", "space", "mine", [("x", "{}")], replace=True, max_packs=50, now=T0) == 2
        assert await store.list_packs("test", "space") == [("mine", 1, 2)]
        assert await store.pack_questions("test", "space", "mine") == [("x", "{}")]

    async def test_a_space_holds_at_most_max_packs(self, store):
        from bot.kernel.errors import PackError

        for name in ("a", "b"):
            await store.save_pack("test", "space", name, [("q", "{}")], replace=False, max_packs=2, now=T0)
        with pytest.raises(PackError, match="most it may hold"):
            await store.save_pack("test", "space", "c", [("q", "{}")], replace=False, max_packs=2, now=T0)
        assert [n for n, _, _ in await store.list_packs("test", "space")] == ["a", "b"]
        # replacing one of them is no new pack; another space has its own limit
        await store.save_pack("test", "space", "a", [("q", "{}")], replace=True, max_packs=2, now=T0)
        await store.save_pack("test", "space-2", "c", [("q", "{}")], replace=False, max_packs=2, now=T0)

    async def test_a_round_keeps_the_question_it_posted(self, store):
        round_ = await store.claim_daily_round(REF, DAY, "mine/q1", "t", T0, T0 + dt.timedelta(hours=1))
        assert await store.round_question(round_.id) is None
        await store.save_round_question(round_.id, '{"v": 1}')
        await store.save_round_question(round_.id, '{"v": 2}')  # the first one stays
        assert await store.round_question(round_.id) == '{"v": 1}'

    async def test_a_channel_keeps_its_packs(self, store):
        await store.save_channel(ChannelConfig(ref=REF, packs=frozenset({"pytorch", "mine"})))
        assert (await store.get_channel(REF)).packs == frozenset({"pytorch", "mine"})
        await store.save_channel(ChannelConfig(ref=REF2))
        assert (await store.get_channel(REF2)).packs == frozenset({"pytorch"})

    async def test_answer_counts_per_question(self, store):
        one = await store.claim_daily_round(REF, DAY, "q1", "t", T0, T0 + dt.timedelta(hours=1))
        two = await store.create_practice_round(REF, "ann", "q1", "t", T0)
        three = await store.claim_daily_round(REF2, DAY, "q2", "t", T0, None)
        other = await store.claim_daily_round(ChannelRef("test", "other", "c"), DAY, "q1", "t", T0, None)
        await store.add_answers(
            [
                ans(one.id, "ann", 0, True),
                ans(one.id, "bob", 2, False),
                ans(one.id, "cy", 2, False),
                ans(two.id, "ann", 1, False),
            ],
            T0,
        )
        for round_ in (one, three, other):
            assert await store.reveal_round(round_.id, T0, None)
        assert await store.reveal_practice([PracticeAnswer(two.id, "ann", False, True, T0)], T0) == [True]
        assert await store.question_answer_counts("test", "space") == [
            ("q1", 2, (1, 1, 2, 0), 1),
            ("q2", 1, (0, 0, 0, 0), 0),
        ]

    async def test_answer_counts_leave_out_open_rounds(self, store):
        """An open round's question, answers and share right stay hidden until its reveal (issue 28)."""
        done = await store.claim_daily_round(REF, DAY, "q1", "t", T0, T0 + dt.timedelta(hours=1))
        await store.add_answers([ans(done.id, "ann", 0, True)], T0)
        assert await store.reveal_round(done.id, T0, None)
        later = DAY + dt.timedelta(days=1)
        again = await store.claim_daily_round(REF, later, "q1", "t", T0, T0 + dt.timedelta(days=1, hours=1))
        today = await store.claim_daily_round(REF2, later, "q2", "t", T0, T0 + dt.timedelta(days=1, hours=1))
        practice = await store.create_practice_round(REF, "bob", "q3", "t", T0)
        await store.add_answers(
            [
                ans(again.id, "bob", 2, False),
                ans(today.id, "ann", 1, True),
                ans(today.id, "bob", 3, False),
                ans(practice.id, "bob", 0, True),
            ],
            T0,
        )
        # only the revealed round of q1 counts; q2 (open today) and q3 (a practice round not revealed yet) do not show
        assert await store.question_answer_counts("test", "space") == [("q1", 1, (1, 0, 0, 0), 1)]
        assert await store.reveal_round(today.id, T0, None)
        assert await store.question_answer_counts("test", "space") == [
            ("q1", 1, (1, 0, 0, 0), 1),
            ("q2", 1, (0, 1, 0, 1), 1),
        ]
