"""The ChatPlatform the core pushes through: post a question, mark it revealed and post the reveal, DM a member.

Everything goes over REST with partial channels, so it works before the gateway is ready and without a cache.
Rate limits (429 + retry-after) are waited out by discord.py's HTTP client, so a post is delayed, never dropped.
"""

from __future__ import annotations

import datetime as dt
import io
import logging
from collections.abc import Sequence

import discord

from adapters.discord import live
from adapters.discord.limits import NO_PINGS, fit_content, fit_embed, fit_embeds
from adapters.discord.markdown import escape as escape_markdown
from adapters.discord.render import LETTER_EMOJI, question_embed, reveal_embed, winner_pings
from adapters.discord.replies import COMMANDS, PLATFORM
from adapters.discord.reports import report_custom_id
from adapters.discord.views import answer_custom_id, question_view, report_view, revealed_view
from bot.kernel.cards import QuestionCard, RevealCard
from bot.kernel.echo import echo
from bot.kernel.errors import DirectMessageBlocked, QuizError
from bot.kernel.platform import CannotLook, SendKind
from bot.kernel.values import LETTERS, ChannelRef
from bot.live.cards import LiveCloseCard, LiveFinalCard
from bot.recap.cards import recap_alt_text, recap_text
from bot.recap.values import RecapCard
from bot.seasons.service import season_text
from bot.seasons.values import SeasonCard

log = logging.getLogger(__name__)

NO_ATTACH = "(The chart needs the Attach Files permission in this channel.)"
NO_MANAGE_ROLES = (
    "I need the Manage Roles permission to give the champion role: grant it to my role in Server Settings > "
    "Roles (or invite me again with it), then set champion_role again."
)
CANNOT_DM = 50007  # Discord's "Cannot send messages to this user"
THREAD_NAME_LIMIT = 100  # Discord's limit for a thread name
CANNOT_POST = (
    "I cannot post in <#{channel}>: I need View Channel, Send Messages, Embed Links, Add Reactions and "
    "Read Message History there."
)
HISTORY_LIMIT = 500  # messages read back at most when asking whether a daily send went out
CLOCK_SKEW = dt.timedelta(minutes=5)  # read back from this much before the send's first intent
# messages a daily post or reveal can be (an interaction's reply showing the question again is not one)
SENT_TYPES = frozenset({discord.MessageType.default, discord.MessageType.reply})


def send_nonce(round_id: int, kind: SendKind) -> str:
    """The nonce of a round's question or reveal ("sb-q-<round>", "sb-r-<round>"; at most 24 characters for
    any 63-bit round id, within Discord's 25): sent with enforce_nonce, so a resend within Discord's window
    returns the message it already made instead of a second one."""
    return f"sb-{kind[0]}-{round_id}"


def _custom_ids(message: discord.Message) -> set[str]:
    out: set[str] = set()
    for row in message.components:
        for child in getattr(row, "children", ()):
            custom_id = getattr(child, "custom_id", None)
            if custom_id:
                out.add(custom_id)
    return out


