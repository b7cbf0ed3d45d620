"""Modals whose submission discord.py cannot read: a forged MODAL_SUBMIT whose components are not what Discord
documents (a string, a Label without its component, a select's `values` as text) makes discord.py's own
Modal._refresh raise, which it logs as an ERROR with a traceback and leaves unanswered. Our modals log it at
INFO once instead, and the report form answers privately (the suggestion forms are answered by their
on_interaction route, adapters.discord.suggestions)."""

from __future__ import annotations

import logging
from typing import ClassVar

import discord

from adapters.discord.limits import NO_PINGS

log = logging.getLogger(__name__)

UNREADABLE_FORM = "I could not read that form; nothing was saved. Please open it again."
_SHAPE_ERRORS = (TypeError, KeyError, AttributeError, ValueError, IndexError)


class CheckedModal(discord.ui.Modal):
    answers: ClassVar[bool] = False  # reply to an unreadable submission here (else another route replies)

    # discord.ui.Modal's own signature (a View's on_error takes the item as well)
    async def on_error(self, interaction: discord.Interaction, error: Exception, /) -> None:  # type: ignore[override]
        if not isinstance(error, _SHAPE_ERRORS):
            await super().on_error(interaction, error)
            return
        kind, problem = type(self).__name__, type(error).__name__
        log.info("ignoring a %s submission that is not what Discord documents (%s)", kind, problem)
        if not self.answers or interaction.response.is_done():
            return
        try:
            await interaction.response.send_message(UNREADABLE_FORM, ephemeral=True, allowed_mentions=NO_PINGS)
        except discord.HTTPException as exc:
            log.info("could not answer interaction %s: %s", interaction.id, exc)
