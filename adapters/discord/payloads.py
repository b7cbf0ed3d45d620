"""Discord payload fields checked at the boundary, before discord.py or the core reads them.

discord.py turns ids into ints as it builds an interaction's options (`int("²")` raises ValueError, and an id
of thousands of digits raises it too), and an id past 64 bits reaches the REST API or the store. A payload that
does not hold what Discord documents is logged at INFO once and left alone."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

SNOWFLAKE_MAX = 2**64 - 1
_DIGITS = re.compile(r"[0-9]{1,20}")
#: option types whose value is a snowflake: user, channel, role, mentionable, attachment
ID_OPTION_TYPES = frozenset({6, 7, 8, 9, 11})
SUBCOMMAND_TYPES = frozenset({1, 2})


def snowflake(value: object) -> int | None:
    """A Discord id (an int, or ASCII digits) within 64 bits; None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 < value <= SNOWFLAKE_MAX else None
    if isinstance(value, str) and _DIGITS.fullmatch(value):
        number = int(value)
        return number if 0 < number <= SNOWFLAKE_MAX else None
    return None


def _options(options: object) -> Iterator[Mapping[str, Any]]:
    if not isinstance(options, list):
        return
    for option in options:
        if isinstance(option, Mapping):
            yield option
            if option.get("type") in SUBCOMMAND_TYPES:
                yield from _options(option.get("options"))


def unreadable(data: object) -> str | None:
    """What is wrong with an application command's data (its id options and resolved objects), or None."""
    if not isinstance(data, Mapping):
        return None
    for option in _options(data.get("options")):
        if not isinstance(option.get("name"), str):
            return "an option without a name"
        if option.get("type") in ID_OPTION_TYPES and snowflake(option.get("value")) is None:
            return f"option {option['name'][:32]!r} holds no valid id"
    resolved = data.get("resolved")
    if isinstance(resolved, Mapping):
        for kind, objects in resolved.items():
            if not isinstance(objects, Mapping):
                return f"resolved {str(kind)[:32]!r} is not an object"
            for key, obj in objects.items():
                if snowflake(key) is None:
                    return f"a resolved {str(kind)[:32]} with an invalid id"
                if isinstance(obj, Mapping) and "id" in obj and snowflake(obj["id"]) is None:
                    return f"a resolved {str(kind)[:32]} with an invalid id"
    return None


# ---- where a learner's private practice lives ------------------------------------------------------------

#: the space of one learner's practice and review outside a server that installed the bot (a DM, a group DM,
#: or a server where only the learner installed the app): never a guild id, which is all digits
PERSONAL_PREFIX = "user:"


def personal_space(user_id: int | str) -> str:
    """The learner's own space: their practice rounds, memory cards and stats there mix with no server's."""
    return f"{PERSONAL_PREFIX}{user_id}"


def is_personal_space(space_id: str) -> bool:
    return space_id.startswith(PERSONAL_PREFIX)


def practice_space(guild_id: int | None, user_id: int, *, guild_install: bool, user_install: bool) -> str:
    """The space of a practice or review interaction, from its `guild_id` and `authorizing_integration_owners`.

    A server's space when the interaction comes from a server and the server's install authorized it (or the
    payload names no user install either: a payload from before user installs); else the learner's own space:
    DMs and group DMs have no guild_id, and a server where only the learner installed the app is not the bot's
    server, so nothing is recorded under it."""
    if guild_id is not None and (guild_install or not user_install):
        return str(guild_id)
    return personal_space(user_id)
