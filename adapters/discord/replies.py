"""Interaction plumbing: who asks (Actor), where (ChannelRef), and one private reply within Discord's 3 s.

`respond` runs the work; if it is not done after `defer_after` seconds the interaction is deferred (ephemeral
"thinking") and the reply is filled in when the work ends. Core errors become their own message; a store outage
becomes studybot's "try again in a minute" (logged once per outage by the process's StoreOutage, not per
interaction); anything else is logged and answered with a generic apology. Nothing raises out of here.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast

import discord

from adapters.discord.limits import NO_PINGS, fit_content, fit_embeds
from adapters.discord.markdown import escape
from adapters.discord.payloads import is_personal_space, practice_space
from bot.kernel.errors import QuizError
from bot.kernel.outage import STORE_DOWN
from bot.kernel.values import Actor, ChannelRef, CommandNames

if TYPE_CHECKING:
    from bot.kernel.platform import ChatPlatform
from bot.features import Features

log = logging.getLogger(__name__)

PLATFORM = "discord"
SORRY = "Something went wrong on my side and nothing was changed. Please try again in a moment."
GUILD_ONLY = (
    "That command works in a server channel where studybot is installed. Here you can practise privately "
    "with /quiz, /review, /answer and /stats."
)
# how core messages name Discord's commands
COMMANDS = CommandNames(
    practice="/quiz",
    answer="/answer",
    post_now="/quizconfig post-now",
    season_board="/leaderboard season:{season}",
    review="/review",
    remind="/remind",
    remind_at="/remind time:{time} timezone:{zone}",
    team="/team action:{action}",
    team_named="/team action:{action} name:{name}",
    live="/live",
    live_stop="/live stop:true",
    plan="/plan",
    review_limit="/review limit:N",
    review_resume="/review resume:True",
    schedule="/quizconfig schedule time:09:00 timezone:Europe/Berlin weekdays:mon-fri",
    help="the / menu",
    dashboard="/dashboard",
)


class QuizBot(Protocol):
    """What handlers need from the client (StudyBotClient provides it)."""

    service: Features
    platform: ChatPlatform
    defer_after: float

    async def on_answer_click(self, interaction: discord.Interaction, round_raw: str, letter: str) -> None:
        """An answer button was clicked (the buttons reach the answer handler through the client)."""
        ...


def quiz_bot(client: discord.Client) -> QuizBot:
    return cast("QuizBot", client)


@dataclass(frozen=True)
class Reply:
    content: str | None = None
    embeds: tuple[discord.Embed, ...] = ()
    view: discord.ui.View | None = None
    public: bool = False  # for everyone in the channel (only where the command asked for it)
    file: discord.File | None = None  # an attachment (a pack export)
    files: tuple[discord.File, ...] = ()  # several attachments (a learner's export)


def bot_of(interaction: discord.Interaction) -> QuizBot:
    return quiz_bot(interaction.client)


def channel_ref(guild_id: int | None, channel_id: int | None) -> ChannelRef:
    if guild_id is None or channel_id is None:
        raise QuizError(GUILD_ONLY)
    return ChannelRef(PLATFORM, str(guild_id), str(channel_id))


def ref_of(interaction: discord.Interaction) -> ChannelRef:
    """The server channel of a server-only command; GUILD_ONLY anywhere else (a DM, a group DM, a server where
    only the member installed the app)."""
    ref = learner_ref(interaction)
    if is_personal_space(ref.space_id):
        raise QuizError(GUILD_ONLY)
    return ref


def learner_ref(interaction: discord.Interaction) -> ChannelRef:
    """Where a practice or review question lives: the server's channel, or the learner's own space
    ("user:<id>") outside a server that installed the bot (see payloads.practice_space and docs/discord.md)."""
    space = practice_space(
        interaction.guild_id,
        interaction.user.id,
        guild_install=interaction.is_guild_integration(),
        user_install=interaction.is_user_integration(),
    )
    if not is_personal_space(space):
        return channel_ref(interaction.guild_id, interaction.channel_id)
    return ChannelRef(PLATFORM, space, str(interaction.channel_id or "dm"))


async def actor_of(interaction: discord.Interaction) -> Actor:
    """Admin = Manage Server (or Administrator) in the member's real, resolved permissions for this interaction,
    or, beside it, the server's manager role (the manager_role setting) among the member's roles as this
    interaction carries them (`via_role`: such an admin may not change the manager role itself)."""
    user = str(interaction.user.id)
    if interaction.guild_id is None:
        return Actor(user)
    perms = interaction.permissions
    if perms.manage_guild or perms.administrator:
        return Actor(user, is_admin=True)
    member = interaction.user
    if not isinstance(member, discord.Member):
        return Actor(user)
    role = await bot_of(interaction).service.channels.manager_role(PLATFORM, str(interaction.guild_id))
    if role is not None and role.isdigit() and member.get_role(int(role)) is not None:
        return Actor(user, is_admin=True, via_role=True)
    return Actor(user)


async def _settle(work: Awaitable[Reply], interaction: discord.Interaction) -> Reply:
    try:
        return await work
    except QuizError as exc:  # it may quote what was typed: `__x__` must read as typed, not underlined
        return Reply(escape(exc.message))
    except Exception as exc:
        if bot_of(interaction).service.context.outage.failed(exc):
            return Reply(STORE_DOWN)
        log.error("interaction %s (%s) failed", interaction.id, _describe(interaction), exc_info=exc)
        return Reply(SORRY)


def _describe(interaction: discord.Interaction) -> str:
    data: dict[str, Any] = cast("dict[str, Any]", interaction.data or {})
    return str(data.get("name") or data.get("custom_id") or interaction.type)


def _kwargs(reply: Reply, *, edit: bool = False) -> dict[str, Any]:
    """What Discord accepts: texts within its limits, and no mention in them notifies anyone."""
    out: dict[str, Any] = {
        "content": fit_content(reply.content),
        "embeds": fit_embeds(reply.embeds),
        "allowed_mentions": NO_PINGS,
    }
    if reply.view is not None:
        out["view"] = reply.view
    if reply.file is not None:
        out["attachments" if edit else "file"] = [reply.file] if edit else reply.file
    elif reply.files:
        out["attachments" if edit else "files"] = list(reply.files)
    return out


async def respond_in_followup(interaction: discord.Interaction, work: Awaitable[Reply]) -> None:
    """Defer privately at once, then send the Reply the work produces as an ephemeral followup (for replies
    that carry files, which may take a moment to build). Nothing raises out of here."""
    try:
        await interaction.response.defer(ephemeral=True, thinking=True)
    except discord.HTTPException as exc:
        log.warning("could not defer interaction %s: %s", interaction.id, exc)
    reply = await _settle(work, interaction)
    try:
        await interaction.followup.send(ephemeral=True, **_kwargs(reply))
    except discord.HTTPException as exc:
        log.warning("could not reply to interaction %s: %s", interaction.id, exc)


async def respond(
    interaction: discord.Interaction, work: Awaitable[Reply], *, defer_after: float, ephemeral: bool = True
) -> None:
    """Answer the interaction with the Reply the work produces (deferring first if it is slow): privately,
    unless `ephemeral` is False (a reply everyone in the channel sees, e.g. `/leaderboard public:true`); an
    error is always private."""
    task = asyncio.ensure_future(_settle(work, interaction))
    done, _ = await asyncio.wait({task}, timeout=defer_after)
    deferred = False
    if not done:
        try:
            await interaction.response.defer(ephemeral=ephemeral, thinking=True)
            deferred = True
        except discord.HTTPException as exc:
            log.warning("could not defer interaction %s: %s", interaction.id, exc)
    reply = await task
    private = ephemeral or not reply.public  # an error reply (public False) stays with the asker
    try:
        if deferred and private == ephemeral:
            await interaction.edit_original_response(**_kwargs(reply, edit=True))
        elif deferred:  # a public deferral whose work failed: drop the thinking message, tell the asker alone
            await interaction.delete_original_response()
            await interaction.followup.send(ephemeral=True, **_kwargs(reply))
        elif not interaction.response.is_done():
            await interaction.response.send_message(ephemeral=private, **_kwargs(reply))
        else:
            await interaction.followup.send(ephemeral=private, **_kwargs(reply))
    except discord.HTTPException as exc:
        log.warning("could not reply to interaction %s: %s", interaction.id, exc)
