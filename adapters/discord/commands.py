"""Slash commands for everyone (/quiz, /answer, /leaderboard, /stats, /packs), the command list with /quizconfig, and
the tree's error reply. Each command parses its options into core values, calls the service and renders the
card; every reply is ephemeral (see replies.respond)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

import discord
from discord import app_commands

from adapters.discord.quizadmin import QuizAdmin
from adapters.discord.quizconfig import QuizConfig
from adapters.discord.render import leaderboard_embed, packs_embed, question_embed, stats_embed
from adapters.discord.replies import GUILD_ONLY, SORRY, Reply, bot_of, ref_of, respond
from adapters.discord.views import question_view
from bot.bank import TOPICS
from bot.model import LETTERS
from bot.parsing import parse_choice, parse_period

log = logging.getLogger(__name__)

Choice = app_commands.Choice
TOPIC_CHOICES = [Choice(name=label[:100], value=key) for key, label in TOPICS.items()][:25]
LETTER_CHOICES = [Choice(name=letter, value=letter) for letter in LETTERS]
PERIOD_CHOICES = [Choice(name="this week", value="week"), Choice(name="this month", value="month"),
                  Choice(name="all time", value="all")]


async def _run(interaction: discord.Interaction, work: Callable[[], Awaitable[Reply]]) -> None:
    await respond(interaction, work(), defer_after=bot_of(interaction).defer_after)


# ---- everyone ---------------------------------------------------------------------------------------


def member_commands() -> list[app_commands.Command]:  # type: ignore[type-arg]
    """Fresh command objects per client (a restart in the same process builds a new tree)."""

    @app_commands.command(name="quiz", description="A private practice question (never counts toward the leaderboard)")
    @app_commands.describe(topic="A topic to practise; leave empty for a mix")
    @app_commands.choices(topic=TOPIC_CHOICES)
    @app_commands.guild_only()
    async def quiz(interaction: discord.Interaction, topic: str | None = None) -> None:
        async def work() -> Reply:
            ref = ref_of(interaction)
            card = await bot_of(interaction).service.start_practice(ref, str(interaction.user.id), topic)
            return Reply(embeds=(question_embed(card),), view=question_view(card.round_id))

        await _run(interaction, work)

    @app_commands.command(name="answer", description="Answer today's question in this channel")
    @app_commands.describe(choice="Your choice: A, B, C or D")
    @app_commands.choices(choice=LETTER_CHOICES)
    @app_commands.guild_only()
    async def answer(interaction: discord.Interaction, choice: str) -> None:
        async def work() -> Reply:
            index = parse_choice(choice)
            outcome = await bot_of(interaction).service.answer_in_channel(
                ref_of(interaction), str(interaction.user.id), index
            )
            return Reply(outcome.text)

        await _run(interaction, work)

    @app_commands.command(name="leaderboard", description="Top 10 of this server and your own rank")
    @app_commands.describe(period="week (default), month or all time")
    @app_commands.choices(period=PERIOD_CHOICES)
    @app_commands.guild_only()
    async def leaderboard(interaction: discord.Interaction, period: str | None = None) -> None:
        async def work() -> Reply:
            ref = ref_of(interaction)
            asker = str(interaction.user.id)
            service = bot_of(interaction).service
            card = await service.leaderboard(ref.platform, ref.space_id, parse_period(period), asker)
            return Reply(embeds=(leaderboard_embed(card, asker),))

        await _run(interaction, work)

    @app_commands.command(name="stats", description="Answered, accuracy by topic and streaks")
    @app_commands.describe(member="Whose stats (default: yours)")
    @app_commands.guild_only()
    async def stats(interaction: discord.Interaction, member: discord.User | None = None) -> None:
        async def work() -> Reply:
            ref = ref_of(interaction)
            who = str((member or interaction.user).id)
            card = await bot_of(interaction).service.stats(ref.platform, ref.space_id, who)
            return Reply(embeds=(stats_embed(card),))

        await _run(interaction, work)

    @app_commands.command(name="packs", description="The question packs of this server, with question counts")
    @app_commands.guild_only()
    async def packs(interaction: discord.Interaction) -> None:
        async def work() -> Reply:
            card = await bot_of(interaction).service.packs_card(ref_of(interaction))
            return Reply(embeds=(packs_embed(card),))

        await _run(interaction, work)

    return [quiz, answer, leaderboard, stats, packs]


def build_commands() -> list[app_commands.Command | app_commands.Group]:  # type: ignore[type-arg]
    return [*member_commands(), QuizConfig(), QuizAdmin()]


class QuizTree(app_commands.CommandTree):
    """A tree whose errors (stale commands, values Discord let through, anything unforeseen) get a private reply."""

    async def on_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError, /) -> None:
        if isinstance(error, app_commands.CommandNotFound | app_commands.CommandSignatureMismatch):
            text = "That command has changed; Discord is still updating its list. Try again in a minute."
            log.info("stale command %r from guild %s", getattr(error, "name", "?"), interaction.guild_id)
        elif isinstance(error, app_commands.NoPrivateMessage):
            text = GUILD_ONLY
        elif isinstance(error, app_commands.TransformerError):
            text = f"I could not use {error.value!r} there (I may not be able to see that channel)."
            log.info("transformer error: %s", error)
        else:
            text = SORRY
            log.error("command %s failed", interaction.command and interaction.command.qualified_name, exc_info=error)
        try:
            if interaction.response.is_done():
                await interaction.followup.send(text, ephemeral=True)
            else:
                await interaction.response.send_message(text, ephemeral=True)
        except discord.HTTPException as exc:
            log.warning("could not report an error to interaction %s: %s", interaction.id, exc)
