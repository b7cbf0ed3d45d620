"""Core value types: questions, channels, rounds, answers, outcomes and platform-neutral cards.

Everything here is immutable (a frozen dataclass, or a named tuple where one is built per answer) so the
service can hand values to adapters and stores without worrying about who mutates what.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
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
    ping_winners: bool = False  # the reveal notifies the members who got it right
    recap_day: int | None = 0  # the weekly recap's local weekday (0 = Monday), at the posting time; None: off
    threads: bool = False  # each reveal opens a discussion thread (Discord) or a reply thread (Slack)
    packs: frozenset[str] = frozenset({"pytorch"})  # the question packs it draws from (pytorch: the shipped bank)
    champion_role: str | None = None  # Discord: the role id the month's winner gets (None: off)


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
class CommandNames:
    """How a platform spells the commands core messages point to (the adapter supplies its own)."""

    practice: str = "/quiz"
    answer: str = "/quiz answer"
    post_now: str = "/quiz config post-now"
    season_board: str = "/quiz leaderboard season {season}"  # {season}: the season id, e.g. 2026-11
    review: str = "/quiz review"
    remind: str = "/quiz remind"


@dataclass(frozen=True)
class Verdict:
    """What a learner sees when a practice answer is judged at once."""

    correct: bool
    chosen_letter: str
    correct_letter: str
    explanation: str
    reference: str
    why_wrong: str = ""  # why the chosen choice fails ("" when it is right or no sentence is known)
    sure: bool = True  # False: the learner marked the answer "not sure"

    @property
    def confident_miss(self) -> bool:
        return self.sure and not self.correct


class AnswerOutcome(NamedTuple):
    """What the learner is told about one answer (a tuple: one is built per answer, and a frozen
    dataclass takes five times as long to build)."""

    round_id: int
    user_id: str
    chosen_letter: str
    text: str  # the private acknowledgement: never the verdict for a daily round
    verdict: Verdict | None = None  # practice only
    follow_up: QuestionCard | None = None  # a review's next question
    review_score: str | None = None  # after a review's last question: its score (also at the end of `text`)


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
    ping_winners: bool = False  # notify correct_users (the channel's setting); otherwise name them quietly
    common_wrong: tuple[str, str] | None = None  # (letter, why it fails) of the most chosen wrong choice
    note: str | None = None  # e.g. "Revealed late: the bot was offline."
    discussion: bool = False  # the channel's threads setting: open a thread on the reveal to talk about it

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


class Board(NamedTuple):
    """One leaderboard: a space's scores for one period (a week, a month or all time)."""

    platform: str
    space_id: str
    period: Period
    period_key: str


# a round's points for one user on a board: (user id, points, correct as 0 or 1, when the user reached the new
# total, or None when the round scored nothing for them)
ScoreRow = tuple[str, int, int, dt.datetime | None]


@dataclass(frozen=True)
class LeaderboardCard:
    title: str
    period: Period
    period_label: str
    rows: tuple[LeaderboardRow, ...]
    me: LeaderboardRow | None = None
    public: bool = False  # asked to be posted in the channel for everyone (no asker's rank then)
    podium: tuple[LeaderboardRow, ...] = ()  # a season's archived top three (rank = place 1-3)
    note: str = ""  # a line under the board (e.g. when a season was archived)


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


@dataclass(frozen=True)
class TopicMastery:
    """How well a learner remembers a topic: mean predicted recall of the seen questions, and coverage."""

    topic: str
    retrievability: float  # 0..1, mean over the seen questions
    seen: int
    total: int  # the topic's questions in the bank


@dataclass(frozen=True)
class LearningStats:
    """A learner's memory in one space (from the FSRS cards and the review log)."""

    due_now: int
    due_tomorrow: int  # due after now and by the end of tomorrow (the space's local time)
    next_due: dt.datetime | None
    mastery: tuple[TopicMastery, ...] = ()
    sure_answers: int = 0  # answers given without "not sure"
    sure_right: int = 0
    timezone: str = "UTC"  # the space's, for showing when the next review is due

    @property
    def calibration(self) -> float | None:
        """How often an answer given "sure" was right (None before any)."""
        return self.sure_right / self.sure_answers if self.sure_answers else None


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
    learning: LearningStats | None = None

    @property
    def accuracy(self) -> float:
        return self.correct / self.answered if self.answered else 0.0

    @property
    def weakest_topic(self) -> TopicStats | None:
        return weakest_topic(self.by_topic)


def weakness_order(topics: Iterable[TopicStats]) -> list[TopicStats]:
    """Topics with a mistake, weakest first: lowest shrunk accuracy, then more answers, then the name. A
    topic never missed is never among them."""
    missed = [t for t in topics if t.correct < t.answered]
    return sorted(missed, key=lambda t: (shrunk_accuracy(t.correct, t.answered), -t.answered, t.topic))


def weakest_topic(topics: Iterable[TopicStats]) -> TopicStats | None:
    order = weakness_order(topics)
    return order[0] if order else None


@dataclass(frozen=True)
class ReviewEmpty:
    """A review found nothing to ask: the text says when the next review is due."""

    text: str


@dataclass(frozen=True)
class ConfigCard:
    config: ChannelConfig
    next_post: dt.datetime | None

    @property
    def lines(self) -> tuple[str, ...]:
        from bot.settings import card_lines  # the settings table imports this module

        return card_lines(self)


# ---- durable daily work (claims of the scheduler's tick) ------------------------------------------


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
class DuePost:
    """A claimed due channel with what its post needs, read in the claim's trip: the channel's settings
    (None: it was deleted) and its open daily rounds (older ones the post may have to reveal first)."""

    due: DueChannel
    config: ChannelConfig | None
    open_rounds: tuple[Round, ...]


