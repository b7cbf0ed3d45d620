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
    ChannelConfig,
    ChannelRef,
    LeaderboardRow,
    NewAnswer,
    Period,
    QuestionCard,
    RevealCard,
    Round,
    RoundKind,
    Scorer,
    StreakState,
    TopicStats,
)


class Clock(Protocol):
    """Where the core gets the time: always an aware UTC datetime."""

    def now(self) -> dt.datetime: ...


class ChatPlatform(Protocol):
    """Outbound pushes to one chat platform. Inbound events reach the core through the service."""

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
        closes_at: dt.datetime | None,
    ) -> Round | None:
        """Create the daily round for (channel, local date); None when that slot is already taken."""
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
