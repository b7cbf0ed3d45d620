"""The `/quiz` slash command: its text goes through the shared grammar (bot.textcommands) and each
command becomes one service call. Every reply is ephemeral, sent through the command's response_url."""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.blocks import (
    SLACK_HELP,
    Block,
    config_blocks,
    help_blocks,
    leaderboard_blocks,
    question_blocks,
    question_text,
    section,
    stats_blocks,
)
from adapters.slack.deps import SlackDeps
from adapters.slack.ids import PLATFORM, parse_channel, parse_user, team_of
from bot.errors import BadSetting, QuizError
from bot.model import ChannelRef, ConfigCard
from bot.textcommands import (
    AnswerDaily,
    Command,
    Configure,
    Practice,
    ShowHelp,
    ShowLeaderboard,
    ShowStats,
    parse_quiz,
)

log = logging.getLogger(__name__)

FAILED = "Something went wrong on our side; please try again in a minute."
CHANNEL_ERRORS = {"not_in_channel", "channel_not_found", "is_archived"}


@dataclass(frozen=True)
class Reply:
    text: str
    blocks: list[Block] | None = None


def register_commands(app: AsyncApp, deps: SlackDeps) -> None:
    @app.command("/quiz")
    async def quiz_command(ack: Any, body: dict, respond: Any, client: AsyncWebClient, context: Any) -> None:
        await ack()
        reply = await run_quiz(deps, client, body, context.team_id)
        try:
            await respond(response_type="ephemeral", text=reply.text, blocks=reply.blocks)
        except Exception as exc:  # an expired response_url: nothing else to tell the user with
            log.warning("could not reply to /quiz: %r", exc)


async def run_quiz(deps: SlackDeps, client: AsyncWebClient, body: dict, context_team: str | None) -> Reply:
    """Parse the command text and run it; every failure becomes a reply for the person who asked."""
    team, channel, user = team_of(body, context_team), body.get("channel_id"), body.get("user_id")
    if not (team and channel and user):
        log.debug("/quiz without team, channel or user; ignored")
        return Reply("This command needs a workspace channel.")
    ref = ChannelRef(PLATFORM, team, channel)
    try:
        return await dispatch(deps, client, ref, user, parse_quiz(body.get("text") or ""))
    except QuizError as exc:
        return Reply(exc.message)
    except SlackApiError as exc:
        error = exc.response.get("error")
        log.warning("/quiz hit a Slack API error: %s", error)
        if error in CHANNEL_ERRORS:
            return Reply(f"I cannot post in that channel ({error}): invite me with `/invite @studybot` first.")
        return Reply(f"Slack refused that ({error}).")
    except Exception:
        log.exception("/quiz failed")
        return Reply(FAILED)


async def dispatch(deps: SlackDeps, client: AsyncWebClient, ref: ChannelRef, user: str, command: Command) -> Reply:
    svc = deps.service
    match command:
        case Practice(topic=topic):
            card = await svc.start_practice(ref, user, topic)
            return Reply(question_text(card), question_blocks(card))
        case AnswerDaily(choice=choice):
            return Reply((await svc.answer_in_channel(ref, user, choice)).text)
        case ShowLeaderboard(period=period):
            board = await svc.leaderboard(PLATFORM, ref.space_id, period, user)
            return Reply(board.title, leaderboard_blocks(board))
        case ShowStats(user=who):
            target = user if who is None else parse_user(who)
            if target is None:
                raise BadSetting(f"'{who}' is not a person: mention them with @, for example /quiz stats @ann.")
            return Reply("Quiz stats", stats_blocks(await svc.stats(PLATFORM, ref.space_id, target)))
        case ShowHelp(reason=reason):
            return Reply(SLACK_HELP, help_blocks(reason))
        case Configure():
            return await configure(deps, client, ref, user, command)
    raise AssertionError(command)


async def configure(deps: SlackDeps, client: AsyncWebClient, ref: ChannelRef, user: str, command: Configure) -> Reply:
    """`/quiz config ...`: admin rights come from Slack (or the allow-list); the core decides."""
    svc = deps.service
    target = ref
    if command.channel is not None:
        channel = parse_channel(command.channel)
        if channel is None:
            raise BadSetting(f"'{command.channel}' is not a channel: pick one with #, for example channel #pytorch.")
        target = replace(ref, channel_id=channel)
    if command.action == "show":
        return config_reply(await svc.show_config(target))
    if target.channel_id.startswith("D"):
        raise BadSetting("The daily question goes to a channel: run /quiz config there, or add channel #name.")
    actor = await deps.admins.actor(client, ref.space_id, user)
    match command.action:
        case "pause" | "resume":
            card = await svc.configure(actor, target, paused=command.action == "pause")
            return config_reply(card, await join_note(client, target) if command.action == "resume" else "")
        case "set":
            card = await svc.configure(actor, target, **command.changes)
            return config_reply(card, await join_note(client, target))
        case "post-now":
            await svc.start_daily_round(target, actor=actor)
            return Reply(f"Posted today's question in <#{target.channel_id}>.")
        case "reveal":
            card = await svc.reveal_now(actor, target)
            return Reply(f"Revealed: {card.title}.")
    raise AssertionError(command.action)


def config_reply(card: ConfigCard, note: str = "") -> Reply:
    blocks = config_blocks(card) + ([section(note)] if note else [])
    return Reply("\n".join(line for line in card.lines if line), blocks)


async def join_note(client: AsyncWebClient, ref: ChannelRef) -> str:
    """Join a public channel so the bot can post there and see reactions; otherwise say how to invite it."""
    try:
        await client.conversations_join(channel=ref.channel_id)
        return ""
    except SlackApiError as exc:
        log.info("could not join %s: %s", ref.channel_id, exc.response.get("error"))
        return f"Invite me to <#{ref.channel_id}> (`/invite @studybot`) so I can post there and see reactions."
