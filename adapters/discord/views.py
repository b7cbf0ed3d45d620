"""Persistent answer buttons. The custom_id carries the round and the choice ("studybot:answer:<round>:<letter>"),
so a click on a message posted before a restart still reaches the core.

Views are sent *stopped*: discord.py never tracks or times them out per message, and every click is routed by the
AnswerButton class registered with `client.add_dynamic_items` in setup_hook.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from adapters.discord.replies import bot_of
from adapters.discord.reports import add_report_button
from bot.kernel.values import LETTERS

# Loose on purpose: a malformed round or letter still reaches the callback and gets a specific private reply.
ANSWER_TEMPLATE = r"studybot:answer:(?P<round_id>[^:]{1,24}):(?P<letter>[^:]{0,8})"


def answer_custom_id(round_id: int | str, letter: str) -> str:
    return f"studybot:answer:{round_id}:{letter}"


class AnswerButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=ANSWER_TEMPLATE):
    """One choice of one round."""

    def __init__(
        self,
        round_id: int | str,
        letter: str,
        *,
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        disabled: bool = False,
        emoji: str | None = None,
        label: str | None = None,
        row: int | None = None,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label or (letter if len(letter) <= 8 else "?"),
                style=style,
                custom_id=answer_custom_id(round_id, letter),
                disabled=disabled,
                emoji=emoji,
                row=row,
            )
        )
        self.round_id = str(round_id)
        self.letter = letter

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> AnswerButton:
        return cls(match["round_id"], match["letter"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await bot_of(interaction).on_answer_click(interaction, self.round_id, self.letter)


def _frozen(view: discord.ui.View) -> discord.ui.View:
    view.stop()
    return view


UNSURE_MARK = "?"  # a letter ending in it ("B?") answers "not sure"


def question_view(round_id: int, *, unsure: bool = False) -> discord.ui.View:
    """A-D buttons for an open round; `unsure` (practice and review): a second row, "not sure"."""
    view = discord.ui.View(timeout=None)
    for letter in LETTERS:
        view.add_item(AnswerButton(round_id, letter, style=discord.ButtonStyle.primary, row=0))
    if unsure:
        for letter in LETTERS:
            view.add_item(AnswerButton(round_id, letter + UNSURE_MARK, label=f"{letter} (not sure)", row=1))
    return _frozen(view)


def report_view(round_id: int) -> discord.ui.View:
    """Under a reveal or a practice verdict: "Report a problem" about that round's question."""
    return _frozen(add_report_button(discord.ui.View(timeout=None), round_id))


def revealed_view(round_id: int, correct_letter: str) -> discord.ui.View:
    """The same buttons after the reveal: all disabled, the correct one green and ticked."""
    view = discord.ui.View(timeout=None)
    for letter in LETTERS:
        right = letter == correct_letter
        view.add_item(
            AnswerButton(
                round_id,
                letter,
                style=discord.ButtonStyle.success if right else discord.ButtonStyle.secondary,
                disabled=True,
                emoji="✅" if right else None,
            )
        )
    return _frozen(view)


__all__ = ["ANSWER_TEMPLATE", "AnswerButton", "answer_custom_id", "question_view", "report_view", "revealed_view"]