@dataclass(frozen=True)
class RevealedRound:
    """A daily round just revealed in a batch, with what its reveal post needs: its answers, its channel's
    settings and this process's claim on the reveal post (None: another process holds it)."""

    round: Round
    answers: tuple[Answer, ...]
    config: ChannelConfig | None
    claim: SendClaim | None


@dataclass(frozen=True)
class DailyClaim:
    """Store.claim_daily_round's arguments: one (channel, local date) slot to claim with its question."""

    ref: ChannelRef
    local_date: dt.date
    question_id: str
    topic: str
    opened_at: dt.datetime
    closes_at: dt.datetime | None
    lease_until: dt.datetime | None = None


@dataclass(frozen=True)
class PostFinish:
    """The outcome of one question send (Store.finish_post's arguments)."""

    round_id: int
    state: str
    message_id: str | None = None
    retry_at: dt.datetime | None = None


@dataclass(frozen=True)
class RevealFinish:
    """The outcome of one reveal send (Store.finish_reveal's arguments)."""

    round_id: int
    state: str
    retry_at: dt.datetime | None = None


@dataclass(frozen=True)
class DueFinish:
    """A claimed due channel released (Store.finish_due_channel's arguments)."""

    ref: ChannelRef
    due_at: dt.datetime
    next_at: dt.datetime | None


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


# ---- the weekly recap -----------------------------------------------------------------------------


@dataclass(frozen=True)
class RecapRound:
    """One revealed daily round of the recap's week, with how it was answered (a store aggregate)."""

    round_id: int
    local_date: dt.date
    question_id: str
    topic: str
    answered: int
    correct: int


@dataclass(frozen=True)
class RecapScorer:
    """A member's week: points from revealed daily rounds, and when they reached that total."""

    user_id: str
    points: int
    correct: int
    answered: int
    reached_at: dt.datetime  # the answer that brought the last points (ties: who got there first)


@dataclass(frozen=True)
class RecapDay:
    day: dt.date
    answered: int
    correct: int


@dataclass(frozen=True)
class HardestQuestion:
    question_id: str
    prompt: str
    correct_letter: str
    local_date: dt.date
    answered: int
    correct: int
    topic: str = ""
    code: str | None = None

    @property
    def accuracy(self) -> float:
        return self.correct / self.answered if self.answered else 0.0


@dataclass(frozen=True)
class RecapCard:
    """The past week of a channel (or a whole space): what the chart draws and its alt text says."""

    title: str
    start: dt.date  # first local date covered
    end: dt.date  # last local date covered
    days: tuple[RecapDay, ...]
    topics: tuple[TopicStats, ...]  # weakest first
    top: tuple[RecapScorer, ...]  # at most five, best first
    hardest: HardestQuestion | None
    names: tuple[tuple[str, str], ...] = ()  # user id -> display name (filled in by the platform)

    @property
    def answered(self) -> int:
        return sum(d.answered for d in self.days)

    @property
    def correct(self) -> int:
        return sum(d.correct for d in self.days)

    @property
    def empty(self) -> bool:
        return self.answered == 0

    def name(self, user_id: str) -> str:
        return dict(self.names).get(user_id, user_id)


# ---- monthly seasons ------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeasonArchive:
    """A space's archived season (a calendar month, id YYYY-MM): its top three, best first (rank = place;
    ties go to who reached the score first), empty when no one scored that month."""

    platform: str
    space_id: str
    season: str
    rows: tuple[LeaderboardRow, ...]
    archived_at: dt.datetime

    @property
    def champion(self) -> str | None:
        return self.rows[0].user_id if self.rows else None


@dataclass(frozen=True)
class SeasonCard:
    """The season card posted on the 1st: last month's top three, with display names when known."""

    season: str
    label: str  # e.g. "November 2026"
    rows: tuple[LeaderboardRow, ...]
    names: tuple[tuple[str, str], ...] = ()
    champion_role: str | None = None  # the Discord role the champion gets, when the channel has one

    def name(self, user_id: str) -> str:
        return dict(self.names).get(user_id, user_id)


class SuggestionStatus(StrEnum):
    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"


@dataclass(frozen=True)
class Suggestion:
    """A question a member suggested (bot.suggestions): its canonical JSON body and its review state."""

    id: int
    ref: ChannelRef  # where it was suggested
    author_id: str
    body: str  # the question in the bank's schema, as canonical JSON (its id is filled in on approval)
    status: SuggestionStatus
    created_at: dt.datetime
    reason: str | None = None  # why it was rejected
    decided_by: str | None = None
    decided_at: dt.datetime | None = None
    question_id: str | None = None  # its id in the pack `suggestions`, once approved


# ---- reports of a question's problems (bot.reports) --------------------------------------------


class ReportReason(StrEnum):
    WRONG = "wrong"  # the marked answer is wrong
    UNCLEAR = "unclear"
    TYPO = "typo"
    OTHER = "other"


class ReportWrite(StrEnum):
    """What the store decided about a new report."""

    ADDED = "added"
    LIMIT = "limit"  # the reporter's daily reports in the space are used up
    DUPLICATE = "duplicate"  # the reporter has an open report on this question already


@dataclass(frozen=True)
class NewReport:
    platform: str
    space_id: str
    question_id: str
    pack: str
    reporter: str
    reason: ReportReason
    text: str  # the member's own words, stored and shown as plain text
    created_at: dt.datetime


@dataclass(frozen=True)
class Report(NewReport):
    """A stored report: the new report's fields, its number, and how it was resolved."""

    id: int = field(kw_only=True)
    status: str = "open"  # open | resolved
    resolution: str | None = None  # keep | hold | edit (when resolved)
    resolved_by: str | None = None
    resolved_at: dt.datetime | None = None

    @property
    def is_open(self) -> bool:
        return self.status == "open"
