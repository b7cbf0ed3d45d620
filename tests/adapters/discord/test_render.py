"""Cards -> embeds: content and Discord's size limits (pure, no network)."""

from __future__ import annotations

import discord

from adapters.discord.render import (
    EMBED_MAX,
    FIELD_MAX,
    LETTER_EMOJI,
    choice_of_emoji,
    question_embed,
    reveal_embed,
)
from bot.kernel.cards import QuestionCard, RevealCard
from bot.kernel.values import Difficulty, RoundKind


def test_a_question_with_code_shows_a_code_block_and_lettered_choices() -> None:
    card = QuestionCard(
        7,
        RoundKind.DAILY,
        "Daily PyTorch question",
        "What prints?",
        ("1", "2", "3", "4"),
        "tensors",
        Difficulty.EASY,
        code="x = torch.ones(2)\nprint(x.sum())",
        reveal_note="Soon.",
        reactions=True,
    )
    embed = question_embed(card)
    assert "```python\nx = torch.ones(2)" in (embed.description or "")
    assert all(f"{LETTER_EMOJI[x]} {t}" in (embed.description or "") for x, t in zip("ABCD", "1234", strict=True))
    assert "react with" in embed.fields[0].value and "Soon." in embed.fields[0].value
    huge = QuestionCard(
        8, RoundKind.PRACTICE, "t" * 300, "p" * 5000, ("c" * 200,) * 4, "autograd", Difficulty.HARD, code="x" * 3000
    )
    rendered = question_embed(huge)
    assert len(rendered) <= EMBED_MAX and (rendered.description or "").count("```") == 2
    assert (rendered.description or "").endswith(f"{LETTER_EMOJI['D']} {'c' * 200}")


def test_a_huge_reveal_stays_within_discords_limits() -> None:
    users = tuple(str(10**17 + i) for i in range(5000))
    card = RevealCard(
        1,
        "Answer: C",
        "p" * 5000,
        ("a" * 200,) * 4,
        "C",
        "e" * 3000,
        "https://x",
        (1, 2, 4997, 0),
        users,
        question_message_id="5",
    )
    embed = reveal_embed(card)
    assert len(embed) <= EMBED_MAX  # discord.py's Embed.__len__ counts what Discord limits
    assert all(len(f.value) <= FIELD_MAX for f in embed.fields)
    right = next(f for f in embed.fields if f.name.startswith("Got it right"))
    assert right.value.endswith("more") and "(5000)" in right.name


def test_only_regional_indicators_a_to_d_are_choices() -> None:
    assert [choice_of_emoji(LETTER_EMOJI[x]) for x in "ABCD"] == [0, 1, 2, 3]
    assert choice_of_emoji(chr(0x1F1EA)) is None and choice_of_emoji("👍") is None and choice_of_emoji(None) is None
    assert choice_of_emoji(discord.PartialEmoji(name="A", id=123)) is None
