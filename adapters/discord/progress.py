"""The learning report on Discord: `/progress` answers privately with an embed of labelled numbers (one field
per part of the report) and the chart attached (shown in the embed, described by its alt text)."""

from __future__ import annotations

import io

import discord

from adapters.discord.limits import FIELD_VALUE_MAX, clip
from adapters.discord.markdown import escape
from adapters.discord.replies import Reply, bot_of, learner_ref, respond_in_followup
from bot.practice.progress_cards import CHART_NAME, ProgressCard, progress_alt_text

BLUE = 0x0072B2


def progress_embed(card: ProgressCard) -> discord.Embed:
    """The report as one embed: each part a field (its lines clipped to a field's 1,024 characters)."""
    embed = discord.Embed(title=card.title, colour=BLUE)
    for part in card.sections:
        value = "\n".join(escape(line) for line in part.lines)
        embed.add_field(name=escape(part.heading), value=clip(value, FIELD_VALUE_MAX), inline=False)
    if card.png is not None:
        embed.set_image(url=f"attachment://{CHART_NAME}")
    return embed


def progress_reply(card: ProgressCard) -> Reply:
    if card.png is None:
        return Reply(embeds=(progress_embed(card),))
    chart = discord.File(io.BytesIO(card.png), CHART_NAME, description=progress_alt_text(card)[:1024])
    return Reply(embeds=(progress_embed(card),), files=(chart,))


async def send_progress(interaction: discord.Interaction) -> None:
    """`/progress`: the member's own report here (a server, or their own space outside one), only for them."""
    bot = bot_of(interaction)

    async def work() -> Reply:
        ref = learner_ref(interaction)
        return progress_reply(await bot.service.progress.report(ref, str(interaction.user.id)))

    await respond_in_followup(interaction, work())
