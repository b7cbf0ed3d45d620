"""The `/quiz ...` text grammar shared by text-driven channels (the console, Slack's one slash command).

It only parses: settings come from bot.settings (each value checked by its parser; BadSetting says what is
accepted) and the caller turns the result into service calls.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re

from bot.daily.past import CHAT_MAX as PAST_MAX
from bot.kernel.echo import echo
from bot.kernel.errors import BadSetting
from bot.kernel.parsing import PACK_NAME, parse_choice, parse_number, parse_period, parse_season, parse_timezone
from bot.kernel.topics import TOPICS
from bot.kernel.values import Difficulty, Period
from bot.packs.files import TOPIC_PATTERN
from bot.practice.plans import parse_plan_date, parse_plan_topics
from bot.practice.reviews import REVIEW_MAX
from bot.practice.values import PAUSE_MAX_DAYS, REVIEW_LIMIT_MAX
from bot.reminders.service import parse_remind_time
from bot.reports.service import check_action, parse_report_words
from bot.settings import ConfigChange, lookup, text_help
from bot.suggestions.service import parse_line, parse_suggestion_id
from bot.text.command_values import (
    TEAM_ACTIONS,
    AnswerDaily,
    Command,
    ConfigAction,
    Configure,
    DecideSuggestion,
    Export,
    ExportPack,
    ForgetMe,
    ImportPack,
    LiveStart,
    LiveStop,
    PlanCommand,
    Practice,
    Remind,
    ReportQuestion,
    ResolveReport,
    Review,
    ReviewSetting,
    ShowDashboard,
    ShowHelp,
    ShowLeaderboard,
    ShowLiveBoard,
    ShowPacks,
    ShowPast,
    ShowProgress,
    ShowQuestionStats,
    ShowReports,
    ShowStats,
    ShowSuggestions,
    ShowTeamBoard,
    ShowTopics,
    Suggest,
    TeamCommand,
)

_USER_HELP = """\
/quiz                          a private practice question (any topic)
/quiz practice [topic] [easy|medium|hard]   a practice question on one topic or level
/quiz review [n]               due reviews (1-20, default 5); limit N, pause DAYS, resume
/quiz plan DATE [topics]|off   an interview-date plan
/quiz topics                   the topics and how many questions each has
/quiz remind on [HH:MM] [tz]   a private nudge once a day (default 09:00, your timezone): reviews due,
                               today's question not answered yet; /quiz remind shows it, off stops it
