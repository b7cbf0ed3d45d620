"""Parse what people type (times, timezones, weekdays, choices, periods) into core values.

Every failure raises BadSetting with a message that says what is accepted.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
import zoneinfo
from functools import cache

from bot.kernel.echo import echo
from bot.kernel.errors import BadSetting, PackError
from bot.kernel.values import LETTERS, Difficulty, Period

DAY_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


_FULL_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


_DAY_ALIASES = {"weekdays": "mon-fri", "weekends": "sat-sun", "daily": "mon-sun", "everyday": "mon-sun"}


def parse_time(text: str) -> dt.time:
    """24-hour HH:MM, e.g. 09:00 or 17:30."""
    m = re.fullmatch(r"\s*([01]?\d|2[0-3]):([0-5]\d)\s*", text)
    if not m:
        raise BadSetting(f"'{echo(text)}' is not a time: use 24-hour HH:MM, for example 09:00 or 17:30.")
    return dt.time(int(m.group(1)), int(m.group(2)))


@cache
def _zone_names() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def parse_timezone(text: str) -> str:
    """An IANA timezone name such as Europe/Berlin (case-insensitive)."""
    name = text.strip()
    by_lower = {z.lower(): z for z in _zone_names()}
    found = by_lower.get(name.lower())
    if found is None:
        hint = difflib.get_close_matches(name, sorted(_zone_names()), n=3, cutoff=0.7) or suggest_timezones(
            name, limit=3
        )
        also = f" Did you mean {', '.join(hint)}?" if hint else ""
        raise BadSetting(
            f"'{echo(text)}' is not an IANA timezone: use a name like Europe/Berlin, America/New_York or UTC.{also}"
        )
    return found


def suggest_timezones(prefix: str, limit: int = 25) -> list[str]:
    """Timezone names containing the text, best matches first (for autocomplete and hints)."""
    needle = prefix.strip().lower().replace(" ", "_")
    if not needle:
        return sorted(_zone_names())[:limit]
    names = sorted(_zone_names())
    starts = [z for z in names if z.lower().startswith(needle) or z.lower().split("/")[-1].startswith(needle)]
    contains = [z for z in names if needle in z.lower() and z not in starts]
    return (starts + contains)[:limit]


def parse_weekdays(text: str) -> frozenset[int]:
    """Days as mon-fri, mon,wed,fri, sat-sun, weekdays, weekends or daily."""
    raw = _DAY_ALIASES.get(text.strip().lower(), text.strip().lower())
    days: set[int] = set()
    error = BadSetting(f"'{echo(text)}' is not a list of days: use mon-fri, mon,wed,fri, weekdays, weekends or daily.")
    for part in filter(None, (p.strip() for p in raw.split(","))):
        start, dash, end = part.partition("-")
        a, b = _day_index(start), _day_index(end) if dash else _day_index(start)
        if a is None or b is None:
            raise error
        days.update(range(a, b + 1) if a <= b else [*range(a, 7), *range(0, b + 1)])
    if not days:
        raise error
    return frozenset(days)


def days_text(days: frozenset[int] | set[int]) -> str:
    """Posting days as people write them and `parse_weekdays` reads them back: daily, else runs of three days
    or more as a range (mon-fri) and the others by name (mon-wed,sat)."""
    if len(days) == 7:
        return "daily"
    parts: list[str] = []
    run: list[int] = []
    for day in [*sorted(days), None]:
        if day is not None and run and day == run[-1] + 1:
            run.append(day)
            continue
        if len(run) >= 3:
            parts.append(f"{DAY_NAMES[run[0]]}-{DAY_NAMES[run[-1]]}")
        else:
            parts += [DAY_NAMES[d] for d in run]
        run = [day] if day is not None else []
    return ",".join(parts)


def _day_index(token: str) -> int | None:
    """mon or monday (or any prefix of at least three letters) -> 0."""
    token = token.strip()
    if len(token) < 3:
        return None
    for i, full in enumerate(_FULL_DAYS):
        if full.startswith(token):
            return i
    return None


def parse_recap_day(text: str) -> int | None:
    """One day (mon ... sun, or monday ...) for the weekly recap, or off."""
    token = text.strip().lower()
    if token in {"off", "none", "no"}:
        return None
    day = _day_index(token)
    if day is None:
        raise BadSetting(f"'{echo(text)}' is not a day for the weekly recap: use one day such as mon or fri, or off.")
    return day


_ROLE = re.compile(r"(?:<@&(\d{15,21})>|@?&?(\d{15,21}))")


_SEASON = re.compile(r"(\d{4})-(\d{2})")


def parse_champion_role(text: str) -> str | None:
    """A Discord role (its mention <@&id> or its id) for the season's champion, or off."""
    token = text.strip()
    if token.lower() in {"off", "none", "no"}:
        return None
    found = _ROLE.fullmatch(token)
    if found is None:
        raise BadSetting(f"'{echo(text)}' is not a role: pick a role (a mention such as @Champion, or its id), or off.")
    return found.group(1) or found.group(2)


