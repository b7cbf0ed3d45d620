"""Rendering shows text as written: dunder names, stars and fences survive Discord markdown and Slack mrkdwn."""

from __future__ import annotations

from adapters.discord.markdown import code_block as discord_code_block
from adapters.discord.markdown import escape as discord_escape
from adapters.discord.render import question_embed, reveal_embed
from adapters.slack.blocks import question_blocks, question_text, reveal_text
from adapters.slack.mrkdwn import ZWSP, clip, code_block, escape
from bot.kernel.cards import QuestionCard, RevealCard
from bot.kernel.values import Difficulty, RoundKind

DUNDERS = "Which methods make a map-style dataset: __getitem__ and __len__?"


def card(prompt: str = DUNDERS, code: str | None = None) -> QuestionCard:
    choices = ("__getitem__ and __len__", "*args only", "`__iter__` alone", "~x~ and <s>")
    return QuestionCard(
        3, RoundKind.DAILY, "Daily question", prompt, choices, "data-loading", Difficulty.EASY, code=code
    )


def test_discord_escapes_markdown_outside_code_spans_only() -> None:
    assert discord_escape("__getitem__ and *args") == r"\_\_getitem\_\_ and \*args"
    assert discord_escape("call `__init__` first") == "call `__init__` first"
    description = question_embed(card()).description or ""
    assert r"\_\_getitem\_\_ and \_\_len\_\_" in description
    assert "`__iter__` alone" in description and "__getitem__ and" not in description.replace("\\", "|")


def test_a_discord_code_block_survives_runs_of_backticks() -> None:
    block = discord_code_block('s = "````"')
    assert block.startswith("```python\n") and block.endswith("\n```")
    assert block.count("```") == 2  # no run of three inside the code
    embed = question_embed(card(code='doc = """```````"""'))
    assert (embed.description or "").count("```") == 2


def test_the_discord_reveal_escapes_explanation_and_choices() -> None:
    reveal = RevealCard(
        3,
        "Answer: A",
        DUNDERS,
        card().choices,
        "A",
        "Both __getitem__ and __len__ are needed.",
        "https://docs.pytorch.org",
        (1, 0, 0, 0),
        ("1",),
    )
    embed = reveal_embed(reveal)
    values = " ".join(f.value for f in embed.fields)
    assert r"Both \_\_getitem\_\_ and \_\_len\_\_" in values and r"\_\_getitem\_\_ and \_\_len\_\_" in values


def test_slack_sets_marked_words_as_code_and_escapes_entities() -> None:
    assert escape("__getitem__ and __len__, x_1") == "`__getitem__` and `__len__`, x_1"
    assert escape("(*args) and ~x~.") == "(`*args`) and `~x~`."
    assert escape("keep `__init__` and <!channel> & <s>") == "keep `__init__` and &lt;!channel&gt; &amp; &lt;s&gt;"
    text = " ".join(b["text"]["text"] for b in question_blocks(card()) if b.get("type") == "section")
    assert "`__getitem__` and `__len__`" in text and "&lt;s&gt;" in text and "<s>" not in text


def test_slack_fallback_texts_are_escaped() -> None:
    assert "<s>" not in question_text(card(prompt="What does <s> mean here?"))
    reveal = RevealCard(
        3, "Answer: A", "p", card().choices, "A", "Tags like <!here> & <s> stay text.", "", (1, 0, 0, 0), ()
    )
    assert reveal_text(reveal) == "Answer: A: Tags like &lt;!here&gt; &amp; &lt;s&gt; stay text."


def test_slack_code_blocks_and_clipping_never_break_the_fence_or_an_entity() -> None:
    block = code_block("a = '````' < b")
    assert block.count("```") == 2 and "&lt; b" in block and f"`{ZWSP}`" in block
    long_code = code_block("x = 1 < 2\n" * 400)
    clipped = clip("intro\n" + long_code, 3000)
    assert len(clipped) <= 3000 and clipped.endswith("\n```") and clipped.count("```") == 2
    for limit in range(3, 15):
        cut = clip("ab &amp; &lt; &gt; cd", limit)
        assert len(cut) <= limit
        body = cut.rstrip("…")
        assert body.count("&") == body.count(";"), cut  # never half an entity
