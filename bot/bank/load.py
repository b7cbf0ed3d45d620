"""Load and validate the question bank (data/questions/*.yaml).

Every error names the file, the question id (or its position when the id itself is missing) and the
field, and a file with any error contributes nothing to the loaded bank.
"""

from __future__ import annotations

import codecs
import logging
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from bot.bank.near_copies import (
    _code_key,
    normalise,
    similarity_pairs,
)
from bot.kernel.topics import TOPICS, known_topics
from bot.kernel.values import LETTERS, Difficulty, Question

log = logging.getLogger(__name__)


# ---- rules the shipped content does not pass yet: the lead turns each on once the content is merged ----
REQUIRE_WHY_WRONG = True  # every question has why_wrong (one 20-200 character sentence per wrong choice)


REJECT_SEED_WORDS = True  # "seed"/"seeds" in prompt, choices, explanation or why_wrong (outside `code` spans)


REQUIRE_CHECK = True  # every question has a verify block or a checked_by docs page


REJECT_NEAR_COPIES = True  # prompt + code too alike (idf-weighted cosine) across two questions


# ---- caps that always hold ----
MAX_CODE_LINES = 30  # a `code` block must fit on a card


MAX_CODE_CHARS = 1200


WHY_WRONG_CHARS = (20, 200)


MAX_FILE_BYTES = 1024 * 1024  # one question file


MAX_QUESTIONS_PER_FILE = 2000


MAX_NESTING = 32  # YAML collections inside each other (the bank needs fewer than 10)


MAX_PROBLEMS_PER_FILE = 50  # further problems of one file are counted, not listed


SEED_WORD = re.compile(r"\bseeds?\b", re.IGNORECASE)


_CODE_SPAN = re.compile(r"`[^`\n]*`")


ID_PATTERN = r"^[a-z0-9][a-z0-9-]*[a-z0-9]$"


def _default_bank_dir() -> Path:
    """data/questions of a source checkout, else the copy `pip install` put under <prefix>/share/studybot."""
    checkout = Path(__file__).resolve().parents[2] / "data" / "questions"
    installed = Path(sys.prefix) / "share" / "studybot" / "questions"
    return checkout if checkout.is_dir() or not installed.is_dir() else installed


DEFAULT_BANK_DIR = _default_bank_dir()


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

    id: str = Field(pattern=ID_PATTERN, max_length=64)
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
    def _why_wrong_whitespace(cls, v: dict[str, str] | None) -> dict[str, str] | None:
        """Runs of whitespace become one space; the rules on the entries are in rule_problems."""
        return None if v is None else {k: " ".join(text.split()) for k, text in v.items()}

    @field_validator("topic")
    @classmethod
    def _known_topic(cls, v: str) -> str:
        if v not in TOPICS:
            raise ValueError(f"unknown topic {v!r}; {known_topics(v)}")
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
        why = {str(k): v for k, v in (self.why_wrong or {}).items()}
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
            why_wrong=tuple(why.get(letter, "") for letter in LETTERS),
        )


def player_texts(spec: QuestionSpec) -> list[tuple[str, str]]:
    """(field, text) of everything a player reads: prompt, choices, explanation, why_wrong."""
    texts = [("prompt", spec.prompt)]
    texts += [(f"choices.{letter}", c) for letter, c in zip(LETTERS, spec.choices, strict=True)]
    texts.append(("explanation", spec.explanation))
    texts += [(f"why_wrong.{letter}", t) for letter, t in sorted((spec.why_wrong or {}).items())]
    return texts


