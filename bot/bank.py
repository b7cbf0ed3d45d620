"""Load and validate the question bank (data/questions/*.yaml).

Every error names the file, the question id (or its position when the id itself is missing) and the
field, and a file with any error contributes nothing to the loaded bank.
"""

from __future__ import annotations

import logging
import re
import sys
import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from bot.model import LETTERS, Difficulty, Question

log = logging.getLogger(__name__)

def _default_bank_dir() -> Path:
    """data/questions of a source checkout, else the copy `pip install` put under <prefix>/share/studybot."""
    checkout = Path(__file__).resolve().parent.parent / "data" / "questions"
    installed = Path(sys.prefix) / "share" / "studybot" / "questions"
    return checkout if checkout.is_dir() or not installed.is_dir() else installed


DEFAULT_BANK_DIR = _default_bank_dir()

TOPICS: dict[str, str] = {
    "tensors": "Tensors and dtypes",
    "storage-views": "Storage, strides and views",
    "autograd": "Autograd",
    "modules": "nn.Module and layers",
    "convolution": "Convolution, pooling, padding and stride",
    "recurrent": "Recurrent nets and LSTM",
    "activations-losses": "Activations and losses",
    "optimizers": "Optimizers and learning-rate schedules",
    "training": "The training loop and regularization",
    "data-loading": "Datasets, DataLoader and transforms",
    "performance": "Mixed precision and performance",
    "distributed": "Distributed training",
    "deployment": "Deployment and compression",
    "foundations": "Foundations of deep learning",
    "attention": "Attention and transformers",
    "initialization": "Initialization and numerical stability",
    "torch-func": "torch.func: vmap, grad and functional calls",
    "profiling-memory": "Profiling and memory",
    "checkpointing": "Checkpointing and state_dict practice",
    "sharding": "DTensor, FSDP2 and tensor parallelism",
}


class BankError(Exception):
    """One or more problems in question files; `problems` lists each as file: question: field: what."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


class VerifyExpect(BaseModel):
    """What running a verify block must produce: exactly one kind of expectation."""

    model_config = ConfigDict(extra="forbid")

    value: Any = None  # `result` (tensors compared through .tolist())
    prints: str | None = None  # everything printed, trailing whitespace stripped
    shape: list[int] | None = None  # tuple(result.shape)
    dtype: str | None = None  # str(result.dtype), e.g. "torch.float32"
    raises: str | None = None  # exception class name
    raised_at: str | None = None  # the verify line (stripped) that raises

    @model_validator(mode="after")
    def _one_kind(self) -> VerifyExpect:
        kinds = [k for k in ("value", "prints", "shape", "dtype", "raises") if k in self.model_fields_set]
        if len(kinds) != 1:
            raise ValueError("needs exactly one of value, prints, shape, dtype, raises")
        if self.raised_at is not None and self.raises is None:
            raise ValueError("raised_at only goes with raises")
        return self


class VerifySpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    code: str = Field(min_length=1)
    expect: VerifyExpect


class QuestionSpec(BaseModel):
    """The schema of one question in a YAML file."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*[a-z0-9]$", max_length=64)
    topic: str
    difficulty: Difficulty
    prompt: str = Field(min_length=10, max_length=600)
    code: str | None = None
    choices: list[str]
    answer: Literal["A", "B", "C", "D"]
    explanation: str = Field(min_length=20, max_length=900)
    reference: str = Field(pattern=r"^https://\S+$")
    source: str = Field(pattern=r"^(original|[0-9]{3}_[0-9a-f]{16}\.txt)$")
    verify: VerifySpec | None = None
    # why each wrong choice is wrong: one sentence per wrong letter (why someone picks it, why it fails)
    why_wrong: dict[Literal["A", "B", "C", "D"], str] | None = None
    # the docs page that settles a question without a discriminating verify block
    checked_by: str | None = Field(default=None, pattern=r"^https://\S+$")

    @field_validator("why_wrong")
    @classmethod
    def _why_wrong_entries(cls, v: dict[str, str] | None) -> dict[str, str] | None:
        if v is None:
            return v
        cleaned = {k: " ".join(str(text).split()) for k, text in v.items()}
        for letter, text in cleaned.items():
            if not 20 <= len(text) <= 200:
                raise ValueError(f"entry {letter} must be 20-200 characters, found {len(text)}")
        return cleaned

    @model_validator(mode="after")
    def _why_wrong_covers_wrong_choices(self) -> QuestionSpec:
        if self.why_wrong is not None:
            wrong = sorted(set(LETTERS) - {self.answer})
            if sorted(self.why_wrong) != wrong:
                raise ValueError(f"why_wrong needs exactly the wrong letters {', '.join(wrong)}")
        return self

    @field_validator("topic")
    @classmethod
    def _known_topic(cls, v: str) -> str:
        if v not in TOPICS:
            raise ValueError(f"unknown topic {v!r}; known: {', '.join(TOPICS)}")
        return v

    @field_validator("choices")
    @classmethod
    def _four_distinct(cls, v: list[str]) -> list[str]:
        if len(v) != 4:
            raise ValueError(f"must have exactly 4 choices, found {len(v)}")
        cleaned = [str(c).strip() for c in v]
        if any(not c for c in cleaned):
            raise ValueError("a choice is empty")
        if len({" ".join(c.split()) for c in cleaned}) != 4:
            raise ValueError("two choices are the same")
        if any(len(c) > 200 for c in cleaned):
            raise ValueError("a choice is longer than 200 characters")
        return cleaned

    def to_question(self) -> Question:
        return Question(
            id=self.id,
            topic=self.topic,
            difficulty=self.difficulty,
            prompt=self.prompt,
            code=self.code.rstrip() if self.code else None,
            choices=tuple(self.choices),
            answer=LETTERS.index(self.answer),
            explanation=self.explanation,
            reference=self.reference,
            source=self.source,
            why_wrong=tuple((self.why_wrong or {}).get(letter, "") for letter in LETTERS),
        )


