"""The Discord client: resources built in setup_hook (persistent buttons, slash commands and their sync),
reaction events routed to the core, and `start_discord`, which the composition root (bot/app/cli.py) awaits."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import aiohttp
import discord
from discord import app_commands

from adapters.discord.answers import answer_click, handle_reaction
from adapters.discord.commands import QuizTree, build_commands
from adapters.discord.limits import NO_PINGS
from adapters.discord.mydata import ForgetButton
from adapters.discord.platform import DiscordPlatform
from adapters.discord.replies import COMMANDS
from adapters.discord.reports import REPORT_TEMPLATE, ReportButton
from adapters.discord.settings import DiscordSettings
from adapters.discord.sharding import check_shards
from adapters.discord.suggestions import DecisionButton, modal_submitted
from adapters.discord.views import ANSWER_TEMPLATE, AnswerButton
from adapters.discord.welcome import welcome_guild
from bot.features import Features
from bot.kernel.echo import echo
from bot.kernel.errors import StartupError

log = logging.getLogger(__name__)

DEFAULT_DEFER_AFTER = 1.5  # seconds of work before an interaction is deferred (Discord allows 3 s)
LOGIN_RETRY_DELAYS = (1.0, 2.0, 5.0, 10.0, 30.0, 60.0)  # seconds between login attempts without a network


def intents() -> discord.Intents:
    """Guilds (channels, roles, the bot's own member) and guild reactions: nothing privileged."""
    wanted = discord.Intents.none()
    wanted.guilds = True
    wanted.guild_reactions = True
    return wanted


def _guarded(event: str, parser: Callable[[Any], None]) -> Callable[[Any], None]:
    def parse(data: Any) -> None:
        try:
            parser(data)
        except Exception as exc:  # a payload that is not what Discord documents: one line, no traceback
            log.info(
                "ignoring a %s gateway event that could not be parsed: %s: %s",
                event,
                type(exc).__name__,
                echo(str(exc), 200),
            )
            log.debug("the %s event that could not be parsed", event, exc_info=True)

    return parse


def guard_gateway_parsers(client: discord.Client) -> None:
    """Log and drop a gateway payload discord.py cannot parse, instead of letting it end the connection task.

    discord.py looks its parsers up in this dict (ConnectionState.parsers) for every dispatch; a KeyError in one
    would otherwise propagate out of Client.connect and stop the bot."""
    parsers = getattr(getattr(client, "_connection", None), "parsers", None)
    if not isinstance(parsers, dict):
        log.warning("this discord.py has no ConnectionState.parsers; malformed events are not guarded")
        return
    for event, parser in list(parsers.items()):
        parsers[event] = _guarded(event, parser)


if TYPE_CHECKING:
    _ClientBase = discord.Client
else:
    _ClientBase = object


class StudyBotMixin(_ClientBase):
    """Everything studybot adds to a discord.py client, shared by the plain and the sharded client.

    Put it before the discord.py class in the bases (StudyBotMixin, discord.Client): its __init__ builds the
    client, and its setup_hook and event handlers take the place of the library's."""

    def __init__(
        self,
        service: Features,
        *,
        sync_guild_id: int | None = None,
        defer_after: float = DEFAULT_DEFER_AFTER,
        **options: Any,
    ) -> None:
        options.setdefault("allowed_mentions", NO_PINGS)  # the default of every send: nobody is notified
        super().__init__(intents=intents(), **options)
        self.service = service
        self.sync_guild_id = sync_guild_id
        self.defer_after = defer_after
        self.tree = QuizTree(self)
        self.platform = DiscordPlatform(self)
        service.context.platforms.add(self.platform, COMMANDS)
        guard_gateway_parsers(self)

    async def setup_hook(self) -> None:
        self.add_dynamic_items(AnswerButton, ForgetButton, DecisionButton, ReportButton)
        for command in build_commands():
            self.tree.add_command(command)
        await self.sync_commands()

    async def sync_commands(self) -> list[app_commands.AppCommand]:
        """Global commands, or all of them on one guild (DISCORD_GUILD_ID) so changes show at once in testing."""
        try:
            if self.sync_guild_id is not None:
                guild = discord.Object(self.sync_guild_id)
                self.tree.copy_global_to(guild=guild)
                synced = await self.tree.sync(guild=guild)
            else:
                synced = await self.tree.sync()
        except discord.HTTPException as exc:
            log.error("slash command sync failed (the previous commands stay): %s", exc)
            return []
        where = f"guild {self.sync_guild_id}" if self.sync_guild_id is not None else "globally"
        log.info("synced %d slash commands %s", len(synced), where)
        return synced

    async def on_ready(self) -> None:
        log.info(
            "connected to Discord as %s (%s) in %d servers%s",
            self.user,
            getattr(self.user, "id", "?"),
            len(self.guilds),
            shards_text(self),
        )

    async def on_guild_join(self, guild: discord.Guild) -> None:
        await welcome_guild(self.service, guild)

    async def on_answer_click(self, interaction: discord.Interaction, round_raw: str, letter: str) -> None:
        await answer_click(interaction, round_raw, letter)

    async def on_raw_reaction_add(self, payload: discord.RawReactionActionEvent) -> None:
        await handle_reaction(self, payload)

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """Components that are not ours are logged and left alone (ours are routed by their DynamicItems);
        our modal submissions (custom_id suggest_...) go to adapters.discord.suggestions."""
        data: dict[str, Any] = dict(interaction.data or {})
        custom_id = str(data.get("custom_id", ""))
        if interaction.type is discord.InteractionType.modal_submit and custom_id.startswith("suggest_"):
            await modal_submitted(interaction)
        elif interaction.type is discord.InteractionType.component:
            ours = any(re.fullmatch(t, custom_id) for t in (ANSWER_TEMPLATE, REPORT_TEMPLATE))
            if not ours and not custom_id.startswith("suggest_"):
                log.info("ignoring a component interaction with an unknown custom_id %r", custom_id[:100])


class StudyBotClient(StudyBotMixin, discord.Client):
    """discord.py client wired to the quiz service; registers itself as the service's "discord" platform."""


class ShardedStudyBotClient(StudyBotMixin, discord.AutoShardedClient):
    """The same client for one process of several: it connects only the shards it is given (shard_count and
    shard_ids), so the gateway brings it only the events of the guilds on those shards. Posting, editing and DMs
    go over REST and work for any channel."""


def shards_text(client: discord.Client) -> str:
    """' on shards [1] of 2' for a sharded client, '' otherwise."""
    if not isinstance(client, discord.AutoShardedClient):
        return ""
    return f" on shards {sorted(client.shards)} of {client.shard_count}"


async def _run(client: discord.Client) -> None:
    try:
        await client.connect(reconnect=True)
    finally:
        if not client.is_closed():
            await client.close()


async def launch(
    client: discord.Client, token: str, *, retry_delays: tuple[float, ...] = LOGIN_RETRY_DELAYS
) -> asyncio.Task[None]:
    """Log in (REST: the platform can post from here on), run setup_hook, then keep the gateway in a task.

    Without a network the login is retried with growing delays (the last one repeats), one log line each; once
    connected, discord.py reconnects the gateway by itself after a blip."""
    await login(client, token, retry_delays=retry_delays)
    task = asyncio.create_task(_run(client), name="discord-gateway")
    await asyncio.sleep(0)  # let the task enter its try block, so cancelling it at once still closes the client
    return task


async def login(client: discord.Client, token: str, *, retry_delays: tuple[float, ...] = LOGIN_RETRY_DELAYS) -> None:
    """The client's REST login (GET /users/@me, then setup_hook), retried without a network; a rejected token
    is a StartupError. On any failure the client is closed."""
    attempt = 0
    while True:
        try:
            await client.login(token)
            break
        except discord.LoginFailure:
            await client.close()
            raise StartupError(
                "Discord rejected DISCORD_TOKEN: copy the bot token from the Developer Portal."
            ) from None
        except (OSError, aiohttp.ClientError, TimeoutError) as exc:  # no network, no DNS, refused, timed out
            delay = retry_delays[min(attempt, len(retry_delays) - 1)]
            attempt += 1
            log.warning(
                "cannot reach Discord (%s); login attempt %d failed, retrying in %g s",
                str(exc).splitlines()[0] if str(exc) else type(exc).__name__,
                attempt,
                delay,
            )
            await client.http.close()  # a fresh session (and connector) for the next attempt
            client.http.connector = discord.utils.MISSING
            try:
                await asyncio.sleep(delay)
            except BaseException:
                await client.close()
                raise
        except BaseException:
            await client.close()
            raise


async def start_discord(
    service: Features,
    settings: DiscordSettings,
    *,
    guild_id: int | None = None,
    retry_delays: tuple[float, ...] = LOGIN_RETRY_DELAYS,
    **options: Any,
) -> asyncio.Task[None]:
    """Start the Discord adapter; the returned task runs the client until it stops (cancel it to stop).

    With settings.shard_count (STUDYBOT_SHARD_COUNT) the client is sharded and connects only
    settings.shard_ids (STUDYBOT_SHARD_IDS), matching the channels adapters.discord.sharding.channel_owner schedules."""
    if not settings.discord_token:
        raise StartupError("DISCORD_TOKEN is not set.")
    sync_guild = guild_id if guild_id is not None else settings.discord_guild_id
    client: StudyBotMixin
    if settings.shard_count:
        shard_ids = check_shards(settings.shard_count, settings.shard_ids)
        log.info("Discord shards %s of %d", shard_ids if shard_ids is not None else "all", settings.shard_count)
        client = ShardedStudyBotClient(
            service, sync_guild_id=sync_guild, shard_count=settings.shard_count, shard_ids=shard_ids, **options
        )
    else:
        client = StudyBotClient(service, sync_guild_id=sync_guild, **options)
    return await launch(client, settings.discord_token, retry_delays=retry_delays)
