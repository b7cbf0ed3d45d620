"""Members' question suggestions in the Store contract: every store runs it (SQLite, PostgreSQL, the fake)."""

from __future__ import annotations

import asyncio
import datetime as dt
import json

import pytest

from bot.kernel.errors import PackError
from bot.kernel.values import ChannelRef
from bot.suggestions.values import SuggestionStatus

T0 = dt.datetime(2026, 12, 1, 9, 0, tzinfo=dt.UTC)
DAY = dt.date(2026, 12, 1)
REF = ChannelRef("test", "space", "chan")
OTHER = ChannelRef("test", "other-space", "chan-9")
BODY = json.dumps({"id": "suggestion", "topic": "lore", "prompt": "What is it?", "choices": ["a", "b", "c", "d"]})


class SuggestionContract:
    async def test_a_suggestion_is_stored_pending_and_read_back(self, store):
        s = await store.add_suggestion(REF, "ann", BODY, T0, DAY, 3)
        assert s is not None and s.status is SuggestionStatus.PENDING
        assert (s.ref, s.author_id, s.body, s.created_at) == (REF, "ann", BODY, T0)
        assert s.reason is None and s.decided_by is None and s.question_id is None
        assert await store.get_suggestion("test", "space", s.id) == s
        assert await store.get_suggestion("test", "other-space", s.id) is None  # nothing crosses spaces
        assert await store.list_suggestions("test", "space", "pending", 10) == [s]
        assert await store.list_suggestions("test", "other-space", "pending", 10) == []

    async def test_the_daily_limit_is_per_user_space_and_day(self, store):
        for _ in range(3):
            assert await store.add_suggestion(REF, "ann", BODY, T0, DAY, 3) is not None
        assert await store.add_suggestion(REF, "ann", BODY, T0, DAY, 3) is None  # the 4th: refused
        assert len(await store.list_suggestions("test", "space", "pending", 10)) == 3  # nothing stored
        assert await store.add_suggestion(REF, "bob", BODY, T0, DAY, 3) is not None  # another member
        assert await store.add_suggestion(OTHER, "ann", BODY, T0, DAY, 3) is not None  # another space
        tomorrow = DAY + dt.timedelta(days=1)
        assert await store.add_suggestion(REF, "ann", BODY, T0 + dt.timedelta(days=1), tomorrow, 3) is not None

    async def test_concurrent_suggestions_never_pass_the_limit(self, store):
        made = await asyncio.gather(*(store.add_suggestion(REF, "ann", BODY, T0, DAY, 3) for _ in range(8)))
        assert sum(m is not None for m in made) == 3
        assert len(await store.list_suggestions("test", "space", "pending", 10)) == 3

    async def test_approving_appends_to_the_pack_under_a_fresh_id(self, store):
        await store.save_pack(
            "test",
            "space",
            "suggestions",
            [("suggestion-2", '{"id":"suggestion-2"}')],
            replace=False,
            max_packs=50,
            now=T0,
        )
        first = await store.add_suggestion(REF, "ann", BODY, T0, DAY, 3)
        second = await store.add_suggestion(REF, "ann", BODY, T0, DAY, 3)
        assert first is not None and second is not None
        done = await store.approve_suggestion(
            "test", "space", second.id, "suggestions", "admin", T0, max_packs=50, max_questions=2000
        )
        assert done is not None and done.status is SuggestionStatus.APPROVED
        assert (done.decided_by, done.decided_at) == ("admin", T0)
        expected = f"suggestion-{second.id}" + ("-2" if second.id == 2 else "")
        assert done.question_id == expected
        rows = await store.pack_questions("test", "space", "suggestions")
        assert [q for q, _ in rows] == ["suggestion-2", expected]
        assert json.loads(rows[-1][1])["id"] == expected and json.loads(rows[-1][1])["prompt"] == "What is it?"
        assert await store.list_packs("test", "space") == [("suggestions", 2, 2)]
        # decided once: a second approval or a rejection finds nothing pending
        again = await store.approve_suggestion(
            "test", "space", second.id, "suggestions", "admin", T0, max_packs=50, max_questions=2000
        )
        assert again is None
        assert await store.reject_suggestion("test", "space", second.id, "late", "admin", T0) is None
        assert [s.id for s in await store.list_suggestions("test", "space", "pending", 10)] == [first.id]
        assert [s.id for s in await store.list_suggestions("test", "space", "approved", 10)] == [second.id]

    async def test_the_first_approval_creates_the_pack(self, store):
        s = await store.add_suggestion(REF, "ann", BODY, T0, DAY, 3)
        done = await store.approve_suggestion(
            "test", "space", s.id, "suggestions", "admin", T0, max_packs=50, max_questions=2000
        )
        assert done is not None and await store.list_packs("test", "space") == [("suggestions", 1, 1)]
        assert await store.list_packs("test", "other-space") == []

    async def test_approval_in_another_space_or_beyond_the_limits_changes_nothing(self, store):
        s = await store.add_suggestion(REF, "ann", BODY, T0, DAY, 3)
        assert (
            await store.approve_suggestion(
                "test", "other-space", s.id, "suggestions", "admin", T0, max_packs=50, max_questions=2000
            )
            is None
        )
        await store.save_pack("test", "space", "full", [("q", "{}")], replace=False, max_packs=50, now=T0)
        with pytest.raises(PackError, match="most a pack may hold"):
            await store.approve_suggestion("test", "space", s.id, "full", "admin", T0, max_packs=50, max_questions=1)
        with pytest.raises(PackError, match="most it may hold"):
            await store.approve_suggestion(
                "test", "space", s.id, "suggestions", "admin", T0, max_packs=1, max_questions=2000
            )
        assert (await store.get_suggestion("test", "space", s.id)).status is SuggestionStatus.PENDING
        assert await store.list_packs("test", "space") == [("full", 1, 1)]

    async def test_concurrent_approvals_of_one_suggestion_add_it_once(self, store):
        made = [await store.add_suggestion(REF, "ann", BODY, T0, DAY, 3) for _ in range(2)]
        results = await asyncio.gather(
            *(
                store.approve_suggestion(
                    "test", "space", s.id, "suggestions", admin, T0, max_packs=50, max_questions=2000
                )
                for s in made
                for admin in ("a1", "a2")
            )
        )
        assert sum(r is not None for r in results) == 2
        rows = await store.pack_questions("test", "space", "suggestions")
        assert sorted(q for q, _ in rows) == sorted(f"suggestion-{s.id}" for s in made)

    async def test_a_rejection_keeps_its_reason(self, store):
        s = await store.add_suggestion(REF, "ann", BODY, T0, DAY, 3)
        assert await store.reject_suggestion("test", "other-space", s.id, "no", "admin", T0) is None
        done = await store.reject_suggestion("test", "space", s.id, "Two choices are right.", "admin", T0)
        assert done is not None and done.status is SuggestionStatus.REJECTED
        assert (done.reason, done.decided_by, done.decided_at) == ("Two choices are right.", "admin", T0)
        assert await store.get_suggestion("test", "space", s.id) == done
        assert await store.list_packs("test", "space") == []

    async def test_forget_me_deletes_the_author_s_suggestions_in_that_space_only(self, store):
        mine = await store.add_suggestion(REF, "ann", BODY, T0, DAY, 3)
        await store.add_suggestion(REF, "ann", BODY, T0, DAY, 3)
        await store.approve_suggestion(
            "test", "space", mine.id, "suggestions", "admin", T0, max_packs=50, max_questions=2000
        )
        other = await store.add_suggestion(REF, "bob", BODY, T0, DAY, 3)
        elsewhere = await store.add_suggestion(OTHER, "ann", BODY, T0, DAY, 3)
        forgotten = await store.forget_learner("test", "space", "ann")
        assert forgotten.suggestions == 2 and forgotten.anything
        assert await store.get_suggestion("test", "space", mine.id) is None
        assert [s.id for s in await store.list_suggestions("test", "space", "pending", 10)] == [other.id]
        assert await store.get_suggestion("test", "other-space", elsewhere.id) == elsewhere
        assert len(await store.pack_questions("test", "space", "suggestions")) == 1  # the question stays
        # the day's count stays (forget-me does not reset the limit): one more today, then refused
        assert await store.add_suggestion(REF, "ann", BODY, T0, DAY, 3) is not None
        assert await store.add_suggestion(REF, "ann", BODY, T0, DAY, 3) is None