def rule_problems(spec: QuestionSpec) -> list[tuple[str, str]]:
    """(field, problem) for the rules beyond the field types: why_wrong, the code cap, seed words, checks."""
    problems: list[tuple[str, str]] = []
    wrong = [letter for letter in LETTERS if letter != spec.answer]
    lo, hi = WHY_WRONG_CHARS
    if spec.why_wrong is None:
        if REQUIRE_WHY_WRONG:
            problems.append(
                ("why_wrong", f"missing: one sentence ({lo}-{hi} characters) for each wrong choice {', '.join(wrong)}")
            )
    else:
        why = {str(k): v for k, v in spec.why_wrong.items()}
        for letter in wrong:
            text = why.get(letter)
            if text is None:
                problems.append((f"why_wrong.{letter}", f"missing: the entry for wrong choice {letter}"))
            elif len(text) < lo:
                problems.append((f"why_wrong.{letter}", f"too short: {len(text)} characters, at least {lo}"))
            elif len(text) > hi:
                problems.append((f"why_wrong.{letter}", f"too long: {len(text)} characters, at most {hi}"))
        if spec.answer in spec.why_wrong:
            problems.append(
                (
                    f"why_wrong.{spec.answer}",
                    f"{spec.answer} is the answer: why_wrong covers only the wrong choices {', '.join(wrong)}",
                )
            )
    if spec.code is not None:
        lines = spec.code.rstrip().splitlines()
        if len(lines) > MAX_CODE_LINES:
            problems.append(("code", f"too long: {len(lines)} lines, at most {MAX_CODE_LINES} (it must fit a card)"))
        if len(spec.code.rstrip()) > MAX_CODE_CHARS:
            problems.append(
                (
                    "code",
                    f"too long: {len(spec.code.rstrip()):,} characters, at most "
                    f"{MAX_CODE_CHARS:,} (it must fit a card)",
                )
            )
    if REJECT_SEED_WORDS:
        for name, text in player_texts(spec):
            found = SEED_WORD.search(_CODE_SPAN.sub(" ", text))
            if found:
                problems.append(
                    (
                        name,
                        f"says {found.group(0)!r}: players never heard of the source documents; "
                        "write 'a common claim' or 'many tutorials'",
                    )
                )
    if REQUIRE_CHECK and spec.verify is None and spec.checked_by is None:
        problems.append(
            (
                "checked_by",
                "missing: a question without a verify block names the docs page that settles it in checked_by",
            )
        )
    return problems


@dataclass(frozen=True)
class LoadedQuestion:
    """A validated question with where it came from, its verify block and checked_by page, for tools and tests."""

    question: Question
    path: Path
    verify: VerifySpec | None
    checked_by: str | None = None


@dataclass(frozen=True)
class Bank:
    questions: tuple[Question, ...]
    entries: tuple[LoadedQuestion, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {q.id: q for q in self.questions})

    def get(self, question_id: str) -> Question | None:
        by_id: dict[str, Question] = self._by_id  # type: ignore[attr-defined]
        return by_id.get(question_id)

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

    def stats(self) -> list[TopicStats]:
        """Per topic: questions by difficulty, with a verify block, with checked_by, with why_wrong."""
        rows: dict[str, TopicStats] = {}
        entries = self.entries or tuple(LoadedQuestion(q, Path(), None) for q in self.questions)
        for e in entries:
            q = e.question
            row = rows.setdefault(q.topic, TopicStats(q.topic))
            row.by_level[q.difficulty] += 1
            row.verified += e.verify is not None
            row.checked_by += e.checked_by is not None
            row.why_wrong += any(q.why_wrong)
        return [rows[t] for t in sorted(rows)]


@dataclass
class TopicStats:
    """One row of `studybot bank stats`."""

    topic: str
    by_level: Counter[Difficulty] = field(default_factory=Counter)
    verified: int = 0
    checked_by: int = 0
    why_wrong: int = 0

    @property
    def total(self) -> int:
        return sum(self.by_level.values())

    def cells(self) -> tuple[int, ...]:
        e, m, h = (self.by_level[d] for d in Difficulty)
        return e, m, h, self.total, self.verified, self.checked_by, self.why_wrong


def _show(value: Any, limit: int = 60) -> str:
    """A value for a one-line message: repr, cut to `limit` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _where(path: Path, raw: Any, index: int) -> str:
    qid = raw.get("id") if isinstance(raw, dict) else None
    if isinstance(qid, str) and re.fullmatch(ID_PATTERN, qid) and len(qid) <= 64:
        return f"{path}: question {qid}"
    return f"{path}: question #{index + 1} ({'no id' if qid is None else 'bad id'})"


def _field_of(loc: tuple[Any, ...]) -> str:
    plain = re.compile(r"[A-Za-z0-9_-]{1,40}")
    return ".".join(str(p) if isinstance(p, int) or plain.fullmatch(str(p)) else _show(p) for p in loc) or "(question)"


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


_SafeBase: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when available: fast, and capped depth


class _StrictLoader(_SafeBase):  # type: ignore[misc]
    """The safe loader, refusing duplicate and unhashable mapping keys."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                duplicate = (type(key), key) in seen  # 1 and true are different keys
            except TypeError:
                raise yaml.constructor.ConstructorError(
                    None, None, "a mapping key must be a plain value, not a list or mapping", key_node.start_mark
                ) from None
            if duplicate:
                raise yaml.constructor.ConstructorError(None, None, f"duplicate key {_show(key)}", key_node.start_mark)
            seen.add((type(key), key))
        return dict(super().construct_mapping(node, deep=deep))


