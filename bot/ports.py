"""The ports the core consumes: a Store, outbound ChatPlatforms and a Clock (Protocols only; the values
they carry live in bot.model)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Protocol

from bot.clock import SystemClock as SystemClock  # re-exported for bot/cli.py; new code imports bot.clock
from bot.model import (
    Answer,
    AnswerWrite,
    Board,
    ChannelConfig,
    ChannelRef,
    DueChannel,
    LeaderboardRow,
    NewAnswer,
    Period,
    QuestionCard,
    RevealCard,
    Round,
    RoundKind,
    Scorer,
    SendClaim,
    SpaceFilter,
    StreakState,
    TopicStats,
)


class Clock(Protocol):
    """Where the core gets the time: always an aware UTC datetime."""

    def now(self) -> dt.datetime: ...


class ChatPlatform(Protocol):
    """Outbound pushes to one chat platform. Inbound events reach the core through the service.

    A platform may also offer `async post_notice(ref, text)`: a plain note in a channel (e.g. that a day's
    question was skipped while the bot was offline); the service uses it when present."""

    name: str

    async def post_question(self, ref: ChannelRef, card: QuestionCard) -> str:
        """Post a daily question card in a channel; returns the platform's message id."""
        ...

    async def post_reveal(self, ref: ChannelRef, card: RevealCard) -> str | None:
        """Mark the question message as revealed (if any) and post the reveal in the channel."""
        ...

    async def send_private(self, ref: ChannelRef, user_id: str, text: str) -> None:
        """A note only this user sees (ephemeral message or DM)."""
        ...


class Store(Protocol):
    """Persistence. Unique keys do the correctness work: one daily round per (channel, local date), one
    answer per (round, user); leaderboard aggregates are derived from the answer log at reveal."""

    async def open(self, *, migrate: bool = True) -> None:
        """Connect and (unless told not to) apply pending migrations."""
        ...

    async def close(self) -> None: ...
    async def migrate(self) -> list[int]: ...
    async def schema_version(self) -> int: ...

    # channels
    async def save_channel(self, config: ChannelConfig) -> None: ...
    async def get_channel(self, ref: ChannelRef) -> ChannelConfig | None: ...
    async def list_channels(self, platform: str | None = None) -> list[ChannelConfig]: ...
    async def space_timezone(self, platform: str, space_id: str) -> str | None: ...

    # rounds
    async def claim_daily_round(
        self, ref: ChannelRef, local_date: dt.date, question_id: str, topic: str, opened_at: dt.datetime,
        closes_at: dt.datetime | None, *, lease_until: dt.datetime | None = None,
    ) -> Round | None:
        """Create the daily round for (channel, local date); None when that slot is already taken.
        With `lease_until` the round is created already claimed for its first send (post_state sending)."""
        ...

    async def create_practice_round(
        self, ref: ChannelRef, user_id: str, question_id: str, topic: str, opened_at: dt.datetime
    ) -> Round: ...
    async def get_round(self, round_id: int) -> Round | None: ...
    async def open_daily_rounds(self, ref: ChannelRef | None = None, *, unpromised: bool = False) -> list[Round]:
        """Daily rounds not revealed yet (in one channel, or everywhere); `unpromised`: only those stored
        without a promised reveal instant (posted before promises were stored)."""
    async def latest_daily_round(self, ref: ChannelRef) -> Round | None: ...
    async def set_message_id(self, round_id: int, message_id: str) -> None: ...
    async def round_by_message(self, platform: str, message_id: str) -> Round | None:
        """The round whose question was posted as this platform message (for reactions)."""
        ...

    async def question_counts(
        self, platform: str, space_id: str, kind: RoundKind, user_id: str | None = None
    ) -> dict[str, int]:
        """How often each question was asked in a space (daily) or to a user (practice)."""
        ...

    async def last_question_id(self, platform: str, space_id: str, kind: RoundKind,
                               user_id: str | None = None) -> str | None: ...

    # durable daily work (every process runs the same tick over these)
    async def set_next_post(self, ref: ChannelRef, at: dt.datetime | None) -> None:
        """The channel's next due post (None: nothing due, e.g. paused); releases any claim on it."""
        ...

    async def get_next_post(self, ref: ChannelRef) -> dt.datetime | None: ...
    async def unscheduled_channels(self) -> list[ChannelConfig]:
        """Running (unpaused) channels without a next due post (saved before schedules were stored)."""
        ...

    async def claim_due_channels(
        self, now: dt.datetime, lease_until: dt.datetime, limit: int, spaces: SpaceFilter | None = None
    ) -> list[DueChannel]:
        """Atomically claim unpaused channels whose next post is due and not claimed by a live lease."""
        ...

    async def finish_due_channel(self, ref: ChannelRef, due_at: dt.datetime, next_at: dt.datetime | None) -> None:
        """Release a claimed channel; its next post moves to `next_at` unless a config change moved it."""
        ...

    async def claim_posts(
        self, now: dt.datetime, lease_until: dt.datetime, limit: int, *, round_id: int | None = None,
        force: bool = False, spaces: SpaceFilter | None = None,
    ) -> list[SendClaim]:
        """Claim open daily rounds whose question still has to be sent (never sent, failed, or a send whose
        lease ran out). `force` (post-now) also takes a failed round whose retry is not due yet."""
        ...

    async def finish_post(
        self, round_id: int, state: str, *, message_id: str | None = None, retry_at: dt.datetime | None = None
    ) -> None:
        """Record a send: 'sent' (with its message id), 'failed' (retry at `retry_at`) or 'gave_up'."""
        ...

    async def open_daily_question_ids(self, platform: str, space_id: str) -> set[str]:
        """The questions open as daily rounds in a space (practice must not serve them)."""
        ...

    async def set_reveal_at(self, round_id: int, at: dt.datetime) -> None:
        """Give an open daily round without one its promised reveal instant (rounds from before promises)."""
        ...

    async def due_reveals(self, now: dt.datetime, limit: int, spaces: SpaceFilter | None = None) -> list[Round]:
        """Open daily rounds whose promised reveal instant has passed."""
        ...

    async def claim_reveals(
        self, now: dt.datetime, lease_until: dt.datetime, limit: int, *, round_id: int | None = None,
        spaces: SpaceFilter | None = None,
    ) -> list[SendClaim]:
        """Claim revealed daily rounds whose reveal message still has to be sent."""
        ...

    async def finish_reveal(self, round_id: int, state: str, *, retry_at: dt.datetime | None = None) -> None:
        """Record a reveal send: 'sent', 'failed' (retry at `retry_at`), 'gave_up' or 'none' (not posted)."""
        ...

    # answers
    async def add_answers(self, answers: Sequence[NewAnswer], now: dt.datetime) -> list[AnswerWrite]:
        """Insert a batch in one transaction; each is recorded only if its round is open and the user has
        not answered it. Returns only after the commit."""
        ...

    async def get_answer(self, round_id: int, user_id: str) -> Answer | None: ...
    async def round_answers(self, round_id: int) -> list[Answer]: ...

    # reveal and scores
    async def reveal_round(self, round_id: int, revealed_at: dt.datetime, scorer: Scorer | None) -> bool:
        """Close a round once: score it (daily) and fold it into the leaderboards in one transaction.
        False when it was already revealed."""
        ...

    async def leaderboard(
        self, platform: str, space_id: str, period: Period, period_key: str, limit: int
    ) -> list[LeaderboardRow]: ...
    async def rank_of(
        self, platform: str, space_id: str, period: Period, period_key: str, user_id: str
    ) -> LeaderboardRow | None: ...

    # stats
    async def user_topic_stats(
        self, platform: str, space_id: str, user_id: str
    ) -> list[tuple[RoundKind, TopicStats]]: ...
    async def streak(self, platform: str, space_id: str, user_id: str) -> StreakState | None: ...
    async def latest_revealed_date(self, platform: str, space_id: str) -> dt.date | None: ...

    async def remember_once(self, scope: str, key: str, now: dt.datetime, keep: dt.timedelta) -> bool:
        """True the first time (scope, key) is seen within `keep` of `now`, False for a repeat: one
        de-duplication shared by every process on the same database."""
        ...


