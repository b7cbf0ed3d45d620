"""Near-copies across questions (issue 14): equal code blocks always, and prompt + code too alike by
idf-weighted word overlap when REJECT_NEAR_COPIES is on. The pairs are synthetic, modelled on the pairs the
review named, and checked against the shipped bank as background (so the word weights are realistic)."""

from __future__ import annotations

from pathlib import Path

import pytest

import bot.bank.load as bank
import bot.bank.near_copies as near_copies
from bot.bank.load import LoadedQuestion, cross_check, validate
from bot.kernel.values import Difficulty, Question


def _background() -> list[LoadedQuestion]:
    """The shipped questions with every switch off, so the word weights do not depend on the switches."""
    saved = {name: getattr(bank, name) for name in SWITCHES}
    try:
        for name in SWITCHES:
            setattr(bank, name, False)
        return validate()[0]
    finally:
        for name, value in saved.items():
            setattr(bank, name, value)


SWITCHES = ("REQUIRE_WHY_WRONG", "REJECT_SEED_WORDS", "REQUIRE_CHECK", "REJECT_NEAR_COPIES")
BACKGROUND = _background()


def q(qid: str, prompt: str, code: str | None = None, topic: str = "tensors") -> LoadedQuestion:
    question = Question(
        id=qid, topic=topic, difficulty=Difficulty.EASY, prompt=prompt, code=code,
        choices=("w", "x", "y", "z"), answer=0, explanation="e" * 30,
        reference="https://docs.pytorch.org/", source="original",
    )  # fmt: skip
    return LoadedQuestion(question, Path(f"{topic}.yaml"), None)


def score(a: LoadedQuestion, b: LoadedQuestion) -> float:
    """The pair's similarity with word weights from the shipped bank plus the pair."""
    [(value, _, _)] = bank.similarity_pairs([a, b], threshold=0.0, corpus=[*BACKGROUND, a, b]) or [(0.0, a, b)]
    return value


def limit(a: LoadedQuestion, b: LoadedQuestion) -> float:
    prose = not a.question.code and not b.question.code
    return near_copies.NEAR_COPY_PROSE_THRESHOLD if prose else near_copies.NEAR_COPY_THRESHOLD


# modelled on the pairs the review named: each is the same question twice in slightly different words
NEAR_COPIES = {
    "fp16-overflow": (
        q(
            "syn-a-fp16",
            "What does this print?",
            "import torch\nh = torch.tensor(70000.0, dtype=torch.float16)\nprint(h)",
        ),
        q(
            "syn-b-fp16",
            "What does this code print?",
            "import torch\nh = torch.tensor(70000.0, dtype=torch.float16)\nprint(h, h.dtype)",
            "performance",
        ),
    ),
    "inference-mode": (
        q(
            "syn-a-infer",
            "What happens when this runs?",
            "import torch\nwith torch.inference_mode():\n    feats = torch.ones(3) * 2\n"
            "w = torch.ones(3, requires_grad=True)\nloss = (w * feats).sum()\nloss.backward()",
        ),
        q(
            "syn-b-infer",
            "What happens when this code runs?",
            "import torch\nwith torch.inference_mode():\n    feats = torch.ones(2) * 2\n"
            "w = torch.ones(2, requires_grad=True)\nloss = (w * feats).sum()\nloss.backward()",
            "autograd",
        ),
    ),
    "overfitting": (
        q(
            "syn-a-overfit",
            "For several epochs the training loss keeps falling while the validation loss rises. "
            "What is happening, and what is a sensible response?",
        ),
        q(
            "syn-b-overfit",
            "The training loss keeps falling for several epochs while the validation loss rises. "
            "What is happening here, and what is a sensible response?",
            topic="foundations",
        ),
    ),
    "chain-rule": (
        q(
            "syn-a-chain",
            "What does this print?",
            "import torch\nx = torch.tensor(1.0, requires_grad=True)\ny = (3 * x + 1) ** 2\ny.backward()\n"
            "print(x.grad.item())",
        ),
        q(
            "syn-b-chain",
            "What does this print?",
            "import torch\nx = torch.tensor(2.0, requires_grad=True)\ny = (3 * x + 1) ** 2\ny.backward()\n"
            "print(x.grad.item())",
            "autograd",
        ),
    ),
    "mse": (
        q(
            "syn-a-mse",
            "What does this print?",
            "import torch\npred = torch.tensor([1.0, 2.0])\ntarget = torch.tensor([2.0, 4.0])\n"
            "print(torch.nn.MSELoss()(pred, target).item())",
        ),
        q(
            "syn-b-mse",
            "What does this print?",
            "import torch\nimport torch.nn as nn\npred = torch.tensor([1.0, 2.0, 3.0])\n"
            "target = torch.tensor([1.0, 1.0, 1.0])\nprint(round(nn.MSELoss()(pred, target).item(), 4))",
            "activations-losses",
        ),
    ),
    "why-nonlinear": (
        q("syn-a-nonlin", "Why do the hidden layers of a neural network need a nonlinear activation function?"),
        q(
            "syn-b-nonlin",
            "Why do hidden layers in a neural network need a nonlinear activation function between them?",
            topic="foundations",
        ),
    ),
    "dynamic-graph": (
        q(
            "syn-a-dyn",
            "PyTorch builds its computational graph dynamically (define-by-run). What does that mean in practice?",
        ),
        q(
            "syn-b-dyn",
            "PyTorch builds the computational graph dynamically, define-by-run. What does this mean in practice?",
            topic="foundations",
        ),
    ),
}

