"""Suggested questions on Slack: `/quiz suggest` opens a modal (views.open); its view_submission goes to the
core, which checks it with the pack rules. A broken rule is shown on its field in the modal (nothing
stored); admins review with `/quiz admin suggestions | approve ID | reject ID reason` (the text runner)."""

from __future__ import annotations

import logging
import re
from typing import Any

from slack_bolt.async_app import AsyncApp

from adapters.slack.blocks import Block, section
from adapters.slack.deps import SlackDeps
from adapters.slack.ids import PLATFORM, payload_id, team_of, user_of
from adapters.slack.mrkdwn import escape
from adapters.slack.outage import failed
from bot.kernel.errors import BadSuggestion, QuizError
from bot.kernel.values import LETTERS, ChannelRef
from bot.suggestions.service import DAILY_LIMIT, SuggestionForm, SuggestionsCard, suggested_text, summary

log = logging.getLogger(__name__)

CALLBACK = "suggest_form"
_USER = re.compile(r"^[UW][A-Z0-9]{2,20}$")


def _input(block: str, label: str, *, multiline: bool = False, optional: bool = False, hint: str = "") -> Block:
    element: dict[str, Any] = {"type": "plain_text_input", "action_id": "value", "multiline": multiline}
    element["max_length"] = 3000 if multiline else 200
    out: Block = {
        "type": "input",
        "block_id": block,
        "optional": optional,
        "label": {"type": "plain_text", "text": label},
        "element": element,
    }
    if hint:
        out["hint"] = {"type": "plain_text", "text": hint}
    return out


def _select(block: str, label: str, options: list[str], initial: str | None = None) -> Block:
    opts = [{"text": {"type": "plain_text", "text": o}, "value": o} for o in options]
    element: dict[str, Any] = {"type": "static_select", "action_id": "value", "options": opts}
    if initial is not None:
        element["initial_option"] = next(o for o in opts if o["value"] == initial)
    return {"type": "input", "block_id": block, "label": {"type": "plain_text", "text": label}, "element": element}


def suggest_view(channel_id: str) -> dict[str, Any]:
    """The modal: topic, difficulty, prompt, code, choices A-D, answer, explanation, reference."""
    return {
        "type": "modal",
        "callback_id": CALLBACK,
        "private_metadata": channel_id,
        "title": {"type": "plain_text", "text": "Suggest a question"},
        "submit": {"type": "plain_text", "text": "Suggest"},
        "close": {"type": "plain_text", "text": "Cancel"},
        "blocks": [
            _input("suggest_topic", "Topic", hint="1-40 letters, digits and -, e.g. autograd"),
            _select("suggest_difficulty", "Difficulty", ["easy", "medium", "hard"], "medium"),
            _input("suggest_prompt", "Question", multiline=True, hint="10-600 characters"),
            _input("suggest_code", "Code (optional)", multiline=True, optional=True),
            *(_input(f"suggest_choice_{x.lower()}", f"Choice {x}") for x in LETTERS),
            _select("suggest_answer", "Correct choice", list(LETTERS)),
            _input("suggest_explanation", "Why it is right", multiline=True, hint="20-900 characters"),
            _input("suggest_reference", "Reference link (optional)", optional=True, hint="one https:// link"),
        ],
    }


def _value(values: dict[str, Any], block: str) -> str:
    """The text typed (or the option chosen) in one block; "" for anything unreadable."""
    inputs = values.get(block)
    entry = inputs.get("value") if isinstance(inputs, dict) else None
    if not isinstance(entry, dict):
        return ""
    chosen = entry.get("selected_option")
    raw = chosen.get("value") if isinstance(chosen, dict) else entry.get("value")
    return raw if isinstance(raw, str) else ""


def form_of(view: dict[str, Any]) -> SuggestionForm:
    state = view.get("state")
    values = state.get("values") if isinstance(state, dict) else None
    values = values if isinstance(values, dict) else {}
    v = lambda block: _value(values, block)  # noqa: E731
    return SuggestionForm(
        topic=v("suggest_topic"),
        prompt=v("suggest_prompt"),
        choices=tuple(v(f"suggest_choice_{x.lower()}") for x in LETTERS),
        answer=v("suggest_answer"),
        explanation=v("suggest_explanation"),
        difficulty=v("suggest_difficulty"),
        code=v("suggest_code") or None,
        reference=v("suggest_reference") or None,
    )


def block_of(field: str) -> str:
    """The modal block that shows a field's error (the whole form's: the question)."""
    if field == "choices":
        return "suggest_choice_a"
    known = {"topic", "difficulty", "prompt", "code", "answer", "explanation", "reference"}
    return f"suggest_{field}" if field in known else "suggest_prompt"


def suggestions_blocks(card: SuggestionsCard) -> list[Block]:
    """The review list: one section per suggestion, its author named (Slack shows the name, no ping here)."""
    if not card.items:
        return [section(escape(card.text))]
    blocks = [section(f"*Suggestions waiting for review* ({len(card.items)}{'+' if card.more else ''})")]
    for s in card.items:
        author = f"<@{s.author_id}>" if _USER.fullmatch(s.author_id) else escape(s.author_id)
        blocks.append(section(escape(summary(s)) + f"\nby {author}"))
    blocks.append(section(escape("/quiz admin approve ID, or /quiz admin reject ID reason")))
    return blocks


def register_suggestions(app: AsyncApp, deps: SlackDeps) -> None:
    @app.view(CALLBACK)
    async def suggest_submitted(ack: Any, body: dict, view: dict) -> None:
        await submit(deps, ack, body, view)


async def submit(deps: SlackDeps, ack: Any, body: dict, view: dict) -> None:
    """The modal's submit: a broken rule goes back onto its field (the modal stays open, nothing stored)."""
    team, user = team_of(body), user_of(body.get("user"))
    channel = payload_id(view.get("private_metadata")) if isinstance(view, dict) else None
    if team is None or user is None or channel is None:
        log.info("ignoring a suggestion form without a readable team, user or channel")
        await ack()
        return
    ref = ChannelRef(PLATFORM, team, channel)
    try:
        saved = await deps.service.suggestions.suggest(ref, user, form_of(view))
    except BadSuggestion as exc:
        await ack(response_action="errors", errors={block_of(exc.field): exc.message[:150]})
        return
    except QuizError as exc:  # e.g. the daily limit
        await ack(response_action="errors", errors={"suggest_topic": exc.message[:150]})
        return
    except Exception as exc:
        note = (
            failed(deps.service, exc, log, "a suggestion from %s failed", user)
            or "Something went wrong; please try again."
        )
        await ack(response_action="errors", errors={"suggest_topic": note})
        return
    await ack()
    try:
        await deps.platform.send_private(ref, user, suggested_text(saved))
    except Exception as exc:
        log.info("could not confirm suggestion %d to %s: %r (at most %d a day)", saved.id, user, exc, DAILY_LIMIT)
