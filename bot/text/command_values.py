"""The commands the `/quiz ...` grammar parses to (bot.text.commands): plain values the caller turns into
feature service calls."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from bot.kernel.values import Difficulty, Period
from bot.practice.reviews import REVIEW_DEFAULT
from bot.reports.values import ReportReason
from bot.settings import ConfigChange
from bot.suggestions.service import SuggestionForm


@dataclass(frozen=True)
class Practice:
    topic: str | None = None
    difficulty: Difficulty | None = None


@dataclass(frozen=True)
class AnswerDaily:
    choice: int
    sure: bool = True


@dataclass(frozen=True)
class Review:
    count: int = REVIEW_DEFAULT


@dataclass(frozen=True)
class ReviewSetting:
    """`review limit N`, `review pause DAYS` or `review resume`."""

    action: Literal["limit", "pause", "resume"]
    value: int = 0


@dataclass(frozen=True)
class PlanCommand:
    """`plan` (show it), `plan YYYY-MM-DD [topic,...]` or `plan off`."""

    day: dt.date | None = None
    topics: tuple[str, ...] = ()
    off: bool = False


@dataclass(frozen=True)
class Remind:
    on: bool | None  # None: show the reminder
    at: dt.time | None = None  # None: the reminder's own time, else the default (bot.reminders.DEFAULT_TIME)
    timezone: str | None = None  # an IANA name; None: the learner's own, the reminder's or the channel's


@dataclass(frozen=True)
class ShowTopics:
    pass


@dataclass(frozen=True)
class ShowLeaderboard:
    period: Period = Period.WEEK
    public: bool = False  # post it in the channel for everyone
    season: str | None = None  # `season 2026-11`: an archived month (YYYY-MM) instead of a period


@dataclass(frozen=True)
class ShowTeamBoard:
    period: Period = Period.WEEK
    public: bool = False


TeamAction: TypeAlias = Literal["create", "join", "leave", "list", "rename", "remove"]
TEAM_ACTIONS: tuple[TeamAction, ...] = ("create", "join", "leave", "list", "rename", "remove")


@dataclass(frozen=True)
class TeamCommand:
    """`/quiz team ...`: the name is as typed (the teams feature checks it)."""

    action: TeamAction
    name: str = ""
    new_name: str = ""  # rename only


@dataclass(frozen=True)
class ShowLiveBoard:
    public: bool = False  # post it in the channel for everyone


@dataclass(frozen=True)
class LiveStart:
    """`live [n] [topic] [seconds]`: None takes the game's default."""

    questions: int | None = None
    topic: str | None = None
    seconds: int | None = None


@dataclass(frozen=True)
class LiveStop:
    pass


@dataclass(frozen=True)
class ShowStats:
    user: str | None = None


@dataclass(frozen=True)
class ShowProgress:
    pass


@dataclass(frozen=True)
class ShowHelp:
    reason: str | None = None  # set when the input was not understood
    suggestion: str | None = None  # a close command ("did you mean ..."): then the reply is short


ConfigAction: TypeAlias = Literal["set", "show", "pause", "resume", "post-now", "reveal"]


@dataclass(frozen=True)
class Configure:
    action: ConfigAction
    change: ConfigChange = field(default_factory=ConfigChange)
    channel: str | None = None  # `channel #c` (Slack): configure another channel


@dataclass(frozen=True)
class ShowPacks:
    pass


@dataclass(frozen=True)
class ShowDashboard:
    pass


@dataclass(frozen=True)
class ShowPast:
    count: int | None = None  # how many (None: the default)


@dataclass(frozen=True)
class ShowQuestionStats:
    pack: str | None = None


@dataclass(frozen=True)
class Suggest:
    form: SuggestionForm | None = None  # None: open the platform's form (or say how to write one)


@dataclass(frozen=True)
class ShowSuggestions:
    pass


@dataclass(frozen=True)
class DecideSuggestion:
    suggestion_id: int
    approve: bool
    reason: str = ""


@dataclass(frozen=True)
class Export:
    pass


@dataclass(frozen=True)
class ForgetMe:
    confirm: bool = False  # without it: explain, change nothing


@dataclass(frozen=True)
class ImportPack:
    """`admin import [PATH] [pack] [--replace]`: PATH is a file on the console; Slack asks for the file."""

    pack: str | None = None
    replace: bool = False
    path: str | None = None


@dataclass(frozen=True)
class ReportQuestion:
    """`/quiz report [reason] [text]`: the newer of the channel's daily question and the member's last practice."""

    reason: ReportReason
    text: str = ""


@dataclass(frozen=True)
class ShowReports:
    pass


@dataclass(frozen=True)
class ResolveReport:
    report_id: int
    action: str  # keep | hold | edit


@dataclass(frozen=True)
class ExportPack:
    pack: str | None = None
    format: str = "yaml"


Command = (
    Practice
    | AnswerDaily
    | Review
    | ReviewSetting
    | PlanCommand
    | Remind
    | ShowTopics
    | ShowLeaderboard
    | ShowTeamBoard
    | TeamCommand
    | ShowStats
    | ShowProgress
    | ShowHelp
    | Configure
    | ShowPacks
    | ShowDashboard
    | ShowPast
    | ShowQuestionStats
    | Suggest
    | ShowSuggestions
    | DecideSuggestion
    | Export
    | ForgetMe
    | ImportPack
    | ExportPack
    | ReportQuestion
    | ShowReports
    | ResolveReport
    | ShowLiveBoard
    | LiveStart
    | LiveStop
)
