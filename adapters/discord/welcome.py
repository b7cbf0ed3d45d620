"""A server that adds the bot reads a welcome once: in its system channel, else the first text channel where the
bot may write; whichever process sees the join first decides (bot.installs)."""

from __future__ import annotations

import logging

import discord

from adapters.discord.markdown import escape
from bot.features import Features

log = logging.getLogger(__name__)


def welcome_channel(guild: discord.Guild) -> discord.TextChannel | None:
    """Where the welcome goes: the system channel when the bot may write there, else the first such text channel."""
    me = guild.me
    if me is None:
        return None
    ordered = [guild.system_channel] if guild.system_channel is not None else []
    ordered += sorted(guild.text_channels, key=lambda c: (c.position, c.id))
    return next((c for c in ordered if c.permissions_for(me).send_messages), None)


async def welcome_guild(service: Features, guild: discord.Guild) -> None:
    """Post the welcome, once across processes; a server where the bot may write nowhere gets none (logged)."""
    channel = welcome_channel(guild)
    if channel is None:
        log.info("joined server %s, with no channel to write a welcome in", guild.id)
        return
    text = await service.installs.welcome("discord", str(guild.id))
    if text is None:
        return
    try:
        await channel.send(escape(text), allowed_mentions=discord.AllowedMentions.none())
    except discord.HTTPException as exc:
        log.info("the welcome in server %s was refused (%s)", guild.id, exc.status)