def _yaml_problem(path: Path, message: str, mark: Any = None) -> str:
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    return f"{path}: YAML error{where}: {_one_line(message)}"


def _scan(path: Path, text: str) -> str | None:
    """Walk the YAML events once (no objects built): refuse aliases, tags and deep nesting."""
    depth = 0
    for event in yaml.parse(text, Loader=_SafeBase):
        if isinstance(event, yaml.AliasEvent):
            return _yaml_problem(path, f"alias *{event.anchor} is not allowed (write the value out)", event.start_mark)
        tag = getattr(event, "tag", None)
        if tag not in (None, "!"):
            return _yaml_problem(path, f"tag {_show(tag)} is not allowed (plain YAML only)", event.start_mark)
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_NESTING:
                return _yaml_problem(path, f"nested deeper than {MAX_NESTING} levels", event.start_mark)
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
    return None


def _read_text(path: Path) -> tuple[str | None, str | None]:
    """(text, None) or (None, problem): regular file, at most MAX_FILE_BYTES, UTF-8."""
    cap = f"{MAX_FILE_BYTES // (1024 * 1024)} MiB"
    try:
        if not path.is_file():
            return None, f"{path}: cannot read: not a regular file"
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            return None, f"{path}: file too large: {size:,} bytes, at most {cap}; split it into several files"
        with path.open("rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        return None, f"{path}: cannot read: {exc.strerror or exc}"
    if len(data) > MAX_FILE_BYTES:
        return None, f"{path}: file too large: more than {cap}; split it into several files"
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) or b"\x00" in data:
        return None, f"{path}: encoding: the file looks like UTF-16 (it has NUL bytes); save it as UTF-8"
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return None, (
            f"{path}: encoding: not valid UTF-8 (byte 0x{data[exc.start]:02x} at line {line}); "
            "save it as UTF-8 (is it latin-1?)"
        )


def parse_file(path: Path) -> tuple[Any, str | None]:
    """(document, None) or (None, a one-line problem); never raises for bad content."""
    text, problem = _read_text(path)
    if text is None:
        return None, problem
    try:
        problem = _scan(path, text)
        if problem is not None:
            return None, problem
        return yaml.load(text, Loader=_StrictLoader), None  # noqa: S506 - a safe loader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        return None, _yaml_problem(path, str(getattr(exc, "problem", None) or exc), mark)
    except (RecursionError, MemoryError, ValueError, TypeError, OverflowError) as exc:  # belt and braces
        return None, f"{path}: YAML error: cannot be read ({type(exc).__name__})"


def parse_yaml_text(path: Path, text: str) -> tuple[Any, str | None]:
    """parse_file for text already read (an upload): the same safe loader, refusing aliases, tags,
    deep nesting and duplicate keys; (document, None) or (None, a one-line problem)."""
    try:
        problem = _scan(path, text)
        if problem is not None:
            return None, problem
        return yaml.load(text, Loader=_StrictLoader), None  # noqa: S506 - a safe loader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        return None, _yaml_problem(path, str(getattr(exc, "problem", None) or exc), mark)
    except (RecursionError, MemoryError, ValueError, TypeError, OverflowError) as exc:  # belt and braces
        return None, f"{path}: YAML error: cannot be read ({type(exc).__name__})"