def parse_role(text: str, what: str) -> str | None:
    """A Discord role (its mention <@&id> or its id), or off; `what` says what the role is for."""
    token = text.strip()
    if token.lower() in {"off", "none", "no"}:
        return None
    found = _ROLE.fullmatch(token)
    if found is None:
        raise BadSetting(f"'{echo(text)}' is not a role: pick the role {what} (@Role or its id), or off.")
    return found.group(1) or found.group(2)


def parse_manager_role(text: str) -> str | None:
    """The role whose members run the quiz like Manage Server (Discord), or off."""
    return parse_role(text, "of the quiz's managers")


def parse_ping_role(text: str) -> str | None:
    """The role the daily question mentions (Discord), or off."""
    return parse_role(text, "the daily question mentions")


_GROUP = re.compile(r"<!subteam\^(S[A-Z0-9]{2,23})(?:\|[^<>]{0,80})?>|(S[A-Z0-9]{2,23})")


def parse_ping_group(text: str) -> str | None:
    """A Slack user group the daily question mentions: @group as Slack sends it (<!subteam^ID|@name>), its
    id (S0123ABCD), or off."""
    token = text.strip()
    if token.lower() in {"off", "none", "no"}:
        return None
    found = _GROUP.fullmatch(token)
    if found is None:
        raise BadSetting(
            f"'{echo(text)}' is not a Slack user group: pick one with @ (for example @pytorch-learners), give its "
            "id (S0123ABCD), or off."
        )
    return found.group(1) or found.group(2)


def parse_season(text: str) -> str:
    """A season id: a calendar month as YYYY-MM (e.g. 2026-11)."""
    token = text.strip()
    found = _SEASON.fullmatch(token)
    if found is None or not 1 <= int(found.group(2)) <= 12 or int(found.group(1)) < 2000:
        raise BadSetting(f"'{echo(text)}' is not a season: use a month as YYYY-MM, e.g. 2026-11.")
    return token


def parse_choice(text: str) -> int:
    """A, B, C or D (any case); also 1-4."""
    t = text.strip().upper()
    if t in LETTERS:
        return LETTERS.index(t)
    if t in {"1", "2", "3", "4"}:
        return int(t) - 1
    raise BadSetting(f"'{echo(text)}' is not a choice: answer with A, B, C or D.")


def parse_period(text: str | None) -> Period:
    t = (text or "week").strip().lower()
    aliases = {"all-time": "all", "alltime": "all", "ever": "all", "weekly": "week", "monthly": "month"}
    try:
        return Period(aliases.get(t, t))
    except ValueError:
        raise BadSetting(f"'{echo(text)}' is not a period: use week, month or all.") from None


