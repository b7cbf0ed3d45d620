"""The pure rules the stores share (bot.scoring, bot.store.rows) and the order of the settle steps."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.kernel.scoring import LeaderboardRow, RevealResult, bucket_moves, period_keys, ranked
from bot.kernel.values import Answer, RoundKind
from bot.store import settle
from bot.store.rows import asked_where, ident, opened
from tests.integration.contract_values import DAY, REF, T0, ans
from tests.support.memory_store import InMemoryStore


def test_bucket_moves_take_users_out_of_their_old_total_and_into_the_new_one():
    # ada 10 -> 20, bob 10 -> 10 (+0), carol new with 5
    moves = bucket_moves({"ada": 10, "bob": 10}, {"ada": 10, "bob": 0, "carol": 5})
    assert moves == [(5, 1), (10, -1), (20, 1)]  # lowest total first; bob stays in 10
    assert bucket_moves({"ada": 3}, {"ada": 0}) == []  # no zero changes


def test_ranked_gives_ties_one_rank_and_skips_after_them():
    rows = ranked([("a", 30, 3, 3), ("b", 20, 2, 3), ("c", 20, 2, 2), ("d", 10, 1, 3)])
    assert [(r.rank, r.user_id) for r in rows] == [(1, "a"), (2, "b"), (2, "c"), (4, "d")]
    assert rows[1] == LeaderboardRow(2, "b", 20, 2, 3)


def test_period_keys_use_the_iso_week():
    assert [k for _, k in period_keys(dt.date(2027, 1, 1))] == ["2026-W53", "2027-01", "all"]


def test_a_round_takes_answers_until_revealed_or_its_window_ends():
    assert settle.accepts_answers(None, None, T0)
    assert settle.accepts_answers(None, T0 + dt.timedelta(seconds=1), T0)
    assert not settle.accepts_answers(None, T0, T0)
    assert not settle.accepts_answers(T0, None, T0)


def test_asked_where_numbers_postgres_placeholders():
    assert asked_where("p", "s", RoundKind.DAILY, None, "?") == (
        "platform = ? AND space_id = ? AND kind = ?",
        ["p", "s", "daily"],
    )
    where, params = asked_where("p", "s", RoundKind.PRACTICE, "ada", "$")
    assert where == "platform = $1 AND space_id = $2 AND kind = $3 AND user_id = $4"
    assert params == ["p", "s", "practice", "ada"]


def test_identifiers_and_closed_stores_are_refused():
    assert ident("rounds") == "rounds"
    with pytest.raises(ValueError):
        ident("rounds; DROP TABLE answers")
    with pytest.raises(RuntimeError, match="not open"):
        opened(None)


async def test_the_reveal_runs_its_steps_in_order_with_the_learner_hook_inside(monkeypatch):
    """lock_space comes before every read, and update_learner_memory sees the scored answers after points
    and streaks are written, before the leaderboards are folded."""
    store = InMemoryStore()
    await store.open()
    r = await store.claim_daily_round(REF, DAY, "q1", "tensors", T0, None)
    await store.add_answers([ans(r.id, "ada"), ans(r.id, "bob", correct=False)], T0)
    steps: list[str] = []
    original = store._settling

    def recording():
        cm = original()

        class Wrapped:
            async def __aenter__(self):
                tx = await cm.__aenter__()

                class Spy:
                    def __getattr__(self, name):
                        step = getattr(tx, name)

                        async def call(*args):
                            steps.append(name)
                            return await step(*args)

                        return call

                return Spy()

            async def __aexit__(self, *exc):
                return await cm.__aexit__(*exc)

        return Wrapped()

    seen: list[tuple[int, tuple[Answer, ...]]] = []

    async def hook(tx, round_, answers, unsure=frozenset()):
        steps.append("update_learner_memory")
        seen.append((round_.id, answers))

    monkeypatch.setattr(store, "_settling", recording)
    monkeypatch.setattr(settle, "update_learner_memory", hook)
    assert await store.reveal_round(r.id, T0, lambda data: RevealResult({"ada": 10, "bob": 0}, {}))
    assert steps[:2] == ["claim_reveal", "lock_space"]
    assert steps.index("update_learner_memory") > steps.index("write_points")
    assert steps.index("update_learner_memory") < steps.index("add_scores")
    assert seen[0][0] == r.id and sorted(a.user_id for a in seen[0][1]) == ["ada", "bob"]
    assert steps.count("add_scores") == 1  # week, month and all time together
    await store.close()
