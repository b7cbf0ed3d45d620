"""How a message repeats what someone typed: short, on one line, clipped with an ellipsis.

Every core error that quotes user input goes through `echo`, so a 6,000-character option can never make a
reply longer than the platforms accept (Discord: 2,000 characters of content)."""

from __future__ import annotations

import re

ECHO_MAX = 100  # characters of the offending value a message repeats


_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029\ud800-\udfff]+")  # and lone surrogates (no UTF-8 for them)


def one_line(text: str) -> str:
    """Typed words as one line: control characters (a NUL, which PostgreSQL refuses in text) and runs of
    whitespace become one space, trimmed."""
    return " ".join(_CONTROL.sub(" ", text).split())


def echo(text: object, limit: int = ECHO_MAX) -> str:
    """`text` as a message may quote it: control characters and line breaks as one space, at most `limit`
    characters (the last one an ellipsis when it was longer)."""
    flat = _CONTROL.sub(" ", str(text))
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
