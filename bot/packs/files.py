"""Pack files: a YAML or CSV upload read into checked question specs (every problem named by
question and field), and a pack written back out as YAML or CSV (cells a spreadsheet would run made safe).
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import stat
from collections.abc import AsyncIterable, Iterable
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import Field, ValidationError, field_validator

from bot.bank.load import (
    MAX_CODE_CHARS,
    MAX_CODE_LINES,
    QuestionSpec,
    parse_yaml_text,
)
from bot.kernel.echo import echo
from bot.kernel.errors import PackError
from bot.kernel.parsing import PACK_NAME
from bot.kernel.spreadsheet import read_cell, safe_row
from bot.kernel.values import LETTERS, Question

MAX_UPLOAD_BYTES = 1024 * 1024


MAX_PACK_QUESTIONS = 2000


MAX_PROBLEMS = 200  # listed; further ones are counted


MAX_REFERENCE = 500


TOPIC_PATTERN = r"^[A-Za-z0-9-]{1,40}$"


CSV_COLUMNS = (
    "id",
    "topic",
    "difficulty",
    "prompt",
    "code",
    "choice_a",
    "choice_b",
    "choice_c",
    "choice_d",
    "answer",
    "explanation",
    "reference",
)


Format = Literal["yaml", "csv"]


# what the platforms take (the tighter one decides): Discord embed description 4,096 and field 1,024
# characters, message 2,000; Slack section text 3,000
CARD_BODY_LIMIT = 3000  # a question card's prompt + code + choices (one Discord description / Slack section)


CARD_FIELD_LIMIT = 1024  # the reveal's explanation with the reason a wrong choice fails (one Discord field)


_MARKDOWN = re.compile(r"[\\*_~`|>#<@&\[\]()]")  # characters the renderers may escape (one extra each)


class PackQuestionSpec(QuestionSpec):
    """The bank's schema with a space's freedoms: free-text topics, `source` optional, capped references."""

    topic: str = Field(pattern=TOPIC_PATTERN)
    reference: str = Field(pattern=r"^https://\S+$", max_length=MAX_REFERENCE)
    source: str = Field(default="original", pattern=r"^(original|[0-9]{3}_[0-9a-f]{16}\.txt)$")

    @field_validator("topic")
    @classmethod
    def _known_topic(cls, v: str) -> str:  # replaces the bank's check against its topic list
        return v.lower()  # topics are compared as the settings parse them

    @field_validator("choices", mode="before")
    @classmethod
    def _lettered(cls, v: Any) -> Any:
        """Choices may be a mapping of exactly the letters A-D, in order (`A: ...` to `D: ...`)."""
        if not isinstance(v, dict):
            return v
        letters = [str(k) for k in v]
        if letters != list(LETTERS):
            raise ValueError(
                f"choices written as a mapping take exactly the letters {', '.join(LETTERS)}, in that order "
                f"(found {', '.join(letters) or 'none'})"
            )
        for letter, text in v.items():
            if not isinstance(text, str):
                raise ValueError(
                    f'choice {letter} must be text; put it in quotes, for example {letter}: "{echo(text, 40)}"'
                )
        return list(v.values())


def canonical(spec: PackQuestionSpec) -> dict[str, Any]:
    """The question as stored and exported: fields in the schema's order, empty ones left out."""
    out: dict[str, Any] = {
        "id": spec.id,
        "topic": spec.topic,
        "difficulty": spec.difficulty.value,
        "prompt": spec.prompt,
    }
    if spec.code:
        out["code"] = spec.code
    out |= {
        "choices": list(spec.choices),
        "answer": spec.answer,
        "explanation": spec.explanation,
        "reference": spec.reference,
    }
    if spec.source != "original":
        out["source"] = spec.source
    if spec.why_wrong:
        out["why_wrong"] = {str(k): v for k, v in sorted(spec.why_wrong.items())}
    if spec.checked_by:
        out["checked_by"] = spec.checked_by
    if spec.verify is not None:
        out["verify"] = spec.verify.model_dump(exclude_unset=True)
    return out


