"""The reports contract (bot.reports): every store keeps reports the same way, and decides the daily limit
and the one open report per member and question itself. Runs on SQLite, PostgreSQL and the in-memory fake."""

from __future__ import annotations

import asyncio
import datetime as dt

from bot.reports.values import NewReport, ReportReason, ReportWrite
from tests.integration.contract_values import REF, T0

DAY_START = T0.replace(hour=0)


def new(user: str = "ann", question: str = "q1", at: dt.datetime = T0, space: str = "space", **kw) -> NewReport:
    values = {"pack": "pytorch", "reason": ReportReason.WRONG, "text": "B is right, not C"} | kw
    return NewReport("test", space, question, reporter=user, created_at=at, **values)


class ReportContract:
    async def test_a_report_is_stored_and_read_back(self, store):
        status, rid = await store.add_report(new(text="*bold* <@1> émile"), since=DAY_START, daily_limit=5)
        assert status is ReportWrite.ADDED and rid is not None
        [got] = await store.reports("test", "space")
        assert (got.id, got.question_id, got.pack, got.reporter, got.reason) == (
            rid,
            "q1",
            "pytorch",
            "ann",
            ReportReason.WRONG,
        )
        assert got.text == "*bold* <@1> émile" and got.created_at == T0 and got.is_open
        assert await store.get_report("test", "space", rid) == got
        assert await store.get_report("test", "other", rid) is None  # nothing crosses spaces
        assert await store.reports("test", "other") == []

    async def test_one_open_report_per_member_and_question(self, store):
        assert (await store.add_report(new(), since=DAY_START, daily_limit=5))[0] is ReportWrite.ADDED
        assert await store.add_report(new(), since=DAY_START, daily_limit=5) == (ReportWrite.DUPLICATE, None)
        assert (await store.add_report(new(user="bob"), since=DAY_START, daily_limit=5))[0] is ReportWrite.ADDED
        assert (await store.add_report(new(question="q2"), since=DAY_START, daily_limit=5))[0] is ReportWrite.ADDED
        assert len(await store.reports("test", "space")) == 3
        await store.resolve_reports("test", "space", "q1", "keep", "admin", T0)
        # resolved: the member may report the question again
        assert (await store.add_report(new(), since=DAY_START, daily_limit=5))[0] is ReportWrite.ADDED

    async def test_the_daily_limit_is_counted_in_the_store(self, store):
        for i in range(5):
            assert (await store.add_report(new(question=f"q{i}"), since=DAY_START, daily_limit=5))[
                0
            ] is ReportWrite.ADDED
        assert await store.add_report(new(question="q9"), since=DAY_START, daily_limit=5) == (ReportWrite.LIMIT, None)
        # another member, another space and the next day have their own count
        assert (await store.add_report(new(user="bob", question="q9"), since=DAY_START, daily_limit=5))[0] == "added"
        assert (await store.add_report(new(question="q9", space="s2"), since=DAY_START, daily_limit=5))[0] == "added"
        tomorrow = DAY_START + dt.timedelta(days=1)
        later = new(question="q9", at=tomorrow + dt.timedelta(hours=1))
        assert (await store.add_report(later, since=tomorrow, daily_limit=5))[0] is ReportWrite.ADDED
        assert len([r for r in await store.reports("test", "space", open_only=False) if r.reporter == "ann"]) == 6

    async def test_concurrent_reports_never_pass_the_limit(self, store):
        results = await asyncio.gather(
            *(store.add_report(new(question=f"q{i}"), since=DAY_START, daily_limit=5) for i in range(12))
        )
        assert sum(1 for status, _ in results if status is ReportWrite.ADDED) == 5
        assert len(await store.reports("test", "space")) == 5

    async def test_three_open_reports_hold_a_question_until_resolved(self, store):
        for user in ("ann", "bob"):
            await store.add_report(new(user=user), since=DAY_START, daily_limit=5)
        assert await store.held_question_ids("test", "space", 3) == set()
        await store.add_report(new(user="cy"), since=DAY_START, daily_limit=5)
        assert await store.held_question_ids("test", "space", 3) == {"q1"}
        assert await store.held_question_ids("test", "other", 3) == set()
        assert await store.report_counts("test", "space") == {"q1": (3, 3)}
        assert await store.resolve_reports("test", "space", "q1", "keep", "admin", T0) == 3
        assert await store.held_question_ids("test", "space", 3) == set()
        assert await store.report_counts("test", "space") == {"q1": (3, 0)}
        [first, *_] = await store.reports("test", "space", open_only=False)
        assert (first.status, first.resolution, first.resolved_by, first.resolved_at) == (
            "resolved",
            "keep",
            "admin",
            T0,
        )
        assert await store.reports("test", "space") == []

    async def test_hold_keeps_a_question_held_until_keep(self, store):
        await store.add_report(new(), since=DAY_START, daily_limit=5)
        assert await store.resolve_reports("test", "space", "q1", "hold", "admin", T0) == 1
        assert await store.held_question_ids("test", "space", 3) == {"q1"}  # no open report, still held
        assert await store.resolve_reports("test", "space", "q1", "hold", "admin", T0) == 0  # held once
        assert await store.resolve_reports("test", "space", "q1", "keep", "admin", T0) == 0
        assert await store.held_question_ids("test", "space", 3) == set()

    async def test_the_latest_practice_round_of_a_learner(self, store):
        assert await store.latest_practice_round("test", "space", "ann") is None
        await store.create_practice_round(REF, "ann", "q1", "t", T0)
        second = await store.create_practice_round(REF, "ann", "q2", "t", T0)
        await store.create_practice_round(REF, "bob", "q3", "t", T0)
        got = await store.latest_practice_round("test", "space", "ann")
        assert got is not None and (got.id, got.question_id) == (second.id, "q2")

    async def test_forget_me_deletes_the_members_reports_in_that_space_only(self, store):
        await store.add_report(new(), since=DAY_START, daily_limit=5)
        await store.add_report(new(question="q2"), since=DAY_START, daily_limit=5)
        await store.add_report(new(user="bob"), since=DAY_START, daily_limit=5)
        await store.add_report(new(space="s2"), since=DAY_START, daily_limit=5)
        await store.resolve_reports("test", "space", "q2", "hold", "admin", T0)
        gone = await store.forget_learner("test", "space", "ann")
        assert gone.reports == 2 and gone.anything
        assert [r.reporter for r in await store.reports("test", "space", open_only=False)] == ["bob"]
        assert len(await store.reports("test", "s2")) == 1  # another space keeps hers
        assert await store.held_question_ids("test", "space", 3) == {"q2"}  # the admin's hold names no one