def parse_on_off(text: str) -> bool:
    t = text.strip().lower()
    if t in {"on", "yes", "true", "1", "enable", "enabled"}:
        return True
    if t in {"off", "no", "false", "0", "disable", "disabled"}:
        return False
    raise BadSetting(f"'{echo(text)}' is not on or off: use on or off.")


def parse_window(text: str) -> dt.timedelta | None:
    """An answer window in hours (1h to 72h), or 'none' to keep answers open until the next post."""
    t = text.strip().lower()
    if t in {"none", "off", "next", "until-next"}:
        return None
    m = re.fullmatch(r"(\d{1,2})\s*h?", t)
    if not m or not 1 <= int(m.group(1)) <= 72:
        raise BadSetting(f"'{echo(text)}' is not an answer window: use hours from 1h to 72h, or none.")
    return dt.timedelta(hours=int(m.group(1)))


def parse_difficulties(text: str) -> frozenset[Difficulty]:
    t = text.strip().lower()
    if t in {"all", "any", "*"}:
        return frozenset()
    out = set()
    for part in filter(None, (p.strip() for p in t.split(","))):
        try:
            out.add(Difficulty(part))
        except ValueError:
            raise BadSetting(
                f"'{echo(part)}' is not a difficulty: use easy, medium, hard (comma-separated) or all."
            ) from None
    return frozenset(out)


_FREE_TOPIC = re.compile(r"[a-z0-9-]{1,40}")  # a topic of a space's own pack (checked against its packs later)


def parse_topics(text: str, known: tuple[str, ...]) -> frozenset[str]:
    t = text.strip().lower()
    if t in {"all", "any", "*"}:
        return frozenset()
    out = set()
    for part in filter(None, (p.strip() for p in t.split(","))):
        if part not in known and not _FREE_TOPIC.fullmatch(part):  # a space's own packs name their own topics
            raise BadSetting(f"'{echo(part)}' is not a topic: use any of {', '.join(known)} (comma-separated) or all.")
        out.add(part)
    return frozenset(out)


def parse_number(text: str, max_digits: int = 18) -> int | None:
    """A whole number as people type an id or a count: ASCII digits only (at most `max_digits`, an optional
    leading #); None for anything else, so `²`, `٣`, `-1` or `1e3` never reach int() or a store."""
    raw = text.strip().removeprefix("#")
    return int(raw) if re.fullmatch(rf"[0-9]{{1,{max_digits}}}", raw) else None


ROUND_ID_MAX = 2**63 - 1  # the stores keep round ids as signed 64-bit integers


def parse_round_id(text: object) -> int | None:
    """A round id as it travels in a button (ASCII digits of a positive signed 64-bit integer); None for
    anything else: `²`, `٣`, 24 digits, an empty string, a float or an object."""
    if isinstance(text, bool) or not isinstance(text, str | int):
        return None
    raw = str(text)
    if not re.fullmatch(r"[0-9]{1,19}", raw):
        return None
    value = int(raw)
    return value if 0 < value <= ROUND_ID_MAX else None


PACK_NAME = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$")


def check_pack_name(name: str) -> str:
    """A pack name: 1-40 lower-case letters, digits and `-` (no `/`); `pytorch` is the shipped bank."""
    if not PACK_NAME.fullmatch(name or ""):
        raise PackError(f"{name!r} is not a pack name: use 1-40 lower-case letters, digits and - (no / or spaces).")
    return name


def parse_packs(text: str) -> frozenset[str]:
    """The `packs` setting: comma-separated pack names (pytorch is the shipped bank)."""
    names = [p.strip().lower() for p in text.split(",") if p.strip()]
    if not names:
        raise BadSetting("Name at least one pack, for example pytorch or pytorch,mypack.")
    for name in names:
        if not PACK_NAME.fullmatch(name):
            raise BadSetting(
                f"'{echo(name)}' is not a pack name: use lower-case letters, digits and - "
                "(comma-separated), for example pytorch,mypack."
            )
    return frozenset(names)
