"""The ports the core consumes: a Store, outbound ChatPlatforms and a Clock."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from bot.model import (
    Answer,
    ChannelConfig,
    ChannelRef,
    LeaderboardRow,
    Period,
    QuestionCard,
    RevealCard,
    Round,
    RoundKind,
    TopicStats,
)


class Clock(Protocol):
    """Where the core gets the time: always an aware UTC datetime."""

    def now(self) -> dt.datetime: ...


class SystemClock:
    def now(self) -> dt.datetime:
        return dt.datetime.now(dt.UTC)


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


class NewAnswer(NamedTuple):
    """An answer on its way to the store (a tuple: thousands are built per second)."""

    round_id: int
    user_id: str
    choice: int
    correct: bool
    answered_at: dt.datetime


@dataclass(frozen=True)
class AnswerWrite:
    """The store's verdict on one answer of a batch."""

    status: str  # "recorded" | "duplicate" | "closed" | "unknown"
    existing_choice: int | None = None


@dataclass(frozen=True)
class StreakState:
    current: int
    best: int
    last_date: dt.date | None


@dataclass(frozen=True)
class RevealInput:
    """What scoring needs to settle a daily round (read inside the reveal transaction)."""

    round: Round
    answers: tuple[Answer, ...]
    previous_date: dt.date | None  # the space's last revealed daily date before this round's date
    streaks: dict[str, StreakState]
    speed_bonus: bool


@dataclass(frozen=True)
class RevealResult:
    points: dict[str, int]  # user -> points for this round
    streaks: dict[str, StreakState]  # new states for users whose streak changed


Scorer = Callable[[RevealInput], RevealResult]


@dataclass(frozen=True)
class DueChannel:
    """A channel whose daily post is due, claimed by one process until `lease_until`."""

    ref: ChannelRef
    due_at: dt.datetime


@dataclass(frozen=True)
class SendClaim:
    """One process's claim to send a round's question (or reveal) now.

    `doubtful`: an earlier attempt was claimed and never finished (the process stopped mid-send), so the
    message may have gone out already; `doubts` counts such attempts (at most one duplicate is accepted)."""

    round: Round
    attempts: int
    doubtful: bool
    doubts: int


@dataclass(frozen=True)
class SpaceFilter:
    """Which work a process claims: channels of its running platforms (None: every platform) and, on the
    sharded platform, only spaces on its shards ((space id >> 22) % count in ids). Stores turn it into SQL."""

    platforms: tuple[str, ...] | None = None
    shard_count: int | None = None
    shard_ids: tuple[int, ...] = ()
    shard_platform: str = "discord"

    def __call__(self, ref: ChannelRef) -> bool:
        if self.platforms is not None and ref.platform not in self.platforms:
            return False
        if not self.shard_count or ref.platform != self.shard_platform:
            return True
        try:
            return (int(ref.space_id) >> 22) % self.shard_count in self.shard_ids
        except ValueError:
            return False


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
    async def open_daily_rounds(self, ref: ChannelRef | None = None) -> list[Round]: ...
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


def period_keys(local_date: dt.date) -> Iterable[tuple[Period, str]]:
    """The leaderboard buckets a daily round's local date falls in."""
    iso = local_date.isocalendar()
    yield Period.WEEK, f"{iso.year}-W{iso.week:02d}"
    yield Period.MONTH, f"{local_date:%Y-%m}"
    yield Period.ALL, "all"
