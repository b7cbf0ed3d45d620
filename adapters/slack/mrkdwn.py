"""Slack mrkdwn that shows text as it was written.

Slack has no backslash escape: `&`, `<` and `>` become entities (so `<!channel>` or `<s>` never act), and
a word that starts or ends with `_`, `*` or `~`, or has one next to punctuation, outside a code span
(`__getitem__`, `*args`, `Module.__init__()`) is set as inline code so it is not turned into italics, bold or
strike-through. Code blocks survive code that contains backticks, and clipping never cuts an entity or an
inline code span in half or leaves a code block open.
"""

from __future__ import annotations

import re

_ENTITY = re.compile(r"&(?:amp|lt|gt);")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
_MARKED_WORD = re.compile(r"(?<!\S)([(\[\"']*)([^\s`]*[_*~][^\s`]*)")
_TRAILING = ",.;:!?)]\"'"
_EDGE_MARK = re.compile(r"[^0-9A-Za-z_*~][_*~]|[_*~][^0-9A-Za-z_*~]")  # a mark next to punctuation: `m.__init__()`
ZWSP = "\u200b"


def entities(text: str) -> str:
    """&, < and > as the entities Slack requires."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _quiet_word(match: re.Match[str]) -> str:
    lead, word = match.group(1), match.group(2)
    core = word.rstrip(_TRAILING)
    while core.count("(") > core.count(")") and word[len(core) : len(core) + 1] == ")":  # a call: f()
        core = word[: len(core) + 1]
    tail = word[len(core) :]
    if core and (core[0] in "_*~" or core[-1] in "_*~" or _EDGE_MARK.search(core)):
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


def _open_span(head: str) -> int | None:
    """Where an inline code span left open in `head` starts (outside code blocks), or None."""
    outside = re.sub(r"```.*?```", lambda m: " " * len(m.group(0)), head, flags=re.S)
    if "```" in outside:  # an open code block: clip closes it
        outside = outside[: outside.index("```")]
    ticks = [m.start() for m in re.finditer("`", outside)]
    return ticks[-1] if len(ticks) % 2 else None


def clip(text: str, limit: int) -> str:
    """At most `limit` characters, ending in an ellipsis; never half an entity, never an open code block, and
    never half an inline code span (its opening backtick would show)."""
    if len(text) <= limit:
        return text
    room = limit - 1
    for _ in range(3):
        head = _head(text, room)
        cut = _open_span(head)
        head = head if cut is None else head[:cut]
        closing = "\n```" if head.count("```") % 2 else ""
        if len(head) + 1 + len(closing) <= limit:
            return head + "…" + closing
        room = limit - 1 - len(closing)
    return _head(text, limit - 1 - 4) + "…"  # unreachable in practice: parity settled above
