"""Reports of a question's problems on Slack: the "Report a problem" button under a reveal or a practice
verdict opens a modal (views.open: a reason select and up to 500 characters of text); its view_submission
goes to the core, which decides (the daily limit, one open report per question) and says what to tell.

Ids (distinct from other modals): the button `report_open.<round>`, the modal `report_submit`, its blocks
`report_reason` / `report_text` with the elements `report_reason_select` / `report_text_input`.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from slack_bolt.async_app import AsyncApp

from adapters.slack.blocks import REPORT_ACTION_PREFIX, input_block, metadata, modal, plain, section, submitted
from adapters.slack.deps import SlackDeps
from adapters.slack.ids import PLATFORM, team_of, user_of
from adapters.slack.mrkdwn import escape
from adapters.slack.outage import failed
from bot.kernel.errors import BadSetting, QuizError
from bot.kernel.parsing import parse_round_id
from bot.reports.service import MAX_REPORT_TEXT, REASON_LABELS, clean_text, parse_reason

log = logging.getLogger(__name__)

REPORT_ACTION = re.compile(rf"^{re.escape(REPORT_ACTION_PREFIX)}\.([0-9]{{1,19}})$")
CALLBACK_ID = "report_submit"
REASON_BLOCK, REASON_ELEMENT = "report_reason", "report_reason_select"
TEXT_BLOCK, TEXT_ELEMENT = "report_text", "report_text_input"
SORRY = "Something went wrong on our side and the report was not saved; please try again in a minute."


def report_modal(round_id: int) -> dict[str, Any]:
    """The report form about one round's question."""
    options = [{"text": plain(label.capitalize()), "value": reason.value} for reason, label in REASON_LABELS.items()]
    reason = {"type": "static_select", "action_id": REASON_ELEMENT, "options": options, "initial_option": options[0]}
    text = {"type": "plain_text_input", "action_id": TEXT_ELEMENT, "multiline": True, "max_length": MAX_REPORT_TEXT}
    return modal(
        CALLBACK_ID,
        "Report a problem",
        [
            input_block(REASON_BLOCK, "What is wrong?", reason),
            input_block(TEXT_BLOCK, "Tell the admins more", text, optional=True),
        ],
        submit="Send report",
        private_metadata=json.dumps({"round": round_id}),
    )


def done_view(text: str) -> dict[str, Any]:
    """What the modal turns into once the report is handled (plain text)."""
    return modal("report_done", "Report a problem", [section(escape(text))], close="Close")


def _round_of(view: dict[str, Any]) -> int | None:
    raw = metadata(view).get("round")
    return parse_round_id(raw) if isinstance(raw, int | str) else None


def _values(view: dict[str, Any]) -> tuple[str | None, str]:
    chosen = submitted(view, REASON_BLOCK, REASON_ELEMENT).get("selected_option")
    reason = chosen.get("value") if isinstance(chosen, dict) else None
    typed = submitted(view, TEXT_BLOCK, TEXT_ELEMENT).get("value")
    return reason if isinstance(reason, str) else None, typed if isinstance(typed, str) else ""


def register_reports(app: AsyncApp, deps: SlackDeps) -> None:
    @app.action(REPORT_ACTION)
    async def open_report(ack: Any, body: dict, action: dict, client: Any) -> None:
        await ack()
        m = REPORT_ACTION.fullmatch(str(action.get("action_id") or ""))
        round_id = parse_round_id(m.group(1)) if m else None
        trigger = body.get("trigger_id")
        if round_id is None or not isinstance(trigger, str):
            log.info("ignoring a report button without a readable round or trigger")
            return
        try:
            await client.views_open(trigger_id=trigger, view=report_modal(round_id))
        except Exception as exc:
            log.warning("could not open the report form for round %d: %r", round_id, exc)

    @app.view(CALLBACK_ID)
    async def submit_report(ack: Any, body: dict, view: dict) -> None:
        user, team, round_id = user_of(body.get("user")), team_of(body), _round_of(view)
        raw_reason, typed = _values(view)
        reason = parse_reason(raw_reason)
        if user is None or round_id is None or reason is None:
            log.info("ignoring a report form without a readable user, round or reason")
            await ack(response_action="update", view=done_view("That form could not be read; nothing was saved."))
            return
        try:
            clean_text(typed)
        except BadSetting as exc:  # shown under the text field; the modal stays open
            await ack(response_action="errors", errors={TEXT_BLOCK: exc.message})
            return
        try:
            text = await deps.service.reports.report_round(
                user, round_id, reason, typed, space=(PLATFORM, team) if team else None
            )
        except QuizError as exc:
            text = exc.message
        except Exception as exc:
            text = failed(deps.service, exc, log, "the report on round %d failed", round_id) or SORRY
        await ack(response_action="update", view=done_view(text))
