"""The Store contract on the in-memory fake, plus the SQLite quirks the fake reproduces.

The contract proves the fake is a Store; `TestSameAsSqlite` runs a few edge cases on both the fake and
SqliteStore(":memory:"), so a change in either shows up here before a unit test starts to lie.
"""

from __future__ import annotations

import datetime as dt
import sqlite3

import pytest

from bot.kernel.scoring import RevealInput, RevealResult, score_daily_round
from bot.kernel.values import ChannelConfig, ChannelRef, Period
from bot.store.sqlite import SqliteStore
from tests.integration.access_contract import AccessContract
from tests.integration.contract_values import DAY, REF, REF2, T0, ans
from tests.integration.install_contract import InstallationContract
from tests.integration.learner_data_contract import LearnerDataContract
from tests.integration.learning_plan_contract import LearningPlanContract
from tests.integration.live_contract import LiveContract
from tests.integration.once_contract import SeenOnceContract
from tests.integration.pack_contract import PackContract
from tests.integration.practice_contract import LearnerCardContract
from tests.integration.progress_contract import ProgressContract
from tests.integration.recap_contract import RecapContract
from tests.integration.reminder_contract import ReminderContract
from tests.integration.report_contract import ReportContract
from tests.integration.role_contract import RoleContract
from tests.integration.season_contract import SeasonContract
from tests.integration.store_contract import StoreContract
from tests.integration.suggestion_contract import SuggestionContract
from tests.integration.team_contract import TeamContract
from tests.integration.uptime_contract import UptimeContract
from tests.support.memory_store import InMemoryStore


class TestInMemoryStore(
    UptimeContract,
    LearningPlanContract,
    SuggestionContract,
    LiveContract,
    StoreContract,
    LearnerDataContract,
    RecapContract,
    SeasonContract,
    ReminderContract,
    SeenOnceContract,
    AccessContract,
    InstallationContract,
    LearnerCardContract,
    PackContract,
    ReportContract,
    TeamContract,
    RoleContract,
    ProgressContract,
):
    @pytest.fixture
    async def store(self):
        store = InMemoryStore()
        await store.open()
        yield store
        await store.close()


async def test_a_closed_store_refuses_calls_and_forgets():
    store = InMemoryStore()
    with pytest.raises(RuntimeError):
        await store.get_round(1)
    await store.open()
    await store.claim_daily_round(REF, DAY, "q1", "tensors", T0, None)
    await store.close()
    with pytest.raises(RuntimeError):
        await store.get_round(1)
    await store.open()
    assert await store.get_round(1) is None


@pytest.fixture(params=["memory", "sqlite"])
async def either(request):
    store = InMemoryStore() if request.param == "memory" else SqliteStore(":memory:")
    await store.open()
    yield store
    await store.close()


class TestSameAsSqlite:
    async def test_a_lost_daily_claim_uses_up_a_round_id(self, either):
        first = await either.claim_daily_round(REF, DAY, "q1", "tensors", T0, None)
        assert await either.claim_daily_round(REF, DAY, "q2", "tensors", T0, None) is None
        practice = await either.create_practice_round(REF, "ada", "q3", "tensors", T0)
        assert (first.id, practice.id) == (1, 3)

    async def test_timestamps_read_back_in_utc_and_naive_ones_are_refused(self, either):
        tokyo = dt.timezone(dt.timedelta(hours=9))
        r = await either.claim_daily_round(REF, DAY, "q1", "tensors", T0.astimezone(tokyo), None)
        assert r.opened_at.tzinfo is dt.UTC and (await either.get_round(r.id)).opened_at.tzinfo is dt.UTC
        with pytest.raises(ValueError):
            await either.create_practice_round(REF, "ada", "q2", "tensors", T0.replace(tzinfo=None))

    async def test_a_channel_keeps_what_a_row_keeps(self, either):
        cfg = ChannelConfig(REF, post_time=dt.time(7, 45, 30), answer_window=dt.timedelta(0), topics=frozenset({"a,b"}))
        await either.save_channel(cfg)
        got = await either.get_channel(ChannelRef(REF.platform, "another-space", REF.channel_id))
        assert got is not None and got.ref == REF
        assert (got.post_time, got.answer_window, got.topics) == (dt.time(7, 45), None, frozenset({"a", "b"}))

    async def test_a_bad_choice_fails_the_whole_batch(self, either):
        r = await either.claim_daily_round(REF, DAY, "q1", "tensors", T0, None)
        with pytest.raises((ValueError, sqlite3.IntegrityError)):
            await either.add_answers([ans(r.id, "ada", 1), ans(r.id, "bob", 7)], T0)
        assert await either.round_answers(r.id) == []
        # only answers that would be written are checked
        closed = await either.claim_daily_round(REF2, DAY, "q1", "tensors", T0, None)
        await either.reveal_round(closed.id, T0, None)
        assert [w.status for w in await either.add_answers([ans(closed.id, "ada", 9)], T0)] == ["closed"]

    async def test_a_failed_reveal_changes_nothing(self, either):
        r = await either.claim_daily_round(REF, DAY, "q1", "tensors", T0, None)
        await either.add_answers([ans(r.id, "ada")], T0)
        with pytest.raises(KeyError):  # points for someone who did not answer
            await either.reveal_round(r.id, T0, lambda data: RevealResult({"ada": 10, "ghost": 5}, {}))
        assert (await either.get_round(r.id)).is_open and (await either.get_answer(r.id, "ada")).points is None
        assert await either.leaderboard("test", "space", Period.ALL, "all", 10) == []
        assert await either.reveal_round(r.id, T0, score_daily_round)

    async def test_what_the_scorer_is_given(self, either):
        await either.save_channel(ChannelConfig(REF, speed_bonus=True))
        older = await either.claim_daily_round(REF2, DAY - dt.timedelta(days=2), "q0", "tensors", T0, None)
        await either.reveal_round(older.id, T0, None)
        r = await either.claim_daily_round(REF, DAY, "q1", "tensors", T0, None)
        await either.add_answers([ans(r.id, u, at=T0 + dt.timedelta(seconds=i)) for i, u in enumerate("zBa")], T0)
        seen: list[RevealInput] = []
        await either.reveal_round(r.id, T0, lambda data: seen.append(data) or RevealResult({}, {}))
        (data,) = seen
        assert data.round.revealed_at == T0 and data.previous_date == older.local_date and data.speed_bonus
        assert [a.user_id for a in data.answers] == ["B", "a", "z"]
        # the scorer gave nobody points: nobody reaches the board, but the round is revealed and counts in stats
        assert await either.leaderboard("test", "space", Period.ALL, "all", 10) == []
        assert len(await either.user_topic_stats("test", "space", "z")) == 1

    async def test_a_negative_limit_means_no_limit(self, either):
        r = await either.claim_daily_round(REF, DAY, "q1", "tensors", T0, None)
        await either.add_answers([ans(r.id, u) for u in "abc"], T0)
        await either.reveal_round(r.id, T0, score_daily_round)
        assert [len(await either.leaderboard("test", "space", Period.ALL, "all", n)) for n in (-1, 0, 2)] == [3, 0, 2]
