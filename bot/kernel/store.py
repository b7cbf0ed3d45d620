"""The store reads every feature shares: rounds, answers and channels (the values of the kernel).

Each feature's own store Protocol (bot/<feature>/store.py) extends these with what it writes.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Protocol

from bot.kernel.scoring import LeaderboardRow
from bot.kernel.values import (
    Answer,
    ChannelConfig,
    ChannelRef,
    Period,
    Round,
    RoundKind,
    StreakState,
    TopicStats,
)


class SpaceStore(Protocol):
    """What the context reads of a space."""

    async def space_timezone(self, platform: str, space_id: str) -> str | None: ...


class OnceStore(Protocol):
    """De-duplication of platform deliveries, decided in the store."""

    async def remember_once(self, scope: str, key: str, now: dt.datetime, keep: dt.timedelta) -> bool:
        """True the first time (scope, key) is seen within `keep` of `now`, False for a repeat: one
        de-duplication shared by every process on the same database."""
        ...


class RoundReads(Protocol):
    """What features read of rounds and their answers."""

    async def get_round(self, round_id: int) -> Round | None: ...

    async def get_rounds(self, round_ids: Sequence[int]) -> list[Round | None]:
        """The rounds of `round_ids`, in their order (None for an id not stored), in one trip."""
        ...

    async def open_daily_rounds(self, ref: ChannelRef | None = None, *, unpromised: bool = False) -> list[Round]:
        """Daily rounds not revealed yet (in one channel, or everywhere); `unpromised`: only those stored
        without a promised reveal instant (posted before promises were stored)."""

    async def latest_daily_round(self, ref: ChannelRef) -> Round | None: ...

    async def round_by_message(self, platform: str, message_id: str) -> Round | None:
        """The round whose question was posted as this platform message (for reactions)."""
        ...

    async def reaction_rounds(self, messages: Sequence[tuple[str, str]]) -> list[tuple[Round, bool] | None]:
        """For each (platform, message id), in the order asked: round_by_message and whether its channel takes
        reaction answers (True for a channel not stored), or None; in one trip per platform. What reaction
        answers read before their answers are written."""
        ...

    async def question_counts(
        self, platform: str, space_id: str, kind: RoundKind, user_id: str | None = None
    ) -> dict[str, int]:
        """How often each question was asked in a space (daily) or to a user (practice)."""
        ...

    async def last_question_id(
        self, platform: str, space_id: str, kind: RoundKind, user_id: str | None = None
    ) -> str | None: ...

    async def question_history(
        self, platform: str, space_id: str, kind: RoundKind, user_id: str | None = None
    ) -> tuple[dict[str, int], str | None]:
        """question_counts and last_question_id together (one trip: what the next pick needs)."""
        ...

    async def open_channel_question_ids(self, platform: str, space_id: str) -> set[str]:
        """The questions open in a space's channels: daily rounds not revealed yet and live questions not
        closed yet (practice, reviews and live games must not serve them: their answers would show)."""
        ...

    async def get_answer(self, round_id: int, user_id: str) -> Answer | None: ...

    async def round_answers(self, round_id: int) -> list[Answer]: ...

    async def latest_practice_round(self, platform: str, space_id: str, user_id: str) -> Round | None: ...


class SpaceChannels(Protocol):
    async def space_channels(self, platform: str, space_id: str) -> list[ChannelConfig]:
        """The quiz channels of one space, by channel id."""
        ...


class ChannelReads(SpaceStore, SpaceChannels, Protocol):
    """What features read of channels' settings."""

    async def get_channel(self, ref: ChannelRef) -> ChannelConfig | None: ...

    async def list_channels(self, platform: str | None = None) -> list[ChannelConfig]: ...


class BoardReads(Protocol):
    """Leaderboards, streaks and each learner's answers by topic (written only by the reveal)."""

    async def leaderboard(
        self, platform: str, space_id: str, period: Period, period_key: str, limit: int
    ) -> list[LeaderboardRow]: ...

    async def rank_of(
        self, platform: str, space_id: str, period: Period, period_key: str, user_id: str
    ) -> LeaderboardRow | None: ...

    async def board_and_rank(
        self, platform: str, space_id: str, period: Period, period_key: str, limit: int, user_id: str | None
    ) -> tuple[list[LeaderboardRow], LeaderboardRow | None]:
        """leaderboard and rank_of(user_id) read together, in one trip (no user: no rank)."""
        ...

    # stats
    async def user_topic_stats(
        self, platform: str, space_id: str, user_id: str
    ) -> list[tuple[RoundKind, TopicStats]]: ...

    async def streak(self, platform: str, space_id: str, user_id: str) -> StreakState | None: ...

    async def latest_revealed_date(self, platform: str, space_id: str) -> dt.date | None: ...
