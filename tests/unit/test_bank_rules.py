"""Schema rules of issue 14 ("Bad input"): why_wrong, the code cap, seed words in player-facing text and
verify-or-checked_by. Each problem names file, question and field. Rules the shipped content does not pass yet
sit behind module switches in bot.bank.load; these tests switch them on."""

from __future__ import annotations

from pathlib import Path

import pytest

import bot.bank.load as bank
from bot.bank.load import validate

QUESTION = """\
  - id: {qid}
    topic: tensors
    difficulty: easy
    prompt: Which of these is the right answer here?
    choices: [one, two, three, four]
    answer: B
    explanation: Two is right because the docs say so; one is the usual slip.
    reference: https://docs.pytorch.org/docs/stable/tensors.html
    source: original
    why_wrong:
      A: One is what you get when you count from zero, which is not the rule.
      C: Three is one too many; the docs count two here and nothing more.
      D: Four doubles the right number, as if each item were counted twice.
    checked_by: https://docs.pytorch.org/docs/stable/tensors.html
"""


def check(tmp_path: Path, body: str, qid: str = "t-rule") -> list[str]:
    path = tmp_path / "tensors.yaml"
    path.write_text("topic: tensors\nquestions:\n" + body)
    entries, problems = validate(path)
    assert (entries == []) == bool(problems), "a file with problems contributes nothing"
    where = f"{path}: question {qid}: "
    assert all(p.startswith(where) for p in problems), problems
    return [p[len(where) :] for p in problems]


def good(qid: str = "t-rule") -> str:
    return QUESTION.format(qid=qid)


def test_a_good_question_passes_every_rule_switched_on(tmp_path, monkeypatch):
    for switch in ("REQUIRE_WHY_WRONG", "REJECT_SEED_WORDS", "REQUIRE_CHECK", "REJECT_NEAR_COPIES"):
        monkeypatch.setattr(bank, switch, True)
    assert check(tmp_path, good()) == []
    entries, _ = validate(tmp_path / "tensors.yaml")
    assert entries[0].checked_by == "https://docs.pytorch.org/docs/stable/tensors.html"
    assert entries[0].question.why_wrong[1] == "" and entries[0].question.why_wrong[0].startswith("One is")


# ---- why_wrong ----------------------------------------------------------------------------------


def test_missing_why_wrong_is_named_only_when_required(tmp_path, monkeypatch):
    body = good().split("    why_wrong:\n")[0] + "    checked_by: https://docs.pytorch.org/docs/stable/tensors.html\n"
    monkeypatch.setattr(bank, "REQUIRE_WHY_WRONG", False)
    assert check(tmp_path, body) == []
    monkeypatch.setattr(bank, "REQUIRE_WHY_WRONG", True)
    assert check(tmp_path, body) == [
        "field why_wrong: missing: one sentence (20-200 characters) for each wrong choice A, C, D"
    ]


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "      C: Three is one too many; the docs count two here and nothing more.\n",
            "",
            "field why_wrong.C: missing: the entry for wrong choice C",
        ),
        (
            "Three is one too many; the docs count two here and nothing more.",
            "Too many.",
            "field why_wrong.C: too short: 9 characters, at least 20",
        ),
        (
            "Three is one too many; the docs count two here and nothing more.",
            "Three " + "and more " * 30,
            "field why_wrong.C: too long: 275 characters, at most 200",
        ),
        (
            "      D: Four",
            "      B: The answer has no why_wrong entry at all.\n      D: Four",
            "field why_wrong.B: B is the answer: why_wrong covers only the wrong choices A, C, D",
        ),
    ],
)
def test_a_bad_why_wrong_entry_is_named_with_its_letter(tmp_path, old, new, expected):
    body = good()
    assert old in body
    assert check(tmp_path, body.replace(old, new)) == [expected]


def test_why_wrong_spacing_is_normalised_before_it_is_measured(tmp_path):
    body = (
        good()
        .replace("Too", "Too")
        .replace(
            "Three is one too many; the docs count two here and nothing more.",
            "Three   is\n        too  many.",
        )
    )
    assert check(tmp_path, body) == ["field why_wrong.C: too short: 18 characters, at least 20"]


