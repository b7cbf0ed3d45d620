"""Identifiers that travel through Slack: button action ids, message ids, reaction names and mentions.

Each is parsed at the adapter boundary into core values (round ids, choice indexes, user and channel ids).
"""

from __future__ import annotations

import re

from bot.model import LETTERS

PLATFORM = "slack"
ACTION_PREFIX = "studybot.answer"
ACTION_PATTERN = re.compile(r"^studybot\.answer\.(\d+)\.([0-3])$")
UNSURE_PREFIX = "studybot.unsure"  # the same answer, marked "not sure" (practice and review questions)
UNSURE_PATTERN = re.compile(r"^studybot\.unsure\.(\d+)\.([0-3])$")

# The documented reaction per choice (shown beside the choices): :one: :two: :three: :four:.
REACTION_NAMES: tuple[str, ...] = ("one", "two", "three", "four")
_REACTION_ALIASES = {f"regional_indicator_{letter.lower()}": i for i, letter in enumerate(LETTERS)}

_USER_MENTION = re.compile(r"^<@([UW][A-Z0-9]+)(?:\|[^>]*)?>$")
_CHANNEL_MENTION = re.compile(r"^<#([CG][A-Z0-9]+)(?:\|[^>]*)?>$")
_RAW_USER = re.compile(r"^[UW][A-Z0-9]{2,}$")
_RAW_CHANNEL = re.compile(r"^[CG][A-Z0-9]{2,}$")


def action_id(round_id: int, choice: int) -> str:
    """The action id of one answer button: it carries the round and the choice, so it survives restarts."""
    return f"{ACTION_PREFIX}.{round_id}.{choice}"


def parse_action_id(value: str) -> tuple[int, int] | None:
    """`studybot.answer.12.3` -> (12, 3); None for anything else."""
    m = ACTION_PATTERN.match(value or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


def unsure_action_id(round_id: int, choice: int) -> str:
    return f"{UNSURE_PREFIX}.{round_id}.{choice}"


def parse_unsure_action_id(value: str) -> tuple[int, int] | None:
    """`studybot.unsure.12.3` -> (12, 3); None for anything else."""
    m = UNSURE_PATTERN.match(value or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


def message_id(channel_id: str, ts: str) -> str:
    """A Slack message is named by its channel and timestamp."""
    return f"{channel_id}:{ts}"


def parse_message_id(value: str | None) -> tuple[str, str] | None:
    if not value or ":" not in value:
        return None
    channel, ts = value.split(":", 1)
    return (channel, ts) if channel and ts else None


def choice_for_reaction(name: str) -> int | None:
    """:one: .. :four: (or :regional_indicator_a: .. _d:) -> 0..3; None for any other emoji."""
    base = (name or "").split("::", 1)[0]  # drop a skin-tone suffix
    if base in REACTION_NAMES:
        return REACTION_NAMES.index(base)
    return _REACTION_ALIASES.get(base)


def parse_user(text: str) -> str | None:
    """`<@U123|ann>`, `<@U123>` or a raw user id -> U123."""
    t = text.strip()
    m = _USER_MENTION.match(t)
    if m:
        return m.group(1)
    return t if _RAW_USER.match(t) else None


def parse_channel(text: str) -> str | None:
    """`<#C123|general>`, `<#C123>` or a raw channel id -> C123."""
    t = text.strip()
    m = _CHANNEL_MENTION.match(t)
    if m:
        return m.group(1)
    return t if _RAW_CHANNEL.match(t) else None


def mention(user_id: str) -> str:
    return f"<@{user_id}>"


def team_of(body: dict, context_team: str | None = None) -> str | None:
    """The workspace (space) a request comes from: bolt's context, else the payload's own fields."""
    team, user = body.get("team"), body.get("user")
    return (
        context_team
        or body.get("team_id")
        or (team.get("id") if isinstance(team, dict) else None)
        or (user.get("team_id") if isinstance(user, dict) else None)
        or body.get("enterprise_id")
    )
