"""A channel's settings, listed once.

SETTINGS is the one table of what an admin can change about a channel's daily question: the word people
type, its aliases, the parser that turns text into a value (and refuses bad text with BadSetting), the help
line, and how the current value reads. The `/quiz config ...` grammar and its help (bot.text.commands),
Discord's `/quizconfig` options, the settings card and the docs' settings lists are all built from it.
ConfigChange is the typed change the daily game applies (`ChannelSettings.configure(actor, ref, change)`).

A new setting is one Setting here plus its storage (a ChannelConfig field, a migration, the stores' rows).
`python -m bot.settings` rewrites the settings lists in the docs; `--check` only says whether they are current.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import difflib
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.kernel.echo import echo
from bot.kernel.errors import BadSetting
from bot.kernel.parsing import (
    DAY_NAMES,
    days_text,
    parse_champion_role,
    parse_difficulties,
    parse_manager_role,
    parse_on_off,
    parse_packs,
    parse_ping_group,
    parse_ping_role,
    parse_recap_day,
    parse_time,
    parse_timezone,
    parse_topics,
    parse_weekdays,
    parse_window,
    suggest_timezones,
)
from bot.kernel.topics import TOPICS
from bot.kernel.values import ChannelConfig


def _on_off(value: bool) -> str:
    return "on" if value else "off"


def _role(value: str | None) -> str:
    return "off" if value is None else f"<@&{value}>"


def _window(value: dt.timedelta | None) -> str:
    return f"{int(value.total_seconds() // 3600)}h" if value else "none"


@dataclass(frozen=True)
class Setting:
    """One channel setting: where it is stored, how it is typed and how it reads."""

    key: str  # the ChannelConfig field
    word: str  # what people type after /quiz config
    aliases: tuple[str, ...]
    parse: Callable[[str], Any]  # text -> value; raises BadSetting saying what is accepted
    render: Callable[[Any], str]  # value -> the text that parses back to it
    help: str  # one line, at most 100 characters (Discord's limit for an option description)
    example: str
    group: str  # the /quizconfig subcommand it belongs to ("" : not an option, e.g. paused)
    label: str  # how the settings card names it
    option: str = ""  # the Discord option name (default: word)
    show: Callable[[Any], str] | None = None  # the card's wording when it differs from render
    choices: tuple[str, ...] = ()  # a closed set of values (Discord offers them as choices)
    suggest: Callable[[str], list[str]] | None = None  # autocomplete for a partly typed value
    platform: str = ""  # the one platform it applies to (Discord's roles, Slack's user groups); "": every one

    @property
    def option_name(self) -> str:
        return self.option or self.word

    @property
    def names(self) -> tuple[str, ...]:
        return (self.word, *self.aliases, self.key, self.option_name)

    def shown(self, value: Any) -> str:
        return (self.show or self.render)(value)

    @property
    def default(self) -> Any:
        field = next(f for f in dataclasses.fields(ChannelConfig) if f.name == self.key)
        return field.default

    @property
    def listed(self) -> bool:
        """Settable by its own word (paused is set with pause and resume instead)."""
        return bool(self.group)

    def applies_to(self, platform: str) -> bool:
        return not self.platform or self.platform == platform


@dataclass(frozen=True)
class ConfigCard:
    config: ChannelConfig
    next_post: dt.datetime | None

    @property
    def lines(self) -> tuple[str, ...]:
        return card_lines(self)


ON_OFF = ("on", "off")

SETTINGS: tuple[Setting, ...] = (
    Setting(
        "post_time",
        "time",
        ("at",),
        parse_time,
        lambda v: f"{v:%H:%M}",
        "local time of the daily post, 24-hour HH:MM",
        "09:00",
        "schedule",
        "time",
    ),
    Setting(
        "timezone",
        "tz",
        ("timezone",),
        parse_timezone,
        str,
        "IANA timezone of the posting time",
        "Europe/Berlin",
        "schedule",
        "tz",
        option="timezone",
        suggest=lambda text: suggest_timezones(text, limit=25),
    ),
    Setting(
        "weekdays",
        "days",
        ("weekdays",),
        parse_weekdays,
        days_text,
        "posting days: mon-fri, mon,wed,fri, weekdays, weekends or daily",
        "mon-fri",
        "schedule",
        "days",
        option="weekdays",
    ),
    Setting(
        "topics",
        "topics",
        ("topic",),
        lambda text: parse_topics(text, tuple(TOPICS)),
        lambda v: ",".join(sorted(v)) or "all",
        "topics the daily question is drawn from (comma-separated) or all",
        "autograd,tensors",
        "filters",
        "topics",
    ),
    Setting(
        "difficulties",
        "difficulty",
        ("difficulties",),
        parse_difficulties,
        lambda v: ",".join(sorted(d.value for d in v)) or "all",
        "easy, medium, hard (comma-separated) or all",
        "easy,medium",
        "filters",
        "difficulty",
    ),
    Setting(
        "packs",
        "packs",
        ("pack",),
        parse_packs,
        lambda v: ",".join(sorted(v)),
        "question packs the daily question is drawn from (comma-separated); /quiz packs lists them",
        "pytorch,mypack",
        "filters",
        "packs",
    ),
    Setting(
        "answer_window",
        "window",
        ("answer_window",),
        parse_window,
        _window,
        "reveal this many hours after posting (1h-72h), or none: at the next post",
        "12h",
        "rules",
        "answer window",
        show=lambda v: _window(v) if v else "until next post",
    ),
    Setting(
        "reactions",
        "reactions",
        ("reaction",),
        parse_on_off,
        _on_off,
        "members may answer with reactions as well as buttons",
        "on",
        "rules",
        "reactions",
        choices=ON_OFF,
    ),
    Setting(
        "speed_bonus",
        "speed",
        ("speed_bonus", "speed-bonus"),
        parse_on_off,
        _on_off,
        "+3, +2, +1 points for the first three correct answers",
        "on",
        "rules",
        "speed bonus",
        choices=ON_OFF,
    ),
    Setting(
        "ping_winners",
        "ping_winners",
        ("ping", "ping-winners"),
        parse_on_off,
        _on_off,
        "the reveal notifies the members who got it right (off: names only)",
        "on",
        "rules",
        "ping winners",
        choices=ON_OFF,
    ),
    Setting(
        "threads",
        "threads",
        ("thread", "discussion"),
        parse_on_off,
        _on_off,
        "each reveal opens a thread to talk about the question",
        "on",
        "rules",
        "threads",
        choices=ON_OFF,
    ),
    Setting(
        "recap_day",
        "recap",
        ("recap_day", "recap-day"),
        parse_recap_day,
        lambda v: "off" if v is None else DAY_NAMES[v],
        "the day of the weekly recap chart, posted at the posting time (a day such as mon, or off)",
        "fri",
        "recap",
        "weekly recap",
        option="day",
        choices=(*DAY_NAMES, "off"),
    ),
    Setting(
        "champion_role",
        "champion_role",
        ("champion", "champion-role"),
        parse_champion_role,
        lambda v: "off" if v is None else f"<@&{v}>",
        "Discord only: the role the month's season winner gets (a role mention or id, or off)",
        "off",
        "recap",
        "champion role",
        option="champion_role",
        platform="discord",
    ),
    Setting(
        "manager_role",
        "manager_role",
        ("manager", "manager-role"),
        parse_manager_role,
        _role,
        "Discord only: a role whose members run the quiz like Manage Server (a role, or off)",
        "off",
        "roles",
        "manager role",
        platform="discord",
    ),
    Setting(
        "ping_role",
        "ping_role",
        ("ping-role",),
        parse_ping_role,
        _role,
        "Discord only: the role the daily question mentions (a role mention or id, or off)",
        "off",
        "roles",
        "ping role",
        platform="discord",
    ),
    Setting(
        "ping_group",
        "ping_group",
        ("ping-group",),
        parse_ping_group,
        lambda v: "off" if v is None else str(v),
        "Slack only: a user group the daily post mentions (or off)",
        "off",
        "roles",
        "ping group",
        platform="slack",
    ),
    Setting(
        "paused", "paused", (), parse_on_off, _on_off, "no daily post while paused", "on", "", "paused", choices=ON_OFF
    ),
)

# the /quizconfig subcommands made of settings: name, description, how the card joins its settings
GROUPS: dict[str, tuple[str, str]] = {
    "schedule": ("Post the daily question at a local time on chosen days", " "),
    "filters": ("Which packs, topics and difficulties the daily question uses", "; "),
    "rules": ("Answer window, reactions, speed bonus, winner pings and discussion threads", "; "),
    "recap": ("The weekly recap chart's day (or off) and the monthly season's champion role", "; "),
    "roles": ("Who runs the quiz besides Manage Server, and whom the daily question mentions", "; "),
}

BY_KEY: dict[str, Setting] = {s.key: s for s in SETTINGS}
_BY_NAME: dict[str, Setting] = {n.lower(): s for s in SETTINGS for n in s.names}


def listed() -> tuple[Setting, ...]:
    """The settings people set by name (every one but paused)."""
    return tuple(s for s in SETTINGS if s.listed)


def in_group(group: str) -> tuple[Setting, ...]:
    return tuple(s for s in SETTINGS if s.group == group)


def lookup(name: str) -> Setting:
    """The setting a typed word names (its word, an alias, its field or its Discord option)."""
    found = _BY_NAME.get(name.strip().lower())
    if found is None or not found.listed:
        words = [s.word for s in listed()]
        close = difflib.get_close_matches(name.lower(), [n for n in _BY_NAME if _BY_NAME[n].listed], n=1)
        hint = f" Did you mean {_BY_NAME[close[0]].word}?" if close else ""
        raise BadSetting(f"'{echo(name)}' is not a setting: use {', '.join(words)}.{hint}")
    return found


@dataclass(frozen=True)
class ConfigChange:
    """Some of a channel's settings, each value already valid (parsed from text or checked by `of`)."""

    values: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def of(cls, **values: Any) -> ConfigChange:
        """A change from typed values, keyed by ChannelConfig field. A value is valid when its text form
        parses back to it, so a typed value passes exactly the checks typed text does."""
        checked = []
        for key, value in values.items():
            setting = BY_KEY.get(key)
            if setting is None:
                raise BadSetting(f"Unknown setting {echo(repr(key))}; settings: {', '.join(sorted(BY_KEY))}.")
            try:
                text = setting.render(value)
            except (TypeError, ValueError, AttributeError, KeyError, IndexError):
                raise BadSetting(f"{echo(repr(value))} is not a value for {setting.word}.") from None
            if setting.parse(text) != value:
                raise BadSetting(
                    f"{echo(repr(value))} is not a value for {setting.word}: use a value like {setting.example}."
                )
            checked.append((key, value))
        return cls(tuple(checked))

    @classmethod
    def parse(cls, pairs: Iterable[tuple[str, str]]) -> ConfigChange:
        """A change from typed words and values, e.g. [("time", "09:00"), ("tz", "Europe/Berlin")]."""
        parsed: dict[str, Any] = {}
        for name, text in pairs:
            setting = lookup(name)
            parsed[setting.key] = setting.parse(text)
        return cls(tuple(parsed.items()))

    def __bool__(self) -> bool:
        return bool(self.values)

    def __contains__(self, key: object) -> bool:
        return any(k == key for k, _ in self.values)

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        return iter(self.values)

    def get(self, key: str, default: Any = None) -> Any:
        return dict(self.values).get(key, default)

    def merged(self, other: ConfigChange) -> ConfigChange:
        return ConfigChange(tuple({**dict(self.values), **dict(other.values)}.items()))

    def apply(self, config: ChannelConfig) -> ChannelConfig:
        return dataclasses.replace(config, **dict(self.values))


