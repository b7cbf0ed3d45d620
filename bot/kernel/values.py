"""The shared values of the core: questions, channels, rounds, answers and who asks.

Everything here is immutable (a frozen dataclass, or a named tuple where one is built per answer), so
features can hand values to adapters and stores without worrying about who mutates what.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

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
    LIVE = "live"  # one question of a live game in a channel (bot.live)


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
    """Who asks. `is_admin` is computed by the adapter from the member's real platform rights; `via_role`: an
    admin only through the space's manager role (Discord's manager_role), who may not change that role."""

    user_id: str
    is_admin: bool = False
    via_role: bool = False


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
    ping_winners: bool = False  # the reveal notifies the members who got it right
    recap_day: int | None = 0  # the weekly recap's local weekday (0 = Monday), at the posting time; None: off
    threads: bool = False  # each reveal opens a discussion thread (Discord) or a reply thread (Slack)
    packs: frozenset[str] = frozenset({"pytorch"})  # the question packs it draws from (pytorch: the shipped bank)
    champion_role: str | None = None  # Discord: the role id the month's winner gets (None: off)
    manager_role: str | None = None  # Discord: members with this role id count as the space's admins (None: off)
    ping_role: str | None = None  # Discord: the role id the daily question mentions (None: off)
    ping_group: str | None = None  # Slack: the user group id the daily question mentions (None: off)


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
    points: int | None = None  # set when its round is revealed and it earned points (None: none, or not yet)


class AnswerStatus(StrEnum):
    """The store's verdict on one submitted answer."""

    RECORDED = "recorded"
    DUPLICATE = "duplicate"  # the user had answered already; the first answer stands
    CLOSED = "closed"  # the round was revealed or its window ended
    UNKNOWN = "unknown"  # no such round


class NewAnswer(NamedTuple):
    """An answer on its way to the store (a tuple: thousands are built per second)."""

    round_id: int
    user_id: str
    choice: int
    correct: bool
    answered_at: dt.datetime


class PracticeAnswer(NamedTuple):
    """A recorded practice answer on its way to be revealed at once (and to update the learner's card)."""

    round_id: int
    user_id: str
    correct: bool
    sure: bool
    answered_at: dt.datetime


@dataclass(frozen=True)
class AnswerWrite:
    """The store's verdict on one answer of a batch."""

    status: str  # an AnswerStatus value: "recorded" | "duplicate" | "closed" | "unknown"
    existing_choice: int | None = None


@dataclass(frozen=True)
class StreakState:
    """A learner's streak in a space. `current` is the streak points are scored on (consecutive daily dates
    answered right); `kept` is the streak shown, where a held freeze bridged a missed date (it adds nothing,
    and never points); `freezes` held (0-2), `freezes_used` in all, `frozen` used within the kept streak."""

    current: int
    best: int
    last_date: dt.date | None
    kept: int = 0  # rows from before freezes hold 0: read max(kept, current)
    freezes: int = 0
    freezes_used: int = 0
    frozen: int = 0


@dataclass(frozen=True)
class CommandNames:
    """How a platform spells the commands core messages point to (the adapter supplies its own)."""

    practice: str = "/quiz"
    answer: str = "/quiz answer"
    post_now: str = "/quiz config post-now"
    season_board: str = "/quiz leaderboard season {season}"  # {season}: the season id, e.g. 2026-11
    review: str = "/quiz review"
    remind: str = "/quiz remind"
    remind_at: str = "/quiz remind on {time} {zone}"  # {time}: HH:MM, {zone}: an IANA timezone
    team: str = "/quiz team {action}"  # {action}: create, join, leave, list, rename or remove
    team_named: str = "/quiz team {action} {name}"
    live: str = "/quiz live"
    live_stop: str = "/quiz live stop"
    plan: str = "/quiz plan"
    review_limit: str = "/quiz review limit N"
    review_resume: str = "/quiz review resume"
    schedule: str = "/quiz config time 09:00 tz Europe/Berlin days mon-fri"  # an admin sets up the daily question
    help: str = "/quiz help"
    dashboard: str = "/quiz dashboard"


@dataclass(frozen=True)
class TopicStats:
    topic: str
    answered: int
    correct: int

    @property
    def accuracy(self) -> float:
        return self.correct / self.answered if self.answered else 0.0


def shrunk_accuracy(correct: int, answered: int) -> float:
    """Accuracy pulled toward one half, so a single answer counts without deciding alone."""
    return (correct + 1) / (answered + 2)


def weakness_order(topics: Iterable[TopicStats]) -> list[TopicStats]:
    """Topics with a mistake, weakest first: lowest shrunk accuracy, then more answers, then the name. A
    topic never missed is never among them."""
    missed = [t for t in topics if t.correct < t.answered]
    return sorted(missed, key=lambda t: (shrunk_accuracy(t.correct, t.answered), -t.answered, t.topic))


def weakest_topic(topics: Iterable[TopicStats]) -> TopicStats | None:
    order = weakness_order(topics)
    return order[0] if order else None


@dataclass(frozen=True)
class SpaceFilter:
    """Which work a process claims: channels of its running platforms (None: every platform) and, on the
    sharded platform, only spaces on its shards ((space id >> 22) % count in ids). A space id that is not a
    number (a learner's own `user:<id>` space of DMs) is on shard 0, where Discord sends DM events. Stores turn
    it into SQL."""

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
            return 0 in self.shard_ids


@dataclass(frozen=True)
class DueChannel:
    """A channel whose daily post is due, claimed by one process until `lease_until`."""

    ref: ChannelRef
    due_at: dt.datetime
