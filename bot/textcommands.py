"""The `/quiz ...` text grammar shared by text-driven channels (the console, Slack's one slash command).

It only parses: values are checked by bot.parsing (BadSetting says what is accepted) and the caller
turns the result into service calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.bank import TOPICS
from bot.errors import BadSetting
from bot.model import Period
from bot.parsing import (
    parse_choice,
    parse_difficulties,
    parse_on_off,
    parse_period,
    parse_time,
    parse_timezone,
    parse_topics,
    parse_weekdays,
    parse_window,
)

HELP = """\
/quiz                          a private practice question (any topic)
/quiz practice [topic]         a practice question on one topic
/quiz answer B                 answer today's question in this channel
/quiz leaderboard [week|month|all]
/quiz stats [user]             answered, accuracy by topic, streaks
/quiz help                     this text
admins:
/quiz config show | pause | resume | post-now | reveal
/quiz config time 09:00 tz Europe/Berlin days mon-fri
/quiz config channel #c time 09:00 ...  (settings of another channel)
/quiz config filters topics autograd,tensors difficulty easy,medium   (or: all)
/quiz config window 12h | reactions on|off | speed on|off"""


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


@dataclass(frozen=True)
class Configure:
    action: str  # set | show | pause | resume | post-now | reveal
    changes: dict[str, object] = field(default_factory=dict)
    channel: str | None = None  # `channel #c` (Slack): configure another channel


Command = Practice | AnswerDaily | ShowLeaderboard | ShowStats | ShowHelp | Configure

_SETTING_KEYS = {
    "time": "post_time",
    "at": "post_time",
    "tz": "timezone",
    "timezone": "timezone",
    "days": "weekdays",
    "weekdays": "weekdays",
    "topics": "topics",
    "topic": "topics",
    "difficulty": "difficulties",
    "difficulties": "difficulties",
    "window": "answer_window",
    "reactions": "reactions",
    "speed": "speed_bonus",
    "channel": "channel",
}


def _parse_setting(key: str, value: str) -> object:
    match key:
        case "post_time":
            return parse_time(value)
        case "timezone":
            return parse_timezone(value)
        case "weekdays":
            return parse_weekdays(value)
        case "topics":
            return parse_topics(value, tuple(TOPICS))
        case "difficulties":
            return parse_difficulties(value)
        case "answer_window":
            return parse_window(value)
        case "reactions" | "speed_bonus":
            return parse_on_off(value)
    raise AssertionError(key)


def parse_config(words: list[str]) -> Configure:
    if not words:
        return Configure("show")
    head = words[0].lower()
    if head in {"show", "pause", "resume", "post-now", "postnow", "reveal"} and len(words) == 1:
        return Configure(head.replace("postnow", "post-now"))
    if head == "filters":
        words = words[1:]
        if not words:
            return Configure("show")
    if len(words) % 2:
        raise BadSetting(
            f"'{' '.join(words)}' is not a setting list: give pairs such as time 09:00 tz Europe/Berlin days mon-fri."
        )
    changes: dict[str, object] = {}
    channel = None
    for key, value in zip(words[::2], words[1::2], strict=True):
        name = _SETTING_KEYS.get(key.lower())
        if name is None:
            raise BadSetting(
                f"'{key}' is not a setting: use time, tz, days, topics, difficulty, window, reactions, speed."
            )
        if name == "channel":
            channel = value
            continue
        changes[name] = _parse_setting(name, value)
    if not changes and channel is None:
        return Configure("show")
    return Configure("set", changes, channel)


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
        case "config" | "settings":
            return parse_config(rest)
        case "reveal":
            return Configure("reveal")
    if sub in TOPICS:
        return Practice(sub)
    return ShowHelp(f"'{sub}' is not a /quiz command")


