"""Every shipped bank question, rendered on Discord and on Slack, reads as written: the question card, the
reveal and the practice verdict are read back the way a person sees them (tests/support/markdown_reader.py) and
compared with the source; the prompt, every choice, the explanation and the why-wrong sentence read exactly as
the author wrote them (their `code spans` shown as code), and the code block holds exactly the code.

The deliberate breaks at the end show the comparison can fail: renderers that leave markdown unescaped, escape
inside code spans, fence code naively or skip Slack's entities each lose text on real bank questions."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

import discord
import pytest

import adapters.discord.render as discord_render
import adapters.slack.blocks as slack_blocks
import adapters.slack.mrkdwn as slack_mrkdwn
from adapters.discord.markdown import escape as discord_escape
from adapters.discord.render import LETTER_EMOJI, question_embed, reveal_embed, verdict_embed
from adapters.slack.blocks import (
    question_blocks,
    question_text,
    reveal_blocks,
    reveal_text,
    revealed_question_blocks,
    verdict_blocks,
)
from adapters.slack.mrkdwn import clip as slack_clip
from adapters.slack.mrkdwn import entities
from adapters.slack.mrkdwn import escape as slack_escape
from bot.bank.load import load_bank
from bot.kernel import cards
from bot.kernel.cards import AnswerOutcome
from bot.kernel.values import LETTERS, Answer, ChannelRef, Question, Round, RoundKind
from tests.support.markdown_reader import intended, read_discord, read_slack

NOW = dt.datetime(2026, 6, 1, 9, 0, tzinfo=dt.UTC)
REF = ChannelRef("test", "space", "channel")
FALLBACK_MAX = 300  # Slack's notification texts are clipped (with an ellipsis) within this length


@cache
def bank_questions() -> tuple[Question, ...]:
    return tuple(load_bank().questions)


def _wrong(question: Question) -> int:
    """A wrong choice that has a why-wrong sentence when the question has one."""
    wrong = [i for i in range(len(question.choices)) if i != question.answer]
    return next((i for i in wrong if i < len(question.why_wrong) and question.why_wrong[i]), wrong[0])


@dataclass(frozen=True)
class Rendered:
    """One question's cards: practice question, reveal (one wrong answer, so the tempting choice is explained)
    and the verdict of that wrong answer."""

    question: Question
    card: Any
    reveal: Any
    outcome: AnswerOutcome


def cards_of(question: Question) -> Rendered:
    practice = Round(1, RoundKind.PRACTICE, REF, question.id, question.topic, NOW, user_id="u")
    daily = Round(2, RoundKind.DAILY, REF, question.id, question.topic, NOW, local_date=NOW.date())
    wrong = _wrong(question)
    reveal = cards.reveal_card(daily, question, [Answer(2, "u", wrong, False, NOW)])
    verdict = cards.verdict(question, wrong)
    outcome = AnswerOutcome(1, "u", LETTERS[wrong], cards.verdict_text(verdict), verdict)
    return Rendered(question, cards.question_card(practice, question, None), reveal, outcome)


def _expect(losses: list[str], where: str, read: str, want: str) -> None:
    if read != want:
        losses.append(f"{where}: reads {read!r}, written {want!r}")


# ---- Discord -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class DiscordRenderer:
    question: Callable[[Any], discord.Embed] = question_embed
    reveal: Callable[[Any], discord.Embed] = reveal_embed
    verdict: Callable[[AnswerOutcome], discord.Embed] = verdict_embed


def _field(embed: discord.Embed, prefix: str) -> str:
    return next(f.value or "" for f in embed.fields if (f.name or "").startswith(prefix))


def discord_losses(r: Rendered, render: DiscordRenderer = DiscordRenderer()) -> list[str]:
    """Every place where the Discord rendering of this question does not read as its source."""
    q, losses = r.question, []
    code = (q.code,) if q.code else ()
    choice_lines = [f"{LETTER_EMOJI[x]} {intended(c)}" for x, c in zip(LETTERS, q.choices, strict=False)]

    body = read_discord(render.question(r.card).description or "")
    _expect(losses, "question code", repr(body.code_blocks), repr(code))
    paragraphs = body.text.split("\n\n")
    _expect(losses, "question prompt", paragraphs[0], intended(q.prompt))
    _expect(losses, "question choices", paragraphs[-1], "\n".join(choice_lines))
    # prompt, code block(s), choices: a blank line inside a code block splits it too, as it reads back whole
    breaks = sum(block.count("\n\n") for block in code)
    _expect(losses, "question parts", str(len(paragraphs)), str(2 + len(code) + breaks))

    embed = render.reveal(r.reveal)
    body = read_discord(embed.description or "")
    _expect(losses, "reveal code", repr(body.code_blocks), repr(code))
    marked = [line + (" ✅" if x == q.answer_letter else "") for x, line in zip(LETTERS, choice_lines, strict=False)]
    _expect(losses, "reveal choices", body.text.split("\n\n")[-1], "\n".join(marked))
    _expect(losses, "reveal answer", read_discord(_field(embed, "Correct answer")).text, choice_lines[q.answer])
    why = read_discord(_field(embed, "Why")).text
    _expect(losses, "reveal explanation", why.split("\nMore: ")[0], intended(q.explanation))
    if r.reveal.common_wrong is not None:
        read = read_discord(_field(embed, "Most chosen wrong answer")).text
        _expect(losses, "reveal why wrong", read, intended(r.reveal.common_wrong[1]))

    embed = render.verdict(r.outcome)
    _expect(losses, "verdict explanation", read_discord(embed.description or "").text, intended(q.explanation))
    if r.outcome.verdict is not None and r.outcome.verdict.why_wrong:
        read = read_discord(_field(embed, "Why not")).text
        _expect(losses, "verdict why wrong", read, intended(r.outcome.verdict.why_wrong))
    return losses


# ---- Slack -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SlackRenderer:
    question: Callable[[Any], list[dict[str, Any]]] = question_blocks
    question_text: Callable[[Any], str] = question_text
    revealed: Callable[[Any], list[dict[str, Any]]] = revealed_question_blocks
    reveal: Callable[..., list[dict[str, Any]]] = reveal_blocks
    reveal_text: Callable[[Any], str] = reveal_text
    verdict: Callable[[AnswerOutcome], list[dict[str, Any]]] = verdict_blocks


def _sections(blocks: list[dict[str, Any]]) -> list[str]:
    return [b["text"]["text"] for b in blocks if b.get("type") == "section"]


def _fallback(losses: list[str], where: str, text: str, source: str) -> None:
    """A notification text: the whole source, or a prefix of it when clipped (with an ellipsis)."""
    read, want = read_slack(text).text, intended(source)
    clipped = read.endswith("…") and not want.endswith("…") and len(text) <= FALLBACK_MAX
    if not (want.startswith(read[:-1]) if clipped else read == want):
        losses.append(f"{where}: reads {read!r}, written {want!r}")


def slack_losses(r: Rendered, render: SlackRenderer = SlackRenderer()) -> list[str]:
    """Every place where the Slack rendering of this question does not read as its source."""
    q, losses = r.question, []
    code = (q.code,) if q.code else ()
    choice_lines = [f"{x}. {intended(c)}" for x, c in zip(LETTERS, q.choices, strict=False)]

    sections = _sections(render.question(r.card))
    _expect(losses, "question sections", str(len(sections)), str(2 + len(code)))
    _expect(losses, "question prompt", read_slack(sections[0]).text, intended(q.prompt))
    if q.code:
        block = read_slack(sections[1])
        _expect(losses, "question code", repr((block.text, block.code_blocks)), repr((q.code, code)))
    _expect(losses, "question choices", read_slack(sections[-1]).text, "\n".join(choice_lines))
    _fallback(losses, "question fallback", render.question_text(r.card), f"{r.card.title}: {q.prompt}")

    sections = _sections(render.revealed(r.reveal))
    _expect(losses, "revealed prompt", read_slack(sections[0]).text, intended(q.prompt))
    if q.code:
        _expect(losses, "revealed code", repr(read_slack(sections[1]).code_blocks), repr(code))
    counts = r.reveal.distribution
    marked = [
        f"{':white_check_mark:' if x == q.answer_letter else ':white_small_square:'} {line}  ({n})"
        for x, line, n in zip(LETTERS, choice_lines, counts, strict=False)
    ]
    _expect(losses, "revealed choices", read_slack(sections[-1]).text, "\n".join(marked))

    sections = _sections(render.reveal(r.reveal))
    _expect(losses, "reveal answer", read_slack(sections[0]).text, choice_lines[q.answer])
    _expect(losses, "reveal explanation", read_slack(sections[1]).text, intended(q.explanation))
    if r.reveal.common_wrong is not None:
        _expect(losses, "reveal why wrong", read_slack(sections[2]).text, intended(cards.common_wrong_text(r.reveal)))
    _fallback(losses, "reveal fallback", render.reveal_text(r.reveal), f"{r.reveal.title}: {q.explanation}")

    [verdict, *_] = _sections(render.verdict(r.outcome))
    want = f"Your answer: {r.outcome.chosen_letter}. {intended(r.outcome.text)}"
    _expect(losses, "verdict", read_slack(verdict).text, want)
    return losses


# ---- the bank --------------------------------------------------------------------------------------


def _all_losses(platform: Callable[[Rendered], list[str]]) -> dict[str, list[str]]:
    out = {}
    for question in bank_questions():
        losses = platform(cards_of(question))
        if losses:
            out[question.id] = losses
    return out


def test_the_whole_bank_reads_as_written_on_both_platforms_within_seconds() -> None:
    started = time.perf_counter()
    questions = bank_questions()
    assert len(questions) >= 300  # the shipped bank, not a sample
    discord_lost = _all_losses(discord_losses)
    slack_lost = _all_losses(slack_losses)
    elapsed = time.perf_counter() - started
    assert discord_lost == {}, "\n".join(f"{k}: {v}" for k, v in list(discord_lost.items())[:5])
    assert slack_lost == {}, "\n".join(f"{k}: {v}" for k, v in list(slack_lost.items())[:5])
    assert elapsed < 10, f"{elapsed:.1f} s for {len(questions)} questions"


def by_id(question_id: str) -> Rendered:
    return cards_of(next(q for q in bank_questions() if q.id == question_id))


DUNDER_QUESTION = "data-loading-map-style-methods"  # choices such as `__getitem__` and `__len__`


def test_the_reader_knows_what_markdown_does() -> None:
    # Discord: markers vanish, escapes and code show as written
    assert read_discord("__getitem__ and __len__").text == "getitem and len"
    assert read_discord(r"\_\_getitem\_\_ and `__len__` *x*").text == "__getitem__ and __len__ x"
    assert read_discord("> quote\n- item\n# Title\n[docs](https://x.y)").text == "quote\n• item\nTitle\ndocs"
    assert read_discord("a\n```python\nx = `1`\n```\nb").text == "a\nx = `1`\nb"
    assert read_discord("```python\nx = 1\n```").code_blocks == ("x = 1",)
    # Slack: entities decoded, marked pairs vanish, links show their text
    assert read_slack("_x_ and *y* &lt;s&gt; &amp; <https://a|docs>").text == "x and y <s> & docs"
    assert read_slack("`__getitem__` and x_1 and <s>").text == "__getitem__ and x_1 and s"
    assert read_slack("```\na &lt; b\n```").code_blocks == ("a < b",)


# ---- deliberate breaks: each must lose text on real bank questions ---------------------------------


def _unescaped_discord(monkeypatch: pytest.MonkeyPatch, escape: Callable[[str], str]) -> DiscordRenderer:
    monkeypatch.setattr(discord_render, "escape", escape)
    return DiscordRenderer()


def test_a_discord_renderer_that_escapes_code_spans_too_fails_on_the_dunder_question(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    naive = _unescaped_discord(monkeypatch, discord.utils.escape_markdown)  # escapes `__getitem__` in code too
    losses = discord_losses(by_id(DUNDER_QUESTION), naive)
    choices = next(loss for loss in losses if loss.startswith("question choices:"))
    assert "reads '🇦 `__iter__` and `__len__`" in choices, choices  # escaped backticks show: no code spans


def bare_dunders() -> Rendered:
    """The dunder question as it was first written, without code spans: `__getitem__ and __len__`."""
    question = next(q for q in bank_questions() if q.id == DUNDER_QUESTION)
    return cards_of(replace(question, choices=tuple(c.replace("`", "") for c in question.choices)))


def test_a_discord_renderer_without_escaping_loses_markdown(monkeypatch: pytest.MonkeyPatch) -> None:
    assert discord_losses(bare_dunders()) == []  # the real renderer shows it as written
    plain = _unescaped_discord(monkeypatch, lambda text: text)
    losses = discord_losses(bare_dunders(), plain)
    assert any("getitem and len" in loss for loss in losses), losses  # underlined, the underscores gone
    lost = {q.id for q in bank_questions() if discord_losses(cards_of(q), plain)}
    assert lost, "no bank question needs escaping on Discord?"


def test_a_naive_code_fence_breaks_on_code_with_backticks(monkeypatch: pytest.MonkeyPatch) -> None:
    question = next(q for q in bank_questions() if q.code)
    fenced = replace(question, code=question.code + '\nsep = "```"  # a fence inside the code')
    assert discord_losses(cards_of(fenced)) == [] and slack_losses(cards_of(fenced)) == []
    monkeypatch.setattr(discord_render, "code_block", lambda code, language="python": f"```{language}\n{code}\n```")
    monkeypatch.setattr(slack_blocks, "code_block", lambda code: f"```\n{entities(code)}\n```")
    assert any("code" in loss for loss in discord_losses(cards_of(fenced)))
    assert any("code" in loss for loss in slack_losses(cards_of(fenced)))


def test_slack_renderers_without_its_escapes_lose_text(monkeypatch: pytest.MonkeyPatch) -> None:
    # entities only, marked words left as they are: `__getitem__` outside code turns italic
    assert slack_losses(bare_dunders()) == []
    monkeypatch.setattr(slack_blocks, "escape", entities)
    assert any(loss.startswith("question choices:") for loss in slack_losses(bare_dunders()))
    # no entities at all: "<s>" in a bank prompt becomes a link, the text is lost
    monkeypatch.setattr(slack_blocks, "escape", lambda text: text)
    lost = {q.id for q in bank_questions() if any("prompt" in x for x in slack_losses(cards_of(q)))}
    assert "foundations-bigram-next-word" in lost


def test_discord_escaping_is_the_helper_the_renderer_uses() -> None:
    assert discord_render.escape is discord_escape  # the breaks above patch the one the renderer calls


def test_slack_quiets_a_mark_next_to_punctuation_and_never_clips_half_a_code_span(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert slack_escape("before Module.__init__() call") == "before `Module.__init__()` call"
    assert slack_escape("x_1 and state_dict") == "x_1 and state_dict"  # nothing to italicise there
    assert slack_clip("write `torch.tensor([1, 0, 4])` now", 20) == "write …"
    assert _all_losses(slack_losses) == {}
    # the break: a clip that cuts code spans in half shows their opening backtick in notifications
    monkeypatch.setattr(slack_mrkdwn, "_open_span", lambda head: None)
    lost = _all_losses(slack_losses)
    assert lost and all(loss.startswith(("question fallback", "reveal fallback")) for v in lost.values() for loss in v)
