"""Reports of a question's problems on Discord: a "Report a problem" button under every reveal and every
practice or review verdict opens a modal (a reason select and up to 500 characters of text); its
MODAL_SUBMIT goes to the core, which decides and says what to tell. Admins see the queue with
`/quizadmin reports` and resolve with `/quizadmin resolve` (adapters/discord/quizadmin.py).

The button's custom_id carries the round ("studybot:report:<round>"), so it works on messages posted before
a restart; the modal lives in the process that opened it (as discord.py keeps modals), for 15 minutes.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import discord

from adapters.discord.forms import CheckedModal
from adapters.discord.markdown import escape
from adapters.discord.replies import PLATFORM, Reply, bot_of, respond
from bot.kernel.errors import BadSetting, UnknownRound
from bot.kernel.parsing import parse_round_id
from bot.reports.service import MAX_REPORT_TEXT, REASON_LABELS, parse_reason

log = logging.getLogger(__name__)

REPORT_TEMPLATE = r"studybot:report:(?P<round_id>[^:]{1,24})"
MODAL_TIMEOUT = 15 * 60.0
NOT_OURS = "That button does not belong to a studybot question I know."


def report_custom_id(round_id: int | str) -> str:
    return f"studybot:report:{round_id}"


class ReportModal(CheckedModal, title="Report a problem"):
    """The form: what is wrong (a select) and, optionally, more words for the admins."""

    answers = True

    def __init__(self, round_id: int) -> None:
        super().__init__(timeout=MODAL_TIMEOUT)
        self.round_id = round_id
        self.reason: discord.ui.Select[Any] = discord.ui.Select(
            custom_id="report_reason",
            options=[
                discord.SelectOption(label=label.capitalize(), value=reason.value, default=i == 0)
                for i, (reason, label) in enumerate(REASON_LABELS.items())
            ],
            min_values=1,
            max_values=1,
        )
        self.details: discord.ui.TextInput[Any] = discord.ui.TextInput(
            custom_id="report_text",
            style=discord.TextStyle.paragraph,
            required=False,
            max_length=MAX_REPORT_TEXT,
            placeholder="What should it say? (optional)",
        )
        self.add_item(discord.ui.Label(text="What is wrong?", component=self.reason))
        self.add_item(discord.ui.Label(text="Tell the admins more", component=self.details))

    async def on_submit(self, interaction: discord.Interaction) -> None:
        bot = bot_of(interaction)

        async def work() -> Reply:
            reason = parse_reason(self.reason.values[0] if self.reason.values else None)
            if reason is None:
                raise BadSetting("Pick what is wrong: wrong answer, unclear, typo or other.")
            space = (PLATFORM, str(interaction.guild_id)) if interaction.guild_id else None
            text = await bot.service.reports.report_round(
                str(interaction.user.id), self.round_id, reason, self.details.value or "", space=space
            )
            return Reply(escape(text))

        await respond(interaction, work(), defer_after=bot.defer_after)


class ReportButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=REPORT_TEMPLATE):
    """ "Report a problem" about the question of one round."""

    def __init__(self, round_id: int | str, *, row: int | None = None) -> None:
        super().__init__(
            discord.ui.Button(
                label="Report a problem",
                style=discord.ButtonStyle.secondary,
                custom_id=report_custom_id(round_id),
                emoji="🚩",
                row=row,
            )
        )
        self.round_id = str(round_id)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ReportButton:
        return cls(match["round_id"])

    async def callback(self, interaction: discord.Interaction) -> None:
        round_id = parse_round_id(self.round_id)
        if round_id is None:
            log.info("ignoring a report button with an unreadable round id")
            await respond(interaction, _refuse(NOT_OURS), defer_after=bot_of(interaction).defer_after)
            return
        try:
            await interaction.response.send_modal(ReportModal(round_id))
        except discord.HTTPException as exc:
            log.warning("could not open the report form for round %d: %s", round_id, exc)


async def _refuse(text: str) -> Reply:
    raise UnknownRound(text)


def add_report_button(view: discord.ui.View, round_id: int, row: int | None = None) -> discord.ui.View:
    """The view with a "Report a problem" button for this round's question."""
    view.add_item(ReportButton(round_id, row=row))
    return view


__all__ = ["ReportButton", "ReportModal", "add_report_button", "report_custom_id"]
