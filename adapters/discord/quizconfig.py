"""The /quizconfig group: a channel's daily question settings. Hidden from members without Manage Server by
default, but the core decides: every call carries an Actor whose is_admin comes from the member's real rights."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

import discord
from discord import app_commands

from adapters.discord.render import config_embed
from adapters.discord.replies import Reply, actor_of, bot_of, channel_ref, ref_of, respond
from bot.bank import TOPICS
from bot.model import ChannelRef
from bot.parsing import (
    parse_difficulties,
    parse_on_off,
    parse_time,
    parse_timezone,
    parse_topics,
    parse_weekdays,
    suggest_timezones,
)

log = logging.getLogger(__name__)

Choice = app_commands.Choice
ON_OFF = [Choice(name="on", value="on"), Choice(name="off", value="off")]


async def _run(interaction: discord.Interaction, work: Callable[[], Awaitable[Reply]]) -> None:
    await respond(interaction, work(), defer_after=bot_of(interaction).defer_after)


def _target(interaction: discord.Interaction, channel: discord.TextChannel | None) -> ChannelRef:
    if channel is None:
        return ref_of(interaction)
    return channel_ref(interaction.guild_id, channel.id)


class QuizConfig(app_commands.Group):
    """The daily question's settings for a channel."""

    def __init__(self) -> None:
        super().__init__(
            name="quizconfig",
            description="Daily question settings (Manage Server)",
            guild_only=True,
            default_permissions=discord.Permissions(manage_guild=True),
        )

    async def _configure(self, interaction: discord.Interaction, ref: ChannelRef, **changes: object) -> Reply:
        service = bot_of(interaction).service
        if not changes:  # e.g. /quizconfig filters with no option: nothing to save, show what is set
            return Reply(embeds=(config_embed(await service.show_config(ref)),))
        card = await service.configure(actor_of(interaction), ref, **changes)
        return Reply("Saved.", embeds=(config_embed(card),))

    @app_commands.command(name="schedule", description="Post the daily question at a local time on chosen days")
    @app_commands.describe(
        time="24-hour HH:MM, e.g. 09:00",
        timezone="IANA timezone, e.g. Europe/Berlin (default: unchanged, UTC at first)",
        weekdays="mon-fri, mon,wed,fri, weekdays, weekends or daily (default: unchanged, daily at first)",
        channel="Where to post (default: this channel)",
    )
    async def schedule(
        self,
        interaction: discord.Interaction,
        time: str,
        timezone: str | None = None,
        weekdays: str | None = None,
        channel: discord.TextChannel | None = None,
    ) -> None:
        async def work() -> Reply:
            changes: dict[str, object] = {"post_time": parse_time(time)}
            if timezone is not None:
                changes["timezone"] = parse_timezone(timezone)
            if weekdays is not None:
                changes["weekdays"] = parse_weekdays(weekdays)
            return await self._configure(interaction, _target(interaction, channel), **changes)

        await _run(interaction, work)

    @schedule.autocomplete("timezone")
    async def _timezones(self, interaction: discord.Interaction, current: str) -> list[Choice[str]]:
        return [Choice(name=z, value=z) for z in suggest_timezones(current, limit=25)]

    @app_commands.command(name="pause", description="Stop the daily question (settings are kept)")
    @app_commands.describe(channel="Which channel (default: this one)")
    async def pause(self, interaction: discord.Interaction, channel: discord.TextChannel | None = None) -> None:
        await _run(interaction, lambda: self._configure(interaction, _target(interaction, channel), paused=True))

    @app_commands.command(name="resume", description="Start the daily question again")
    @app_commands.describe(channel="Which channel (default: this one)")
    async def resume(self, interaction: discord.Interaction, channel: discord.TextChannel | None = None) -> None:
        await _run(interaction, lambda: self._configure(interaction, _target(interaction, channel), paused=False))

    @app_commands.command(name="show", description="Show the daily question settings")
    @app_commands.describe(channel="Which channel (default: this one)")
    async def show(self, interaction: discord.Interaction, channel: discord.TextChannel | None = None) -> None:
        async def work() -> Reply:
            card = await bot_of(interaction).service.show_config(_target(interaction, channel))
            return Reply(embeds=(config_embed(card),))

        await _run(interaction, work)

    @app_commands.command(name="post-now", description="Post today's question now")
    @app_commands.describe(channel="Which channel (default: this one)")
    async def post_now(self, interaction: discord.Interaction, channel: discord.TextChannel | None = None) -> None:
        async def work() -> Reply:
            ref = _target(interaction, channel)
            round_ = await bot_of(interaction).service.post_now(actor_of(interaction), ref)
            return Reply(f"Posted question #{round_.id} in <#{ref.channel_id}>.")

        await _run(interaction, work)

    @app_commands.command(name="reveal", description="Reveal the open daily question now")
    @app_commands.describe(channel="Which channel (default: this one)")
    async def reveal(self, interaction: discord.Interaction, channel: discord.TextChannel | None = None) -> None:
        async def work() -> Reply:
            card = await bot_of(interaction).service.reveal_now(actor_of(interaction), _target(interaction, channel))
            return Reply(f"Revealed: the answer was {card.correct_letter}.")

        await _run(interaction, work)

    @app_commands.command(name="filters", description="Which topics and difficulties the daily question uses")
    @app_commands.describe(
        topics="Comma-separated topic keys, or all", difficulty="easy, medium, hard (comma-separated), or all",
        channel="Which channel (default: this one)",
    )
    async def filters(
        self,
        interaction: discord.Interaction,
        topics: str | None = None,
        difficulty: str | None = None,
        channel: discord.TextChannel | None = None,
    ) -> None:
        async def work() -> Reply:
            changes: dict[str, object] = {}
            if topics is not None:
                changes["topics"] = parse_topics(topics, tuple(TOPICS))
            if difficulty is not None:
                changes["difficulties"] = parse_difficulties(difficulty)
            return await self._configure(interaction, _target(interaction, channel), **changes)

        await _run(interaction, work)

    @app_commands.command(name="reactions", description="Let members answer with 🇦-🇩 reactions too")
    @app_commands.describe(state="on or off", channel="Which channel (default: this one)")
    @app_commands.choices(state=ON_OFF)
    async def reactions(
        self, interaction: discord.Interaction, state: str, channel: discord.TextChannel | None = None
    ) -> None:
        await _run(
            interaction,
            lambda: self._configure(interaction, _target(interaction, channel), reactions=parse_on_off(state)),
        )
