"""The reveal, scores and leaderboards (the reveal of bot.store.settle, the kernel's BoardReads).

Run on every store (SQLite, PostgreSQL, the in-memory fake) through StoreContract (store_contract.py).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import random

from bot.kernel.scoring import RevealResult, score_daily_round
from bot.kernel.values import Period, RoundKind, StreakState
from tests.integration.contract_values import DAY, REF, T0, ans


async def random_days(  # type: ignore[no-untyped-def]
    store, rng: random.Random, *, users: int, days: int, each_day: int, right: float, spread: int = 0
) -> None:
    """`days` daily rounds, each answered by `each_day` of `users` users at random (right with chance
    `right`, within `spread` seconds of T0), then revealed and scored."""
    everyone = [f"u{i:02d}" for i in range(users)]
    for day in range(days):
        r = await store.claim_daily_round(REF, DAY + dt.timedelta(days=day), f"q{day}", "tensors", T0, None)
        answers = []
        for user in rng.sample(everyone, each_day):
            at = T0 + dt.timedelta(seconds=rng.randrange(spread)) if spread else T0
            answers.append(ans(r.id, user, at=at, correct=rng.random() < right))
        await store.add_answers(answers, T0)
        await store.reveal_round(r.id, T0, score_daily_round)


class BoardContract:
    """A reveal happens once and folds its points into the week, month and all-time boards; ranks count
    the users above."""

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
        assert (await store.get_answer(r.id, "bob")).points is None  # a wrong answer earns nothing: not written
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
        assert await store.streak("test", "space", "ada") == StreakState(3, 3, days[-1], kept=3)  # shown: no freeze yet
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
        await random_days(store, random.Random(3), users=40, days=6, each_day=25, right=0.6)
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

    async def test_a_board_and_a_rank_read_together_are_the_two_read_apart(self, store):
        # answers spread over a minute, so ties on points are broken by who reached them first
        await random_days(store, random.Random(5), users=30, days=4, each_day=20, right=0.5, spread=60)
        board = ("test", "space", Period.ALL, "all")
        everyone = await store.leaderboard(*board, 100)
        assert len({row.points for row in everyone}) < len(everyone)  # ties, so the order within them counts
        for limit in (5, 100):
            top = await store.leaderboard(*board, limit)
            for user in (everyone[0].user_id, everyone[-1].user_id, "never-answered"):
                assert await store.board_and_rank(*board, limit, user) == (top, await store.rank_of(*board, user))
            assert await store.board_and_rank(*board, limit, None) == (top, None)
        assert await store.board_and_rank("test", "elsewhere", Period.ALL, "all", 10, everyone[0].user_id) == ([], None)

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