def _escaped_len(text: str) -> int:
    return len(text) + len(_MARKDOWN.findall(text))


def card_problems(spec: PackQuestionSpec) -> list[tuple[str, str]]:
    """(field, problem) when a card of this question would not fit a platform's limits."""
    problems: list[tuple[str, str]] = []
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
    body = _escaped_len(spec.prompt) + (len(spec.code) + 16 if spec.code else 0)
    body += sum(_escaped_len(c) + 8 for c in spec.choices)
    if body > CARD_BODY_LIMIT:
        problems.append(
            (
                "prompt",
                f"the question card would be {body:,} characters with its code and choices, "
                f"more than the {CARD_BODY_LIMIT:,} a Slack section takes; shorten it",
            )
        )
    why = max((_escaped_len(t) for t in (spec.why_wrong or {}).values()), default=0)
    field_len = _escaped_len(spec.explanation) + (why + 16 if why else 0)
    if field_len > CARD_FIELD_LIMIT:
        problems.append(
            (
                "explanation",
                f"the reveal's explanation would be {field_len:,} characters with its "
                f"why-wrong note, more than the {CARD_FIELD_LIMIT:,} a Discord field "
                "takes; shorten it",
            )
        )
    return problems


def decode_upload(data: bytes, label: str = "file") -> str:
    """The upload as text: at most 1 MiB, UTF-8 (a BOM is dropped). PackError says what is wrong."""
    if len(data) > MAX_UPLOAD_BYTES:
        raise PackError(f"{label}: file too large: {len(data):,} bytes, at most 1 MiB; split it into several packs")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\x00" in data:
        raise PackError(f"{label}: encoding: the file looks like UTF-16 (it has NUL bytes); save it as UTF-8")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise PackError(
            f"{label}: encoding: not valid UTF-8 (byte 0x{data[exc.start]:02x} at line {line}); save it as UTF-8"
        ) from None


def too_large(label: str) -> PackError:
    """An upload that turned out larger than the cap while it was read (its size unknown or misdeclared)."""
    return PackError(f"{label}: file too large: more than 1 MiB; split it into several packs")


async def read_capped(chunks: AsyncIterable[bytes], label: str = "file", limit: int = MAX_UPLOAD_BYTES) -> bytes:
    """An upload read as it streams in (a platform's download, chunk by chunk), refused with PackError as soon
    as it passes `limit`: the rest is never read, whatever size the platform declared."""
    data = bytearray()
    async for chunk in chunks:
        data += chunk
        if len(data) > limit:
            raise too_large(label)
    return bytes(data)


def _not_a_file(path: Path, mode: int) -> PackError:
    kinds = (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    )
    kind = next((name for test, name in kinds if test(mode)), "not a regular file")
    return PackError(f"{path}: {kind}, not a file; give the path of a .yaml, .yml or .csv file")


def read_upload_file(path: Path) -> bytes:
    """A regular file's first bytes (at most one past the cap, so a 50 MiB file is refused without loading it).
    Anything else (a directory, a FIFO, a device) is refused before it is opened, and the open itself never
    waits (O_NONBLOCK; what was opened is checked again), so a FIFO swapped in meanwhile cannot block it."""
    try:
        if not stat.S_ISREG(mode := os.stat(path).st_mode):
            raise _not_a_file(path, mode)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(mode := os.fstat(fd).st_mode):
                raise _not_a_file(path, mode)
            return f.read(MAX_UPLOAD_BYTES + 1)
    except OSError as exc:
        raise PackError(f"{path}: cannot read: {exc.strerror or exc}") from None


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _validate(raw: Any, where: str) -> tuple[PackQuestionSpec | None, list[str]]:
    if not isinstance(raw, dict):
        return None, [f"{where}: field (question): must be a mapping"]
    if any(not isinstance(k, str) for k in raw):
        return None, [f"{where}: field (question): a field name must be text"]
    try:
        spec = PackQuestionSpec.model_validate(raw)
    except ValidationError as exc:
        out = []
        for err in exc.errors():
            loc = ".".join(str(p) for p in err["loc"]) or "(question)"
            out.append(f"{where}: field {loc}: {_one_line(err['msg'])}")
        return None, out
    rules = card_problems(spec)
    if rules:
        return None, [f"{where}: field {f}: {m}" for f, m in rules]
    return spec, []


