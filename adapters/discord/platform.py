"""The ChatPlatform the core pushes through: post a question, mark it revealed and post the reveal, DM a member.

Everything goes over REST with partial channels, so it works before the gateway is ready and without a cache.
Rate limits (429 + retry-after) are waited out by discord.py's HTTP client, so a post is delayed, never dropped.
"""

from __future__ import annotations

import logging

import discord

from adapters.discord.limits import NO_PINGS, fit_content, fit_embed
from adapters.discord.render import LETTER_EMOJI, question_embed, reveal_embed, winner_pings
from adapters.discord.replies import PLATFORM
from adapters.discord.views import question_view, revealed_view
from bot.errors import QuizError
from bot.model import LETTERS, ChannelRef, QuestionCard, RevealCard

log = logging.getLogger(__name__)

CANNOT_POST = (
    "I cannot post in <#{channel}>: I need View Channel, Send Messages, Embed Links, Add Reactions and "
    "Read Message History there."
)


class DiscordPlatform:
    """ChatPlatform for Discord (platform name "discord": space = guild id, channel = channel id)."""

    name = PLATFORM

    def __init__(self, client: discord.Client) -> None:
        self.client = client

    def _channel(self, ref: ChannelRef) -> discord.PartialMessageable:
        return self.client.get_partial_messageable(
            int(ref.channel_id), guild_id=int(ref.space_id), type=discord.ChannelType.text
        )

    async def post_question(self, ref: ChannelRef, card: QuestionCard) -> str:
        channel = self._channel(ref)
        try:
            message = await channel.send(
                embed=fit_embed(question_embed(card)), view=question_view(card.round_id), allowed_mentions=NO_PINGS
            )
        except (discord.Forbidden, discord.NotFound) as exc:
            log.warning("posting round %d in channel %s failed: %s", card.round_id, ref.channel_id, exc)
            raise QuizError(CANNOT_POST.format(channel=ref.channel_id)) from exc
        log.info("posted round %d in channel %s as message %s", card.round_id, ref.channel_id, message.id)
        if card.reactions:
            await self._add_choice_reactions(message)
        return str(message.id)

    async def _add_choice_reactions(self, message: discord.Message) -> None:
        for letter in LETTERS:
            try:
                await message.add_reaction(LETTER_EMOJI[letter])
            except discord.Forbidden:
                log.warning("no Add Reactions / Read Message History in %s: buttons only", message.channel.id)
                return
            except discord.HTTPException as exc:
                log.warning("could not add reaction %s to message %s: %s", letter, message.id, exc)

    async def post_reveal(self, ref: ChannelRef, card: RevealCard) -> str | None:
        channel = self._channel(ref)
        reference = None
        if card.question_message_id:
            question = channel.get_partial_message(int(card.question_message_id))
            reference = question.to_reference(fail_if_not_exists=False)
            try:
                await question.edit(view=revealed_view(card.round_id, card.correct_letter))
            except discord.HTTPException as exc:
                log.warning("could not mark message %s as revealed: %s", card.question_message_id, exc)
        pings = winner_pings(card)
        content, allowed = None, NO_PINGS
        if pings is not None:  # the channel's ping_winners: notify exactly these members, nobody else
            content, users = pings
            allowed = discord.AllowedMentions(
                everyone=False, roles=False, replied_user=False, users=[discord.Object(int(u)) for u in users]
            )
        try:
            message = await channel.send(
                fit_content(content), embed=fit_embed(reveal_embed(card)), reference=reference,
                allowed_mentions=allowed,
            )
        except (discord.Forbidden, discord.NotFound) as exc:
            log.warning("posting the reveal of round %d in %s failed: %s", card.round_id, ref.channel_id, exc)
            return None
        return str(message.id)

    async def post_notice(self, ref: ChannelRef, text: str) -> None:
        """A plain note in the channel (e.g. a day skipped while the bot was offline)."""
        await self._channel(ref).send(text, allowed_mentions=discord.AllowedMentions.none())

    async def send_private(self, ref: ChannelRef, user_id: str, text: str) -> None:
        """A DM; members with DMs closed simply get none."""
        try:
            dm = await self.client.create_dm(discord.Object(int(user_id)))
            await dm.send(fit_content(text) or "…", allowed_mentions=NO_PINGS)
        except discord.Forbidden:
            log.info("member %s does not accept DMs from the bot", user_id)
        except (discord.HTTPException, ValueError) as exc:
            log.warning("could not DM member %s: %s", user_id, exc)
