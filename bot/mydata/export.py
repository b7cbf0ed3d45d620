"""A learner's misses as files: a CSV (every detail, one row per missed question) and an Anki-importable TSV
(exactly two fields per line: front = prompt, code and choices; back = answer, explanation and reference).

Pure: the service reads the misses (Store.learner_misses) and the questions, this module lays them out.
"""

from __future__ import annotations

import csv
import datetime as dt
import html
import io
from collections.abc import Sequence
from dataclasses import dataclass

from bot.kernel.spreadsheet import safe_cell, safe_row
from bot.kernel.values import LETTERS, Question, RoundKind
from bot.packs.files import CSV_COLUMNS as PACK_COLUMNS

NOTHING_TO_EXPORT = (
    "Nothing to export yet: you have no missed questions here. Questions you answer wrong (daily, practice "
    "or review) show up in your export once their answer is revealed."
)


# the question's columns as a pack's CSV has them (topic .. choice_d), then the learner's own
CSV_COLUMNS = (
    "question_id",
    *PACK_COLUMNS[PACK_COLUMNS.index("topic") : PACK_COLUMNS.index("choice_d") + 1],
    "correct_answer",
    "last_answer",
    "last_result",
    "last_answered_at",
    "last_kind",
    "misses",
    "attempts",
    "explanation",
    "reference",
)


ANKI_HEADER = "#separator:tab\n#html:true\n"


@dataclass(frozen=True)
class Miss:
    """A question one learner answered wrong at least once in a space (revealed rounds only), with their
    most recent attempt at it."""

    question_id: str
    topic: str
    round_id: int  # the most recent attempt's round (it holds the text a pack question was asked with)
    kind: RoundKind  # of that attempt
    attempts: int
    misses: int
    last_answered_at: dt.datetime
    last_choice: int
    last_correct: bool


@dataclass(frozen=True)
class ExportFile:
    name: str
    data: bytes
    mime: str


@dataclass(frozen=True)
class MissesExport:
    """What `/quiz export` delivers privately: a short note and the two files."""

    text: str
    files: tuple[ExportFile, ...]
    count: int


def _letter(index: int) -> str:
    return LETTERS[index] if 0 <= index < len(LETTERS) else "?"


def misses_csv(items: Sequence[tuple[Miss, Question]]) -> bytes:
    """One row per missed question, most recent attempt first; UTF-8 with a BOM (spreadsheets read it); a cell
    a spreadsheet would take as a formula starts with an apostrophe."""
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for miss, q in items:
        choices = [*q.choices, "", "", "", ""][:4]
        writer.writerow(
            safe_row(
                [
                    q.id,
                    q.topic,
                    q.difficulty.value,
                    q.prompt,
                    q.code or "",
                    *choices,
                    q.answer_letter,
                    _letter(miss.last_choice),
                    "right" if miss.last_correct else "wrong",
                    miss.last_answered_at.astimezone(dt.UTC).isoformat(timespec="seconds"),
                    miss.kind.value,
                    miss.misses,
                    miss.attempts,
                    q.explanation,
                    q.reference,
                ]
            )
        )
    return ("\ufeff" + out.getvalue()).encode()


def anki_field(text: str) -> str:
    """Text as one Anki field with HTML on: escaped, newlines as <br>, no tab or newline left in it."""
    escaped = html.escape(text.replace("\r\n", "\n").replace("\r", "\n"), quote=True)
    return escaped.replace("\t", "    ").replace("\n", "<br>")


def anki_front(q: Question) -> str:
    parts = [anki_field(q.prompt)]
    if q.code:
        parts.append(f"<pre><code>{anki_field(q.code)}</code></pre>")
    lettered = zip(LETTERS, q.choices, strict=False)
    parts.append("<br>".join(f"{letter}) {anki_field(choice)}" for letter, choice in lettered))
    return "<br><br>".join(parts)


def anki_back(q: Question) -> str:
    parts = [f"<b>{q.answer_letter}) {anki_field(q.choices[q.answer])}</b>", anki_field(q.explanation)]
    if q.reference:
        parts.append("Reference: " + anki_field(q.reference))
    return "<br><br>".join(p for p in parts if p)


def misses_anki(items: Sequence[tuple[Miss, Question]]) -> bytes:
    """Anki's text import: `#separator:tab` and `#html:true` headers, then front<TAB>back per question (a field
    a spreadsheet would take as a formula starts with a character reference instead, shown unchanged by Anki)."""
    lines = [f"{safe_cell(anki_front(q), html=True)}\t{safe_cell(anki_back(q), html=True)}" for _miss, q in items]
    return (ANKI_HEADER + "".join(line + "\n" for line in lines)).encode()


def build_export(items: Sequence[tuple[Miss, Question]], today: dt.date) -> MissesExport:
    """Both files of a learner's misses (the caller has checked there is at least one)."""
    stem = f"studybot-misses-{today:%Y-%m-%d}"
    files = (
        ExportFile(f"{stem}.csv", misses_csv(items), "text/csv"),
        ExportFile(f"{stem}-anki.tsv", misses_anki(items), "text/tab-separated-values"),
    )
    n = len(items)
    text = (
        f"Your {n} missed question{'s' if n != 1 else ''}: a CSV with every detail, and an Anki deck "
        "(in Anki: File > Import, then pick the .tsv file; it is tab-separated with HTML)."
    )
    return MissesExport(text, files, n)
