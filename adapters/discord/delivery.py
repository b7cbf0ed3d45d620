"""Discord without the gateway: the platform of a delivery process (STUDYBOT_ROLE=delivery) and the shard
count Discord recommends (STUDYBOT_SHARD_COUNT=auto).

A delivery process posts, edits, reveals and DMs over REST only (adapters.discord.platform needs nothing
else): its client logs in (GET /users/@me) and never connects to the gateway, so it holds no shard and gets
no events. discord.py's HTTP client keeps Discord's rate limits per route, as in every other process; the
token is the same DISCORD_TOKEN.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import discord

from adapters.discord.app import LOGIN_RETRY_DELAYS, login
from adapters.discord.limits import NO_PINGS
from adapters.discord.platform import DiscordPlatform
from adapters.discord.replies import COMMANDS
from adapters.discord.settings import DiscordSettings
from bot.features import Features
from bot.kernel.errors import StartupError

log = logging.getLogger(__name__)


def rest_client(**options: Any) -> discord.Client:
    """A client used for REST only: no intents, nobody pinged unless a send says so."""
    options.setdefault("allowed_mentions", NO_PINGS)
    return discord.Client(intents=discord.Intents.none(), **options)


async def _hold(client: discord.Client) -> None:
    """Until cancelled; then the client's HTTP session is closed."""
    try:
        await asyncio.Event().wait()
    finally:
        await client.close()


async def start_discord_delivery(
    service: Features,
    settings: DiscordSettings,
    *,
    retry_delays: tuple[float, ...] = LOGIN_RETRY_DELAYS,
    **options: Any,
) -> asyncio.Task[None]:
    """Log in over REST and add the Discord platform to the service (the tick posts through it); no gateway
    connection is made. The returned task holds the client until it is cancelled."""
    if not settings.discord_token:
        raise StartupError("DISCORD_TOKEN is not set.")
    client = rest_client(**options)
    await login(client, settings.discord_token, retry_delays=retry_delays)
    service.context.platforms.add(DiscordPlatform(client), COMMANDS)
    log.info("Discord: delivering as %s over REST (no gateway connection)", client.user)
    return asyncio.create_task(_hold(client), name="discord-rest")


async def recommended_shards(token: str, *, retry_delays: tuple[float, ...] = LOGIN_RETRY_DELAYS) -> int:
    """Discord's recommended shard count for the bot (GET /gateway/bot), for STUDYBOT_SHARD_COUNT=auto."""
    client = rest_client()
    await login(client, token, retry_delays=retry_delays)
    try:
        shards, _url, _limits = await client.http.get_bot_gateway()
    except (discord.GatewayNotFound, discord.HTTPException) as exc:
        raise StartupError(
            f"STUDYBOT_SHARD_COUNT=auto: Discord did not say how many shards to run ({exc}); "
            "set STUDYBOT_SHARD_COUNT to a number instead."
        ) from None
    finally:
        await client.close()
    if not isinstance(shards, int) or shards < 1:
        raise StartupError(
            f"STUDYBOT_SHARD_COUNT=auto: Discord recommended {shards!r} shards; set STUDYBOT_SHARD_COUNT to a number."
        )
    log.info("Discord recommends %d shard(s)", shards)
    return shards
