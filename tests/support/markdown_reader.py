"""Read rendered text the way a person sees it: Discord markdown and Slack mrkdwn turned back into plain text.

Small models of the two parsers, strict where formatting can eat characters: fenced code blocks and inline code
show their content as is; outside code, Discord's backslash escapes show the character and unescaped markers
(**, *, _, __, ~~, ||, headings, quotes, list dashes, masked links) vanish as formatting; Slack shows entities
decoded, `<...>` as a link or mention and unmarked *, _ and ~ pairs as formatting. What a bank question's
author meant is `intended`: the text with its own `code spans` shown as code."""

from __future__ import annotations

import re
from dataclasses import dataclass

ZWSP = "\u200b"
_SOURCE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)  # how the bank writes code in prose
_PRIVATE = 0xF0000  # placeholders for characters shown literally (Supplementary Private Use Area-A)


def intended(text: str) -> str:
    """What the author of a bank text means a reader to see: code spans as code (without their backticks)."""
    return _SOURCE_SPAN.sub(lambda m: m.group(2), text)


@dataclass(frozen=True)
class Reading:
    """What a person reads: the text, and the content of each fenced code block in order."""

    text: str
    code_blocks: tuple[str, ...]


class _Literal:
    """Characters that formatting cannot touch (escaped or in code) hide behind placeholders meanwhile."""

    def __init__(self) -> None:
        self.chars: list[str] = []

    def hide(self, text: str) -> str:
        out = []
        for ch in text:
            self.chars.append(ch)
            out.append(chr(_PRIVATE + len(self.chars) - 1))
        return "".join(out)

    def restore(self, text: str) -> str:
        return "".join(
            self.chars[ord(c) - _PRIVATE] if _PRIVATE <= ord(c) < _PRIVATE + len(self.chars) else c for c in text
        )


def _inline_code(text: str, i: int) -> tuple[str, int] | None:
    """An inline code span starting at text[i] (a run of n backticks closed by exactly n): (content, end)."""
    run = re.match(r"`+", text[i:])
    assert run is not None
    n = len(run.group(0))
    close = re.compile(rf"(?<!`)`{{{n}}}(?!`)")
    found = close.search(text, i + n)
    if found is None or found.start() == i + n:
        return None
    return text[i + n : found.start()], found.end()


def _unformat(text: str, rules: list[re.Pattern[str]]) -> str:
    """Formatting marks removed (each rule keeps its group 1) until none is left, nested ones included."""
    while True:
        before = text
        for rule in rules:
            text = rule.sub(lambda m: m.group(1), text)
        if text == before:
            return text


def _fences(text: str, opener: re.Pattern[str]) -> list[tuple[int, int, str]]:
    """(start, end, content) of each fenced block; the content excludes the fence lines."""
    out = []
    pos = 0
    while True:
        start = text.find("```", pos)
        if start == -1:
            return out
        close = text.find("```", start + 3)
        if close == -1:
            return out
        body = text[start + 3 : close]
        head = opener.match(body)
        if head is not None:
            body = body[head.end() :]
        out.append((start, close + 3, body[:-1] if body.endswith("\n") else body))
        pos = close + 3


# ---- Discord ---------------------------------------------------------------------------------------

_DISCORD_LANGUAGE = re.compile(r"[A-Za-z0-9_+\-.#]*\n")
_DISCORD_LINE_RULES = [
    (re.compile(r"^(#{1,3}|-#) +", re.M), ""),  # headings and subtext
    (re.compile(r"^>>> ?", re.M), ""),  # block quotes
    (re.compile(r"^> ", re.M), ""),
    (re.compile(r"^( *)[-*] +", re.M), r"\1• "),  # list items
]
_DISCORD_INLINE_RULES = [
    re.compile(r"\[([^\[\]\n]+)\]\((?:<)?https?://[^\s)]+(?:>)?\)"),  # masked links show their text only
    re.compile(r"\*\*(.+?)\*\*(?!\*)", re.S),  # bold
    re.compile(r"__(.+?)__(?!_)", re.S),  # underline
    re.compile(r"\*(?=\S)(.+?)(?<=\S)\*(?!\*)", re.S),  # italics
    re.compile(r"_((?:__|[^_])+?)_(?![0-9A-Za-z])", re.S),
    re.compile(r"~~(.+?)~~", re.S),  # strike-through
    re.compile(r"\|\|(.+?)\|\|", re.S),  # spoiler
]


def _discord_prose(text: str, literal: _Literal) -> str:
    out = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and not text[i + 1].isalnum() and not text[i + 1].isspace():
            out.append(literal.hide(text[i + 1]))  # an escaped character shows as itself
            i += 2
        elif ch == "`" and (span := _inline_code(text, i)) is not None:
            out.append(literal.hide(span[0].replace(ZWSP, "")))
            i = span[1]
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def read_discord(markdown: str) -> Reading:
    """Discord markdown (a message or an embed text) as a person reads it."""
    literal = _Literal()
    parts: list[str] = []
    blocks: list[str] = []
    pos = 0
    for start, end, body in _fences(markdown, _DISCORD_LANGUAGE):
        parts.append(_discord_prose(markdown[pos:start], literal))
        code = body.replace(ZWSP, "")
        blocks.append(code)
        parts.append(literal.hide(code))
        pos = end
    parts.append(_discord_prose(markdown[pos:], literal))
    text = "".join(parts)
    for rule, repl in _DISCORD_LINE_RULES:
        text = rule.sub(repl, text)
    return Reading(literal.restore(_unformat(text, _DISCORD_INLINE_RULES)), tuple(blocks))


# ---- Slack -----------------------------------------------------------------------------------------

_SLACK_ENTITIES = (("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&"))
_SLACK_LINK = re.compile(r"<([^<>|]*)(?:\|([^<>]*))?>")
# a pair of marks around non-blank text, the first not after a letter or digit, the last not before one
_SLACK_MARKS = [re.compile(rf"(?<![0-9A-Za-z]){m}(?=\S)([^\n]+?)(?<=\S){m}(?![0-9A-Za-z])") for m in (r"\*", "_", "~")]


def _entities(text: str) -> str:
    for entity, ch in _SLACK_ENTITIES:
        text = text.replace(entity, ch)
    return text


def _slack_prose(text: str, literal: _Literal) -> str:
    out = []
    i = 0
    while i < len(text):
        if text[i] == "`" and (span := _inline_code(text, i)) is not None:
            out.append(literal.hide(_entities(span[0]).replace(ZWSP, "")))
            i = span[1]
        else:
            out.append(text[i])
            i += 1
    prose = "".join(out)
    prose = _SLACK_LINK.sub(lambda m: m.group(2) if m.group(2) is not None else m.group(1), prose)
    prose = re.sub(r"^>\s?", "", prose, flags=re.M)  # a quote
    return _entities(_unformat(prose, _SLACK_MARKS))


def read_slack(mrkdwn: str) -> Reading:
    """A Slack mrkdwn text (a section, a context element, a fallback) as a person reads it."""
    literal = _Literal()
    parts: list[str] = []
    blocks: list[str] = []
    pos = 0
    for start, end, body in _fences(mrkdwn, re.compile(r"\n")):
        parts.append(_slack_prose(mrkdwn[pos:start], literal))
        code = _entities(body).replace(ZWSP, "")
        blocks.append(code)
        parts.append(literal.hide(code))
        pos = end
    parts.append(_slack_prose(mrkdwn[pos:], literal))
    return Reading(literal.restore("".join(parts)), tuple(blocks))
