"""The `/quiz` slash command: its text goes through the shared grammar (bot.text.commands) and the shared
runner (bot.text.runner); this module only supplies Slack's people, channels and admin rights and lays the
result out. Every reply is ephemeral, sent through the command's response_url."""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Any, assert_never

from slack_bolt.async_app import AsyncApp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack import live
from adapters.slack.blocks import (
    SLACK_HELP,
    Block,
    config_blocks,
    escape,
    help_blocks,
    leaderboard_blocks,
    question_blocks,
    question_text,
    section,
    stats_blocks,
)
from adapters.slack.deps import SlackDeps
from adapters.slack.ids import PLATFORM, parse_channel, parse_user, team_of
from adapters.slack.limits import fit_blocks, fit_text
from adapters.slack.mydata import deliver_export, forget_prompt_blocks
from adapters.slack.outage import failed
from adapters.slack.packs import open_import_form, send_export
from adapters.slack.progress import deliver_progress
from adapters.slack.suggestions import suggest_view, suggestions_blocks
from adapters.slack.teams import team_board_blocks
from bot.daily.cards import StatsCard
from bot.kernel.cards import AnswerOutcome, LeaderboardCard, QuestionCard
from bot.kernel.echo import echo
from bot.kernel.errors import BadSetting, QuizError
from bot.kernel.platform import NamePlatform
from bot.kernel.values import Actor, ChannelRef
from bot.live.cards import LiveBoardCard
from bot.mydata.export import MissesExport
from bot.mydata.forget import ForgetDone, ForgetPrompt
from bot.packs.catalog import PackFile, PacksCard
from bot.packs.question_stats import QuestionStatsCard
from bot.practice.cards import ReviewEmpty
from bot.practice.progress_cards import ProgressCard
from bot.reminders.values import RemindCard
from bot.reports.service import ReportsCard
from bot.settings import ConfigCard
from bot.suggestions.service import SuggestionsCard
from bot.teams.cards import TeamBoardCard
from bot.text.command_values import Command
from bot.text.commands import parse_quiz
from bot.text.runner import (
    HelpReply,
    ImportAsked,
    NoteReply,
    PostedReply,
    RevealedReply,
    SettingsReply,
    SuggestFormReply,
    TopicsReply,
    run_command,
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
            await respond(response_type="ephemeral", text=fit_text(reply.text), blocks=fit_blocks(reply.blocks))
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
        command = parse_quiz(body.get("text") or "")
        return await dispatch(deps, client, ref, user, command, trigger_id=body.get("trigger_id"))
    except QuizError as exc:
        return Reply(escape(exc.message))
    except SlackApiError as exc:
        error = exc.response.get("error")
        log.warning("/quiz hit a Slack API error: %s", error)
        if error in CHANNEL_ERRORS:
            return Reply(f"I cannot post in that channel ({error}): invite me with `/invite @studybot` first.")
        return Reply(f"Slack refused that ({error}).")
    except Exception as exc:
        return Reply(escape(failed(deps.service, exc, log, "/quiz failed") or FAILED))


class SlackSource:
    """The person and channel of one /quiz command, in Slack's terms, for the shared text runner."""

    def __init__(self, deps: SlackDeps, client: AsyncWebClient, ref: ChannelRef, user: str) -> None:
        self.deps, self.client, self.ref, self.user_id = deps, client, ref, user

    def person(self, raw: str | None) -> str:
        if raw is None:
            return self.user_id
        target = parse_user(raw)
        if target is None:
            raise BadSetting(f"'{echo(raw)}' is not a person: mention them with @, for example /quiz stats @ann.")
        return target

    def channel(self, raw: str) -> ChannelRef:
        channel = parse_channel(raw)
        if channel is None:
            raise BadSetting(f"'{echo(raw)}' is not a channel: pick one with #, for example channel #pytorch.")
        return replace(self.ref, channel_id=channel)

    async def actor(self, target: ChannelRef) -> Actor:
        """Admin rights come from Slack (or the allow-list); a direct message has no daily question."""
        if target.channel_id.startswith("D"):
            raise BadSetting("The daily question goes to a channel: run /quiz config there, or add channel #name.")
        return await self.deps.admins.actor(self.client, self.ref.space_id, self.user_id)

    async def space_actor(self) -> Actor:
        """Rights over the workspace's packs: asked from any channel, a direct message too."""
        return await self.deps.admins.actor(self.client, self.ref.space_id, self.user_id)


async def dispatch(
    deps: SlackDeps,
    client: AsyncWebClient,
    ref: ChannelRef,
    user: str,
    command: Command,
    *,
    trigger_id: str | None = None,
) -> Reply:
    """Run the command through the shared text runner and lay its result out as Block Kit."""
    result = await run_command(deps.service, SlackSource(deps, client, ref, user), command)
    match result:
        case SuggestFormReply() if isinstance(trigger_id, str) and trigger_id:
            await client.views_open(trigger_id=trigger_id, view=suggest_view(ref.channel_id))
            return Reply("The suggestion form is open.")
        case SuggestFormReply(text=text) | NoteReply(text=text):
            return Reply(escape(text))
        case SuggestionsCard():
            return Reply(escape(result.text), suggestions_blocks(result))
        case QuestionCard():
            return Reply(question_text(result), question_blocks(result))
        case AnswerOutcome():
            return Reply(escape(result.text))
        case LeaderboardCard(public=True):
            return await post_leaderboard(deps, client, ref, result)
        case LiveBoardCard(public=True):
            return await post_live_board(deps, client, ref, result)
        case LiveBoardCard():
            return Reply(escape(result.title), live.board_blocks(result))
        case ReviewEmpty(text=text):
            return Reply(escape(text))
        case TopicsReply(lines=lines):
            text = "\n".join(lines)
            return Reply(escape(text), [section("*Topics*\n" + escape(text))])
        case LeaderboardCard():
            return Reply(escape(result.title), leaderboard_blocks(result))
        case TeamBoardCard(public=True):
            text = escape(result.title)
            await client.chat_postMessage(channel=ref.channel_id, text=text, blocks=team_board_blocks(result))
            return Reply(f"Posted the team board in <#{ref.channel_id}>.")
        case TeamBoardCard():
            return Reply(escape(result.title), team_board_blocks(result))
        case StatsCard():
            return Reply("Quiz stats", stats_blocks(result))
        case HelpReply(did_you_mean=str() as short):
            return Reply(escape(short), [section(escape(short))])
        case HelpReply(reason=reason):
            return Reply(escape(SLACK_HELP), help_blocks(reason))
        case SettingsReply(card=card, changed=changed):
            return config_reply(card, await join_note(client, card.config.ref) if changed else "")
        case PostedReply(ref=target):
            return Reply(f"Posted today's question in <#{target.channel_id}>.")
        case RevealedReply(card=card):
            return Reply(escape(f"Revealed: {card.title}."))
        case PacksCard():
            return Reply(escape(result.text), [section("*Question packs*\n" + escape("\n".join(result.lines)))])
        case QuestionStatsCard():
            return Reply(escape(result.text), [section(escape(result.text))])
        case MissesExport():
            return Reply(escape(await deliver_export(deps.platform, ref, user, result)))
        case ProgressCard():
            return Reply(*await deliver_progress(deps.platform, ref, user, result))
        case ForgetPrompt():
            return Reply(*forget_prompt_blocks(result))
        case ForgetDone(text=text) | RemindCard(text=text):
            return Reply(escape(text))
        case ImportAsked():
            return Reply(await open_import_form(client, trigger_id, result, ref.channel_id))
        case PackFile():
            return Reply(await send_export(deps, ref, user, result))
        case ReportsCard():  # member text as plain text; the reporter named without a notification
            shown = result.render(escape, who=lambda u: f"<@{u}>").split("\n")
            return Reply(
                escape(result.render()), [section("\n".join(shown[i : i + 4])) for i in range(0, len(shown), 4)]
            )
        case _:
            assert_never(result)


async def post_leaderboard(deps: SlackDeps, client: AsyncWebClient, ref: ChannelRef, card: LeaderboardCard) -> Reply:
    """`/quiz leaderboard ... public`: the board goes to the channel, members named without notifying them."""
    platform = deps.service.context.platforms.get(PLATFORM)
    resolve = getattr(platform, "display_names", None)
    users = list(dict.fromkeys(r.user_id for r in (*card.podium, *card.rows)))
    names = await resolve(ref, users) if resolve is not None else {}
    blocks = leaderboard_blocks(card, names)
    await client.chat_postMessage(channel=ref.channel_id, text=escape(card.title), blocks=blocks)
    return Reply(f"Posted the leaderboard in <#{ref.channel_id}>.")


async def post_live_board(deps: SlackDeps, client: AsyncWebClient, ref: ChannelRef, card: LiveBoardCard) -> Reply:
    """`/quiz leaderboard live public`: the live board goes to the channel, members named without notifying them."""
    platform = deps.service.context.platforms.get(PLATFORM)
    users = [p.standing.user_id for p in card.rows]
    names: dict[str, str] = {}
    if isinstance(platform, NamePlatform):
        names = await platform.display_names(ref, users)
    await client.chat_postMessage(
        channel=ref.channel_id, text=escape(card.title), blocks=live.board_blocks(card, names)
    )
    return Reply(f"Posted the live games' board in <#{ref.channel_id}>.")


def config_reply(card: ConfigCard, note: str = "") -> Reply:
    blocks = config_blocks(card) + ([section(note)] if note else [])
    return Reply(escape("\n".join(line for line in card.lines if line)), blocks)


async def join_note(client: AsyncWebClient, ref: ChannelRef) -> str:
    """Join a public channel so the bot can post there and see reactions; otherwise say how to invite it."""
    try:
        await client.conversations_join(channel=ref.channel_id)
        return ""
    except SlackApiError as exc:
        log.info("could not join %s: %s", ref.channel_id, exc.response.get("error"))
        return f"Invite me to <#{ref.channel_id}> (`/invite @studybot`) so I can post there and see reactions."
