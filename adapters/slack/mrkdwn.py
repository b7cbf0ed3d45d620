"""Slack mrkdwn that shows text as it was written.

Slack has no backslash escape: `&`, `<` and `>` become entities (so `<!channel>` or `<s>` never act), and
a word that starts or ends with `_`, `*` or `~` outside a code span (`__getitem__`, `*args`) is set as inline
code so it is not turned into italics, bold or strike-through. Code blocks survive code that contains
backticks, and clipping never cuts an entity in half or leaves a code block open.
"""

from __future__ import annotations

import re

_ENTITY = re.compile(r"&(?:amp|lt|gt);")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
_MARKED_WORD = re.compile(r"(?<!\S)([(\[\"']*)([^\s`]*[_*~][^\s`]*)")
_TRAILING = ",.;:!?)]\"'"
ZWSP = "\u200b"


def entities(text: str) -> str:
    """&, < and > as the entities Slack requires."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _quiet_word(match: re.Match[str]) -> str:
    lead, word = match.group(1), match.group(2)
    core = word.rstrip(_TRAILING)
    tail = word[len(core) :]
    if core and (core[0] in "_*~" or core[-1] in "_*~"):
        return f"{lead}`{core}`{tail}"
    return match.group(0)


def escape(text: str) -> str:
    """Prose for a mrkdwn field: entities everywhere, marked words outside code spans set as code."""
    parts: list[str] = []
    last = 0
    for span in _CODE_SPAN.finditer(text):
        parts.append(_MARKED_WORD.sub(_quiet_word, text[last : span.start()]))
        parts.append(span.group(0))
        last = span.end()
    parts.append(_MARKED_WORD.sub(_quiet_word, text[last:]))
    return entities("".join(parts))


def code_block(code: str) -> str:
    """A fenced block whose fence no run of backticks in the code can close."""
    return "```\n" + re.sub(r"`(?=`)", "`" + ZWSP, entities(code)) + "\n```"


def _head(text: str, n: int) -> str:
    """The first n characters, shortened so that no entity is cut in half."""
    head = text[:n]
    amp = head.rfind("&")
    if amp != -1:
        entity = _ENTITY.match(text, amp)
        if entity is not None and entity.end() > n:
            return head[:amp]
    return head


def clip(text: str, limit: int) -> str:
    """At most `limit` characters, ending in an ellipsis; never half an entity, never an open code block."""
    if len(text) <= limit:
        return text
    room = limit - 1
    for _ in range(3):
        head = _head(text, room)
        closing = "\n```" if head.count("```") % 2 else ""
        if len(head) + 1 + len(closing) <= limit:
            return head + "…" + closing
        room = limit - 1 - len(closing)
    return _head(text, limit - 1 - 4) + "…"  # unreachable in practice: parity settled above
