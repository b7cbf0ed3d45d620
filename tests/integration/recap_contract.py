"""The weekly recap's (and issue 13's other) part of the Store contract: every store runs it (SQLite,
PostgreSQL, the fake)."""

from __future__ import annotations

import asyncio
import datetime as dt

from bot.kernel.scoring import score_daily_round
from bot.kernel.values import ChannelConfig, ChannelRef, NewAnswer, Period
from bot.recap.values import RecapRound
from bot.store.settle import SettlingStore

T0 = dt.datetime(2026, 11, 23, 9, 0, tzinfo=dt.UTC)  # a Monday
MON = dt.date(2026, 11, 23)
REF = ChannelRef("test", "space", "chan")
REF2 = ChannelRef("test", "space", "chan-2")
OTHER = ChannelRef("test", "other-space", "chan-9")


async def _day(
    store: SettlingStore,
    ref: ChannelRef,
    offset: int,
    answers: list[tuple[str, bool, int]],
    *,
    reveal: bool = True,
    question: str | None = None,
) -> int:
    """A daily round `offset` days after MON with answers (user, correct, seconds after posting)."""
    day = MON + dt.timedelta(days=offset)
    opened = T0 + dt.timedelta(days=offset)
    round_ = await store.claim_daily_round(ref, day, question or f"q{offset}", f"topic-{offset % 2}", opened, None)
    assert round_ is not None
    if answers:
        await store.add_answers(
            [NewAnswer(round_.id, u, 0 if ok else 1, ok, opened + dt.timedelta(seconds=s)) for u, ok, s in answers],
            opened,
        )
    if reveal:
        assert await store.reveal_round(round_.id, opened + dt.timedelta(hours=20), score_daily_round)
    return round_.id


