"""Suggested questions on Discord: `/suggest` opens a modal, `/quizadmin suggestions` lists the waiting ones
with Approve and Reject buttons (Reject asks for the reason in a modal).

Discord modals hold at most five text inputs, so the form is: topic (`topic` or `topic / difficulty`,
medium when left out), question (a ``` block in it becomes the question's code), the four choices as lines
`A) ...` to `D) ...`, the correct letter, and the explanation (a last line holding one https:// link is
the reference). Submissions are routed by custom_id from `on_interaction` (so they survive a restart); the
buttons are DynamicItems. Everything is decided by the core; replies are private and escaped."""

from __future__ import annotations

import re
from typing import Any

import discord

from adapters.discord.forms import CheckedModal
from adapters.discord.markdown import escape
from adapters.discord.render import COLOUR
from adapters.discord.replies import Reply, actor_of, bot_of, ref_of, respond
from bot.kernel.errors import QuizError
from bot.suggestions.service import (
    MAX_REASON,
    SuggestionForm,
    SuggestionsCard,
    decided_text,
    parse_choices,
    parse_suggestion_id,
    require_reviewer,
    split_code,
    split_reference,
    split_topic,
    suggested_text,
    summary,
)

FORM_ID = "suggest_form"
REASON_PREFIX = "suggest_reason:"
SHOWN = 5  # five rows of buttons is what a message holds
_SNOWFLAKE = re.compile(r"^[0-9]{5,20}$")


class SuggestModal(CheckedModal):
    """Sent only: its submission is handled by `modal_submitted` (routed from on_interaction)."""

    def __init__(self) -> None:
        super().__init__(title="Suggest a question", custom_id=FORM_ID, timeout=600)
        self.add_item(
            discord.ui.TextInput(
                label="Topic (or: topic / difficulty)",
                custom_id="topic",
                placeholder="autograd / easy   (difficulty: easy, medium or hard; default medium)",
                max_length=60,
            )
        )
        self.add_item(
            discord.ui.TextInput(
                label="Question (code in a ``` block)",
                custom_id="prompt",
                style=discord.TextStyle.paragraph,
                max_length=2000,
            )
        )
        self.add_item(
            discord.ui.TextInput(
                label="Choices: four lines, A) to D)",
                custom_id="choices",
                style=discord.TextStyle.paragraph,
                placeholder="A) ...\nB) ...\nC) ...\nD) ...",
                max_length=1000,
            )
        )
        self.add_item(discord.ui.TextInput(label="Correct choice (A, B, C or D)", custom_id="answer", max_length=3))
        self.add_item(
            discord.ui.TextInput(
                label="Why it is right (last line: a link)",
                custom_id="explanation",
                style=discord.TextStyle.paragraph,
                placeholder="20-900 characters; a last line with one https:// link becomes the reference",
                max_length=1200,
            )
        )


class ReasonModal(CheckedModal):
    """Sent only, like SuggestModal: the reason for rejecting one suggestion."""

    def __init__(self, suggestion_id: int) -> None:
        super().__init__(title=f"Reject suggestion #{suggestion_id}", custom_id=f"{REASON_PREFIX}{suggestion_id}")
        self.add_item(
            discord.ui.TextInput(
                label="Reason (its author is told)",
                custom_id="reason",
                style=discord.TextStyle.paragraph,
                max_length=MAX_REASON,
            )
        )


def _values(components: Any) -> dict[str, str]:
    """custom_id -> value of every text input of a modal submission (in action rows or labels)."""
    out: dict[str, str] = {}
    stack = list(components) if isinstance(components, list) else []
    while stack:
        item = stack.pop()
        if not isinstance(item, dict):
            continue
        if isinstance(item.get("custom_id"), str) and isinstance(item.get("value"), str):
            out[item["custom_id"]] = item["value"]
        stack += [c for c in (item.get("components") or []) if isinstance(c, dict)]
        if isinstance(item.get("component"), dict):
            stack.append(item["component"])
    return out


