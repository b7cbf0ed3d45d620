"""A learner's own data on Discord: `/export` sends the CSV and the Anki TSV as attachments of an ephemeral
followup; `/forget-me` explains and shows a confirm button whose press (by that member only) deletes their data
in this server. The button's custom_id carries the member ("studybot:forget-me:<user id>"), so it still works
after a restart (a DynamicItem registered in setup_hook)."""

from __future__ import annotations

import io
import re
from typing import Any

import discord

from adapters.discord.markdown import escape
from adapters.discord.replies import Reply, bot_of, ref_of, respond, respond_in_followup
from bot.mydata.forget import ForgetPrompt

FORGET_TEMPLATE = r"studybot:forget-me:(?P<user_id>[0-9]{1,20})"
FORGET_HINT = "To go ahead, press **Delete my data** below."
NOT_YOURS = "That button belongs to someone else's /forget-me; nothing was deleted."


def forget_custom_id(user_id: int | str) -> str:
    return f"studybot:forget-me:{user_id}"


class ForgetButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=FORGET_TEMPLATE):
    """The confirm button of one member's /forget-me."""

    def __init__(self, user_id: int | str) -> None:
        super().__init__(
            discord.ui.Button(
                label="Delete my data", style=discord.ButtonStyle.danger, custom_id=forget_custom_id(user_id)
            )
        )
        self.user_id = str(user_id)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ForgetButton:
        return cls(match["user_id"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await forget_click(interaction, self.user_id)


def forget_reply(prompt: ForgetPrompt, user_id: int | str) -> Reply:
    view = discord.ui.View(timeout=None)
    view.add_item(ForgetButton(user_id))
    view.stop()  # routed by the registered ForgetButton, never tracked per message
    return Reply(f"{escape(prompt.text)} {FORGET_HINT}", view=view)


async def forget_click(interaction: discord.Interaction, owner: str) -> None:
    """Delete the presser's data in this server, if the button is theirs."""
    bot = bot_of(interaction)

    async def work() -> Reply:
        if str(interaction.user.id) != owner:
            return Reply(NOT_YOURS)
        ref = ref_of(interaction)
        done = await bot.service.mydata.forget_me(ref.platform, ref.space_id, owner)
        return Reply(escape(done.text))

    await respond(interaction, work(), defer_after=bot.defer_after)


async def send_export(interaction: discord.Interaction) -> None:
    """`/export`: the member's own misses here, as two attachments only they see."""
    bot = bot_of(interaction)

    async def work() -> Reply:
        ref = ref_of(interaction)
        export = await bot.service.mydata.export_misses(ref.platform, ref.space_id, str(interaction.user.id))
        files = tuple(discord.File(io.BytesIO(f.data), f.name) for f in export.files)
        return Reply(escape(export.text), files=files)

    await respond_in_followup(interaction, work())


async def send_forget_prompt(interaction: discord.Interaction) -> None:
    """`/forget-me`: what would be deleted, and the confirm button; nothing changes yet."""
    bot = bot_of(interaction)

    async def work() -> Reply:
        ref_of(interaction)  # a server channel only
        return forget_reply(bot.service.mydata.forget_me_prompt(), interaction.user.id)

    await respond(interaction, work(), defer_after=bot.defer_after)
