"""A signed interaction whose routing fields are not what Slack documents (`actions` that are not objects
with a string action_id, a `view` without a string callback_id) makes bolt's own listener matching raise, which
bolt reports as a listener failure (an ERROR and a 500). This middleware runs first: such a payload is
acknowledged, logged at INFO once (the edge's line) and ignored."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.response import BoltResponse

from adapters.slack.signature import UNREADABLE

log = logging.getLogger(__name__)


def _text(value: Any) -> bool:
    return value is None or isinstance(value, str)


def unreadable(body: dict[str, Any]) -> str | None:
    """What bolt could not route in this payload (for the log line), or None when it can."""
    kind = body.get("type")
    if kind == "block_actions":
        actions = body.get("actions")
        fine = isinstance(actions, list) and all(
            isinstance(a, dict) and isinstance(a.get("action_id"), str) and _text(a.get("block_id")) for a in actions
        )
        return None if fine else "block_actions without a readable action"
    if kind in ("view_submission", "view_closed"):
        view = body.get("view")
        fine = isinstance(view, dict) and isinstance(view.get("callback_id"), str)
        return None if fine else f"{kind} without a readable view"
    return None


async def drop_unreadable(body: dict[str, Any], next: Callable[[], Awaitable[Any]]) -> BoltResponse | None:
    problem = unreadable(body) if isinstance(body, dict) else "a body that is not an object"
    if problem is not None:
        log.info(UNREADABLE, problem)
        return BoltResponse(status=200, body="")
    response: BoltResponse | None = await next()
    return response
