"""Answers from the channel: button clicks (any round, daily or practice) and reactions on a daily question.

Only translation: the core decides whether an answer counts. A click gets an ephemeral reply; a reaction is
removed where the bot may (so nobody sees who chose what) and acknowledged by DM where the member allows DMs.
"""

from __future__ import annotations

import logging

import discord

from adapters.discord.payloads import snowflake
from adapters.discord.render import choice_of_emoji, question_embed, verdict_embed
from adapters.discord.replies import PLATFORM, Reply, bot_of, channel_ref, learner_ref, quiz_bot, respond
from adapters.discord.reports import add_report_button
from adapters.discord.views import question_view, report_view
from bot.kernel.cards import AnswerOutcome
from bot.kernel.echo import echo
from bot.kernel.errors import QuizError, ReactionsOff, UnknownRound
from bot.kernel.outage import STORE_DOWN
from bot.kernel.parsing import parse_choice
from bot.kernel.parsing import parse_round_id as parse_round

log = logging.getLogger(__name__)

NOT_OURS = "That button does not belong to a studybot question I know."


def parse_round_id(raw: str) -> int:
    """The round of a button's custom_id; anything but a round id the stores can hold is not ours."""
    round_id = parse_round(raw)
    if round_id is None:
        log.info("ignoring a click on a button with the unreadable round id %r", echo(raw, 30))
        raise UnknownRound(NOT_OURS)
    return round_id


async def answer_click(interaction: discord.Interaction, round_raw: str, letter: str) -> None:
    """An A-D button: answer the round in its custom_id, reply privately."""
    bot = bot_of(interaction)

    async def work() -> Reply:
        sure = not letter.endswith("?")  # the "not sure" row's letters end in "?"
        choice = parse_choice(letter if sure else letter[:-1])
        round_id = parse_round_id(round_raw)
        space = (PLATFORM, learner_ref(interaction).space_id)  # a server, or the learner's own space
        outcome = await bot.service.answers.submit_answer(
            round_id, str(interaction.user.id), choice, space=space, sure=sure
        )
        return outcome_reply(outcome)

    await respond(interaction, work(), defer_after=bot.defer_after)


def outcome_reply(outcome: AnswerOutcome) -> Reply:
    """A practice verdict (with a review's next question), or a daily answer's acknowledgement."""
    if outcome.verdict is not None:
        if outcome.follow_up is not None:  # a review's next question, in the same private reply
            card = outcome.follow_up
            view = question_view(card.round_id, unsure=True)  # rows 0-1; the report of the judged one: row 2
            return Reply(
                embeds=(verdict_embed(outcome), question_embed(card)),
                view=add_report_button(view, outcome.round_id, row=2),
            )
        return Reply(embeds=(verdict_embed(outcome),), view=report_view(outcome.round_id))
    return Reply(outcome.text)


async def handle_reaction(client: discord.Client, payload: discord.RawReactionActionEvent) -> None:
    """A reaction added anywhere the bot can see. Stray ones are ignored silently; nothing raises."""
    try:
        await _handle_reaction(client, payload)
    except Exception as exc:
        if not quiz_bot(client).service.context.outage.failed(exc):
            log.error("could not handle a reaction on message %s", payload.message_id, exc_info=exc)


async def _handle_reaction(client: discord.Client, payload: discord.RawReactionActionEvent) -> None:
    ids = [payload.user_id, payload.message_id, payload.channel_id]
    if any(snowflake(i) is None for i in [*ids, *([payload.guild_id] if payload.guild_id is not None else [])]):
        log.info("ignoring a reaction whose ids are not Discord ids (message %s)", echo(payload.message_id, 30))
        return
    me = client.user.id if client.user else None
    if payload.user_id == me or (payload.member is not None and payload.member.bot):
        return
    if payload.guild_id is None:
        return
    choice = choice_of_emoji(payload.emoji)
    if choice is None:
        return
    bot = quiz_bot(client)
    ref = channel_ref(payload.guild_id, payload.channel_id)
    user_id = str(payload.user_id)
    try:
        outcome = await bot.service.answers.answer_by_reaction(PLATFORM, str(payload.message_id), user_id, choice)
        text = outcome.text
    except ReactionsOff:
        log.debug("reaction answers are off in %s; ignoring", ref.channel_id)
        return
    except UnknownRound:
        return  # a regional indicator on a message that is not a question: not ours
    except QuizError as exc:
        text = exc.message
    except Exception as exc:  # the store's outage (told once by the StoreOutage): the member is told privately
        if not bot.service.context.outage.failed(exc):
            raise
        text = STORE_DOWN
    await _hide(client, payload)
    await bot.platform.send_private(ref, user_id, text)


def _may_manage_messages(client: discord.Client, payload: discord.RawReactionActionEvent) -> bool | None:
    """The bot's Manage Messages right in the channel from the guild cache; None when the cache cannot tell."""
    guild = client.get_guild(payload.guild_id) if payload.guild_id else None
    if guild is None or guild.me is None:
        return None
    channel = guild.get_channel_or_thread(payload.channel_id)
    if channel is None:
        return None
    return channel.permissions_for(guild.me).manage_messages


async def _hide(client: discord.Client, payload: discord.RawReactionActionEvent) -> None:
    if _may_manage_messages(client, payload) is False:
        return
    channel = client.get_partial_messageable(payload.channel_id, guild_id=payload.guild_id)
    try:
        await channel.get_partial_message(payload.message_id).remove_reaction(
            payload.emoji, discord.Object(payload.user_id)
        )
    except discord.Forbidden:
        log.info("no Manage Messages in channel %s: the reaction stays visible", payload.channel_id)
    except discord.HTTPException as exc:
        log.warning("could not remove a reaction on message %s: %s", payload.message_id, exc)