# ---- what people read ---------------------------------------------------------------------------


def card_lines(card: ConfigCard) -> tuple[str, ...]:
    """The settings card: one line per group, then whether it is paused or when it posts next."""
    c = card.config
    lines = [
        joiner.join(f"{s.label} {s.shown(getattr(c, s.key))}" for s in in_group(group) if s.applies_to(c.ref.platform))
        for group, (_, joiner) in GROUPS.items()
    ]
    lines = [line for line in lines if line]
    if c.paused:
        lines.append("paused: no daily question is posted here until it is resumed")
    else:
        lines.append(f"next post {card.next_post:%Y-%m-%d %H:%M %Z}" if card.next_post else "")
    return tuple(lines)


def text_help() -> str:
    """The settings part of `/quiz help` (Slack and the console: Discord's role settings are left out)."""
    rows = [(f"/quiz config {s.word} {s.example}", s.help) for s in listed() if s.platform != "discord"]
    width = max(len(left) for left, _ in rows) + 2
    return "\n".join(left.ljust(width) + right for left, right in rows)


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def docs_table() -> str:
    """The settings list the docs carry (between the settings markers)."""
    lines = [
        "| Setting | Slack and console | Discord | Default | What it does |",
        "|---|---|---|---|---|",
    ]
    for s in listed():
        text = f"`/quiz config {s.word} {s.example}`"
        discord = f"`/quizconfig {s.group} {s.option_name}:{s.example}`" if s.applies_to("discord") else "(Slack only)"
        values = f" ({' or '.join(s.choices)})" if s.choices else ""
        lines.append(f"| {s.label} | {text} | {discord} | {_md(s.render(s.default))} | {_md(s.help)}{values} |")
    return "\n".join(lines)


BEGIN = "<!-- settings:begin (generated from bot/settings.py by `python -m bot.settings`; do not edit) -->"
END = "<!-- settings:end -->"
DOCS = ("README.md", "docs/discord.md", "docs/slack.md")


def rewrite(text: str) -> str:
    """The text with its settings block replaced by the current table (unchanged if it has none)."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        return text
    return text[: start + len(BEGIN)] + "\n" + docs_table() + "\n" + text[end:]


def stale_docs(root: Path) -> list[str]:
    """Docs whose settings block is missing or out of date."""
    out = []
    for name in DOCS:
        text = (root / name).read_text(encoding="utf-8")
        if BEGIN not in text or rewrite(text) != text:
            out.append(name)
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    root = Path(__file__).resolve().parent.parent
    if "--check" in args:
        stale = stale_docs(root)
        for name in stale:
            print(f"{name}: settings list out of date; run python -m bot.settings", file=sys.stderr)
        return 1 if stale else 0
    for name in DOCS:
        path = root / name
        text = path.read_text(encoding="utf-8")
        new = rewrite(text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            print(f"rewrote {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