class DiscordPlatform:
    """ChatPlatform for Discord (platform name "discord": space = guild id, channel = channel id)."""

    name = PLATFORM

    def __init__(self, client: discord.Client) -> None:
        self.client = client
        self._names: dict[tuple[str, str], str] = {}  # (guild, member) -> server name, for the recap

    def _channel(self, ref: ChannelRef) -> discord.PartialMessageable:
        return self.client.get_partial_messageable(
            int(ref.channel_id), guild_id=int(ref.space_id), type=discord.ChannelType.text
        )

    async def post_question(self, ref: ChannelRef, card: QuestionCard) -> str:
        """The question with its buttons; with the channel's ping_role, the content mentions that role and the
        message may notify that role and nobody else."""
        channel = self._channel(ref)
        content, allowed = None, NO_PINGS
        if card.ping_role is not None and card.ping_role.isdigit():
            content = f"<@&{card.ping_role}>"
            allowed = discord.AllowedMentions(
                everyone=False, users=False, roles=[discord.Object(int(card.ping_role))], replied_user=False
            )
        try:
            # discord.py sends a given nonce with enforce_nonce: true (Messageable.send's own random nonce
            # would not recognise a resend after a crash)
            message = await channel.send(
                content,
                embed=fit_embed(question_embed(card)),
                view=question_view(card.round_id),
                allowed_mentions=allowed,
                nonce=send_nonce(card.round_id, "question"),
            )
        except (discord.Forbidden, discord.NotFound) as exc:
            log.warning("posting round %d in channel %s failed: %s", card.round_id, ref.channel_id, exc)
            raise QuizError(CANNOT_POST.format(channel=ref.channel_id)) from exc
        log.info("posted round %d in channel %s as message %s", card.round_id, ref.channel_id, message.id)
        if card.reactions:
            await self._add_choice_reactions(message)
        return str(message.id)

    async def find_sent(self, ref: ChannelRef, round_id: int, kind: SendKind, since: dt.datetime) -> str | None:
        """The bot's own question (its answer buttons) or reveal (its report button) of the round in the
        channel's messages since `since` (less CLOCK_SKEW), read back over REST; None when there is none.
        Without Read Message History it cannot look (CannotLook): the resend's nonce still dedupes within
        Discord's window."""
        me = self.client.user.id if self.client.user is not None else None
        wanted = answer_custom_id(round_id, "A") if kind == "question" else report_custom_id(round_id)
        channel = self._channel(ref)
        try:
            async for message in channel.history(limit=HISTORY_LIMIT, after=since - CLOCK_SKEW, oldest_first=True):
                if me is not None and message.author.id != me:
                    continue
                if message.type not in SENT_TYPES or message.interaction_metadata is not None:
                    continue
                if wanted in _custom_ids(message):
                    return str(message.id)
        except (discord.Forbidden, discord.NotFound) as exc:
            raise CannotLook(f"Discord {exc.status} reading channel {ref.channel_id}") from exc
        return None

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
                fit_content(content),
                embed=fit_embed(reveal_embed(card)),
                view=report_view(card.round_id),
                reference=reference,  # type: ignore[arg-type]
                allowed_mentions=allowed,
                nonce=send_nonce(card.round_id, "reveal"),
            )
        except (discord.Forbidden, discord.NotFound) as exc:
            log.warning("posting the reveal of round %d in %s failed: %s", card.round_id, ref.channel_id, exc)
            return None
        if card.discussion:
            await self._open_thread(message, card)
        return str(message.id)

    async def close_live_question(self, ref: ChannelRef, card: LiveCloseCard) -> None:
        """A live question closed: one edit turns its message into the close (the buttons stay, disabled,
        the right one green)."""
        if not card.question_message_id:
            return
        message = self._channel(ref).get_partial_message(int(card.question_message_id))
        await message.edit(
            embed=fit_embed(live.close_embed(card)),
            view=revealed_view(card.round_id, card.correct_letter),
            allowed_mentions=NO_PINGS,
        )

    async def post_live_final(self, ref: ChannelRef, card: LiveFinalCard) -> str | None:
        """A live game's podium and full table, as one message of two embeds (mentions in embeds notify nobody)."""
        message = await self._channel(ref).send(embeds=fit_embeds(live.final_embeds(card)), allowed_mentions=NO_PINGS)
        return str(message.id)

    async def _open_thread(self, message: discord.Message, card: RevealCard) -> None:
        """The channel's threads setting: a public thread on the reveal message to talk about the question
        (needs Create Public Threads; without it the reveal stands alone)."""
        name = " ".join(f"Discuss: {card.prompt}".split())
        name = name if len(name) <= THREAD_NAME_LIMIT else name[: THREAD_NAME_LIMIT - 1] + "…"
        try:
            # over REST by ids, as every push here: Message.create_thread needs the guild in the cache
            await self.client.http.start_thread_with_message(
                message.channel.id, message.id, name=name, auto_archive_duration=1440
            )
        except discord.HTTPException as exc:
            log.warning(
                "could not open a discussion thread on the reveal of round %d: %s",
                card.round_id,
                getattr(exc, "status", exc),
            )

    async def post_recap(self, ref: ChannelRef, card: RecapCard, png: bytes | None) -> str | None:
        """The weekly recap: the chart attached as recap.png (its alt text as the attachment's description),
        or the plain note when the week had no answers. Names are text, never pings."""
        text = escape_markdown(recap_text(card))[:2000]
        channel = self._channel(ref)
        if png is None:
            message = await channel.send(text, allowed_mentions=discord.AllowedMentions.none())
        else:
            file = discord.File(io.BytesIO(png), filename="recap.png", description=recap_alt_text(card)[:1024])
            try:
                message = await channel.send(text, file=file, allowed_mentions=discord.AllowedMentions.none())
            except discord.Forbidden:  # no Attach Files here: the recap in words, and what is missing
                log.warning("no Attach Files in %s: the weekly recap goes out as text", ref.channel_id)
                words = f"{text}\n{NO_ATTACH}"[:2000]
                message = await channel.send(words, allowed_mentions=discord.AllowedMentions.none())
        return str(message.id)

    async def channel_names(self, space_id: str, channel_ids: Sequence[str]) -> dict[str, str]:
        """Channels' names for the dashboard, from the gateway's cache of the server (no REST call)."""
        guild = self.client.get_guild(int(space_id)) if space_id.isdigit() else None
        if guild is None:
            return {}
        found = (guild.get_channel_or_thread(int(cid)) for cid in channel_ids if cid.isdigit())
        return {str(c.id): c.name for c in found if c is not None}

    async def display_names(self, ref: ChannelRef, user_ids: Sequence[str]) -> dict[str, str]:
        """Members' server names (the gateway's cache, else one REST look-up each, cached); a member who
        cannot be found is shown by id."""
        guild = self.client.get_guild(int(ref.space_id))
        names: dict[str, str] = {}
        for uid in user_ids:
            if not uid.isdigit():
                continue
            member = guild.get_member(int(uid)) if guild is not None else None
            if member is not None:
                names[uid] = member.display_name
                continue
            key = (ref.space_id, uid)
            if key not in self._names:
                try:
                    data = await self.client.http.get_member(int(ref.space_id), int(uid))
                except discord.HTTPException as exc:
                    log.info("could not look up member %s: %s", uid, exc.status)
                    continue
                user = data.get("user") or {}
                name = data.get("nick") or user.get("global_name") or user.get("username")
                if not name:
                    continue
                if len(self._names) > 10_000:
                    self._names.clear()
                self._names[key] = str(name)
            names[uid] = self._names[key]
        return names

    async def post_season(self, ref: ChannelRef, card: SeasonCard) -> str | None:
        """The monthly season card: last month's top three by server name, nobody notified."""
        text = escape_markdown(season_text(card, COMMANDS.season_board))[:2000]
        message = await self._channel(ref).send(text, allowed_mentions=discord.AllowedMentions.none())
        return str(message.id)

    async def role_problem(self, ref: ChannelRef, role_id: str, use: str) -> str | None:
        """Why a role cannot be the manager role (`use` manager) or be mentioned by the daily question (`use`
        ping), from the gateway's view of the server, or None when it can."""
        guild = self.client.get_guild(int(ref.space_id))
        if guild is None:
            return "I cannot see this server's roles yet; try again in a minute."
        role = guild.get_role(int(role_id))
        if role is None:
            return f"There is no role with id {role_id} in this server: pick one of its roles, or off."
        name = escape_markdown(echo(role.name, 50))
        if role.is_default():
            return "@everyone cannot be used here: pick a role that only some members have, or off."
        if role.managed:
            return f"The role {name} belongs to an integration (a bot's own role): pick a role members have, or off."
        me = guild.me
        if use == "ping" and not role.mentionable and not (me is not None and me.guild_permissions.mention_everyone):
            return (
                f"I cannot mention the role {name}: allow anyone to mention it (Server Settings > Roles > {name}) "
                "or give me Mention All Roles, then set ping_role again."
            )
        return None

    async def champion_role_problem(self, ref: ChannelRef, role_id: str) -> str | None:
        """Why the champion role cannot be given here (the gateway's view of the server), or None: the bot
        needs Manage Roles, and the role must exist, be assignable and sit below the bot's highest role."""
        guild = self.client.get_guild(int(ref.space_id))
        if guild is None:
            return "I cannot see this server's roles yet; try again in a minute."
        me = guild.me
        if me is None or not me.guild_permissions.manage_roles:
            return NO_MANAGE_ROLES
        role = guild.get_role(int(role_id))
        if role is None:
            return f"There is no role with id {role_id} in this server: pick one of its roles, or off."
        name = escape_markdown(echo(role.name, 50))
        if role.is_default() or role.managed:
            return f"The role {name} cannot be given to members (it is @everyone or managed by an integration)."
        if role >= me.top_role:
            return (
                f"The role {name} is not below my highest role, so I cannot give it: move my role above it in "
                "Server Settings > Roles, then set champion_role again."
            )
        return None

    async def move_champion(self, ref: ChannelRef, role_id: str, winner: str, previous: str | None) -> None:
        """The season's champion gets the role and last season's loses it (REST: PUT and DELETE
        /guilds/{guild}/members/{user}/roles/{role}); a failure is logged, the card stands."""
        guild, role = int(ref.space_id), int(role_id)
        reason = "studybot: the monthly season's champion"
        if previous is not None:
            try:
                await self.client.http.remove_role(guild, int(previous), role, reason=reason)
            except discord.HTTPException as exc:
                log.warning("could not take the champion role from %s: %s", previous, exc.status)
        try:
            await self.client.http.add_role(guild, int(winner), role, reason=reason)
        except discord.HTTPException as exc:
            log.warning("could not give the champion role to %s in %s: %s", winner, ref.space_id, exc.status)

    async def post_notice(self, ref: ChannelRef, text: str) -> None:
        """A plain note in the channel (e.g. a day skipped while the bot was offline)."""
        await self._channel(ref).send(text, allowed_mentions=discord.AllowedMentions.none())

    async def send_direct(self, ref: ChannelRef, user_id: str, text: str) -> None:
        """A DM (a reminder). A member who does not take DMs from the bot (50007 "Cannot send messages to
        this user") or who is unknown raises DirectMessageBlocked; other failures are raised as they are."""
        try:
            dm = await self.client.create_dm(discord.Object(int(user_id)))
            await dm.send(fit_content(escape_markdown(text)) or "…", allowed_mentions=NO_PINGS)
        except discord.Forbidden as exc:
            if exc.code in (CANNOT_DM, 0):
                raise DirectMessageBlocked(
                    f"Discord {exc.code}: {exc.text or 'Cannot send messages to this user'}"
                ) from exc
            raise
        except discord.NotFound as exc:
            raise DirectMessageBlocked(f"Discord {exc.code}: unknown user") from exc
        except ValueError as exc:  # not a Discord user id
            raise DirectMessageBlocked("not a Discord user id") from exc

    async def send_private(self, ref: ChannelRef, user_id: str, text: str) -> None:
        """A DM; members with DMs closed simply get none."""
        try:
            dm = await self.client.create_dm(discord.Object(int(user_id)))
            await dm.send(fit_content(text) or "…", allowed_mentions=NO_PINGS)
        except discord.Forbidden:
            log.info("member %s does not accept DMs from the bot", user_id)
        except (discord.HTTPException, ValueError) as exc:
            log.warning("could not DM member %s: %s", user_id, exc)
