"""Slack's published message limits, applied to everything the adapter sends (replies through response_url,
ephemeral notes, posts, updates and the Home tab): the safety net behind the renderers' own clipping, so no
input can make Slack refuse a message (`invalid_blocks`, `msg_too_long`).

https://api.slack.com/reference/block-kit/blocks and https://api.slack.com/methods/chat.postMessage
"""

from __future__ import annotations

import copy
from typing import Any

from adapters.slack.mrkdwn import clip

MESSAGE_TEXT_MAX = 40_000  # a message's (or an ephemeral message's) top-level text
SECTION_TEXT_MAX = 3000
SECTION_FIELDS_MAX = 10
SECTION_FIELD_MAX = 2000
HEADER_MAX = 150
CONTEXT_ELEMENTS_MAX = 10
CONTEXT_TEXT_MAX = 3000
BUTTON_TEXT_MAX = 75
ACTIONS_ELEMENTS_MAX = 25
MESSAGE_BLOCKS_MAX = 50
VIEW_BLOCKS_MAX = 100
ID_MAX = 255  # block_id, action_id


def fit_text(text: str | None, limit: int = MESSAGE_TEXT_MAX) -> str:
    """A message's text within its limit (never empty: Slack refuses an empty ephemeral text)."""
    return clip(text or "", limit) or " "


def _fit_object(obj: Any, limit: int) -> Any:
    if isinstance(obj, dict) and isinstance(obj.get("text"), str):
        obj["text"] = clip(obj["text"], limit) or " "
    return obj


def _fit_block(block: dict[str, Any]) -> dict[str, Any]:
    kind = block.get("type")
    if isinstance(block.get("block_id"), str):
        block["block_id"] = block["block_id"][:ID_MAX]
    if kind == "header":
        _fit_object(block.get("text"), HEADER_MAX)
    elif kind == "section":
        _fit_object(block.get("text"), SECTION_TEXT_MAX)
        if isinstance(block.get("fields"), list):
            block["fields"] = [_fit_object(f, SECTION_FIELD_MAX) for f in block["fields"][:SECTION_FIELDS_MAX]]
    elif kind == "context" and isinstance(block.get("elements"), list):
        block["elements"] = [_fit_object(e, CONTEXT_TEXT_MAX) for e in block["elements"][:CONTEXT_ELEMENTS_MAX]]
    elif kind == "actions" and isinstance(block.get("elements"), list):
        block["elements"] = block["elements"][:ACTIONS_ELEMENTS_MAX]
        for element in block["elements"]:
            _fit_object(element.get("text"), BUTTON_TEXT_MAX)
            if isinstance(element.get("action_id"), str):
                element["action_id"] = element["action_id"][:ID_MAX]
    return block


def fit_blocks(blocks: list[dict[str, Any]] | None, most: int = MESSAGE_BLOCKS_MAX) -> list[dict[str, Any]] | None:
    """A copy of the blocks within Block Kit's limits (None stays None)."""
    if blocks is None:
        return None
    return [_fit_block(b) for b in copy.deepcopy(blocks[:most]) if isinstance(b, dict)]


def fit_view(view: dict[str, Any]) -> dict[str, Any]:
    return {**view, "blocks": fit_blocks(view.get("blocks") or [], VIEW_BLOCKS_MAX)}