# ---- the transactions bot.store.settle runs: each store implements them with its own statements ----------


class RevealTransaction(Protocol):
    """The steps of one reveal, inside one open transaction of a store (bot.store.settle.reveal calls them
    in order). Each step is a statement or two; the rules between them live in bot.store.settle."""

    async def claim_reveal(self, round_id: int, revealed_at: dt.datetime) -> Round | None:
        """Mark the round revealed unless it already is: the revealed round, or None (revealed or unknown)."""
        ...

    async def lock_space(self, ref: ChannelRef) -> None:
        """Hold off every other scoring in this space until commit (streaks, the previous date and the score
        buckets are read, then written). A store whose transactions are serial already does nothing."""
        ...

    async def answers(self, round_id: int) -> tuple[Answer, ...]:
        """The round's answers."""
        ...

    async def previous_date(self, ref: ChannelRef, before: dt.date) -> dt.date | None:
        """The space's latest revealed daily date before `before`."""
        ...

    async def streaks(self, ref: ChannelRef, users: Sequence[str]) -> dict[str, StreakState]:
        """The stored streaks of these users in the space (users without one are left out)."""
        ...

    async def speed_bonus(self, ref: ChannelRef) -> bool:
        """Whether the round's channel has the speed bonus on."""
        ...

    async def write_points(self, round_id: int, points: dict[str, int]) -> None:
        """Set the points of these users' answers to the round."""
        ...

    async def write_streaks(self, ref: ChannelRef, streaks: dict[str, StreakState]) -> None:
        """Store these users' new streaks in the space."""
        ...

    async def board_points(self, board: Board, users: Sequence[str]) -> dict[str, int]:
        """These users' point totals on one board (users not on it yet are left out)."""
        ...

    async def add_scores(self, board: Board, rows: Sequence[tuple[str, int, int]]) -> None:
        """Add (user, points, correct as 0 or 1) to the users' totals on a board, one more answered each."""
        ...

    async def move_buckets(self, board: Board, moves: Sequence[tuple[int, int]]) -> None:
        """Add (points total, change in users) to a board's score buckets; drop the buckets left empty."""
        ...


class AnswerTransaction(Protocol):
    """The steps of one answer batch, inside one open transaction (bot.store.settle.add_answers)."""

    async def round_windows(
        self, round_ids: Sequence[int]
    ) -> dict[int, tuple[dt.datetime | None, dt.datetime | None]]:
        """(revealed_at, closes_at) of each of these rounds that exists. A store whose reveals can run
        alongside also keeps them from being revealed until this transaction commits."""
        ...

    async def insert_answers(self, answers: Sequence[NewAnswer]) -> set[tuple[int, str]]:
        """Insert answers (one per round and user), skipping those already stored: the (round, user) keys
        inserted. An invalid answer fails the whole batch."""
        ...

    async def stored_choices(self, keys: Sequence[tuple[int, str]]) -> dict[tuple[int, str], int]:
        """The stored choice of each (round, user) that has an answer (this batch's included)."""
        ...


class SettleTransaction(RevealTransaction, AnswerTransaction, Protocol):
    """Both sets of steps on one open transaction (what a store's `_settling()` yields)."""
