"""Events API listeners: reaction answers, the App Home tab and the bot's own arrival in a channel."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.blocks import home_view
from adapters.slack.commands import FAILED
from adapters.slack.deps import SlackDeps
from adapters.slack.ids import PLATFORM, choice_for_reaction, message_id, message_of, payload_id, team_of, user_of
from adapters.slack.limits import fit_view
from adapters.slack.outage import failed
from bot.kernel.echo import echo
from bot.kernel.errors import NotAQuestion, QuizError, ReactionsOff
from bot.kernel.values import ChannelRef, Period

log = logging.getLogger(__name__)


def register_events(app: AsyncApp, deps: SlackDeps) -> None:
    @app.event("reaction_added")
    async def reaction_added(ack: Any, body: dict, event: dict, context: Any) -> None:
        await ack()
        await answer_by_reaction(deps, body, event, context.team_id)

    @app.event("app_home_opened")
    async def app_home_opened(ack: Any, body: dict, event: dict, client: AsyncWebClient, context: Any) -> None:
        await ack()
        await publish_home(deps, client, body, event, context.team_id)

    @app.event("member_joined_channel")
    async def member_joined_channel(ack: Any, body: dict, event: dict, context: Any) -> None:
        await ack()
        await welcome_channel(deps, body, event, context.team_id, context.bot_user_id)


async def welcome_channel(
    deps: SlackDeps, body: dict, event: dict, context_team: str | None, bot_user: str | None
) -> None:
    """Someone invited the bot to a channel: it says once what it would do there (bot.installs decides: not
    where an admin already set the quiz up). Anyone else joining a channel is none of its business."""
    user, channel, team = user_of(event.get("user")), payload_id(event.get("channel")), team_of(body, context_team)
    if user is None or user != bot_user:
        return
    if channel is None or team is None:
        log.info("ignoring a member_joined_channel event whose channel or team is not what Slack documents")
        return
    ref = ChannelRef(PLATFORM, team, channel)
    try:
        text = await deps.service.installs.channel_welcome(ref)
        if text is not None:
            await deps.platform.post_notice(ref, text)
    except SlackApiError as exc:
        log.info("could not welcome channel %s: %s", channel, exc.response.get("error"))
    except Exception as exc:  # noqa: BLE001 - the store is out, say: a welcome is a nicety, the event is acknowledged
        log.info("could not welcome channel %s: %s", channel, type(exc).__name__)


async def answer_by_reaction(deps: SlackDeps, body: dict, event: dict, context_team: str | None) -> None:
    """:one: .. :four: on a daily question answers it (when the channel has reactions on)."""
    reaction = event.get("reaction")
    choice = choice_for_reaction(reaction) if isinstance(reaction, str) else None
    item = event.get("item")
    if choice is None or (isinstance(item, dict) and item.get("type") not in (None, "message")):
        log.debug("ignoring reaction %r: not an answer", echo(repr(reaction), 40))
        return
    message, user, team = message_of(item), user_of(event.get("user")), team_of(body, context_team)
    if message is None or user is None or team is None:
        log.info("ignoring a reaction_added event whose item, user or team is not what Slack documents")
        return
    channel, ts = message
    try:
        text = (await deps.service.answers.answer_by_reaction(PLATFORM, message_id(channel, ts), user, choice)).text
    except (NotAQuestion, ReactionsOff) as exc:
        log.debug("ignoring reaction %r: %s", event.get("reaction"), exc.message)
        return
    except QuizError as exc:
        text = exc.message
    except Exception as exc:
        text = failed(deps.service, exc, log, "reaction answer on message %s failed", ts) or FAILED
    try:
        await deps.platform.send_private(ChannelRef(PLATFORM, team, channel), user, text)
    except SlackApiError as exc:
        log.warning("could not acknowledge a reaction answer: %s", exc.response.get("error"))


async def publish_home(
    deps: SlackDeps, client: AsyncWebClient, body: dict, event: dict, context_team: str | None
) -> None:
    """The Home tab: the person's stats and this week's workspace leaderboard."""
    user, team = user_of(event.get("user")), team_of(body, context_team)
    if event.get("tab", "home") != "home":
        log.debug("ignoring app_home_opened on the %r tab", echo(repr(event.get("tab")), 40))
        return
    if user is None or team is None:
        log.info("ignoring an app_home_opened event whose user or team is not what Slack documents")
        return
    try:
        stats = await deps.service.boards.stats(PLATFORM, team, user)
        board = await deps.service.boards.leaderboard(PLATFORM, team, Period.WEEK, user)
        link = deps.service.access.dashboard
        web = f"{link.url}/login" if link is not None and PLATFORM in link.sign_in else None
        await client.views_publish(user_id=user, view=fit_view(home_view(stats, board, web)))
    except SlackApiError as exc:
        log.warning("views.publish failed: %s", exc.response.get("error"))
    except Exception as exc:
        failed(deps.service, exc, log, "App Home for %s failed", user)  # nobody to tell: the tab stays as it was
