"""Cells of the files the bot writes that a spreadsheet may open (a pack's CSV, a learner's misses CSV and
Anki file): a cell a spreadsheet would read as a formula is written as text instead.

A cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading apostrophe (OWASP's
advice for CSV injection); so does one that starts with apostrophes followed by such a character, so that
`read_cell` can take back exactly the apostrophe `safe_cell` added: importing an exported pack gives back
the same text, even a text that really starts with `'=`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

FORMULA_START = "=+-@\t\r"  # what a spreadsheet may take as the start of a formula
_WRITTEN = re.compile(r"'*[=+\-@\t\r]")  # a cell safe_cell prefixes with an apostrophe
_READ = re.compile(r"'+[=+\-@\t\r]")  # a cell safe_cell wrote (read_cell drops its first apostrophe)


def safe_cell(text: str, *, html: bool = False) -> str:
    """The text as a spreadsheet-safe cell: a leading apostrophe where a formula could start. `html`: the
    cell is HTML (Anki's text import with HTML on, which would show an apostrophe): the first character is
    written as its character reference instead, which Anki shows unchanged."""
    if html:
        return f"&#{ord(text[0])};{text[1:]}" if text[:1] and text[0] in FORMULA_START else text
    return "'" + text if _WRITTEN.match(text) else text


def read_cell(cell: str) -> str:
    """The text safe_cell was given: the one apostrophe it added is taken off (nothing else changes)."""
    return cell[1:] if _READ.match(cell) else cell


def safe_row(values: Iterable[object]) -> list[object]:
    """A row for csv.writer: each text through safe_cell (numbers stay numbers)."""
    return [safe_cell(v) if isinstance(v, str) else v for v in values]
