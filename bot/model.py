"""Core value types: questions, channels, rounds, answers, outcomes and platform-neutral cards.

Everything here is a frozen dataclass so the service can hand values to adapters and stores without
worrying about who mutates what.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from enum import StrEnum

LETTERS: tuple[str, ...] = ("A", "B", "C", "D")


class Difficulty(StrEnum):
    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


class Period(StrEnum):
    WEEK = "week"
    MONTH = "month"
    ALL = "all"


class RoundKind(StrEnum):
    DAILY = "daily"
    PRACTICE = "practice"


@dataclass(frozen=True)
class Question:
    id: str
    topic: str
    difficulty: Difficulty
    prompt: str
    choices: tuple[str, ...]
    answer: int  # index into choices
    explanation: str
    reference: str
    source: str
    code: str | None = None
    why_wrong: tuple[str, ...] = ()  # per choice: why it is wrong ("" for the answer or when unknown)

    @property
    def answer_letter(self) -> str:
        return LETTERS[self.answer]


@dataclass(frozen=True)
class ChannelRef:
    """Where something happens: a platform, a space (guild or workspace) and a channel in it."""

    platform: str
    space_id: str
    channel_id: str


@dataclass(frozen=True)
class Actor:
    """Who asks. `is_admin` is computed by the adapter from the member's real platform rights."""

    user_id: str
    is_admin: bool = False


@dataclass(frozen=True)
class ChannelConfig:
    ref: ChannelRef
    post_time: dt.time = dt.time(9, 0)
    timezone: str = "UTC"
    weekdays: frozenset[int] = frozenset(range(7))  # 0 = Monday
    topics: frozenset[str] = frozenset()  # empty: every topic
    difficulties: frozenset[Difficulty] = frozenset()  # empty: every difficulty
    paused: bool = False
    reactions: bool = True
    answer_window: dt.timedelta | None = None  # None: open until the next daily post
    speed_bonus: bool = False


@dataclass(frozen=True)
class Round:
    id: int
    kind: RoundKind
    ref: ChannelRef
    question_id: str
    topic: str
    opened_at: dt.datetime
    local_date: dt.date | None = None  # daily rounds: the channel's local date
    user_id: str | None = None  # practice rounds: the learner
    closes_at: dt.datetime | None = None
    revealed_at: dt.datetime | None = None
    message_id: str | None = None
    post_state: str = "sent"  # daily: due | sending | failed | sent | gave_up (the question's delivery)

    @property
    def is_open(self) -> bool:
        return self.revealed_at is None

    @property
    def is_posted(self) -> bool:
        """Whether members can see the question (practice questions are shown at once)."""
        return self.kind is RoundKind.PRACTICE or self.post_state == "sent"


@dataclass(frozen=True)
class Answer:
    round_id: int
    user_id: str
    choice: int
    correct: bool
    answered_at: dt.datetime
    points: int | None = None  # set when the round is revealed


class AnswerStatus(StrEnum):
    """The store's verdict on one submitted answer."""

    RECORDED = "recorded"
    DUPLICATE = "duplicate"  # the user had answered already; the first answer stands
    CLOSED = "closed"  # the round was revealed or its window ended
    UNKNOWN = "unknown"  # no such round


@dataclass(frozen=True)
class CommandNames:
    """How a platform spells the commands core messages point to (the adapter supplies its own)."""

    practice: str = "/quiz"
    answer: str = "/quiz answer"
    post_now: str = "/quiz config post-now"


@dataclass(frozen=True)
class Verdict:
    """What a learner sees when a practice answer is judged at once."""

    correct: bool
    chosen_letter: str
    correct_letter: str
    explanation: str
    reference: str


@dataclass(frozen=True)
class AnswerOutcome:
    round_id: int
    user_id: str
    chosen_letter: str
    text: str  # the private acknowledgement: never the verdict for a daily round
    verdict: Verdict | None = None  # practice only


# ---- cards: what the core asks adapters to show -------------------------------------------------


@dataclass(frozen=True)
class QuestionCard:
    round_id: int
    kind: RoundKind
    title: str
    prompt: str
    choices: tuple[str, ...]
    topic: str  # empty on a daily question: its topic would hint at the answer before the reveal
    difficulty: Difficulty
    code: str | None = None
    reveal_note: str | None = None  # "Answers are revealed at ..." for daily rounds
    reactions: bool = False

    @property
    def lettered_choices(self) -> tuple[tuple[str, str], ...]:
        return tuple(zip(LETTERS, self.choices, strict=True))


@dataclass(frozen=True)
class RevealCard:
    round_id: int
    title: str
    prompt: str
    choices: tuple[str, ...]
    correct_letter: str
    explanation: str
    reference: str
    distribution: tuple[int, ...]  # answers per letter
    correct_users: tuple[str, ...]
    question_message_id: str | None = None
    code: str | None = None
    note: str | None = None  # e.g. "Revealed late: the bot was offline."

    @property
    def total(self) -> int:
        return sum(self.distribution)


@dataclass(frozen=True)
class LeaderboardRow:
    rank: int
    user_id: str
    points: int
    correct: int
    answered: int


@dataclass(frozen=True)
class LeaderboardCard:
    title: str
    period: Period
    period_label: str
    rows: tuple[LeaderboardRow, ...]
    me: LeaderboardRow | None = None


@dataclass(frozen=True)
class TopicStats:
    topic: str
    answered: int
    correct: int

    @property
    def accuracy(self) -> float:
        return self.correct / self.answered if self.answered else 0.0


@dataclass(frozen=True)
class StatsCard:
    user_id: str
    answered: int
    correct: int
    daily_answered: int
    practice_answered: int
    current_streak: int
    best_streak: int
    points: int
    by_topic: tuple[TopicStats, ...] = field(default=())

    @property
    def accuracy(self) -> float:
        return self.correct / self.answered if self.answered else 0.0

    @property
    def weakest_topic(self) -> TopicStats | None:
        judged = [t for t in self.by_topic if t.answered >= 2]
        return min(judged, key=lambda t: (t.accuracy, -t.answered, t.topic)) if judged else None


@dataclass(frozen=True)
class ConfigCard:
    config: ChannelConfig
    next_post: dt.datetime | None

    @property
    def lines(self) -> tuple[str, ...]:
        c = self.config
        days = ",".join(("mon", "tue", "wed", "thu", "fri", "sat", "sun")[d] for d in sorted(c.weekdays))
        window = f"{int(c.answer_window.total_seconds() // 3600)}h" if c.answer_window else "until next post"
        return (
            f"time {c.post_time:%H:%M} tz {c.timezone} days {days}",
            f"topics {','.join(sorted(c.topics)) or 'all'}; difficulty "
            f"{','.join(sorted(d.value for d in c.difficulties)) or 'all'}",
            f"answer window {window}; reactions {'on' if c.reactions else 'off'}; "
            f"speed bonus {'on' if c.speed_bonus else 'off'}",
            "paused" if c.paused else (f"next post {self.next_post:%Y-%m-%d %H:%M %Z}" if self.next_post else ""),
        )
