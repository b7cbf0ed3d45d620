"""Execute every verify block of the shipped bank against torch==2.13.0 (marker: torch)."""

from __future__ import annotations

import pytest

from bot.bank import load_bank
from bot.bank_verify import run_verify

pytestmark = pytest.mark.torch

ENTRIES = [e for e in load_bank().entries if e.verify is not None]


def test_torch_is_the_pinned_version() -> None:
    import torch
    assert torch.__version__.split("+")[0] == "2.13.0"


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.question.id for e in ENTRIES])
def test_verify_block_matches(entry) -> None:
    problem = run_verify(entry)
    assert problem is None, problem