def test_why_wrong_with_an_unknown_letter_or_not_text_is_named(tmp_path):
    assert any(
        p.startswith("field why_wrong.E") for p in check(tmp_path, good().replace("      D: Four", "      E: Four"))
    )
    listed = good().replace(
        "      A: One is what you get when you count from zero, which is not the rule.", "      A: [not, a, sentence]"
    )
    assert any(p.startswith("field why_wrong.A") for p in check(tmp_path, listed))


# ---- the code cap -------------------------------------------------------------------------------


def with_code(code: str) -> str:
    block = "".join(f"      {line}\n" for line in code.splitlines())
    return good().replace("    choices:", "    code: |\n" + block + "    choices:")


def test_code_of_30_lines_and_1200_characters_fits(tmp_path):
    lines = [f"x{i} = {i}" for i in range(30)]
    lines[0] = "x0 = '" + "a" * (1200 - len("\n".join(lines[1:])) - 1 - 7) + "'"
    code = "\n".join(lines)
    assert len(code) == 1200
    assert check(tmp_path, with_code(code)) == []


def test_code_over_30_lines_is_named(tmp_path):
    code = "\n".join(f"x{i} = {i}" for i in range(31))
    assert check(tmp_path, with_code(code)) == ["field code: too long: 31 lines, at most 30 (it must fit a card)"]


def test_code_over_1200_characters_is_named(tmp_path):
    code = "\n".join(["s = '" + "a" * 1300 + "'", "print(s)"])
    assert check(tmp_path, with_code(code)) == [
        "field code: too long: 1,315 characters, at most 1,200 (it must fit a card)"
    ]


# ---- seed words ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ("prompt: Which of these", "prompt: As the seed says, which of these", "prompt"),
        ("[one, two, three, four]", "[one, two, three, four seeds]", "choices.D"),
        ("explanation: Two is right", "explanation: Unlike one Seed article, two is right", "explanation"),
        ("      A: One is what you get", "      A: The seeds say one, which is what you get", "why_wrong.A"),
    ],
)
def test_seed_words_in_player_facing_text_are_named(tmp_path, monkeypatch, old, new, field):
    body = good().replace(old, new)
    monkeypatch.setattr(bank, "REJECT_SEED_WORDS", False)
    assert check(tmp_path, body) == [], "reported only with the switch on"
    monkeypatch.setattr(bank, "REJECT_SEED_WORDS", True)
    problems = check(tmp_path, body)
    assert len(problems) == 1 and problems[0].startswith(f"field {field}: says "), problems
    assert "seed" in problems[0].lower() and "'a common claim'" in problems[0]


def test_seed_as_a_code_identifier_or_inside_a_word_is_allowed(tmp_path, monkeypatch):
    monkeypatch.setattr(bank, "REJECT_SEED_WORDS", True)
    body = good().replace(
        "explanation: Two is right",
        "explanation: With `torch.manual_seed(0)` and `seed` of the sampler, seeding aside, two is right",
    )
    assert check(tmp_path, body) == []
    body = with_code("import torch\ntorch.manual_seed(0)  # a seed for the demo")
    assert check(tmp_path, body) == [], "the code block is not prose"


# ---- verify or checked_by -----------------------------------------------------------------------


def test_a_question_without_verify_needs_checked_by_when_required(tmp_path, monkeypatch):
    unchecked = good().replace("    checked_by: https://docs.pytorch.org/docs/stable/tensors.html\n", "")
    monkeypatch.setattr(bank, "REQUIRE_CHECK", False)
    assert check(tmp_path, unchecked) == []
    monkeypatch.setattr(bank, "REQUIRE_CHECK", True)
    assert check(tmp_path, unchecked) == [
        "field checked_by: missing: a question without a verify block names the docs page that settles it in checked_by"
    ]
    verified = unchecked + "    verify:\n      code: result = 2\n      expect:\n        value: 2\n"
    assert check(tmp_path, verified) == []


def test_checked_by_must_be_an_https_url(tmp_path):
    problems = check(
        tmp_path,
        good().replace("checked_by: https://docs.pytorch.org/docs/stable/tensors.html", "checked_by: the docs"),
    )
    assert len(problems) == 1 and problems[0].startswith("field checked_by: String should match pattern")
