"""Slack while the store cannot record (an outage, a full disk; bot.kernel.outage): every request is still
acknowledged at once and gets studybot's private "try again in a minute", and the process's one StoreOutage
logs it once, not once per request.

- The replay guard (adapters/slack/signature.py) and the event de-duplication (dedupe.py) cannot tell a replay
  from a first delivery without the store, so they refuse the request while it cannot record: nothing runs,
  and `refusal` answers it (a slash command in its acknowledgement, a button through its response_url, a form
  with the note on its first field, a reaction answer with an ephemeral note).
- A listener whose store call failed asks `failed` for the text to show: the outage's note, or None for any
  other failure (logged here with its traceback, as before).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs

from slack_sdk.webhook.async_client import AsyncWebhookClient

from adapters.slack.ids import PLATFORM, choice_for_reaction, message_of, team_of, user_of
from bot.features import Features
from bot.kernel.outage import STORE_DOWN
from bot.kernel.platform import ChatPlatform
from bot.kernel.values import ChannelRef

log = logging.getLogger(__name__)

FollowUp = Callable[[], Awaitable[object]]
_pending: set[asyncio.Task[object]] = set()  # follow-ups in flight (kept from the garbage collector)


def failed(service: Features, exc: BaseException, logger: logging.Logger, what: str, *args: object) -> str | None:
    """The note for a listener's failure: STORE_DOWN when the store is out (told once by the process's
    StoreOutage); None for anything else, which `logger` logs with its traceback."""
    if service.context.outage.failed(exc):
        return STORE_DOWN
    logger.error(what, *args, exc_info=exc)
    return None


def parse_body(raw: bytes, content_type: str) -> dict[str, Any]:
    """A signed request's payload as bolt would read it (JSON, a form, or a form holding `payload=` JSON);
    {} when it cannot be read."""
    try:
        text = raw.decode("utf-8")
        if content_type.startswith("application/json"):
            body = json.loads(text)
        else:
            form = {k: v[0] for k, v in parse_qs(text, keep_blank_values=True).items()}
            body = json.loads(form["payload"]) if "payload" in form else form
    except (UnicodeDecodeError, ValueError, KeyError, RecursionError):
        return {}
    return body if isinstance(body, dict) else {}


def passes_through(body: dict[str, Any]) -> bool:
    """Requests that need no store and are never refused: Slack's URL and SSL checks."""
    return body.get("type") == "url_verification" or body.get("ssl_check") == "1"


def refusal(body: dict[str, Any], platform: ChatPlatform | None) -> tuple[dict[str, Any] | None, FollowUp | None]:
    """How to refuse `body` while the store cannot record: the acknowledgement's JSON body (None: empty), and
    a follow-up that tells the person privately after the acknowledgement (None: the body does)."""
    if "command" in body:  # a slash command: the acknowledgement itself is the ephemeral reply
        return {"response_type": "ephemeral", "text": STORE_DOWN}, None
    kind = body.get("type")
    if kind == "view_submission":
        return _form_note(body.get("view")), None
    url = body.get("response_url")  # a signed request's: Slack's own (buttons and message actions)
    if isinstance(url, str) and url:
        note = {"response_type": "ephemeral", "replace_original": False, "text": STORE_DOWN}
        return None, lambda: AsyncWebhookClient(url).send_dict(note)
    event = body.get("event") if kind == "event_callback" else None
    if isinstance(event, dict) and event.get("type") == "reaction_added" and platform is not None:
        reaction, message = event.get("reaction"), message_of(event.get("item"))
        user, team = user_of(event.get("user")), team_of(body)
        if isinstance(reaction, str) and choice_for_reaction(reaction) is not None and message and user and team:
            ref = ChannelRef(PLATFORM, team, message[0])
            return None, lambda: platform.send_private(ref, user, STORE_DOWN)
    return None, None


def _form_note(view: object) -> dict[str, Any]:
    """A modal submitted while the store is out stays open with the note on its first field (what was typed
    is kept), or shows the note in place of the form when it has no field."""
    blocks = view.get("blocks") if isinstance(view, dict) else None
    for block in blocks if isinstance(blocks, list) else []:
        if isinstance(block, dict) and block.get("type") == "input" and isinstance(block.get("block_id"), str):
            return {"response_action": "errors", "errors": {block["block_id"]: STORE_DOWN}}
    return {
        "response_action": "update",
        "view": {
            "type": "modal",
            "title": {"type": "plain_text", "text": "studybot"},
            "blocks": [{"type": "section", "text": {"type": "plain_text", "text": STORE_DOWN}}],
        },
    }


def follow_up(send: FollowUp | None) -> None:
    """Run the private note after the acknowledgement (it never delays it); a failure is logged at INFO."""
    if send is None:
        return

    async def run() -> object:
        try:
            return await send()
        except Exception as exc:  # noqa: BLE001 - best effort: the person may simply try again
            log.info("could not tell a member the store is down: %s", type(exc).__name__)
            return None

    task = asyncio.get_running_loop().create_task(run())
    _pending.add(task)
    task.add_done_callback(_pending.discard)
