"""Slack without a listener: the platform of a delivery process (STUDYBOT_ROLE=delivery).

A delivery process posts, updates and DMs through the Web API only: no Socket Mode connection, no HTTP
server for /slack/events. It uses the same tokens as the interactive processes: SLACK_BOT_TOKEN for one
workspace, or, with "Add to Slack" (SLACK_CLIENT_ID), each workspace's token from the installation store
(renewed there with token rotation). Rate limits are retried by the Web API client (adapters.slack.platform).
"""

from __future__ import annotations

import asyncio
import logging

from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.app import RETRY_DELAYS, check_token, oauth_config
from adapters.slack.logsafe import install as redact_logs
from adapters.slack.options import SlackOptions
from adapters.slack.permissions import AdminPolicy
from adapters.slack.platform import SlackPlatform, make_client
from adapters.slack.settings import SlackSettings
from bot.features import Features
from bot.kernel.errors import StartupError

log = logging.getLogger(__name__)


async def _hold() -> None:
    await asyncio.Event().wait()


async def start_slack_delivery(
    service: Features,
    settings: SlackSettings,
    *,
    client: AsyncWebClient | None = None,
    retry_delays: tuple[float, ...] = RETRY_DELAYS,
) -> asyncio.Task[None]:
    """Add the Slack platform to the service over the Web API (the tick posts through it); nothing listens.
    The returned task holds until it is cancelled."""
    oauth = oauth_config(settings)
    if oauth is None and not settings.slack_bot_token and client is None:
        raise StartupError("SLACK_BOT_TOKEN is not set.")
    redact_logs(settings.slack_bot_token or "", oauth.client_secret if oauth else "")
    client = client or make_client(None if oauth else settings.slack_bot_token)
    if oauth is None:
        await check_token(client, retry_delays)
        platform = SlackPlatform(client)
    else:
        from adapters.slack.installations import ServiceInstallationStore, TokenBox
        from adapters.slack.rotation import TokenRotation

        installs = ServiceInstallationStore(
            service, TokenBox(oauth.key), TokenRotation(client, oauth.client_id, oauth.client_secret)
        )
        platform = SlackPlatform(client, tokens=installs.token_for)
    platform.admins = AdminPolicy(SlackOptions.from_settings(settings).admins)
    service.context.platforms.add(platform)
    log.info("Slack: delivering through the Web API (no events listener)")
    return asyncio.create_task(_hold(), name="slack-web-api")