class RecapContract:
    async def test_recap_day_round_trips_and_defaults_to_monday(self, store):
        await store.save_channel(ChannelConfig(ref=REF))
        assert (await store.get_channel(REF)).recap_day == 0
        await store.save_channel(ChannelConfig(ref=REF, recap_day=None))
        assert (await store.get_channel(REF)).recap_day is None
        await store.save_channel(ChannelConfig(ref=REF, recap_day=6))
        assert (await store.get_channel(REF)).recap_day == 6

    async def test_the_threads_setting_round_trips_and_defaults_to_off(self, store):
        await store.save_channel(ChannelConfig(ref=REF))
        assert (await store.get_channel(REF)).threads is False
        await store.save_channel(ChannelConfig(ref=REF, threads=True, recap_day=None))
        assert await store.get_channel(REF) == ChannelConfig(ref=REF, threads=True, recap_day=None)

    async def test_due_recaps_are_claimed_once_until_the_lease_ends(self, store):
        await store.save_channel(ChannelConfig(ref=REF))
        await store.save_channel(ChannelConfig(ref=REF2, recap_day=None))
        assert [c.ref for c in await store.unscheduled_recaps()] == [REF]
        await store.set_next_recap(REF, T0)
        assert await store.get_next_recap(REF) == T0
        assert await store.unscheduled_recaps() == []
        assert await store.claim_due_recaps(T0 - dt.timedelta(seconds=1), T0, 10) == []
        lease = T0 + dt.timedelta(minutes=5)
        first, second = await asyncio.gather(
            store.claim_due_recaps(T0, lease, 10), store.claim_due_recaps(T0, lease, 10)
        )
        assert sorted([len(first), len(second)]) == [0, 1]
        claimed = (first or second)[0]
        assert claimed.ref == REF and claimed.due_at == T0
        assert await store.claim_due_recaps(T0 + dt.timedelta(minutes=1), lease, 10) == []
        assert len(await store.claim_due_recaps(lease, lease + dt.timedelta(minutes=5), 10)) == 1  # lease ran out
        week = T0 + dt.timedelta(days=7)
        await store.finish_due_recap(REF, T0, week)
        assert await store.get_next_recap(REF) == week
        await store.finish_due_recap(REF, T0, None)  # a stale finish does not move a newer due instant
        assert await store.get_next_recap(REF) == week
        await store.save_channel(ChannelConfig(ref=REF, paused=True))
        assert await store.claim_due_recaps(week, week + dt.timedelta(minutes=5), 10) == []

    async def test_a_week_is_marked_once_and_can_be_released(self, store):
        await store.save_channel(ChannelConfig(ref=REF))
        end = MON + dt.timedelta(days=6)
        results = await asyncio.gather(*(store.mark_recap(REF, end, T0) for _ in range(3)))
        assert sorted(results) == [False, False, True]
        assert await store.mark_recap(REF2, end, T0)  # another channel's week
        assert await store.mark_recap(REF, end + dt.timedelta(days=7), T0)  # the next week
        await store.unmark_recap(REF, end)
        assert await store.mark_recap(REF, end, T0)

    async def test_recap_rounds_count_revealed_daily_answers_in_the_dates(self, store):
        for ref in (REF, REF2, OTHER):
            await store.save_channel(ChannelConfig(ref=ref))
        before = await _day(store, REF, -1, [("ann", True, 5)])  # Sunday before the week
        r0 = await _day(store, REF, 0, [("ann", True, 5), ("bob", False, 9), ("cy", True, 20)])
        r2 = await _day(store, REF, 2, [])  # nobody answered
        await _day(store, REF, 3, [("ann", False, 5)], reveal=False)  # still open: hidden
        r6 = await _day(store, REF2, 6, [("bob", True, 3)])
        await _day(store, OTHER, 1, [("ann", True, 3)])  # another space
        practice = await store.create_practice_round(REF, "ann", "q9", "topic-1", T0)
        await store.add_answers([NewAnswer(practice.id, "ann", 0, True, T0)], T0)
        await store.reveal_round(practice.id, T0, None)
        end = MON + dt.timedelta(days=6)
        rows = await store.recap_rounds("test", "space", MON, end)
        assert rows == [
            RecapRound(r0, MON, "q0", "topic-0", 3, 2),
            RecapRound(r2, MON + dt.timedelta(days=2), "q2", "topic-0", 0, 0),
            RecapRound(r6, MON + dt.timedelta(days=6), "q6", "topic-0", 1, 1),
        ]
        assert [r.round_id for r in await store.recap_rounds("test", "space", MON, end, "chan-2")] == [r6]
        assert [r.round_id for r in await store.recap_rounds("test", "space", MON - dt.timedelta(days=1), MON)] == [
            before,
            r0,
        ]

    async def test_recap_scorers_rank_points_then_who_reached_them_first(self, store):
        await store.save_channel(ChannelConfig(ref=REF))
        # Monday: ann and bob right (10 each, bob first); Tuesday: both right again (ann first), cy wrong
        await _day(store, REF, 0, [("ann", True, 30), ("bob", True, 10)])
        await _day(store, REF, 1, [("bob", True, 50), ("ann", True, 20), ("cy", False, 5)])
        await _day(store, REF, 2, [("dee", False, 5)])
        top = await store.recap_scorers("test", "space", MON, MON + dt.timedelta(days=6), 10)
        # equal points (10 + 11 each, with the streak bonus): ann reached 21 on Tuesday before bob did
        assert [(s.user_id, s.points, s.correct, s.answered) for s in top] == [
            ("ann", 21, 2, 2),
            ("bob", 21, 2, 2),
            ("cy", 0, 0, 1),
            ("dee", 0, 0, 1),
        ]
        assert top[0].reached_at == T0 + dt.timedelta(days=1, seconds=20)
        assert top[2].reached_at == T0 + dt.timedelta(days=1, seconds=5)  # no points: the first answer
        assert len(await store.recap_scorers("test", "space", MON, MON + dt.timedelta(days=6), 1)) == 1
        assert await store.recap_scorers("test", "space", MON, MON + dt.timedelta(days=6), 10, "chan-2") == []

    async def test_leaderboard_ties_are_listed_by_who_reached_the_score_first(self, store):
        await store.save_channel(ChannelConfig(ref=REF))
        # zed answers right 25 s before amy: both have 10 points, zed got there first
        await _day(store, REF, 0, [("amy", True, 30), ("zed", True, 5), ("bea", False, 1)])
        rows = await store.leaderboard("test", "space", Period.WEEK, "2026-W48", 10)
        assert [(r.user_id, r.rank, r.points) for r in rows] == [("zed", 1, 10), ("amy", 1, 10), ("bea", 3, 0)]
        # the next day amy scores again and zed does not: amy leads; a new tie at 10 lists zed (Monday) first
        await _day(store, REF, 1, [("zed", False, 1), ("amy", True, 40), ("cyd", True, 2)])
        rows = await store.leaderboard("test", "space", Period.ALL, "all", 10)
        assert [(r.user_id, r.points) for r in rows] == [("amy", 21), ("zed", 10), ("cyd", 10), ("bea", 0)]
        assert [r.rank for r in rows] == [1, 2, 2, 4]
        assert (await store.rank_of("test", "space", Period.ALL, "all", "cyd")).rank == 2
