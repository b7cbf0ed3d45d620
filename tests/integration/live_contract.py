"""The live games' part of the Store contract: every store runs it (SQLite, PostgreSQL, the fake)."""

from __future__ import annotations

import asyncio
import datetime as dt

from bot.kernel.values import ChannelRef, Period, RoundKind, SpaceFilter
from bot.live.values import LiveStep, NewLiveGame, Standing
from tests.integration.contract_values import DAY, REF, REF2, T0, ans

S = dt.timedelta(seconds=1)
LEASE = T0 + 30 * S


def new_game(ref: ChannelRef = REF, *, at: dt.datetime = T0, total: int = 5, topic: str | None = None) -> NewLiveGame:
    return NewLiveGame(ref, "starter", total, 20, topic, at)


async def posted_question(store, game_id: int, position: int = 0, qid: str = "q1", at: dt.datetime = T0):
    """A game's question opened and recorded as posted at `at`, open 20 s."""
    round_ = await store.open_live_question(game_id, position, qid, "tensors", at, at + 20 * S)
    return await store.record_live_post(round_.id, f"m{round_.id}", at, at + 20 * S)


class LiveContract:
    async def test_one_game_runs_per_channel(self, store):
        game = await store.start_live_game(new_game())
        assert game is not None and game.running and game.step is LiveStep.POST and game.position == 0
        assert (game.ref, game.starter_id, game.total, game.seconds, game.topic) == (REF, "starter", 5, 20, None)
        assert game.due_at == T0 and game.stopped_by is None and game.ended_at is None
        assert await store.start_live_game(new_game()) is None  # the same channel: refused
        other = await store.start_live_game(new_game(REF2, topic="autograd"))
        assert other is not None and other.id != game.id and other.topic == "autograd"
        assert await store.running_live_game(REF) == game
        assert await store.get_live_game(other.id) == other
        assert await store.advance_live_game(game.id, LiveStep.POST, 0, LiveStep.DONE, 0, None)
        assert await store.running_live_game(REF) is None
        again = await store.start_live_game(new_game(at=T0 + S))  # a finished game frees the channel
        assert again is not None and again.id not in (game.id, other.id)

    async def test_two_starts_at_once_have_one_winner(self, store):
        started = await asyncio.gather(*(store.start_live_game(new_game()) for _ in range(6)))
        assert len([g for g in started if g is not None]) == 1

    async def test_a_due_step_is_claimed_once_until_its_lease_ends(self, store):
        game = await store.start_live_game(new_game())
        assert await store.claim_live_games(T0 - S, LEASE, 10) == []  # not due yet
        claimed = await store.claim_live_games(T0, LEASE, 10)
        assert [g.id for g in claimed] == [game.id]
        assert await store.claim_live_games(T0 + S, LEASE + S, 10) == []  # leased
        assert [g.id for g in await store.claim_live_games(LEASE, LEASE + 30 * S, 10)] == [game.id]  # ran out

    async def test_concurrent_claims_of_one_step_have_one_winner(self, store):
        await store.start_live_game(new_game())
        claims = await asyncio.gather(*(store.claim_live_games(T0, LEASE, 10) for _ in range(8)))
        assert sorted(len(c) for c in claims) == [0] * 7 + [1]

    async def test_claims_follow_the_space_filter_and_the_game_asked_for(self, store):
        slack = await store.start_live_game(new_game(ChannelRef("slack", "T1", "C1")))
        discord = await store.start_live_game(new_game(ChannelRef("discord", str(1 << 22), "c1")))
        only_slack = await store.claim_live_games(T0, LEASE, 10, SpaceFilter(platforms=("slack",)))
        assert [g.id for g in only_slack] == [slack.id]
        shard0 = SpaceFilter(platforms=("discord",), shard_count=2, shard_ids=(0,))
        assert await store.claim_live_games(T0, LEASE, 10, shard0) == []
        other = await store.start_live_game(new_game(ChannelRef("discord", "0", "c2")))
        mine = await store.claim_live_games(T0, LEASE, 10, SpaceFilter(platforms=("discord",)), game_id=discord.id)
        assert [g.id for g in mine] == [discord.id]
        assert [g.id for g in await store.claim_live_games(T0, LEASE, 10)] == [other.id]

    async def test_advance_moves_a_game_on_from_where_it_was_and_frees_its_lease(self, store):
        game = await store.start_live_game(new_game())
        await store.claim_live_games(T0, LEASE, 10)
        assert not await store.advance_live_game(game.id, LiveStep.CLOSE, 0, LiveStep.POST, 1, T0)  # not there
        assert await store.advance_live_game(game.id, LiveStep.POST, 0, LiveStep.CLOSE, 0, T0 + 20 * S)
        moved = await store.get_live_game(game.id)
        assert (moved.step, moved.position, moved.due_at, moved.attempts) == (LiveStep.CLOSE, 0, T0 + 20 * S, 0)
        assert not await store.advance_live_game(game.id, LiveStep.POST, 0, LiveStep.CLOSE, 0, T0)  # a second time
        assert await store.claim_live_games(T0 + 19 * S, LEASE, 10) == []
        assert [g.id for g in await store.claim_live_games(T0 + 20 * S, LEASE, 10)] == [game.id]  # lease freed
        assert await store.advance_live_game(game.id, LiveStep.CLOSE, 0, LiveStep.CLOSE, 0, T0 + 25 * S, attempts=2)
        assert (await store.get_live_game(game.id)).attempts == 2

    async def test_the_next_due_step_counts_a_lease_held_elsewhere(self, store):
        assert await store.next_live_due() is None
        first = await store.start_live_game(new_game(at=T0 + 5 * S))
        await store.start_live_game(new_game(REF2, at=T0 + 9 * S))
        assert await store.next_live_due() == T0 + 5 * S
        assert await store.next_live_due(SpaceFilter(platforms=("slack",))) is None
        await store.claim_live_games(T0 + 5 * S, LEASE, 1)  # the first is leased until LEASE
        assert await store.next_live_due() == T0 + 9 * S
        await store.advance_live_game(first.id, LiveStep.POST, 0, LiveStep.DONE, 0, None)
        assert await store.next_live_due() == T0 + 9 * S

    async def test_a_question_is_a_live_round_made_once_per_position(self, store):
        game = await store.start_live_game(new_game())
        round_ = await store.open_live_question(game.id, 0, "q1", "tensors", T0, T0 + 20 * S)
        assert round_.kind is RoundKind.LIVE and round_.ref == REF and round_.question_id == "q1"
        assert round_.closes_at == T0 + 20 * S and round_.is_open and round_.message_id is None and round_.is_posted
        again = await store.open_live_question(game.id, 0, "q9", "autograd", T0 + S, T0 + 21 * S)  # a retried post
        assert again == round_
        second = await store.open_live_question(game.id, 1, "q2", "autograd", T0 + S, T0 + 21 * S)
        assert second.id != round_.id
        asked = await store.live_questions(game.id)
        assert [(q.position, q.round_id, q.question_id, q.scored) for q in asked] == [
            (0, round_.id, "q1", False),
            (1, second.id, "q2", False),
        ]
        assert await store.open_daily_rounds(REF) == []  # a live round is no daily round
        assert await store.question_counts("test", "space", RoundKind.DAILY) == {}

    async def test_an_open_live_question_is_hidden_in_its_space_until_it_closes(self, store):
        game = await store.start_live_game(new_game())
        round_ = await posted_question(store, game.id, qid="q7")
        await store.claim_daily_round(REF, DAY, "q1", "tensors", T0, None)
        assert await store.open_channel_question_ids(REF.platform, REF.space_id) == {"q1", "q7"}
        assert await store.open_channel_question_ids(REF.platform, "elsewhere") == set()
        await store.reveal_round(round_.id, T0 + 20 * S, None, learn=False)  # the close
        assert await store.open_channel_question_ids(REF.platform, REF.space_id) == {"q1"}

    async def test_a_recorded_post_sets_the_message_and_the_open_time_once(self, store):
        game = await store.start_live_game(new_game())
        round_ = await store.open_live_question(game.id, 0, "q1", "tensors", T0, T0 + 20 * S)
        posted = await store.record_live_post(round_.id, "m1", T0 + S, T0 + 21 * S)
        assert (posted.message_id, posted.opened_at, posted.closes_at) == ("m1", T0 + S, T0 + 21 * S)
        again = await store.record_live_post(round_.id, "m2", T0 + 5 * S, T0 + 25 * S)
        assert again == posted
        assert (await store.round_by_message("test", "m1")).id == round_.id

    async def test_answers_close_with_the_round_and_are_scored_once(self, store):
        game = await store.start_live_game(new_game())
        round_ = await posted_question(store, game.id)
        writes = await store.add_answers(
            [ans(round_.id, "ann", 0, True, T0 + 2 * S), ans(round_.id, "bob", 1, False, T0 + 3 * S)], T0 + 3 * S
        )
        assert [w.status for w in writes] == ["recorded", "recorded"]
        late = await store.add_answers([ans(round_.id, "cat", 0, True, T0 + 20 * S)], T0 + 20 * S)
        assert late[0].status == "closed"  # its window ended
        assert await store.reveal_round(round_.id, T0 + 20 * S, None)
        assert not await store.reveal_round(round_.id, T0 + 21 * S, None)
        assert await store.live_standings(game.id) == []  # not scored yet
        assert await store.score_live_question(game.id, 0, {"ann": 950, "bob": 0})
        assert not await store.score_live_question(game.id, 0, {"ann": 1, "bob": 1})
        assert {a.user_id: a.points for a in await store.round_answers(round_.id)} == {"ann": 950, "bob": 0}
        assert (await store.live_questions(game.id))[0].scored
        second = await posted_question(store, game.id, 1, "q2", T0 + 30 * S)
        await store.add_answers([ans(second.id, "bob", 0, True, T0 + 31 * S)], T0 + 31 * S)
        await store.reveal_round(second.id, T0 + 50 * S, None)
        assert await store.score_live_question(game.id, 1, {"bob": 700})
        standings = sorted(await store.live_standings(game.id), key=lambda s: s.user_id)
        assert standings == [Standing("ann", 950, 1, 1), Standing("bob", 700, 1, 2)]

    async def test_a_live_answer_updates_the_learners_memory_card_when_it_closes(self, store):
        game = await store.start_live_game(new_game())
        round_ = await posted_question(store, game.id)
        await store.add_answers([ans(round_.id, "ann", 0, True, T0 + 2 * S)], T0 + 2 * S)
        assert await store.learner_cards("test", "space", "ann") == []
        await store.reveal_round(round_.id, T0 + 20 * S, None, learn=True)
        cards = await store.learner_cards("test", "space", "ann")
        assert [(c.key.question_id, c.reviews) for c in cards] == [("q1", 1)]

    async def test_a_stop_closes_the_open_question_now_and_is_taken_once(self, store):
        game = await store.start_live_game(new_game())
        round_ = await posted_question(store, game.id)
        await store.advance_live_game(game.id, LiveStep.POST, 0, LiveStep.CLOSE, 0, T0 + 20 * S)
        stopped = await store.stop_live_game(game.id, "admin", T0 + 5 * S)
        assert stopped is not None and stopped.stopped_by == "admin" and stopped.due_at == T0 + 5 * S
        assert (await store.get_round(round_.id)).closes_at == T0 + 5 * S
        assert await store.stop_live_game(game.id, "starter", T0 + 6 * S) is None
        late = await store.add_answers([ans(round_.id, "ann", 0, True, T0 + 6 * S)], T0 + 6 * S)
        assert late[0].status == "closed"
        waiting = await store.start_live_game(new_game(REF2))  # between questions: the end is due now
        stopped = await store.stop_live_game(waiting.id, "starter", T0 - S)
        assert stopped.step is LiveStep.POST and stopped.due_at == T0 - S
        await store.advance_live_game(waiting.id, LiveStep.POST, 0, LiveStep.DONE, 0, None)
        assert await store.stop_live_game(waiting.id, "starter", T0) is None  # done: nothing to stop

    async def test_a_game_is_added_to_the_live_board_once(self, store):
        first = await store.start_live_game(new_game())
        standings = [Standing("ann", 1800, 2, 2), Standing("bob", 600, 1, 2), Standing("cat", 0, 0, 1)]
        assert await store.finish_live_game(first.id, T0, standings, {"ann"})
        assert not await store.finish_live_game(first.id, T0, standings, {"ann"})
        assert (await store.get_live_game(first.id)).ended_at == T0
        await store.advance_live_game(first.id, LiveStep.POST, 0, LiveStep.DONE, 0, None)
        second = await store.start_live_game(new_game())
        assert await store.finish_live_game(second.id, T0, [Standing("bob", 1900, 2, 2)], {"bob"})
        board = await store.live_board("test", "space", 10)
        assert [(s.user_id, s.points, s.games, s.wins) for s in board] == [
            ("bob", 2500, 2, 1),
            ("ann", 1800, 1, 1),
            ("cat", 0, 1, 0),
        ]
        assert [s.user_id for s in await store.live_board("test", "space", 1)] == ["bob"]
        assert await store.live_board("test", "other", 10) == []
        place, mine = await store.live_standing("test", "space", "cat")
        assert place == 3 and (mine.points, mine.games, mine.wins) == (0, 1, 0)
        assert await store.live_standing("test", "space", "nobody") is None
        assert await store.leaderboard("test", "space", Period.ALL, "all", 10) == []  # never the daily boards

    async def test_forget_me_takes_the_learners_live_board_row(self, store):
        game = await store.start_live_game(new_game())
        await store.finish_live_game(game.id, T0, [Standing("ann", 900, 1, 1), Standing("bob", 500, 1, 1)], {"ann"})
        gone = await store.forget_learner("test", "space", "ann")
        assert gone.live == 1 and gone.anything
        assert [s.user_id for s in await store.live_board("test", "space", 10)] == ["bob"]
        assert await store.live_standing("test", "space", "ann") is None

    async def test_recent_questions_are_the_daily_and_live_rounds_seen_since(self, store):
        daily = await store.claim_daily_round(REF, DAY, "qd", "tensors", T0, None)
        assert daily is not None
        await store.create_practice_round(REF, "ann", "qp", "tensors", T0)
        game = await store.start_live_game(new_game(REF2))
        await store.open_live_question(game.id, 0, "ql", "tensors", T0 + 5 * S, T0 + 25 * S)
        await store.open_live_question(game.id, 1, "qd", "tensors", T0 + 40 * S, T0 + 60 * S)
        seen = await store.recent_questions("test", "space", T0)
        assert seen == {"qd": T0 + 40 * S, "ql": T0 + 5 * S}
        assert await store.recent_questions("test", "space", T0 + 10 * S) == {"qd": T0 + 40 * S}
        assert await store.recent_questions("test", "other", T0) == {}
