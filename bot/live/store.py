"""What live games need of the store (bot.store.live_sql on SQL, tests/support/memory/live.py in the fake).

A game is a row with the step it is at and when that step is due; every process's tick claims due steps
with a lease (one winner, across processes), does them and moves the game on with a compare-and-set, so a
game continues when the process that started it is gone."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping, Sequence
from typing import Protocol

from bot.kernel.scoring import Scorer
from bot.kernel.store import ChannelReads, RoundReads
from bot.kernel.values import ChannelRef, Round, SpaceFilter
from bot.live.values import LiveGame, LiveQuestion, LiveStep, NewLiveGame, Standing


class LiveStore(Protocol):
    """Live games, their questions (as rounds of kind live) and the space's live board."""

    async def start_live_game(self, game: NewLiveGame) -> LiveGame | None:
        """Store a game, its first question due at its start; None when one already runs in that channel."""
        ...

    async def running_live_game(self, ref: ChannelRef) -> LiveGame | None:
        """The game running in this channel (not done), if any."""
        ...

    async def get_live_game(self, game_id: int) -> LiveGame | None: ...

    async def claim_live_games(
        self,
        now: dt.datetime,
        lease_until: dt.datetime,
        limit: int,
        spaces: SpaceFilter | None = None,
        *,
        game_id: int | None = None,
    ) -> list[LiveGame]:
        """Claim running games whose step is due by `now` and not leased (a lease that ran out is free
        again), until `lease_until`: two processes never hold one game's step. Earliest due first."""
        ...

    async def next_live_due(self, spaces: SpaceFilter | None = None) -> dt.datetime | None:
        """When the earliest step of a running game (of these spaces) is due; None when none runs."""
        ...

    async def live_questions(self, game_id: int) -> list[LiveQuestion]:
        """The game's questions asked so far, by position."""
        ...

    async def open_live_question(
        self,
        game_id: int,
        position: int,
        question_id: str,
        topic: str,
        opened_at: dt.datetime,
        closes_at: dt.datetime,
    ) -> Round:
        """The round of the game's question at `position`: created (kind live, open until `closes_at`) the
        first time, else the one created before (a retried post keeps its round)."""
        ...

    async def record_live_post(
        self, round_id: int, message_id: str, opened_at: dt.datetime, closes_at: dt.datetime
    ) -> Round:
        """The question was posted as `message_id`: it counts as open from `opened_at` until `closes_at`
        (unless it was recorded posted already: the first record stands). The round as stored."""
        ...

    async def advance_live_game(
        self,
        game_id: int,
        step: LiveStep,
        position: int,
        to_step: LiveStep,
        to_position: int,
        due_at: dt.datetime | None,
        *,
        attempts: int = 0,
    ) -> bool:
        """Move the game from (step, position) to (to_step, to_position), due at `due_at`, and free its lease;
        False (nothing changed) when it was not at (step, position) any more."""
        ...

    async def stop_live_game(self, game_id: int, user_id: str, now: dt.datetime) -> LiveGame | None:
        """Mark the game stopped by `user_id` (once): its open question closes now and the game ends after
        it. The game as stopped; None when it was stopped or done already."""
        ...

    async def score_live_question(self, game_id: int, position: int, points: Mapping[str, int]) -> bool:
        """Write the points of the question's answers, once (False: they were written already)."""
        ...

    async def live_standings(self, game_id: int) -> list[Standing]:
        """Each player's points, right answers and answers so far in the game (from the scored questions)."""
        ...

    async def finish_live_game(
        self, game_id: int, ended_at: dt.datetime, standings: Sequence[Standing], won_by: Collection[str]
    ) -> bool:
        """Add the game's standings (points, one game each, a win for `won_by`) to the space's live board,
        once (False: it was added already)."""
        ...

    async def live_board(self, platform: str, space_id: str, limit: int) -> list[Standing]:
        """The space's live board: most points first (then most wins, then user id)."""
        ...

    async def live_standing(self, platform: str, space_id: str, user_id: str) -> tuple[int, Standing] | None:
        """A member's place and row on the space's live board (None: never played)."""
        ...

    async def recent_questions(self, platform: str, space_id: str, since: dt.datetime) -> dict[str, dt.datetime]:
        """The questions the space saw (daily and live rounds opened) since `since`, each with when it last did."""
        ...

    async def reveal_round(
        self,
        round_id: int,
        revealed_at: dt.datetime,
        scorer: Scorer | None,
        *,
        learn: bool = True,
        unsure: Collection[str] = (),
    ) -> bool:
        """Close a round once (bot.store.settle); with `learn`, its answers update the learners' memory cards in
        the same transaction. False when it was closed already."""
        ...


class LiveServiceStore(LiveStore, RoundReads, ChannelReads, Protocol):
    """What the live games service reads and writes."""