@dataclass(frozen=True)
class LoadedQuestion:
    """A validated question with where it came from and its verify block, for tools and tests."""

    question: Question
    path: Path
    verify: VerifySpec | None


@dataclass(frozen=True)
class Bank:
    questions: tuple[Question, ...]
    entries: tuple[LoadedQuestion, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {q.id: q for q in self.questions})

    def get(self, question_id: str) -> Question | None:
        return self._by_id.get(question_id)  # type: ignore[attr-defined]

    def __len__(self) -> int:
        return len(self.questions)

    @property
    def topics(self) -> tuple[str, ...]:
        return tuple(sorted({q.topic for q in self.questions}))

    def filtered(self, topics: frozenset[str], difficulties: frozenset[Difficulty]) -> tuple[Question, ...]:
        return tuple(
            q
            for q in self.questions
            if (not topics or q.topic in topics) and (not difficulties or q.difficulty in difficulties)
        )

    def table(self) -> list[tuple[str, int, int, int, int]]:
        """Rows of (topic, easy, medium, hard, total), sorted by topic."""
        counts: Counter[tuple[str, Difficulty]] = Counter((q.topic, q.difficulty) for q in self.questions)
        rows = []
        for topic in sorted({q.topic for q in self.questions}):
            e, m, h = (counts[(topic, d)] for d in Difficulty)
            rows.append((topic, e, m, h, e + m + h))
        return rows


def normalise(text: str) -> str:
    """Lower-case, accents folded, punctuation and runs of whitespace removed: for duplicate checks."""
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9]+", " ", text).strip()


def _where(path: Path, raw: Any, index: int) -> str:
    qid = raw.get("id") if isinstance(raw, dict) else None
    return f"{path}: question {qid if isinstance(qid, str) and qid else f'#{index + 1} (no id)'}"


def _field_of(loc: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in loc) or "(question)"


def load_file(path: Path) -> tuple[list[LoadedQuestion], list[str]]:
    """Parse one file. Returns (questions, problems); questions is empty whenever problems is not."""
    problems: list[str] = []
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        return [], [f"{path}: YAML error{where}: {getattr(exc, 'problem', None) or exc}"]
    except OSError as exc:
        return [], [f"{path}: cannot read: {exc.strerror or exc}"]
    if not isinstance(doc, dict) or not isinstance(doc.get("questions"), list):
        return [], [f"{path}: field questions: the file must be a mapping with a 'questions' list"]
    unknown = set(doc) - {"topic", "questions"}
    if unknown:
        problems.append(f"{path}: field {sorted(unknown)[0]}: unknown top-level field")
    file_topic = doc.get("topic")
    if file_topic is not None and file_topic not in TOPICS:
        problems.append(f"{path}: field topic: unknown topic {file_topic!r}")
    loaded: list[LoadedQuestion] = []
    for index, raw in enumerate(doc["questions"]):
        where = _where(path, raw, index)
        if not isinstance(raw, dict):
            problems.append(f"{where}: field (question): must be a mapping")
            continue
        try:
            spec = QuestionSpec.model_validate(raw)
        except ValidationError as exc:
            for err in exc.errors():
                problems.append(f"{where}: field {_field_of(err['loc'])}: {err['msg']}")
            continue
        if file_topic is not None and spec.topic != file_topic:
            problems.append(f"{where}: field topic: {spec.topic!r} in a file for topic {file_topic!r}")
            continue
        loaded.append(LoadedQuestion(spec.to_question(), path, spec.verify))
    return ([] if problems else loaded), problems


def cross_check(entries: list[LoadedQuestion]) -> list[str]:
    """Problems that span questions: duplicate ids, near-duplicate prompts."""
    problems: list[str] = []
    seen_ids: dict[str, Path] = {}
    seen_prompts: dict[str, str] = {}
    for e in entries:
        q = e.question
        if q.id in seen_ids:
            problems.append(f"{e.path}: question {q.id}: field id: duplicate of the id in {seen_ids[q.id]}")
        else:
            seen_ids[q.id] = e.path
        key = normalise(q.prompt + " " + (q.code or ""))
        if key in seen_prompts and seen_prompts[key] != q.id:
            problems.append(
                f"{e.path}: question {q.id}: field prompt: near-duplicate of question {seen_prompts[key]}"
            )
        else:
            seen_prompts.setdefault(key, q.id)
    return problems


def question_files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    return sorted([*root.glob("*.yaml"), *root.glob("*.yml")])


def validate(root: Path = DEFAULT_BANK_DIR) -> tuple[list[LoadedQuestion], list[str]]:
    """Validate every file under root; returns the good questions and every problem found."""
    files = question_files(root)
    if not files:
        return [], [f"{root}: no question files (*.yaml) found"]
    entries: list[LoadedQuestion] = []
    problems: list[str] = []
    for path in files:
        loaded, file_problems = load_file(path)
        entries.extend(loaded)
        problems.extend(file_problems)
    problems.extend(cross_check(entries))
    return entries, problems


def load_bank(root: Path = DEFAULT_BANK_DIR, *, strict: bool = True) -> Bank:
    """Load the bank. strict: any problem raises BankError; otherwise broken files are skipped and logged."""
    entries, problems = validate(root)
    if problems:
        if strict:
            raise BankError(problems)
        for p in problems:
            log.error("question bank: %s", p)
        bad_ids = {e.question.id for e in entries if any(f"question {e.question.id}:" in p for p in problems)}
        entries = [e for e in entries if e.question.id not in bad_ids]
    return Bank(tuple(e.question for e in entries), tuple(entries))