def _yaml_items(text: str, label: str) -> list[tuple[str, Any]]:
    doc, problem = parse_yaml_text(Path(label), text)
    if problem is not None:
        raise PackError(problem, [problem])
    if not isinstance(doc, dict) or not isinstance(doc.get("questions"), list):
        message = f"{label}: field questions: the file must be a mapping with a 'questions' list"
        raise PackError(message, [message])
    unknown = [k for k in doc if k not in ("topic", "questions")]
    if unknown:
        message = f"{label}: field {unknown[0]!r}: unknown top-level field (topic, questions)"
        raise PackError(message, [message])
    topic = doc.get("topic")  # the topic of each question that names none
    if "topic" in doc and not (isinstance(topic, str) and re.fullmatch(TOPIC_PATTERN, topic.strip())):
        found = "nothing" if topic is None else repr(echo(topic, 60))
        message = f"{label}: field topic: the top-level topic must be 1-40 letters, digits and - (found {found})"
        raise PackError(message, [message])
    items = []
    for index, raw in enumerate(doc["questions"]):
        if isinstance(raw, dict) and topic is not None and "topic" not in raw:
            raw = {**raw, "topic": topic}
        qid = raw.get("id") if isinstance(raw, dict) else None
        items.append((f"question {qid}" if isinstance(qid, str) and qid else f"question #{index + 1}", raw))
    return items


def _csv_items(text: str, label: str) -> list[tuple[str, Any]]:
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        raise PackError(
            f"{label}: the CSV file is empty; its first row names the columns {', '.join(CSV_COLUMNS)}"
        ) from None
    except csv.Error as exc:
        raise PackError(f"{label}: row 1: not valid CSV: {exc}") from None
    names = [h.strip().lower() for h in header]
    missing = [c for c in CSV_COLUMNS if c not in names]
    extra = [n for n in names if n not in CSV_COLUMNS]
    problems = []
    if missing:
        problems.append(f"{label}: row 1: missing column(s) {', '.join(missing)}")
    if extra:
        problems.append(
            f"{label}: row 1: unknown column(s) {', '.join(repr(e) for e in extra)}; "
            f"the columns are {', '.join(CSV_COLUMNS)}"
        )
    if len(set(names)) != len(names):
        problems.append(f"{label}: row 1: a column is named twice")
    if problems:
        raise PackError(problems[0], problems)
    items: list[tuple[str, Any]] = []
    try:
        for number, row in enumerate(reader, start=2):
            if not any(cell.strip() for cell in row):
                continue
            where = f"row {number}"
            if len(row) != len(names):
                items.append((where, f"has {len(row)} cells, the header has {len(names)}"))
                continue
            cells = dict(zip(names, (read_cell(cell) for cell in row), strict=True))  # export's apostrophes off
            qid = cells["id"].strip()
            if qid:
                where = f"row {number} (question {qid})"
            raw: dict[str, Any] = {
                k: cells[k] for k in ("id", "topic", "difficulty", "prompt", "answer", "explanation", "reference")
            }
            raw["difficulty"] = raw["difficulty"].strip().lower()
            raw["answer"] = raw["answer"].strip().upper()
            if cells["code"].strip():
                raw["code"] = cells["code"]
            raw["choices"] = [cells[f"choice_{x.lower()}"] for x in LETTERS]
            items.append((where, raw))
    except csv.Error as exc:
        raise PackError(f"{label}: row {reader.line_num}: not valid CSV: {exc}") from None
    return items


