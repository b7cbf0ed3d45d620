"""Answer buttons: the action id carries the round and the choice; the reply is private."""

from __future__ import annotations

import contextlib
import logging
from typing import Any

from slack_bolt.async_app import AsyncApp

from adapters.slack.blocks import question_blocks, question_text, verdict_blocks
from adapters.slack.commands import FAILED
from adapters.slack.deps import SlackDeps
from adapters.slack.ids import (
    ACTION_PATTERN,
    PLATFORM,
    REVIEW_ACTION,
    UNSURE_PATTERN,
    parse_action_id,
    parse_unsure_action_id,
    team_of,
    user_of,
)
from adapters.slack.limits import fit_blocks, fit_text
from adapters.slack.mrkdwn import escape
from adapters.slack.mydata import FORGET_ACTION, forget_click
from adapters.slack.outage import failed
from bot.kernel.echo import echo
from bot.kernel.errors import QuizError
from bot.kernel.outage import STORE_DOWN
from bot.kernel.values import ChannelRef
from bot.practice.cards import ReviewEmpty

log = logging.getLogger(__name__)


def register_actions(app: AsyncApp, deps: SlackDeps) -> None:
    @app.action(ACTION_PATTERN)
    async def answer_button(ack: Any, body: dict, action: dict, respond: Any) -> None:
        await ack()
        await answer_click(deps, body, action, respond)

    @app.action(REVIEW_ACTION)
    async def review_button(ack: Any, body: dict, client: Any) -> None:
        await ack()
        await start_review_in_dm(deps, client, body)

    @app.action(FORGET_ACTION)
    async def forget_button(ack: Any, body: dict, respond: Any) -> None:
        await ack()
        await forget_click(deps, body, respond)

    @app.action(UNSURE_PATTERN)
    async def unsure_button(ack: Any, body: dict, action: dict, respond: Any) -> None:
        await ack()
        await answer_click(deps, body, action, respond)


async def answer_click(deps: SlackDeps, body: dict, action: dict, respond: Any) -> None:
    raw = action.get("action_id") if isinstance(action, dict) else None
    unsure = parse_unsure_action_id(raw)
    parsed, user = unsure or parse_action_id(raw), user_of(body.get("user"))
    if parsed is None or user is None:
        log.info("ignoring a button with an unreadable round, choice or user (action %r)", echo(repr(raw), 60))
        return
    round_id, choice = parsed
    try:
        team = team_of(body)
        outcome = await deps.service.answers.submit_answer(
            round_id, user, choice, space=(PLATFORM, team) if team else None, sure=unsure is None
        )
    except QuizError as exc:
        await private(respond, exc.message)
        return
    except Exception as exc:
        await private(respond, failed(deps.service, exc, log, "answer button on round %d failed", round_id) or FAILED)
        return
    if outcome.verdict is not None:  # practice: judged at once; the verdict replaces the question
        await respond(
            response_type="ephemeral",
            replace_original=True,
            text=fit_text(escape(outcome.text)),
            blocks=fit_blocks(verdict_blocks(outcome)),
        )
        if outcome.follow_up is not None:  # a review's next question
            await respond(
                response_type="ephemeral",
                replace_original=False,
                text=fit_text(question_text(outcome.follow_up)),
                blocks=fit_blocks(question_blocks(outcome.follow_up)),
            )
    else:
        await private(respond, outcome.text)


async def start_review_in_dm(deps: SlackDeps, client: Any, body: dict) -> None:
    """The App Home's Review button: the review runs in the app's direct messages with the person (Slack
    takes the user id as that conversation's channel), private like every review."""
    user, team = user_of(body.get("user")), team_of(body)
    if user is None or team is None:
        log.info("ignoring a Review click without a readable user or team")
        return
    try:
        result = await deps.service.practice.start_review(ChannelRef(PLATFORM, team, user), user)
        if isinstance(result, ReviewEmpty):
            await client.chat_postMessage(channel=user, text=fit_text(escape(result.text)))
        else:
            await client.chat_postMessage(
                channel=user, text=fit_text(question_text(result)), blocks=fit_blocks(question_blocks(result))
            )
    except Exception as exc:
        if failed(deps.service, exc, log, "the App Home review for %s failed", user) is not None:
            with contextlib.suppress(Exception):  # best effort: the store is down, Slack may be fine
                await client.chat_postMessage(channel=user, text=STORE_DOWN)


async def private(respond: Any, text: str) -> None:
    """An ephemeral note beside the message, leaving the message as it is."""
    try:
        await respond(response_type="ephemeral", replace_original=False, text=fit_text(escape(text)))
    except Exception as exc:
        log.warning("could not answer a button privately: %r", exc)
