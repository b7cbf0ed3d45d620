"""Identifiers that travel through Slack: button action ids, message ids, reaction names and mentions.

Each is parsed at the adapter boundary into core values (round ids, choice indexes, user and channel ids).
"""

from __future__ import annotations

import re
from typing import Any

from bot.kernel.parsing import parse_round_id
from bot.kernel.values import LETTERS

PLATFORM = "slack"
ACTION_PREFIX = "studybot.answer"
ACTION_PATTERN = re.compile(r"^studybot\.answer\.")  # every button of ours; parse_action_id reads the rest
_ACTION = re.compile(r"studybot\.answer\.([0-9]+)\.([0-3])")
REVIEW_ACTION = "studybot.review"  # the App Home's Review button
UNSURE_PREFIX = "studybot.unsure"  # the same answer, marked "not sure" (practice and review questions)
UNSURE_PATTERN = re.compile(r"^studybot\.unsure\.")
_UNSURE = re.compile(r"studybot\.unsure\.([0-9]+)\.([0-3])")

# The documented reaction per choice (shown beside the choices): :one: :two: :three: :four:.
REACTION_NAMES: tuple[str, ...] = ("one", "two", "three", "four")
_REACTION_ALIASES = {f"regional_indicator_{letter.lower()}": i for i, letter in enumerate(LETTERS)}

_USER_MENTION = re.compile(r"^<@([UW][A-Z0-9]+)(?:\|[^>]*)?>$")
_CHANNEL_MENTION = re.compile(r"^<#([CG][A-Z0-9]+)(?:\|[^>]*)?>$")
_RAW_USER = re.compile(r"^[UW][A-Z0-9]{2,}$")
_RAW_CHANNEL = re.compile(r"^[CG][A-Z0-9]{2,}$")
_ID = re.compile(r"[A-Z][A-Z0-9]{2,40}")  # a user, channel or team id as payloads carry it
_TS = re.compile(r"[0-9]{1,12}\.[0-9]{1,8}")  # a message timestamp


def action_id(round_id: int, choice: int) -> str:
    """The action id of one answer button: it carries the round and the choice, so it survives restarts."""
    return f"{ACTION_PREFIX}.{round_id}.{choice}"


def parse_action_id(value: object) -> tuple[int, int] | None:
    """`studybot.answer.12.3` -> (12, 3); None for anything else (a round id no store can hold included)."""
    m = _ACTION.fullmatch(value) if isinstance(value, str) else None
    round_id = parse_round_id(m.group(1)) if m else None
    return (round_id, int(m.group(2))) if m and round_id is not None else None


def unsure_action_id(round_id: int, choice: int) -> str:
    return f"{UNSURE_PREFIX}.{round_id}.{choice}"


def parse_unsure_action_id(value: object) -> tuple[int, int] | None:
    """`studybot.unsure.12.3` -> (12, 3); None for anything else (a round id no store can hold included)."""
    m = _UNSURE.fullmatch(value) if isinstance(value, str) else None
    round_id = parse_round_id(m.group(1)) if m else None
    return (round_id, int(m.group(2))) if m and round_id is not None else None


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


def payload_id(value: Any) -> str | None:
    """A user, channel or team id from a payload field; None for anything else (an object, a number, text)."""
    return value if isinstance(value, str) and _ID.fullmatch(value) else None


def user_of(value: Any) -> str | None:
    """The user of a payload: an object with an `id` (interactions) or the id itself (events)."""
    return payload_id(value.get("id") if isinstance(value, dict) else value)


def message_of(item: Any) -> tuple[str, str] | None:
    """A reaction's `item` when it is a message: (channel id, ts); None for a file or a malformed item."""
    if not isinstance(item, dict) or item.get("type") != "message":
        return None
    channel, ts = payload_id(item.get("channel")), item.get("ts")
    return (channel, ts) if channel and isinstance(ts, str) and _TS.fullmatch(ts) else None


def team_of(body: dict[str, Any], context_team: str | None = None) -> str | None:
    """The workspace (space) a request comes from: bolt's context, else the payload's own fields."""
    team, user = body.get("team"), body.get("user")
    found = (
        context_team
        or body.get("team_id")
        or (team.get("id") if isinstance(team, dict) else None)
        or (user.get("team_id") if isinstance(user, dict) else None)
        or body.get("enterprise_id")
    )
    return payload_id(found)
