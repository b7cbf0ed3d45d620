"""Execute every verify block of the shipped bank against torch==2.13.0 (marker: torch)."""

from __future__ import annotations

import pytest

from bot.bank.load import load_bank
from bot.bank.verify import discrimination_problem, expect_kind, run_verify

pytestmark = pytest.mark.torch

ENTRIES = [e for e in load_bank().entries if e.verify is not None]
# "what does this print / which shape / which dtype" questions whose verify expects that output
OUTPUT_QUESTIONS = [e for e in ENTRIES if expect_kind(e) is not None]


def test_torch_is_the_pinned_version() -> None:
    import torch

    assert torch.__version__.split("+")[0] == "2.13.0"


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.question.id for e in ENTRIES])
def test_verify_block_matches(entry) -> None:
    problem = run_verify(entry)
    assert problem is None, problem


def test_most_output_questions_are_checked_for_discrimination() -> None:
    assert len(OUTPUT_QUESTIONS) >= 100, len(OUTPUT_QUESTIONS)


@pytest.mark.parametrize("entry", OUTPUT_QUESTIONS, ids=[e.question.id for e in OUTPUT_QUESTIONS])
def test_the_observed_output_states_the_marked_choice_and_no_other(entry) -> None:
    problem = discrimination_problem(entry)
    assert problem is None, problem