def form_of(values: dict[str, str]) -> SuggestionForm:
    topic, level = split_topic(values.get("topic", ""))
    prompt, code = split_code(values.get("prompt", ""))
    explanation, reference = split_reference(values.get("explanation", ""))
    return SuggestionForm(
        topic=topic,
        prompt=prompt,
        choices=parse_choices(values.get("choices", "")),
        answer=values.get("answer", ""),
        explanation=explanation,
        difficulty=level,
        code=code,
        reference=reference,
    )


async def modal_submitted(interaction: discord.Interaction) -> None:
    """A suggestion form or a rejection reason, answered privately."""
    data: dict[str, Any] = dict(interaction.data or {})
    custom_id, values = str(data.get("custom_id", "")), _values(data.get("components"))
    bot = bot_of(interaction)

    async def work() -> Reply:
        ref = ref_of(interaction)
        service = bot.service
        if custom_id == FORM_ID:
            saved = await service.suggestions.suggest(ref, str(interaction.user.id), form_of(values))
            return Reply(escape(suggested_text(saved)))
        sid = parse_suggestion_id(custom_id.removeprefix(REASON_PREFIX))
        done = await service.suggestions.reject(
            await actor_of(interaction), ref.platform, ref.space_id, sid, values.get("reason", "")
        )
        return Reply(escape(decided_text(done)))

    await respond(interaction, work(), defer_after=bot.defer_after)


class DecisionButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"suggest_(?P<verb>approve|reject):(?P<id>[0-9]{1,12})"
):
    """Approve (the core decides at once) or Reject (admins get the reason form) one suggestion."""

    def __init__(self, verb: str, suggestion_id: int, row: int | None = None) -> None:
        approve = verb == "approve"
        super().__init__(
            discord.ui.Button(
                label=f"{'Approve' if approve else 'Reject'} #{suggestion_id}",
                style=discord.ButtonStyle.success if approve else discord.ButtonStyle.danger,
                custom_id=f"suggest_{verb}:{suggestion_id}",
                row=row,
            )
        )
        self.verb, self.suggestion_id = verb, suggestion_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> DecisionButton:
        return cls(match["verb"], int(match["id"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        bot = bot_of(interaction)
        if self.verb == "reject":
            try:
                require_reviewer(await actor_of(interaction))
            except QuizError as exc:
                await respond(interaction, _refused(exc), defer_after=bot.defer_after)
                return
            await interaction.response.send_modal(ReasonModal(self.suggestion_id))
            return

        async def work() -> Reply:
            ref = ref_of(interaction)
            done = await bot.service.suggestions.approve(
                await actor_of(interaction), ref.platform, ref.space_id, self.suggestion_id
            )
            return Reply(escape(decided_text(done)))

        await respond(interaction, work(), defer_after=bot.defer_after)


async def _refused(exc: QuizError) -> Reply:
    return Reply(escape(exc.message))


def _author(author_id: str) -> str:
    return f"<@{author_id}>" if _SNOWFLAKE.fullmatch(author_id) else escape(author_id)


def suggestions_reply(card: SuggestionsCard) -> Reply:
    """The first five waiting suggestions as embeds, each with its Approve and Reject buttons."""
    if not card.items:
        return Reply(escape(card.text))
    shown = card.items[:SHOWN]
    embeds = tuple(
        discord.Embed(description=escape(summary(s)) + f"\nby {_author(s.author_id)}", colour=COLOUR) for s in shown
    )
    view = discord.ui.View(timeout=None)
    for row, s in enumerate(shown):
        view.add_item(DecisionButton("approve", s.id, row))
        view.add_item(DecisionButton("reject", s.id, row))
    view.stop()
    waiting = len(card.items)
    more = f"{waiting}{'+' if card.more else ''} waiting"
    head = f"Suggestions waiting for review ({more}; the oldest {len(shown)} are shown)."
    return Reply(escape(head), embeds=embeds, view=view)


__all__ = ["DecisionButton", "SuggestModal", "modal_submitted", "suggestions_reply"]
