"""The Store contract: every store implementation runs this suite unchanged.

A subclass provides a `store` fixture that yields an opened, empty store (and a `reopen` fixture that
opens a second store on the same database, to prove state survives a restart).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import random

import pytest

from bot.daily.values import DueFinish, PostFinish, RevealFinish
from bot.installs.values import WorkspaceInstall
from bot.kernel.scoring import RevealResult, score_daily_round
from bot.kernel.values import (
    ChannelConfig,
    ChannelRef,
    Difficulty,
    NewAnswer,
    Period,
    PracticeAnswer,
    RoundKind,
    StreakState,
)
from bot.practice.memory import CardKey

T0 = dt.datetime(2026, 11, 30, 9, 0, tzinfo=dt.UTC)
DAY = dt.date(2026, 11, 30)
REF = ChannelRef("test", "space", "chan")
REF2 = ChannelRef("test", "space", "chan-2")


def ans(round_id: int, user: str, choice: int = 0, correct: bool = True, at: dt.datetime = T0) -> NewAnswer:
    return NewAnswer(round_id, user, choice, correct, at)


class StoreContract:
    @pytest.fixture
    async def store(self):  # pragma: no cover - replaced by each implementation's test module
        raise NotImplementedError

    # ---- schema and channels ---------------------------------------------------------------------

    async def test_migrations_are_recorded_and_idempotent(self, store):
        version = await store.schema_version()
        assert version >= 1
        assert await store.migrate() == []
        assert await store.schema_version() == version

    async def test_channel_config_round_trips_every_field(self, store):
        cfg = ChannelConfig(
            ref=REF,
            post_time=dt.time(7, 45),
            timezone="Asia/Tokyo",
            weekdays=frozenset({0, 3, 6}),
            topics=frozenset({"autograd", "tensors"}),
            difficulties=frozenset({Difficulty.HARD}),
            paused=True,
            reactions=False,
            answer_window=dt.timedelta(hours=6),
            speed_bonus=True,
            ping_winners=True,
        )
        await store.save_channel(cfg)
        assert await store.get_channel(REF) == cfg
        assert await store.get_channel(REF2) is None
        await store.save_channel(ChannelConfig(ref=REF))
        assert await store.get_channel(REF) == ChannelConfig(ref=REF)
        assert [c.ref for c in await store.list_channels()] == [REF]
        assert await store.list_channels("other") == []

    async def test_space_timezone_follows_the_latest_configured_channel(self, store):
        assert await store.space_timezone("test", "space") is None
        await store.save_channel(ChannelConfig(ref=REF, timezone="Europe/Berlin"))
        await asyncio.sleep(0.002)
        await store.save_channel(ChannelConfig(ref=REF2, timezone="America/New_York"))
        assert await store.space_timezone("test", "space") == "America/New_York"

    # ---- rounds ----------------------------------------------------------------------------------

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

    # ---- reveal, scores, leaderboards ------------------------------------------------------------

    async def test_reveal_happens_once_and_scores_once(self, store):
        r = await store.claim_daily_round(REF, DAY, "q1", "tensors", T0, None)
        await store.add_answers([ans(r.id, "ada", correct=True), ans(r.id, "bob", correct=False)], T0)
        calls = []

        def scorer(data):
            calls.append(data)
            return score_daily_round(data)

        results = await asyncio.gather(*(store.reveal_round(r.id, T0, scorer) for _ in range(5)))
        assert results.count(True) == 1 and len(calls) == 1
        assert {a.user_id for a in calls[0].answers} == {"ada", "bob"}
        assert (await store.get_answer(r.id, "ada")).points == 10
        assert (await store.get_answer(r.id, "bob")).points == 0
        rows = await store.leaderboard("test", "space", Period.ALL, "all", 10)
        assert [(x.rank, x.user_id, x.points, x.correct, x.answered) for x in rows] == [
            (1, "ada", 10, 1, 1),
            (2, "bob", 0, 0, 1),
        ]
        assert (await store.get_round(r.id)).revealed_at == T0

    async def test_scores_fold_into_week_month_and_all_time(self, store):
        days = [dt.date(2026, 11, 29), dt.date(2026, 11, 30), dt.date(2026, 12, 1)]  # Sun, Mon, Tue
        for d in days:
            r = await store.claim_daily_round(REF, d, f"q{d.day}", "tensors", T0, None)
            await store.add_answers([ans(r.id, "ada")], T0)
            await store.reveal_round(r.id, T0, score_daily_round)

        def pts(period: Period, key: str) -> list[int]:
            return [x.points for x in rows[(period, key)]]

        rows = {}
        for period, key in [
            (Period.WEEK, "2026-W48"),
            (Period.WEEK, "2026-W49"),
            (Period.MONTH, "2026-11"),
            (Period.MONTH, "2026-12"),
            (Period.ALL, "all"),
        ]:
            rows[(period, key)] = await store.leaderboard("test", "space", period, key, 10)
        # streak bonus: 10, 11, 12 on three consecutive days
        assert pts(Period.WEEK, "2026-W48") == [10]
        assert pts(Period.WEEK, "2026-W49") == [23]
        assert pts(Period.MONTH, "2026-11") == [21]
        assert pts(Period.MONTH, "2026-12") == [12]
        assert pts(Period.ALL, "all") == [33]
        assert await store.streak("test", "space", "ada") == StreakState(3, 3, days[-1])
        assert await store.latest_revealed_date("test", "space") == days[-1]

    async def test_a_scorer_decides_points_and_streaks(self, store):
        r = await store.claim_daily_round(REF, DAY, "q1", "tensors", T0, None)
        await store.add_answers([ans(r.id, "ada"), ans(r.id, "bob")], T0)
        await store.reveal_round(
            r.id, T0, lambda data: RevealResult({"ada": 7, "bob": 3}, {"ada": StreakState(4, 9, DAY)})
        )
        assert [(x.user_id, x.points) for x in await store.leaderboard("test", "space", Period.ALL, "all", 10)] == [
            ("ada", 7),
            ("bob", 3),
        ]
        assert await store.streak("test", "space", "ada") == StreakState(4, 9, DAY)
        assert await store.streak("test", "space", "bob") is None

    async def test_practice_rounds_never_reach_the_leaderboard(self, store):
        p = await store.create_practice_round(REF, "ada", "q1", "tensors", T0)
        assert p.kind is RoundKind.PRACTICE and p.user_id == "ada"
        await store.add_answers([ans(p.id, "ada")], T0)
        assert await store.reveal_round(p.id, T0, None)
        assert await store.leaderboard("test", "space", Period.ALL, "all", 10) == []
        assert await store.rank_of("test", "space", Period.ALL, "all", "ada") is None
        stats = await store.user_topic_stats("test", "space", "ada")
        assert [(k, t.topic, t.answered, t.correct) for k, t in stats] == [(RoundKind.PRACTICE, "tensors", 1, 1)]

    async def test_ranks_match_a_brute_force_count(self, store):
        rng = random.Random(3)
        users = [f"u{i:02d}" for i in range(40)]
        for day in range(6):
            r = await store.claim_daily_round(REF, DAY + dt.timedelta(days=day), f"q{day}", "tensors", T0, None)
            who = rng.sample(users, 25)
            await store.add_answers([ans(r.id, u, correct=rng.random() < 0.6) for u in who], T0)
            await store.reveal_round(r.id, T0, score_daily_round)
        everyone = await store.leaderboard("test", "space", Period.ALL, "all", 1000)
        totals = {row.user_id: row.points for row in everyone}
        assert [row.points for row in everyone] == sorted(totals.values(), reverse=True)
        for user, points in totals.items():
            mine = await store.rank_of("test", "space", Period.ALL, "all", user)
            assert mine.points == points
            assert mine.rank == 1 + sum(1 for p in totals.values() if p > points)
        top = await store.leaderboard("test", "space", Period.ALL, "all", 10)
        assert [row.user_id for row in top] == [row.user_id for row in everyone[:10]]
        assert all(row.rank == 1 + sum(1 for p in totals.values() if p > row.points) for row in top)

    async def test_ranks_stay_right_when_a_round_has_more_answers_than_one_statement_takes(self, store):
        users = [f"u{i:04d}" for i in range(1200)]  # SQLite writes a board's scores 500 users a statement
        for day in range(2):
            r = await store.claim_daily_round(REF, DAY + dt.timedelta(days=day), f"q{day}", "tensors", T0, None)
            who = range(day * 300, 1200)  # the second round: 900 users already on the board, none new
            await store.add_answers([ans(r.id, users[i], correct=i % (3 - day) == 0) for i in who], T0)
            await store.reveal_round(r.id, T0, score_daily_round)
        everyone = await store.leaderboard("test", "space", Period.ALL, "all", 2000)
        totals = {row.user_id: row.points for row in everyone}
        assert len(totals) == 1200 and len(set(totals.values())) == 3  # 0, one right answer, two in a row
        for user in (users[0], users[299], users[300], users[1199]):
            mine = await store.rank_of("test", "space", Period.ALL, "all", user)
            assert mine.rank == 1 + sum(1 for p in totals.values() if p > totals[user])

    async def test_stats_by_topic_count_only_revealed_rounds(self, store):
        r1 = await store.claim_daily_round(REF, DAY, "q1", "autograd", T0, None)
        r2 = await store.claim_daily_round(REF, DAY + dt.timedelta(days=1), "q2", "tensors", T0, None)
        await store.add_answers([ans(r1.id, "ada", correct=False), ans(r2.id, "ada")], T0)
        await store.reveal_round(r1.id, T0, score_daily_round)
        stats = await store.user_topic_stats("test", "space", "ada")
        assert [(k, t.topic, t.answered, t.correct) for k, t in stats] == [(RoundKind.DAILY, "autograd", 1, 0)]
        assert await store.user_topic_stats("test", "other", "ada") == []

    # ---- durable daily work ----------------------------------------------------------------------

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

    async def test_open_daily_question_ids_of_a_space(self, store):
        r = await store.claim_daily_round(REF, DAY, "q1", "tensors", T0, None)
        await store.claim_daily_round(ChannelRef("test", "other", "c"), DAY, "q2", "tensors", T0, None)
        await store.create_practice_round(REF, "ada", "q3", "tensors", T0)
        assert await store.open_daily_question_ids("test", "space") == {"q1"}
        await store.reveal_round(r.id, T0, None)
        assert await store.open_daily_question_ids("test", "space") == set()

    async def test_a_round_without_a_promise_gets_one_once(self, store):
        r = await store.claim_daily_round(REF, DAY, "q1", "tensors", T0, None)
        promise = T0 + dt.timedelta(days=1)
        await store.set_reveal_at(r.id, promise)
        await store.set_reveal_at(r.id, promise + dt.timedelta(hours=1))  # a promise, once given, stays
        assert (await store.get_round(r.id)).closes_at == promise
        assert [x.id for x in await store.due_reveals(promise, 10)] == [r.id]

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
            cards = [
                [(c.key.user_id, c.key.question_id, c.state, c.stability, c.due, c.reviews, c.confident_miss)]
                for u in ("ada", "bob")
                for c in await store.learner_cards("test", space, u)
            ]
            return points, streaks, boards, cards

        alone = await play("alone", batch=False)
        assert await play("batch", batch=True) == alone
        assert alone[1][0] is not None and alone[1][0].best >= 2

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


class RestartContract:
    """State survives closing the store and opening a new one on the same database."""

    @pytest.fixture
    async def reopen(self):  # pragma: no cover
        raise NotImplementedError

    async def test_everything_survives_a_restart(self, reopen):
        first = await reopen()
        r = await first.claim_daily_round(REF, DAY, "q1", "tensors", T0, None)
        await first.add_answers([ans(r.id, "ada")], T0)
        await first.save_channel(ChannelConfig(ref=REF, timezone="Asia/Tokyo"))
        await first.close()
        second = await reopen()
        assert (await second.get_round(r.id)).question_id == "q1"
        assert (await second.get_answer(r.id, "ada")).choice == 0
        assert (await second.get_channel(REF)).timezone == "Asia/Tokyo"
        assert await second.claim_daily_round(REF, DAY, "q9", "tensors", T0, None) is None
        await second.close()


class SeenOnceContract:
    """De-duplication of deliveries (Slack event ids, request signatures), shared through the store."""

    async def test_a_key_is_new_once_per_scope_until_it_expires(self, store):
        keep = dt.timedelta(minutes=5)
        assert await store.remember_once("slack-event", "Ev1", T0, keep) is True
        assert await store.remember_once("slack-event", "Ev1", T0 + dt.timedelta(minutes=4), keep) is False
        assert await store.remember_once("slack-signature", "Ev1", T0, keep) is True  # scopes are apart
        assert await store.remember_once("slack-event", "Ev2", T0, keep) is True
        assert await store.remember_once("slack-event", "Ev1", T0 + dt.timedelta(minutes=5), keep) is True

    async def test_concurrent_deliveries_of_one_key_have_one_winner(self, store):
        keep = dt.timedelta(hours=1)
        results = await asyncio.gather(*(store.remember_once("slack-event", "Ev9", T0, keep) for _ in range(20)))
        assert results.count(True) == 1


def install(workspace: str, secret: str = "sealed-1", platform: str = "slack", **kw) -> WorkspaceInstall:
    return WorkspaceInstall(platform, workspace, f"U{workspace}", secret, T0, **kw)


class InstallationContract:
    """Installations by workspace ("Add to Slack") and the install page's one-use OAuth states."""

    async def test_an_installation_is_saved_found_replaced_and_deleted_by_workspace(self, store):
        assert await store.find_install("slack", "T1") is None
        first = install("T1", bot_id="B1", scopes="chat:write,commands", installed_by="U0ANN", enterprise_id="E1")
        await store.save_install(first)
        await store.save_install(install("T2", "sealed-2"))
        assert await store.find_install("slack", "T1") == first
        assert await store.find_install("other", "T1") is None  # platforms are apart
        again = WorkspaceInstall("slack", "T1", "U0NEW", "sealed-3", T0 + dt.timedelta(days=1))
        await store.save_install(again)  # a reinstall replaces the row
        found = await store.find_install("slack", "T1")
        assert found == again and found.bot_id is None and found.scopes == ""
        assert await store.delete_install("slack", "T1") is True
        assert await store.delete_install("slack", "T1") is False
        assert await store.find_install("slack", "T1") is None
        assert (await store.find_install("slack", "T2")).token_secret == "sealed-2"

    async def test_an_installation_keeps_its_refresh_secret_and_expiry_until_a_reinstall(self, store):
        expires = T0 + dt.timedelta(hours=12)
        rotating = install("T1", refresh_secret="sealed-refresh-1", token_expires_at=expires)
        await store.save_install(rotating)
        found = await store.find_install("slack", "T1")
        assert found == rotating and found.refresh_secret == "sealed-refresh-1" and found.token_expires_at == expires
        await store.save_install(install("T1", "sealed-2"))  # reinstalled without rotation
        found = await store.find_install("slack", "T1")
        assert found.refresh_secret is None and found.token_expires_at is None

    async def test_one_caller_claims_a_token_refresh_and_its_compare_and_set_saves_the_new_token(self, store):
        expires = T0 + dt.timedelta(hours=1)
        await store.save_install(install("T1", "sealed-1", refresh_secret="refresh-1", token_expires_at=expires))
        until = T0 + dt.timedelta(minutes=1)
        claims = await asyncio.gather(
            *(store.claim_token_refresh("slack", "T1", "sealed-1", T0, until) for _ in range(10))
        )
        assert claims.count(True) == 1
        assert await store.claim_token_refresh("slack", "T1", "sealed-1", T0 + dt.timedelta(seconds=59), until) is False
        assert await store.claim_token_refresh("slack", "T1", "stale", T0 + dt.timedelta(minutes=2), until) is False
        assert await store.claim_token_refresh("slack", "T9", "sealed-1", T0, until) is False  # not installed
        later = T0 + dt.timedelta(hours=12)
        saves = await asyncio.gather(
            store.save_refreshed_token("slack", "T1", "sealed-1", "sealed-2", "refresh-2", later),
            store.save_refreshed_token("slack", "T1", "sealed-1", "sealed-x", "refresh-x", later),
        )
        assert sorted(saves) == [False, True]  # the same old token is replaced once
        found = await store.find_install("slack", "T1")
        newer = "sealed-2" if saves[0] else "sealed-x"
        assert found.token_secret == newer and found.token_expires_at == later
        assert found.refresh_secret == ("refresh-2" if saves[0] else "refresh-x")
        # an older token never overwrites the newer one
        assert await store.save_refreshed_token("slack", "T1", "sealed-1", "sealed-0", "refresh-0", T0) is False
        assert (await store.find_install("slack", "T1")).token_secret == newer
        # the save ended the claim: the new token can be claimed at once; its claim lapses at `until`
        assert await store.claim_token_refresh("slack", "T1", newer, T0, until) is True
        assert await store.claim_token_refresh("slack", "T1", newer, until, until + dt.timedelta(minutes=1)) is True
        # a reinstall replaces the token and ends any claim
        await store.save_install(install("T1", "sealed-new", refresh_secret="r", token_expires_at=later))
        assert await store.claim_token_refresh("slack", "T1", "sealed-new", T0, until) is True
        assert await store.save_refreshed_token("slack", "T1", newer, "sealed-old", "r-old", later) is False
        assert (await store.find_install("slack", "T1")).token_secret == "sealed-new"

    async def test_an_oauth_state_is_consumed_once_before_it_expires(self, store):
        await store.save_oauth_state("s1", T0 + dt.timedelta(minutes=10))
        await store.save_oauth_state("s2", T0 + dt.timedelta(minutes=10))
        assert await store.consume_oauth_state("nope", T0) is False
        assert await store.consume_oauth_state("s1", T0 + dt.timedelta(minutes=9)) is True
        assert await store.consume_oauth_state("s1", T0 + dt.timedelta(minutes=9)) is False
        assert await store.consume_oauth_state("s2", T0 + dt.timedelta(minutes=10)) is False  # expired

    async def test_concurrent_consumes_of_one_state_have_one_winner(self, store):
        await store.save_oauth_state("s9", T0 + dt.timedelta(minutes=10))
        results = await asyncio.gather(*(store.consume_oauth_state("s9", T0) for _ in range(10)))
        assert results.count(True) == 1


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
