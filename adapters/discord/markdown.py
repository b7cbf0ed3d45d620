"""Discord markdown that shows text as it was written: prose is escaped with discord.py's own
`escape_markdown` outside inline code spans (so `__getitem__` is not underlined), and code blocks survive
code that contains backticks."""

from __future__ import annotations

import re

from discord.utils import escape_markdown, escape_mentions

_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
ZWSP = "\u200b"


def escape(text: str) -> str:
    """Markdown characters escaped everywhere except inside `code spans`, which keep their text."""
    parts: list[str] = []
    last = 0
    for span in _CODE_SPAN.finditer(text):
        parts.append(escape_markdown(text[last : span.start()]))
        parts.append(span.group(0))
        last = span.end()
    parts.append(escape_markdown(text[last:]))
    return "".join(parts)


def code_block(code: str, language: str = "python") -> str:
    """A fenced block whose fence no run of backticks in the code can close."""
    return f"```{language}\n" + re.sub(r"`(?=`)", "`" + ZWSP, code) + "\n```"


def plain(text: str) -> str:
    """A member's own words (a report's text): markdown escaped and no mention that could resolve
    (@everyone, @here, <@id>, <@&id> get a zero-width space after the @), whatever allowed_mentions says."""
    return escape_mentions(escape(text))
