"""A learner's own data on Slack: `/quiz export` delivers the files into the person's direct messages with the
app (conversations.open, then the external-upload methods), and `/quiz forget-me` asks for a press of its
confirm button (or `/quiz forget-me confirm`) before the core deletes anything."""

from __future__ import annotations

import logging
from typing import Any

from adapters.slack.blocks import Block, section
from adapters.slack.deps import SlackDeps
from adapters.slack.ids import PLATFORM, team_of, user_of
from adapters.slack.limits import fit_text
from adapters.slack.mrkdwn import escape
from adapters.slack.outage import failed
from adapters.slack.platform import SlackPlatform
from bot.kernel.values import ChannelRef
from bot.mydata.export import MissesExport
from bot.mydata.forget import ForgetPrompt

log = logging.getLogger(__name__)

FORGET_ACTION = "studybot.forget_me"  # the confirm button of /quiz forget-me
FORGET_HINT = "To go ahead, press *Delete my data* below, or type `/quiz forget-me confirm`."  # also in text


async def deliver_export(platform: SlackPlatform, ref: ChannelRef, user: str, export: MissesExport) -> str:
    """Upload the export into the person's direct messages with the app (only they see it); the reply."""
    uploads = [{"content": f.data, "filename": f.name, "title": f.name} for f in export.files]
    await platform.send_files(ref, user, uploads, export.text)
    return f"I sent you your {export.count} missed question{'s' if export.count != 1 else ''} in our direct messages."


def forget_prompt_blocks(prompt: ForgetPrompt) -> tuple[str, list[Block]]:
    text = f"{escape(prompt.text)} {FORGET_HINT}"
    button = {
        "type": "button",
        "action_id": FORGET_ACTION,
        "style": "danger",
        "text": {"type": "plain_text", "text": "Delete my data"},
        "value": "forget-me",
    }
    return text, [section(text), {"type": "actions", "block_id": "studybot.forget", "elements": [button]}]


async def forget_click(deps: SlackDeps, body: dict[str, Any], respond: Any) -> None:
    """The confirm button: deletes the data of the member who pressed it, in the workspace it was pressed in."""
    user, team = user_of(body.get("user")), team_of(body)
    if user is None or team is None:
        log.info("ignoring a forget-me press without a readable user or team")
        return
    try:
        done = await deps.service.mydata.forget_me(PLATFORM, team, user)
        text = done.text
    except Exception as exc:
        text = failed(deps.service, exc, log, "forget-me failed") or (
            "Something went wrong on our side and nothing was deleted; please try again in a minute."
        )
    try:
        await respond(response_type="ephemeral", replace_original=True, text=fit_text(escape(text)))
    except Exception as exc:
        log.warning("could not answer a forget-me press: %r", exc)