def load_file(path: Path) -> tuple[list[LoadedQuestion], list[str]]:
    """Parse one file. Returns (questions, problems); questions is empty whenever problems is not."""
    problems: list[str] = []
    doc, problem = parse_file(path)
    if problem is not None:
        return [], [problem]
    if not isinstance(doc, dict) or not isinstance(doc.get("questions"), list):
        return [], [f"{path}: field questions: the file must be a mapping with a 'questions' list"]
    unknown = [k for k in doc if k not in ("topic", "questions")]
    if unknown:
        problems.append(f"{path}: field {_show(unknown[0])}: unknown top-level field (topic, questions)")
    file_topic = doc.get("topic")
    if file_topic is not None and not (isinstance(file_topic, str) and file_topic in TOPICS):
        problems.append(f"{path}: field topic: unknown topic {_show(file_topic)}; {known_topics(file_topic)}")
        file_topic = None
    if len(doc["questions"]) > MAX_QUESTIONS_PER_FILE:
        return [], [
            *problems,
            f"{path}: field questions: {len(doc['questions']):,} questions, at most "
            f"{MAX_QUESTIONS_PER_FILE:,} per file; split it into several files",
        ]
    loaded: list[LoadedQuestion] = []
    for index, raw in enumerate(doc["questions"]):
        where = _where(path, raw, index)
        if not isinstance(raw, dict):
            problems.append(f"{where}: field (question): must be a mapping")
            continue
        bad_keys = [k for k in raw if not isinstance(k, str)]
        if bad_keys:
            problems.append(f"{where}: field {_show(bad_keys[0])}: a field name must be text")
            continue
        try:
            spec = QuestionSpec.model_validate(raw)
        except ValidationError as exc:
            for err in exc.errors():
                problems.append(f"{where}: field {_field_of(err['loc'])}: {_one_line(err['msg'])}")
            continue
        rules = rule_problems(spec)
        if rules:
            problems += [f"{where}: field {field}: {_one_line(msg)}" for field, msg in rules]
            continue
        if file_topic is not None and spec.topic != file_topic:
            problems.append(f"{where}: field topic: {spec.topic!r} in a file for topic {file_topic!r}")
            continue
        loaded.append(LoadedQuestion(spec.to_question(), path, spec.verify, spec.checked_by))
    if len(problems) > MAX_PROBLEMS_PER_FILE:
        hidden = len(problems) - MAX_PROBLEMS_PER_FILE
        problems = [*problems[:MAX_PROBLEMS_PER_FILE], f"{path}: and {hidden:,} more problem(s) in this file"]
    return ([] if problems else loaded), problems


def cross_check(entries: list[LoadedQuestion]) -> list[str]:
    """Problems that span questions: duplicate ids, duplicate prompts, equal code blocks, near-copies."""
    problems: list[str] = []
    seen_ids: dict[str, Path] = {}
    seen_prompts: dict[str, str] = {}
    seen_code: dict[str, str] = {}
    for e in entries:
        q = e.question
        if q.id in seen_ids:
            problems.append(f"{e.path}: question {q.id}: field id: duplicate of the id in {seen_ids[q.id]}")
        else:
            seen_ids[q.id] = e.path
        key = normalise(q.prompt + " " + (q.code or ""))
        if key in seen_prompts and seen_prompts[key] != q.id:
            problems.append(f"{e.path}: question {q.id}: field prompt: near-duplicate of question {seen_prompts[key]}")
            continue
        seen_prompts.setdefault(key, q.id)
        code = _code_key(q.code)
        if code is not None and code in seen_code and seen_code[code] != q.id:
            problems.append(f"{e.path}: question {q.id}: field code: the same code block as question {seen_code[code]}")
        elif code is not None:
            seen_code.setdefault(code, q.id)
    if REJECT_NEAR_COPIES:
        flagged = {p.split(": question ", 1)[1].split(":", 1)[0] for p in problems}
        for score, a, b in similarity_pairs(entries):
            if b.question.id not in flagged and a.question.id != b.question.id:
                flagged.add(b.question.id)
                problems.append(
                    f"{b.path}: question {b.question.id}: field prompt: near-copy of question "
                    f"{a.question.id} (prompt and code {score:.0%} alike by word overlap)"
                )
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
        good = {e.path for e in entries}
        skipped = [
            f.name for f in question_files(root) if f not in good and any(p.startswith(f"{f}:") for p in problems)
        ]
        log.error(
            "question bank: %d problem(s); skipped %d file(s)%s; loaded %d question(s) from %d file(s)",
            len(problems),
            len(skipped),
            f" ({', '.join(skipped)})" if skipped else "",
            len(entries),
            len(good),
        )
    return Bank(tuple(e.question for e in entries), tuple(entries))