def parse_pack(data: bytes, fmt: Format, label: str = "file") -> list[PackQuestionSpec]:
    """Every question of an upload, or PackError listing every problem (by row or question id and field)."""
    text = decode_upload(data, label)
    items = _yaml_items(text, label) if fmt == "yaml" else _csv_items(text, label)
    if len(items) > MAX_PACK_QUESTIONS:
        raise PackError(f"{label}: {len(items):,} questions, at most {MAX_PACK_QUESTIONS:,} per pack")
    if not items:
        raise PackError(f"{label}: no questions in the file")
    problems: list[str] = []
    specs: list[PackQuestionSpec] = []
    seen: dict[str, str] = {}
    for where, raw in items:
        if isinstance(raw, str):  # a row that could not be read as a question
            problems.append(f"{label}: {where}: {raw}")
            continue
        spec, found = _validate(raw, f"{label}: {where}")
        problems += found
        if spec is None:
            continue
        if spec.id in seen:
            problems.append(f"{label}: {where}: field id: duplicate id {spec.id!r} (first at {seen[spec.id]})")
            continue
        seen[spec.id] = where
        specs.append(spec)
    if problems:
        shown = problems[:MAX_PROBLEMS]
        if len(problems) > MAX_PROBLEMS:
            shown.append(f"{label}: and {len(problems) - MAX_PROBLEMS:,} more problem(s)")
        raise PackError(f"{len(problems)} problem(s); nothing was imported", shown)
    return specs


def format_of(name: str, given: str | None = None) -> Format:
    """yaml or csv: the given format, else the file name's ending."""
    value = (given or Path(name).suffix.lstrip(".")).lower()
    if value in ("yaml", "yml"):
        return "yaml"
    if value == "csv":
        return "csv"
    raise PackError(f"{echo(name)}: say the format (yaml or csv), or name the file .yaml, .yml or .csv")


class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value and all(line == line.rstrip() for line in value.split("\n")) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def problem_text(exc: PackError, limit: int = 1900) -> str:
    """A PackError as one message: each problem, then what it means, cut to `limit` characters."""
    lines = [*exc.problems, exc.message] if exc.message not in exc.problems else list(exc.problems)
    out: list[str] = []
    for i, line in enumerate(lines):
        if sum(len(x) + 1 for x in out) + len(line) > limit - 40:
            out.append(f"... and {len(lines) - i} more line(s)")
            break
        out.append(line)
    return "\n".join(out)


def export_yaml(bodies: Iterable[dict[str, Any]]) -> bytes:
    """The pack in the bank's YAML format (a mapping with a `questions` list)."""
    doc = {"questions": list(bodies)}
    text = yaml.dump(doc, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
    return text.encode("utf-8")


def export_csv(bodies: Iterable[dict[str, Any]]) -> bytes:
    """One row per question (why_wrong, verify and checked_by have no CSV column and are left out); a cell a
    spreadsheet would take as a formula starts with an apostrophe, which the import takes off again."""
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for b in bodies:
        choices = b["choices"]
        writer.writerow(
            safe_row(
                [
                    b["id"],
                    b["topic"],
                    b["difficulty"],
                    b["prompt"],
                    b.get("code", ""),
                    *choices,
                    b["answer"],
                    b["explanation"],
                    b["reference"],
                ]
            )
        )
    return out.getvalue().encode("utf-8")


def question_from_body(pack: str, body: str) -> Question:
    """A stored question as rounds know it: its id is `PACK/ID`."""
    question = PackQuestionSpec.model_validate(json.loads(body)).to_question()
    return Question(**{**question.__dict__, "id": f"{pack}/{question.id}"})


def pack_name_of(path: str) -> str:
    """The pack a file is imported into when none is named: the file's name without its ending."""
    stem = Path(path).stem.lower()
    if not PACK_NAME.fullmatch(stem):
        raise PackError(f"Name the pack: '{echo(stem)}' (the file's name) is not a pack name; add one after the path.")
    return stem
