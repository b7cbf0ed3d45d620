"""Discord's published message limits, applied to everything the adapter sends: the safety net behind the
renderers' own clipping, so no input can make Discord refuse a message ("This interaction failed").

https://discord.com/developers/docs/resources/message#embed-object-embed-limits and
https://discord.com/developers/docs/interactions/application-commands#application-command-object-application-command-option-choice-structure
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import discord

CONTENT_MAX = 2000  # a message's content
TITLE_MAX = 256
DESCRIPTION_MAX = 4096
FIELD_NAME_MAX = 256
FIELD_VALUE_MAX = 1024
FIELDS_MAX = 25
FOOTER_MAX = 2048
AUTHOR_MAX = 256
EMBED_TOTAL_MAX = 6000  # title, description, field names and values, footer and author of all embeds together
EMBEDS_MAX = 10
CHOICE_NAME_MAX = 100  # an option choice or autocomplete suggestion: name and (string) value
CHOICES_MAX = 25

FENCE = "```"

#: Every reply, follow-up and message the bot sends notifies nobody, whatever its text says
#: (the reveal's opt-in winner pings name their users explicitly).
NO_PINGS = discord.AllowedMentions.none()


def clip(text: str, limit: int) -> str:
    """At most `limit` characters, ending in an ellipsis when cut; a code block cut open is closed again."""
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    if head.count(FENCE) % 2:
        head = text[: max(0, limit - 1 - len(FENCE) - 1)]
        closing = "\n" + FENCE if head.count(FENCE) % 2 else ""
        return head + "…" + closing
    return head + "…"


def fit_content(content: str | None) -> str | None:
    return None if content is None else clip(content, CONTENT_MAX)


def _texts(data: dict[str, Any]) -> int:
    """The characters of one embed that count toward EMBED_TOTAL_MAX."""
    total = len(data.get("title") or "") + len(data.get("description") or "")
    total += len((data.get("footer") or {}).get("text") or "") + len((data.get("author") or {}).get("name") or "")
    return total + sum(len(f.get("name") or "") + len(f.get("value") or "") for f in data.get("fields") or [])


def _fit_one(data: dict[str, Any], budget: int) -> dict[str, Any] | None:
    """One embed's dict within its own limits and `budget` characters; None when not even its title fits."""
    if data.get("title"):
        data["title"] = clip(str(data["title"]), TITLE_MAX)
    if data.get("description"):
        data["description"] = clip(str(data["description"]), DESCRIPTION_MAX)
    if (data.get("footer") or {}).get("text"):
        data["footer"]["text"] = clip(str(data["footer"]["text"]), FOOTER_MAX)
    if (data.get("author") or {}).get("name"):
        data["author"]["name"] = clip(str(data["author"]["name"]), AUTHOR_MAX)
    fields = []
    for f in (data.get("fields") or [])[:FIELDS_MAX]:
        name = clip(str(f.get("name") or "\u200b"), FIELD_NAME_MAX)
        value = clip(str(f.get("value") or "\u200b"), FIELD_VALUE_MAX)
        fields.append({**f, "name": name, "value": value})
    data["fields"] = fields
    excess = _texts(data) - budget
    if excess > 0 and (data.get("footer") or {}).get("text"):  # the footer goes first, then fields, then text
        data.pop("footer")
        excess = _texts(data) - budget
    while excess > 0 and data["fields"]:
        data["fields"].pop()
        excess = _texts(data) - budget
    if excess > 0 and data.get("description"):
        room = len(data["description"]) - excess
        if room >= 2:
            data["description"] = clip(data["description"], room)
        else:
            data.pop("description")
        excess = _texts(data) - budget
    if excess > 0:
        return None
    if not data["fields"]:
        data.pop("fields")
    return data


def fit_embeds(embeds: Iterable[discord.Embed]) -> list[discord.Embed]:
    """At most EMBEDS_MAX embeds, each within its limits and all together within EMBED_TOTAL_MAX."""
    out: list[discord.Embed] = []
    budget = EMBED_TOTAL_MAX
    for embed in list(embeds)[:EMBEDS_MAX]:
        data = _fit_one(embed.to_dict(), budget)  # type: ignore[arg-type]
        if data is None:
            break
        budget -= _texts(data)
        out.append(discord.Embed.from_dict(data))
    return out


def fit_embed(embed: discord.Embed) -> discord.Embed:
    fitted = fit_embeds([embed])
    return fitted[0] if fitted else discord.Embed(description="…")


def fit_choice(name: str, value: str | None = None) -> discord.app_commands.Choice[str]:
    """A choice or autocomplete suggestion Discord accepts (name and value at most 100 characters)."""
    return discord.app_commands.Choice(
        name=clip(name, CHOICE_NAME_MAX) or "?", value=(value if value is not None else name)[:CHOICE_NAME_MAX]
    )


def fit_choices(values: Sequence[str]) -> list[discord.app_commands.Choice[str]]:
    return [fit_choice(v) for v in values[:CHOICES_MAX] if v]