/quiz answer B                 answer today's question in this channel (add ? if not sure: /quiz answer B ?)
/quiz leaderboard [teams] [week|month|all] [public]   (public: in the channel)
/quiz leaderboard season 2026-11   a month's season: its archived top three and its board
/quiz team [create|join NAME | leave]   your team and the others (admins: rename A to B, remove A)
/quiz live [n] [topic] [seconds] | stop   a live game here
/quiz stats [user]             answered, accuracy by topic, streaks
/quiz past [n]                 the last revealed daily questions here (1-5, default 3), with their answers
/quiz progress                 your learning report and chart
/quiz packs                    the question packs here, with question counts
/quiz suggest                  suggest a question (a form, or how to write it in one line)
/quiz export                   your missed questions as a CSV and an Anki deck (only you get them)
/quiz forget-me [confirm]      delete everything studybot keeps about you here (asks first)
/quiz dashboard                where the web dashboard is: your progress and settings, the boards
/quiz report [wrong|unclear|typo|other] [what is wrong]   report a problem with the latest question
                               (yours: the newer of this channel's daily question and your last practice one)
/quiz help                     this text
admins:
/quiz config show | pause | resume | post-now | reveal   (/quiz show: the settings)
/quiz admin question-stats [pack]   the hardest and most reported questions, and the ones to check
/quiz admin import [pack] [--replace]   import a question pack (YAML or CSV; the console: PATH first)
/quiz admin export [pack] [yaml|csv]    export one of this space's packs as a file
/quiz admin suggestions | approve ID | reject ID reason...   review members' suggested questions
/quiz admin reports            the open reports of problems with questions, oldest first
/quiz admin resolve ID keep|hold|edit   keep: it is fine; hold: not asked until kept; edit: own packs
/quiz config time 09:00 tz Europe/Berlin days mon-fri   (several settings in one line)
/quiz config channel #c time 09:00 ...  (settings of another channel)
"""
HELP = _USER_HELP + text_help()


_ACTION_OF: dict[str, ConfigAction] = {
    "show": "show",
    "pause": "pause",
    "resume": "resume",
    "post-now": "post-now",
    "postnow": "post-now",
    "reveal": "reveal",
}


_ACTIONS = ("show", "pause", "resume", "post-now", "reveal")


def parse_config(words: list[str]) -> Configure:
    if not words:
        return Configure("show")
    head = words[0].lower()
    if head in _ACTION_OF and len(words) == 1:
        return Configure(_ACTION_OF[head])
    if head == "filters":
        words = words[1:]
        if not words:
            return Configure("show")
    if len(words) % 2:
        if len(words) == 1:
            said = echo(words[0])
            close = difflib.get_close_matches(head, _ACTIONS, n=1)
            if close:
                raise BadSetting(f"'{said}' is not a /quiz config command. Did you mean `/quiz config {close[0]}`?")
            setting = lookup(head)  # an unknown word: "not a setting", with the closest one
            raise BadSetting(f"'{said}' needs a value, for example /quiz config {setting.word} {setting.example}.")
        raise BadSetting(
            f"'{echo(' '.join(words))}' is not a setting list: "
            "give pairs such as time 09:00 tz Europe/Berlin days mon-fri."
        )
    pairs = list(zip(words[::2], words[1::2], strict=True))
    channel = next((value for key, value in pairs if key.lower() == "channel"), None)
    change = ConfigChange.parse((key, value) for key, value in pairs if key.lower() != "channel")
    if not change and channel is None:
        return Configure("show")
    return Configure("set", change, channel)


# what /quiz accepts first, for "did you mean"
_SUBCOMMANDS = (
    "practice",
    "answer",
    "review",
    "plan",
    "remind",
    "topics",
    "leaderboard",
    "stats",
    "progress",
    "help",
    "config",
    "show",
    "reveal",
    "post-now",
    "packs",
    "question-stats",
    "suggest",
    "admin",
    "export",
    "forget-me",
    "admin",
    "report",
    "team",
    "live",
    "dashboard",
    "past",
)
_ADMIN = ("import", "export", "question-stats", "suggestions", "approve", "reject", "reports", "resolve")
RESOLVE_USAGE = "Use /quiz admin resolve ID keep, hold or edit (the ID is a report's number in /quiz admin reports)."
_LEVELS = tuple(d.value for d in Difficulty)


def parse_practice(rest: list[str]) -> Practice | ShowHelp:
    """`practice [topic] [difficulty]`, in either order."""
    if len(rest) > 2:
        return ShowHelp("practice takes at most a topic and a difficulty")
    topic: str | None = None
    level: Difficulty | None = None
    for word in (w.lower() for w in rest):
        if word in _LEVELS and level is None:
            level = Difficulty(word)
        elif topic is None and re.fullmatch(TOPIC_PATTERN, word):
            topic = word  # a topic of the channel's packs (the service checks it against them)
        else:
            raise BadSetting(
                f"'{echo(word)}' is not a topic or a difficulty: /quiz topics lists the topics here "
                f"(for example {', '.join(sorted(TOPICS)[:3])}), and the levels are easy, medium and hard."
            )
    return Practice(topic, level)


def _pack_word(word: str) -> str | None:
    """A pack name as typed (lower-cased), or None when the word cannot be one (a path, say)."""
    name = word.lower()
    return name if PACK_NAME.fullmatch(name) else None


def parse_admin(rest: list[str]) -> Command:
    """`admin import [PATH] [pack] [--replace]`, `admin export [pack] [yaml|csv]`, `admin question-stats [pack]`,
    `admin suggestions`, `admin approve ID`, `admin reject ID reason...`, `admin reports`,
    `admin resolve ID keep|hold|edit`."""
    if not rest:
        raise BadSetting(
            "Use /quiz admin import, export, question-stats, suggestions, approve ID, reject ID reason, reports "
            "or resolve ID keep|hold|edit."
        )
    sub, words = rest[0].lower(), rest[1:]
    if sub in ("suggestions", "suggestion"):
        if words:
            raise BadSetting(_ADMIN_USE)
        return ShowSuggestions()
    if sub == "approve":
        if len(words) != 1:
            raise BadSetting(_ADMIN_USE)
        return DecideSuggestion(parse_suggestion_id(words[0]), approve=True)
    if sub == "reject":
        if not words:
            raise BadSetting(_ADMIN_USE)
        return DecideSuggestion(parse_suggestion_id(words[0]), approve=False, reason=" ".join(words[1:]))
    if sub in ("question-stats", "questionstats", "stats"):
        return parse_question_stats(words)
    if sub in ("reports", "queue") and not words:
        return ShowReports()
    if sub == "resolve":
        report_id = parse_number(words[0]) if len(words) == 2 else None
        if report_id is None:
            raise BadSetting(RESOLVE_USAGE)
        return ResolveReport(report_id, check_action(words[1]))
    if sub == "import":
        replace = any(w.lower() in ("--replace", "replace") for w in words)
        words = [w for w in words if w.lower() not in ("--replace", "replace")]
        if len(words) > 2 or (len(words) == 2 and _pack_word(words[1]) is None):
            raise BadSetting(
                "Use /quiz admin import [pack] [--replace] (the console: /quiz admin import PATH [pack] [--replace])."
            )
        if len(words) == 2:
            return ImportPack(_pack_word(words[1]), replace, words[0])
        if words and _pack_word(words[0]) is None:
            return ImportPack(None, replace, words[0])  # not a pack name: a file's path
        return ImportPack(_pack_word(words[0]) if words else None, replace)
    if sub == "export":
        fmt: str | None = None
        pack: str | None = None
        for word in (w.lower() for w in words):
            if word in ("yaml", "yml", "csv") and fmt is None:
                fmt = "csv" if word == "csv" else "yaml"
            elif pack is None and _pack_word(word):
                pack = word
            else:
                raise BadSetting(
                    f"'{echo(word)}' is not a pack name or a format: use /quiz admin export [pack] [yaml|csv]."
                )
        return ExportPack(pack, fmt or "yaml")
    close = difflib.get_close_matches(sub, _ADMIN, n=1)
    hint = f" Did you mean `/quiz admin {close[0]}`?" if close else ""
    raise BadSetting(
        f"'{echo(sub)}' is not a /quiz admin command: import, export, question-stats, suggestions, approve, "
        f"reject, reports or resolve.{hint}"
    )


def parse_question_stats(rest: list[str]) -> ShowQuestionStats:
    if len(rest) > 1:
        raise BadSetting("Use /quiz admin question-stats or /quiz admin question-stats PACK.")
    if rest and _pack_word(rest[0]) is None:
        raise BadSetting(
            f"'{echo(rest[0])}' is not a pack name: use /quiz admin question-stats PACK (/quiz packs lists them)."
        )
    return ShowQuestionStats(rest[0].lower() if rest else None)


def parse_answer(rest: list[str]) -> AnswerDaily:
    """`answer B`, `answer B ?` or `answer B?` (not sure)."""
    words = list(rest)
    sure = True
    if len(words) == 2 and words[1] == "?":
        words, sure = words[:1], False
    elif len(words) == 1 and len(words[0]) > 1 and words[0].endswith("?"):
        words, sure = [words[0][:-1]], False
    if len(words) != 1:
        raise BadSetting("Say which choice: /quiz answer B (A, B, C or D), or /quiz answer B ? if you are not sure.")
    return AnswerDaily(parse_choice(words[0]), sure)


REVIEW_SETTING_USAGE = (
    "Use /quiz review limit N (1-100 a day), /quiz review pause DAYS (1-60) or /quiz review resume. "
    "Nothing was changed."
)


def parse_review(rest: list[str]) -> Review | ReviewSetting:
    """`review [n]`, `review limit N`, `review pause DAYS` or `review resume`."""
    head = rest[0].lower() if rest else ""
    if head in ("limit", "pause"):
        top = REVIEW_LIMIT_MAX if head == "limit" else PAUSE_MAX_DAYS
        value = parse_number(rest[1], 3) if len(rest) == 2 else None
        if value is None or not 1 <= value <= top:
            said = f" '{echo(' '.join(rest[1:]))}' is not a number from 1 to {top}." if rest[1:] else ""
            raise BadSetting(f"{said.strip()} {REVIEW_SETTING_USAGE}".strip())
        return ReviewSetting("limit" if head == "limit" else "pause", value)
    if head == "resume":
        if len(rest) != 1:
            raise BadSetting(REVIEW_SETTING_USAGE)
        return ReviewSetting("resume")
    return parse_review_count(rest)


PLAN_USAGE = "Use /quiz plan YYYY-MM-DD [topic,...], /quiz plan to see it, or /quiz plan off."


def parse_plan(rest: list[str]) -> PlanCommand:
    """`plan`, `plan off` or `plan YYYY-MM-DD [topic,...]`."""
    if not rest:
        return PlanCommand()
    if rest[0].lower() == "off":
        if len(rest) != 1:
            raise BadSetting(PLAN_USAGE)
        return PlanCommand(off=True)
    day = parse_plan_date(rest[0])
    topics = parse_plan_topics(rest[1:])
    for topic in topics:
        if not re.fullmatch(TOPIC_PATTERN, topic):
            raise BadSetting(f"'{echo(topic)}' is not a topic: /quiz topics lists them. {PLAN_USAGE}")
    return PlanCommand(day, topics)


def _count(rest: list[str], top: int, what: str, example: str) -> int | None:
    """A command's one optional count, 1 to `top` (None: not given); anything else names what it is not."""
    if not rest:
        return None
    count = parse_number(rest[0], 2) if len(rest) == 1 else None
    if count is not None and 1 <= count <= top:
        return count
    raise BadSetting(f"'{echo(' '.join(rest))}' is not {what}: give a number from 1 to {top}, for example {example}.")


def parse_review_count(rest: list[str]) -> Review:
    count = _count(rest, REVIEW_MAX, "a review length", "/quiz review 5")
    return Review() if count is None else Review(count)


def parse_past(rest: list[str]) -> ShowPast:
    return ShowPast(_count(rest, PAST_MAX, "a number of questions", "/quiz past 5"))


_SUGGEST = re.compile(r"^\s*(?:/?quiz\s+)?suggest(?:\s+(.*))?$", re.S | re.I)
_ADMIN_USE = "Use /quiz admin suggestions, /quiz admin approve ID or /quiz admin reject ID reason."
REMIND_USAGE = (
    "Use /quiz remind on, /quiz remind on 08:30 (24-hour HH:MM), /quiz remind on 08:30 Europe/Berlin, "
    "/quiz remind off or /quiz remind (how it is set). Nothing was changed."
)


def parse_remind(rest: list[str]) -> Remind:
    """`remind` (show it), `remind on [HH:MM] [timezone]` (either order) or `remind off`."""
    head = rest[0].lower() if rest else ""
    if not rest or (head in {"show", "status"} and len(rest) == 1):
        return Remind(None)
    if head == "on" and len(rest) <= 3:
        at: dt.time | None = None
        zone: str | None = None
        for word in rest[1:]:
            if at is None and word[:1].isdigit():  # a time, or its specific error (no zone starts with a digit)
                at = parse_remind_time(word)
            elif zone is None and not word[:1].isdigit():
                zone = parse_timezone(word)
            else:
                raise BadSetting(REMIND_USAGE)
        return Remind(True, at, zone)
    if head == "off" and len(rest) == 1:
        return Remind(False)
    raise BadSetting(REMIND_USAGE)


TEAM_USAGE = (
    "Use /quiz team create NAME, /quiz team join NAME, /quiz team leave or /quiz team list (admins: /quiz team "
    "rename NAME to NEW NAME, /quiz team remove NAME). Nothing was changed."
)


def parse_team(rest: list[str]) -> TeamCommand:
    """`team create NAME`, `team join NAME`, `team leave`, `team list` (or `team` alone: your team and the
    others), `team rename NAME to NEW NAME` (or NAME | NEW NAME, when a name holds the word "to") and `team remove
    NAME`."""
    if not rest:
        return TeamCommand("list")
    head = rest[0].lower()
    words = rest[1:]
    action = next((a for a in TEAM_ACTIONS if a == head), None)
    if action in ("leave", "list") and not words:
        return TeamCommand(action)
    if action in ("create", "join", "remove") and words:
        return TeamCommand(action, " ".join(words))
    if action == "rename" and words:
        text = " ".join(words)
        if "|" in text:
            old, _, new = text.partition("|")
        else:
            splits = [i for i, w in enumerate(words) if w.lower() == "to"]
            if len(splits) != 1:
                raise BadSetting("Use /quiz team rename NAME to NEW NAME (or NAME | NEW NAME). Nothing was changed.")
            old, new = " ".join(words[: splits[0]]), " ".join(words[splits[0] + 1 :])
        if old.strip() and new.strip():
            return TeamCommand("rename", old.strip(), new.strip())
    raise BadSetting(TEAM_USAGE)


def parse_team_board(words: list[str], public: bool) -> ShowTeamBoard:
    """`leaderboard teams [week|month|all] [public]`."""
    if len(words) > 1:
        raise BadSetting("Use /quiz leaderboard teams week, month or all, and public to post it in the channel.")
    return ShowTeamBoard(parse_period(words[0] if words else None), public)


LIVE_USAGE = (
    "Use /quiz live [n] [topic] [seconds], e.g. /quiz live 10 autograd 20 (3-30 questions, 10-120 seconds each), "
    "or /quiz live stop."
)


def parse_live(rest: list[str]) -> LiveStart | LiveStop:
    """`live stop`, or `live [n] [topic] [seconds]`: the first number is how many questions, the second the
    seconds (`30s` too), a word the topic (the service checks the ranges and the topic)."""
    if [w.lower() for w in rest] == ["stop"]:
        return LiveStop()
    numbers: list[int] = []
    topic: str | None = None
    for word in rest:
        lowered = word.lower()
        number = parse_number(lowered.removesuffix("s"), 3) if lowered[:1].isdigit() else None
        if number is not None and len(numbers) < 2:
            numbers.append(number)
        elif number is None and topic is None and re.fullmatch(TOPIC_PATTERN, lowered):
            topic = lowered
        else:
            raise BadSetting(f"'{echo(word)}' is not understood here. {LIVE_USAGE}")
    return LiveStart(numbers[0] if numbers else None, topic, numbers[1] if len(numbers) > 1 else None)


# the commands Discord also offers on their own (/stats, /leaderboard ...): the same words as /quiz's
TOP_LEVEL = (
    "answer",
    "export",
    "forget-me",
    "leaderboard",
    "packs",
    "past",
    "plan",
    "progress",
    "remind",
    "review",
    "stats",
    "suggest",
)


def as_quiz_line(line: str) -> str | None:
    """`/stats me` typed as Discord's own command, as the /quiz line it stands for (`/quiz stats me`); None
    when the line does not start with one of those commands."""
    first, _, rest = line.strip().partition(" ")
    if not first.startswith("/") or first[1:].lower() not in TOP_LEVEL:
        return None
    return f"/quiz {first[1:].lower()} {rest}".rstrip()


def parse_quiz(text: str) -> Command:
    """Parse what follows `/quiz` (or a whole line starting with /quiz)."""
    suggest = _SUGGEST.match(text)
    if suggest is not None:  # its text is kept as typed (the parts are split on |, not on spaces)
        rest = (suggest.group(1) or "").strip()
        return Suggest(parse_line(rest) if rest else None)
    words = text.strip().split()
    if words and words[0].lower() in {"/quiz", "quiz"}:
        words = words[1:]
    if not words:
        return Practice()
    sub, rest = words[0].lower(), words[1:]
    match sub:
        case "practice" | "p":
            return parse_practice(rest)
        case "answer" | "a":
            return parse_answer(rest)
        case "review" | "r":
            return parse_review(rest)
        case "plan":
            return parse_plan(rest)
        case "remind" | "reminders" | "reminder":
            return parse_remind(rest)
        case "topics":
            return ShowTopics()
        case "leaderboard" | "lb" | "top":
            public = any(word.lower() == "public" for word in rest)
            words = [word for word in rest if word.lower() != "public"]
            if words and words[0].lower() in ("teams", "team") and len(rest) - len(words) <= 1:
                return parse_team_board(words[1:], public)
            if words and words[0].lower() == "live":
                if len(words) != 1 or len(rest) - len(words) > 1:
                    raise BadSetting("Use /quiz leaderboard live, and public to post it in the channel.")
                return ShowLiveBoard(public)
            if words and words[0].lower() == "season":
                if len(words) != 2 or len(rest) - len(words) > 1:
                    raise BadSetting("Use /quiz leaderboard season YYYY-MM, e.g. /quiz leaderboard season 2026-11.")
                return ShowLeaderboard(Period.MONTH, public, parse_season(words[1]))
            if len(words) > 1 or len(rest) - len(words) > 1:
                raise BadSetting("Use /quiz leaderboard week, month or all, and public to post it in the channel.")
            return ShowLeaderboard(parse_period(words[0] if words else None), public)
        case "team" | "teams":
            return parse_team(rest)
        case "stats" | "me":
            return ShowStats(rest[0] if rest else None)
        case "progress":
            if rest:
                raise BadSetting("/quiz progress takes nothing more: it shows your own learning report.")
            return ShowProgress()
        case "help" | "?":
            return ShowHelp()
        case "packs" | "pack":
            return ShowPacks()
        case "past" | "history":
            return parse_past(rest)
        case "dashboard" | "web":
            if rest:
                raise BadSetting("/quiz dashboard takes nothing more: it says where the web dashboard is.")
            return ShowDashboard()
        case "question-stats" | "questionstats":
            return parse_question_stats(rest)
        case "report":
            return ReportQuestion(*parse_report_words(rest))
        case "live":
            return parse_live(rest)
        case "export":
            if rest:
                raise BadSetting("/quiz export takes nothing more: it sends you your own missed questions.")
            return Export()
        case "forget-me" | "forgetme":
            if rest and [w.lower() for w in rest] != ["confirm"]:
                raise BadSetting(
                    f"'{echo(' '.join(rest))}' is not a forget-me option: use /quiz forget-me to read what it "
                    "deletes, then /quiz forget-me confirm. Nothing was deleted."
                )
            return ForgetMe(confirm=bool(rest))
        case "admin":
            return parse_admin(rest)
        case "config" | "settings":
            return parse_config(rest)
        case "show":  # the settings, as /quiz config show
            if rest:
                raise BadSetting("/quiz show takes nothing more: it shows this channel's settings (/quiz config show).")
            return Configure("show")
        case "admin":
            return parse_admin(rest)
        case "reveal":
            return Configure("reveal")
        case "post-now" | "postnow":
            return parse_config(["post-now", *rest])
    if sub in TOPICS:
        return parse_practice([sub, *rest])
    close = difflib.get_close_matches(sub, (*_SUBCOMMANDS, *TOPICS), n=1, cutoff=0.7)
    if close:
        return ShowHelp(f"'{echo(sub)}' is not a /quiz command", f"/quiz {close[0]}")
    return ShowHelp(f"'{echo(sub)}' is not a /quiz command")
