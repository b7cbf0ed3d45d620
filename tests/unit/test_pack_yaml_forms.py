"""Issue 28: a first YAML pack as people write it: a top-level `topic` for its questions, choices as a mapping
`A: ... D:`; and the example pack of docs/packs.md (YAML and CSV) imports as shown."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest

from bot.kernel.errors import PackError
from bot.kernel.values import Actor
from bot.packs.catalog import PackCatalog
from bot.packs.files import canonical, parse_pack
from tests.support.fakes import make_bank
from tests.support.memory_store import InMemoryStore

ROOT = Path(__file__).resolve().parents[2]
T0 = dt.datetime(2026, 12, 1, 8, 0, tzinfo=dt.UTC)
ADMIN = Actor("admin", is_admin=True)

FIRST_PACK = """\
topic: Team-Lore
questions:
  - id: lore-1
    difficulty: easy
    prompt: Which year was the team's first release?
    choices:
      A: "2019"
      B: "2020"
      C: "2021"
      D: "2022"
    answer: B
    explanation: The changelog's first entry is dated 2020, the year of 0.1.
    reference: https://example.org/changelog
  - id: lore-2
    topic: history
    difficulty: medium
    prompt: Who wrote the first version of the bot?
    choices: [Ada, Bob, Cy, Dee]
    answer: C
    explanation: Cy wrote it over a long weekend, as the first commit shows.
    reference: https://example.org/history
"""


def problems_of(text: str) -> list[str]:
    with pytest.raises(PackError) as info:
        parse_pack(text.encode(), "yaml", "first.yaml")
    return info.value.problems or [info.value.message]


def test_a_top_level_topic_and_lettered_choices_import() -> None:
    first, second = parse_pack(FIRST_PACK.encode(), "yaml", "first.yaml")
    assert (first.topic, first.choices, first.answer) == ("team-lore", ["2019", "2020", "2021", "2022"], "B")
    assert (second.topic, second.choices, second.answer) == ("history", ["Ada", "Bob", "Cy", "Dee"], "C")
    assert canonical(first)["choices"] == ["2019", "2020", "2021", "2022"]  # stored and exported as a list


@pytest.mark.parametrize(
    ("choices", "found"),
    [
        ("{A: x1, B: x2, D: x4}", "A, B, D"),
        ("{A: x1, B: x2, D: x4, C: x3}", "A, B, D, C"),
        ("{a: x1, b: x2, c: x3, d: x4}", "a, b, c, d"),
        ("{A: x1, B: x2, C: x3, D: x4, E: x5}", "A, B, C, D, E"),
        ("{}", "none"),
    ],
)
def test_lettered_choices_take_exactly_a_to_d_in_order(choices: str, found: str) -> None:
    text = FIRST_PACK.replace("choices: [Ada, Bob, Cy, Dee]", f"choices: {choices}")
    [problem] = problems_of(text)
    assert problem == (
        "first.yaml: question lore-2: field choices: Value error, choices written as a mapping take exactly the "
        f"letters A, B, C, D, in that order (found {found})"
    )


def test_a_lettered_choice_must_be_text() -> None:
    [problem] = problems_of(FIRST_PACK.replace('A: "2019"', "A: 2019"))
    assert problem.endswith(
        'field choices: Value error, choice A must be text; put it in quotes, for example A: "2019"'
    )


def test_an_answer_outside_the_letters_is_named() -> None:
    [problem] = problems_of(FIRST_PACK.replace("answer: B", "answer: E"))
    assert problem.startswith("first.yaml: question lore-1: field answer: Input should be 'A', 'B', 'C' or 'D'")


def test_a_bad_top_level_topic_is_one_problem() -> None:
    assert problems_of(FIRST_PACK.replace("topic: Team-Lore", "topic: team lore!")) == [
        "first.yaml: field topic: the top-level topic must be 1-40 letters, digits and - (found 'team lore!')"
    ]
    assert problems_of(FIRST_PACK.replace("topic: Team-Lore", "topic:")) == [
        "first.yaml: field topic: the top-level topic must be 1-40 letters, digits and - (found nothing)"
    ]


def test_without_a_top_level_topic_each_question_needs_its_own() -> None:
    [problem] = problems_of(FIRST_PACK.replace("topic: Team-Lore\n", ""))
    assert problem == "first.yaml: question lore-1: field topic: Field required"


# ---- the example pack of docs/packs.md ------------------------------------------------------------------


def doc_block(language: str) -> str:
    text = (ROOT / "docs" / "packs.md").read_text(encoding="utf-8")
    section = text[text.index("### A first pack") :]
    [block] = re.findall(rf"^```{language}\n(.*?)^```$", section, flags=re.S | re.M)
    return block


async def test_the_example_pack_in_docs_imports_in_yaml_and_in_csv() -> None:
    store = InMemoryStore()
    await store.open()
    catalog = PackCatalog(store, make_bank())
    yaml_done = await catalog.import_pack(
        ADMIN, "x", "s", "onboarding", doc_block("yaml").encode(), "yaml", now=T0, label="onboarding.yaml"
    )
    csv_done = await catalog.import_pack(
        ADMIN, "x", "s", "onboarding-csv", doc_block("csv").encode(), "csv", now=T0, label="onboarding.csv"
    )
    assert (yaml_done.questions, csv_done.questions) == (2, 2)
    from_yaml = [json.loads(b) for _, b in await store.pack_questions("x", "s", "onboarding")]
    from_csv = [json.loads(b) for _, b in await store.pack_questions("x", "s", "onboarding-csv")]
    assert from_yaml[0].pop("why_wrong") == {"A": "Lint checks style and types; it runs no test."}
    assert from_yaml == from_csv  # the same two questions (CSV has no why_wrong)
    assert [q["topic"] for q in from_yaml] == ["onboarding", "onboarding"]
    assert from_yaml[1]["choices"] == ["1", "3", "[3]", "an IndexError"] and from_yaml[1]["code"].startswith("x = [")
    await store.close()
