"""The `/quiz ...` text grammar shared by text-driven channels (the console, Slack's one slash command).

It only parses: settings come from bot.settings (each value checked by its parser; BadSetting says what is
accepted) and the caller turns the result into service calls.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from bot.bank import TOPICS
from bot.errors import BadSetting
from bot.model import Period
from bot.parsing import parse_choice, parse_period
from bot.settings import ConfigChange, lookup, text_help

_USER_HELP = """\
/quiz                          a private practice question (any topic)
/quiz practice [topic]         a practice question on one topic
/quiz answer B                 answer today's question in this channel
/quiz leaderboard [week|month|all]
/quiz stats [user]             answered, accuracy by topic, streaks
/quiz packs                    the question packs here, with question counts
/quiz help                     this text
admins:
/quiz config show | pause | resume | post-now | reveal
/quiz question-stats [pack]    the hardest questions here and the ones to check
/quiz config time 09:00 tz Europe/Berlin days mon-fri   (several settings in one line)
/quiz config channel #c time 09:00 ...  (settings of another channel)
"""
HELP = _USER_HELP + text_help()

@dataclass(frozen=True)
class Practice:
    topic: str | None = None


@dataclass(frozen=True)
class AnswerDaily:
    choice: int


@dataclass(frozen=True)
class ShowLeaderboard:
    period: Period = Period.WEEK


@dataclass(frozen=True)
class ShowStats:
    user: str | None = None


@dataclass(frozen=True)
class ShowHelp:
    reason: str | None = None  # set when the input was not understood
    suggestion: str | None = None  # a close command ("did you mean ..."): then the reply is short


@dataclass(frozen=True)
class Configure:
    action: str  # set | show | pause | resume | post-now | reveal
    change: ConfigChange = field(default_factory=ConfigChange)
    channel: str | None = None  # `channel #c` (Slack): configure another channel


@dataclass(frozen=True)
class ShowPacks:
    pass


@dataclass(frozen=True)
class ShowQuestionStats:
    pack: str | None = None


Command = Practice | AnswerDaily | ShowLeaderboard | ShowStats | ShowHelp | Configure | ShowPacks | ShowQuestionStats

_ACTIONS = ("show", "pause", "resume", "post-now", "reveal")


def parse_config(words: list[str]) -> Configure:
    if not words:
        return Configure("show")
    head = words[0].lower()
    if head in {*_ACTIONS, "postnow"} and len(words) == 1:
        return Configure(head.replace("postnow", "post-now"))
    if head == "filters":
        words = words[1:]
        if not words:
            return Configure("show")
    if len(words) % 2:
        if len(words) == 1:
            close = difflib.get_close_matches(head, _ACTIONS, n=1)
            if close:
                raise BadSetting(f"'{words[0]}' is not a /quiz config command. Did you mean `/quiz config {close[0]}`?")
            setting = lookup(head)  # an unknown word: "not a setting", with the closest one
            raise BadSetting(f"'{words[0]}' needs a value, for example /quiz config {setting.word} {setting.example}.")
        raise BadSetting(
            f"'{' '.join(words)}' is not a setting list: give pairs such as time 09:00 tz Europe/Berlin days mon-fri."
        )
    pairs = list(zip(words[::2], words[1::2], strict=True))
    channel = next((value for key, value in pairs if key.lower() == "channel"), None)
    change = ConfigChange.parse((key, value) for key, value in pairs if key.lower() != "channel")
    if not change and channel is None:
        return Configure("show")
    return Configure("set", change, channel)


# what /quiz accepts first, for "did you mean"
_SUBCOMMANDS = (
    "practice", "answer", "leaderboard", "stats", "help", "config", "reveal", "post-now", "packs", "question-stats",
)


def parse_quiz(text: str) -> Command:
    """Parse what follows `/quiz` (or a whole line starting with /quiz)."""
    words = text.strip().split()
    if words and words[0].lower() in {"/quiz", "quiz"}:
        words = words[1:]
    if not words:
        return Practice()
    sub, rest = words[0].lower(), words[1:]
    match sub:
        case "practice" | "p":
            if len(rest) > 1:
                return ShowHelp("practice takes at most one topic")
            topic = rest[0].lower() if rest else None
            if topic is not None and topic not in TOPICS:
                raise BadSetting(f"'{rest[0]}' is not a topic: use one of {', '.join(TOPICS)}.")
            return Practice(topic)
        case "answer" | "a":
            if len(rest) != 1:
                raise BadSetting("Say which choice: /quiz answer B (A, B, C or D).")
            return AnswerDaily(parse_choice(rest[0]))
        case "leaderboard" | "lb" | "top":
            if len(rest) > 1:
                raise BadSetting("Use /quiz leaderboard week, month or all.")
            return ShowLeaderboard(parse_period(rest[0] if rest else None))
        case "stats" | "me":
            return ShowStats(rest[0] if rest else None)
        case "help" | "?":
            return ShowHelp()
        case "packs" | "pack":
            return ShowPacks()
        case "question-stats" | "questionstats":
            if len(rest) > 1:
                raise BadSetting("Use /quiz question-stats or /quiz question-stats PACK.")
            return ShowQuestionStats(rest[0].lower() if rest else None)
        case "config" | "settings":
            return parse_config(rest)
        case "reveal":
            return Configure("reveal")
        case "post-now" | "postnow":
            return parse_config(["post-now", *rest])
    if sub in TOPICS:
        return Practice(sub)
    close = difflib.get_close_matches(sub, (*_SUBCOMMANDS, *TOPICS), n=1, cutoff=0.7)
    if close:
        return ShowHelp(f"'{sub}' is not a /quiz command", f"/quiz {close[0]}")
    return ShowHelp(f"'{sub}' is not a /quiz command")


