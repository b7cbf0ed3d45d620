"""Issue 28: no CSV the bot writes carries a spreadsheet formula (a pack's CSV export, a learner's misses CSV and
Anki file), and an exported pack imports back to exactly the same questions."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import random
from dataclasses import replace

import pytest
import yaml

from bot.app.bootstrap import bootstrap
from bot.bank.load import Bank
from bot.kernel.spreadsheet import FORMULA_START, read_cell, safe_cell
from bot.kernel.values import Actor
from bot.mydata.export import MissesExport
from bot.packs.catalog import PackCatalog
from bot.packs.files import CSV_COLUMNS
from bot.suggestions.service import SuggestionForm
from bot.text.commands import parse_quiz
from bot.text.runner import run_command
from tests.support.fakes import REF, FakePlatform, FixedClock, make_bank, make_question
from tests.support.memory_store import InMemoryStore

T0 = dt.datetime(2026, 12, 7, 9, 0, tzinfo=dt.UTC)
ADMIN = Actor("admin", is_admin=True)
HOSTILE = ('=HYPERLINK("https://evil.example","x")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A2)")
STARTS = ("=", "+", "-", "@", "\t", "\r")


def formula_like(cell: str) -> bool:
    return cell[:1] != "" and cell[0] in FORMULA_START


# ---- the one helper ------------------------------------------------------------------------------


@pytest.mark.parametrize("start", STARTS)
def test_a_cell_starting_with_a_formula_character_gets_one_apostrophe_and_reads_back(start: str) -> None:
    text = f"{start}cmd|' /C calc'!A0"
    assert safe_cell(text) == "'" + text
    assert read_cell(safe_cell(text)) == text


@pytest.mark.parametrize(
    "text",
    ["'=SUM(A1)", "''+1", "'@x", "'", "''", "it's = fine", "'plain", "", "plain", "=", "'\t", " =x", "\u00a0=x"],
)
def test_written_then_read_is_the_same_text_even_with_leading_apostrophes(text: str) -> None:
    written = safe_cell(text)
    assert read_cell(written) == text
    if text.lstrip("'")[:1] in tuple(FORMULA_START):  # a real apostrophe before = stays one the import keeps
        assert written == "'" + text
    else:
        assert written == text


def test_an_html_field_starts_with_a_character_reference_instead() -> None:
    assert safe_cell("=HYPERLINK(1)", html=True) == "&#61;HYPERLINK(1)"
    assert safe_cell("@x", html=True) == "&#64;x"
    assert safe_cell("plain", html=True) == "plain" and safe_cell("", html=True) == ""


# ---- a pack: imported, exported as CSV, imported again ---------------------------------------------------


def hostile_yaml() -> bytes:
    """One question per starting text: its prompt, a choice, the explanation and the code start with it."""
    questions = []
    texts = [*HOSTILE, "'=already an apostrophe", "''+two of them", "'just quoted", "\t=tab first", "\r+cr first"]
    for i, head in enumerate(texts):
        questions.append(
            {
                "id": f"odd-{i}",
                "topic": "lore",
                "difficulty": "easy",
                "prompt": f"{head} is this prompt number {i}?",
                "code": f"{head}\nprint({i})",
                "choices": [f"{head} one", "two", "three", f"-{i}"],
                "answer": "B",
                "explanation": f"{head}: an explanation long enough for the rule.",
                "reference": "https://example.org/x",
            }
        )
    return yaml.safe_dump({"questions": questions}, allow_unicode=True).encode()


async def test_an_imported_pack_exports_no_formula_and_imports_back_the_same() -> None:
    store = InMemoryStore()
    await store.open()
    catalog = PackCatalog(store, make_bank())
    await catalog.import_pack(ADMIN, "fake", "space-1", "odd", hostile_yaml(), "yaml", now=T0)
    before = await store.pack_questions("fake", "space-1", "odd")
    prompts = [json.loads(body)["prompt"] for _, body in before]
    assert prompts[4].startswith("'=already") and prompts[7].startswith("=tab first")  # YAML strips the tab

    out = await catalog.export_pack(ADMIN, "fake", "space-1", "odd", "csv")
    rows = list(csv.reader(io.StringIO(out.decode(), newline="")))
    assert rows[0] == list(CSV_COLUMNS)
    assert [c for row in rows[1:] for c in row if formula_like(c)] == []
    by_id = {row[0]: dict(zip(CSV_COLUMNS, row, strict=True)) for row in rows[1:]}
    assert by_id["odd-0"]["prompt"].startswith("'=HYPERLINK(")
    assert by_id["odd-4"]["prompt"].startswith("''=already")  # one apostrophe more, taken off on import
    assert by_id["odd-6"]["prompt"].startswith("'just quoted")  # nothing to neutralise: as it was
    assert by_id["odd-0"]["choice_d"] == "'-0"

    await catalog.import_pack(ADMIN, "fake", "space-1", "again", out, "csv", now=T0)
    assert await store.pack_questions("fake", "space-1", "again") == before
    assert await catalog.export_pack(ADMIN, "fake", "space-1", "again", "csv") == out
    await store.close()


async def test_an_approved_suggestion_starting_with_a_formula_exports_as_text_and_imports_back() -> None:
    store = InMemoryStore()
    await store.open()
    service = bootstrap(store, make_bank(), FixedClock(T0), {"fake": FakePlatform()}, rng=random.Random(1))
    for i, head in enumerate(HOSTILE):
        form = SuggestionForm(
            topic="team-lore",
            prompt=f"{head} what does this cell do, number {i}?",
            choices=(f"{head}", "nothing", "a sum", "a link"),
            answer="A",
            explanation=f"{head} would run in a spreadsheet that opened it raw.",
        )
        s = await service.suggestions.suggest(REF, f"member-{i}", form)
        await service.suggestions.approve(ADMIN, "fake", "space-1", s.id)
    before = await store.pack_questions("fake", "space-1", "suggestions")
    out = (await service.packs.export_pack(ADMIN, REF, "suggestions", "csv")).data
    cells = [c for row in csv.reader(io.StringIO(out.decode(), newline="")) for c in row]
    assert [c for c in cells if formula_like(c)] == []
    assert sum(c.startswith("'=HYPERLINK") for c in cells) == 3  # prompt, choice A and explanation
    await service.catalog.import_pack(ADMIN, "fake", "space-1", "copy", out, "csv", now=T0)
    assert await store.pack_questions("fake", "space-1", "copy") == before
    await service.close()
    await store.close()


# ---- a learner's misses -------------------------------------------------------------------------------


async def test_a_learners_misses_csv_and_anki_file_carry_no_formula() -> None:
    hostile = replace(
        make_question("tensors-evil", answer=1),
        prompt='=HYPERLINK("https://evil.example","click")',
        code="@decorated\ndef f(): ...",
        choices=("+1", "-1", "@x", "=1+1"),
        explanation="-1 is right: the cell would compute it.",
        reference="https://docs.pytorch.org/docs/stable/index.html",
    )
    store = InMemoryStore()
    await store.open()
    service = bootstrap(store, Bank((hostile,)), FixedClock(T0), {"fake": FakePlatform()}, rng=random.Random(1))
    card = await service.practice.practice_round(REF, "ada", hostile)
    await service.answers.submit_answer(card.round_id, "ada", 0)  # wrong

    class Source:
        user_id, ref = "ada", REF

        def person(self, raw: str | None) -> str:
            return raw or "ada"

        def channel(self, raw: str):
            return REF

        async def actor(self, target):
            return Actor("ada", False)

    export = await run_command(service, Source(), parse_quiz("/quiz export"))
    assert isinstance(export, MissesExport)
    csv_file, anki_file = export.files
    rows = list(csv.reader(io.StringIO(csv_file.data.decode("utf-8-sig"), newline="")))
    assert [c for row in rows for c in row if formula_like(c)] == []
    row = dict(zip(rows[0], rows[1], strict=True))
    assert row["prompt"] == "'" + hostile.prompt and row["code"] == "'@decorated\ndef f(): ..."
    assert [row[f"choice_{x}"] for x in "abcd"] == ["'+1", "'-1", "'@x", "'=1+1"]
    assert row["explanation"] == "'" + hostile.explanation

    lines = [line.split("\t") for line in anki_file.data.decode().splitlines() if not line.startswith("#")]
    assert [f for fields in lines for f in fields if formula_like(f)] == []
    [(front, back)] = lines
    assert front.startswith("&#61;HYPERLINK(")  # Anki shows "=HYPERLINK(", a spreadsheet no formula
    assert back.startswith("<b>B) -1</b>")
    await service.close()
    await store.close()