# alike in words but teaching different things: must not trip
DISTINCT = {
    "lstm-layers-vs-directions": (
        q(
            "syn-a-lstm",
            "What does this print?",
            "import torch\nimport torch.nn as nn\nlstm = nn.LSTM(8, 16, num_layers=3, batch_first=True)\n"
            "x = torch.randn(4, 7, 8)\nout, (h_n, c_n) = lstm(x)\nprint(tuple(h_n.shape))",
        ),
        q(
            "syn-b-lstm",
            "What does this print?",
            "import torch\nimport torch.nn as nn\nlstm = nn.LSTM(8, 16, num_layers=2, bidirectional=True, "
            "batch_first=True)\nout, (h_n, c_n) = lstm(torch.randn(4, 7, 8))\nprint(tuple(out.shape), "
            "tuple(h_n.shape))",
            "recurrent",
        ),
    ),
    "grad-vs-backward": (
        q(
            "syn-a-grad",
            "What does this print?",
            "import torch\nx = torch.tensor(2.0, requires_grad=True)\ny = x ** 3\n(g,) = torch.autograd.grad(y, x)\n"
            "print(g, x.grad)",
            "autograd",
        ),
        q(
            "syn-b-grad",
            "What does this print?",
            "import torch\nx = torch.tensor(1.0, requires_grad=True)\ny = x ** 3\n"
            "(g,) = torch.autograd.grad(y, x, create_graph=True)\ng.backward()\nprint(g.item(), x.grad)",
            "autograd",
        ),
    ),
    "which-statement": (
        q("syn-a-which", "Which statement describes backpropagation correctly?", topic="foundations"),
        q("syn-b-which", "Which statement describes torch.optim.Adam correctly?", topic="optimizers"),
    ),
}


@pytest.mark.parametrize("name", NEAR_COPIES)
def test_near_copies_score_above_the_threshold(name):
    a, b = NEAR_COPIES[name]
    assert score(a, b) >= limit(a, b)


@pytest.mark.parametrize("name", DISTINCT)
def test_distinct_questions_with_similar_words_score_below_it(name):
    a, b = DISTINCT[name]
    assert 0.5 < score(a, b) < limit(a, b)


def test_a_near_copy_is_reported_only_with_the_switch_on(monkeypatch):
    a = q(
        "syn-a-l1",
        "What does this print?",
        "import torch\npred = torch.tensor([1.0, 2.0])\ntarget = torch.tensor([2.0, 5.0])\n"
        "print(torch.nn.L1Loss()(pred, target).item())",
    )
    b = q(
        "syn-b-l1",
        "What does this print?",
        "import torch\nimport torch.nn as nn\npred = torch.tensor([1.0, 2.0, 4.0])\n"
        "target = torch.tensor([2.0, 5.0, 4.0])\nprint(nn.L1Loss()(pred, target).item())",
        "activations-losses",
    )
    other = q("syn-other", "Which statement about the L1 loss holds here?")

    def synthetic_problems() -> list[str]:
        return [p for p in cross_check([*BACKGROUND, a, other, b]) if ": question syn-" in p]

    monkeypatch.setattr(bank, "REJECT_NEAR_COPIES", False)
    assert synthetic_problems() == []
    monkeypatch.setattr(bank, "REJECT_NEAR_COPIES", True)
    [problem] = synthetic_problems()
    assert problem.startswith(
        f"{b.path}: question syn-b-l1: field prompt: near-copy of question syn-a-l1 (prompt and code "
    )
    assert problem.endswith("% alike by word overlap)")


def test_equal_code_blocks_are_caught_ignoring_spacing_comments_and_imports():
    a = q("syn-a-code", "What does this print?", "import torch\nx = torch.ones(2, 3)\nprint(x.t().is_contiguous())")
    b = q(
        "syn-b-code",
        "Is the result contiguous? Pick the printed line.",
        "import torch  \n# transpose\nx  =  torch.ones(2, 3)\n\nprint(x.t().is_contiguous())\n",
        "storage-views",
    )
    assert cross_check([a, b]) == [
        f"{b.path}: question syn-b-code: field code: the same code block as question syn-a-code"
    ]


def test_a_one_line_code_block_may_repeat():
    a = q("syn-a-one", "What does this print for a float tensor?", "print(torch.ones(1).dtype)")
    b = q("syn-b-one", "Which dtype is printed by default here?", "print(torch.ones(1).dtype)", "performance")
    assert cross_check([a, b]) == []


def test_identical_prompts_without_code_are_still_duplicates():
    a = q("syn-a-same", "Which of these statements about leaf tensors holds?")
    b = q("syn-b-same", "WHICH of these statements about leaf tensors holds", topic="autograd")
    assert cross_check([a, b]) == [
        f"{b.path}: question syn-b-same: field prompt: near-duplicate of question syn-a-same"
    ]
