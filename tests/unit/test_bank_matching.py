"""How a verify block's observed output is matched against the choices (the discrimination test's rules)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.bank.load import LoadedQuestion, VerifyExpect, VerifySpec
from bot.bank.verify import discrimination_problem, expect_kind, matching_choices, stated_output
from bot.kernel.values import Difficulty, Question


@pytest.mark.parametrize(
    ("choice", "stated"),
    [
        ("`torch.Size([2, 3])`", "torch.Size([2, 3])"),
        ("True 1.0, then False 0.9", "True 1.0 False 0.9"),
        ("True, because the dict holds references", "True"),
        ("False; it copies", "False"),
        ("tensor([0.5000,   1.0000])", "tensor([0.5000, 1.0000])"),
        ("Nothing: it raises", "Nothing"),
    ],
)
def test_stated_output(choice, stated):
    assert stated_output(choice) == stated


@pytest.mark.parametrize(
    ("kind", "observed", "choices", "expected"),
    [
        ("prints", "tensor([0.8413,  1.9545])", ("tensor([0.8413, 1.9545])", "tensor([1., 2.])", "a", "b"), [0]),
        ("prints", "True\nFalse", ("True False", "True, then False", "False True", "True"), [0, 1]),
        ("prints", "True", ("True, because x", "True, but only y", "False, since z", "Nothing; w"), [0, 1]),
        ("prints", "6.0", ("6", "6.00", "6.0", "tensor(6.)"), [2]),  # printed text is compared as text
        ("shape", [2, 3], ("torch.Size([2, 3])", "(2, 3)", "[3, 2]", "`torch.Size([2,3])`"), [0, 1, 3]),
        ("shape", [5], ("(5,)", "torch.Size([5])", "(5)", "5"), [0, 1]),
        ("dtype", "torch.float32", ("torch.float32", "float32", "torch.float", "torch.float64"), [0, 1]),
        (
            "value",
            [2.0, 4.0],
            ("tensor([2., 4.])", "[2.0, 4.0]", "tensor([2., 4.], dtype=torch.float64)", "[2, 5]"),
            [0, 1, 2],
        ),
        ("value", 67, ("67", "66", "sixty-seven", "67.00001"), [0, 3]),
        ("value", True, ("True", "1", "False", "yes"), [0]),
        ("value", [True, False], ("True False", "True, then False", "[True, True]", "False"), [0, 1]),
        ("value", "DTensor", ("Parameter", "DTensor", "`DTensor`", "ShardedTensor"), [1, 2]),
    ],
)
def test_matching_choices(kind, observed, choices, expected):
    assert matching_choices(kind, observed, choices) == expected


def entry(prompt: str, choices: tuple[str, ...], answer: int, code: str, **expect: object) -> LoadedQuestion:
    question = Question(
        id="m-q", topic="tensors", difficulty=Difficulty.EASY, prompt=prompt, choices=choices, answer=answer,
        explanation="e" * 30, reference="https://docs.pytorch.org/", source="original",
    )  # fmt: skip
    return LoadedQuestion(question, Path("tensors.yaml"), VerifySpec(code=code, expect=VerifyExpect(**expect)))


def test_only_output_questions_are_in_scope():
    printed = entry("What does this print?", ("1", "2", "3", "4"), 1, "print(2)", prints="2")
    assert expect_kind(printed) == "prints"
    claim = entry("Which statement holds?", ("1", "2", "3", "4"), 1, "print(2)", prints="2")
    assert expect_kind(claim) is None
    prose_value = entry(
        "What is the value of the bound?", ("about 0.088", "b", "c", "d"), 0, "result = True", value=True
    )
    assert expect_kind(prose_value) is None, "prose choices: the value verifies a claim, not the shown output"
    raising = entry("What does this print?", ("1", "2", "3", "4"), 1, "1/0", raises="ZeroDivisionError")
    assert expect_kind(raising) is None


@pytest.mark.torch
def test_a_verify_that_passes_under_two_choices_is_named():
    e = entry(
        "What does this print?", ("True, because a", "True, but b", "False", "None"), 0, "print(True)", prints="True"
    )
    assert discrimination_problem(e) == (
        "tensors.yaml: question m-q: field verify: observed prints 'True' matches choice(s) A, B, marked A"
    )
    wrong = entry("What does this print?", ("1", "2", "3", "4"), 0, "print(2)", prints="2")
    assert discrimination_problem(wrong) == (
        "tensors.yaml: question m-q: field verify: observed prints '2' matches choice(s) B, marked A"
    )
    good = entry(
        "What is the shape?",
        ("torch.Size([2])", "(3,)", "[1]", "()"),
        0,
        "import torch\nresult = torch.ones(2)",
        shape=[2],
    )
    assert discrimination_problem(good) is None
