"""Run a question's `verify` block and compare what happens with what the block expects.

Needs torch at run time (the verify code imports it); studybot itself never does. Each block runs in a
fresh namespace with a fixed seed; its code sets `result` (for value, shape and dtype expectations),
prints (for `prints`), or raises (for `raises`, with `raised_at` naming the line that raises).
"""

from __future__ import annotations

import ast
import contextlib
import io
import logging
import pickle
import re
import subprocess
import sys
import traceback
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from bot.bank.load import LoadedQuestion, VerifyExpect

FILENAME = "<verify>"
APART = re.compile(r"\btorch\.cond\b")  # blocks run in an interpreter of their own (see observe)


def _plain(value: Any) -> Any:
    """Tensors and tuples become lists so they compare with YAML values."""
    if hasattr(value, "tolist") and callable(value.tolist):
        return value.tolist()
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        try:
            return abs(float(a) - float(b)) <= 1e-4 * max(1.0, abs(float(b)))
        except (TypeError, ValueError):
            return False
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    return bool(a == b)


@dataclass(frozen=True)
class Observation:
    """What running a verify block did: its printed text, `result` if set, or the exception and its line."""

    printed: str
    has_result: bool = False
    result: Any = None
    error: BaseException | None = None
    error_line: str = "?"


@contextlib.contextmanager
def _kept_in(name: str) -> Iterator[None]:
    """Records of the named logger (and its children) reach only handlers on them, not the root's."""
    logger = logging.getLogger(name)
    before = logger.propagate
    logger.propagate = False
    try:
        yield
    finally:
        logger.propagate = before


def observe(entry: LoadedQuestion) -> Observation:
    """Run one verify block (fresh namespace, torch seeded with 0) and record what happened. A block that
    traces `torch.cond` runs in an interpreter of its own: in one shared with other blocks, whether its
    data-dependent predicate traced depended on what ran before (state no reset clears)."""
    assert entry.verify is not None
    if APART.search(entry.verify.code):
        return _observe_apart(entry.verify.code)
    return observe_code(entry.verify.code)


_CHILD = """
import pickle, sys
from bot.bank.verify import observe_code
seen = observe_code(sys.stdin.read())
error = None if seen.error is None else (type(seen.error).__name__, str(seen.error))
sys.stdout.buffer.write(pickle.dumps((seen.printed, seen.has_result, seen.result, error, seen.error_line)))
"""


def _observe_apart(code: str) -> Observation:
    """observe_code in a fresh interpreter; an exception comes back as its type name and text."""
    done = subprocess.run(
        [sys.executable, "-c", _CHILD], input=code.encode(), capture_output=True, timeout=300, check=False
    )
    if done.returncode != 0:
        return Observation("", error=RuntimeError(done.stderr.decode(errors="replace")[-500:]))
    printed, has_result, result, error, line = pickle.loads(done.stdout)  # noqa: S301 - our own child's report
    if error is None:
        return Observation(printed, has_result, result)
    name, text = error
    return Observation(printed, error=type(name, (Exception,), {})(text), error_line=line)


def observe_code(code: str) -> Observation:
    """Run verify code in this interpreter and record what happened."""
    namespace: dict[str, Any] = {"__name__": "__verify__"}
    out = io.StringIO()
    lines = code.splitlines()
    try:
        import torch

        torch.manual_seed(0)
        dynamo = sys.modules.get("torch._dynamo")
        if dynamo is not None:  # compiled and exported programs of earlier blocks leave caches and traced state
            dynamo.reset()
        compiled = compile(code, FILENAME, "exec")
        # a test runner that keeps the warnings and log records a block leaves keeps what they point to alive
        # (the traced shapes of one exported program then unsettle the next): torch's records stay in torch
        with contextlib.redirect_stdout(out), warnings.catch_warnings(), _kept_in("torch"):
            warnings.simplefilter("ignore")
            exec(compiled, namespace)  # noqa: S102 - verify blocks are our own reviewed bank content
    except Exception as exc:  # noqa: BLE001 - any exception is either expected or a failure to report
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == FILENAME]
        line = lines[frames[-1].lineno - 1].strip() if frames and frames[-1].lineno else "?"
        return Observation(out.getvalue(), error=exc, error_line=line)
    return Observation(out.getvalue(), "result" in namespace, namespace.get("result"))


def _printed(text: str) -> str:
    return "\n".join(s.rstrip() for s in text.rstrip().splitlines())


def run_verify(entry: LoadedQuestion) -> str | None:
    """Run one verify block; None when it matches, otherwise a message naming file, question and problem."""
    spec = entry.verify
    if spec is None:
        return None
    where = f"{entry.path}: question {entry.question.id}: field verify"
    expect: VerifyExpect = spec.expect
    seen = observe(entry)
    if seen.error is not None:
        exc, line = seen.error, seen.error_line
        if expect.raises is None:
            return f"{where}: raised {type(exc).__name__} at {line!r}: {exc}"
        if type(exc).__name__ != expect.raises:
            return f"{where}: expected {expect.raises}, got {type(exc).__name__} at {line!r}: {exc}"
        if expect.raised_at is not None and line != expect.raised_at.strip():
            return f"{where}: {expect.raises} raised at {line!r}, expected at {expect.raised_at.strip()!r}"
        return None
    if expect.raises is not None:
        return f"{where}: expected {expect.raises}, but nothing was raised"
    if "prints" in expect.model_fields_set:
        got, want = _printed(seen.printed), _printed(expect.prints or "")
        return None if got == want else f"{where}: printed {got!r}, expected {want!r}"
    if not seen.has_result:
        return f"{where}: the code did not set `result`"
    result = seen.result
    if "shape" in expect.model_fields_set:
        got_shape = list(getattr(result, "shape", result))
        return None if got_shape == expect.shape else f"{where}: shape {got_shape}, expected {expect.shape}"
    if "dtype" in expect.model_fields_set:
        got_dtype = str(getattr(result, "dtype", result))
        return None if got_dtype == expect.dtype else f"{where}: dtype {got_dtype}, expected {expect.dtype}"
    got_value = _plain(result)
    return None if _close(got_value, expect.value) else f"{where}: value {got_value!r}, expected {expect.value!r}"


# ---- does the verify tell the marked choice from the others? -------------------------------------

ASKS = {
    "prints": re.compile(r"\bprints?\b", re.IGNORECASE),
    "shape": re.compile(r"\bshapes?\b", re.IGNORECASE),
    "dtype": re.compile(r"\bdtypes?\b", re.IGNORECASE),
    "value": re.compile(
        r"\bprints?\b|\bshapes?\b|\bdtypes?\b|\bwhat (is|are) (the )?(value|result|output)", re.IGNORECASE
    ),
}


def expect_kind(entry: LoadedQuestion) -> str | None:
    """prints, shape, dtype or value when the verify expects one of those and the prompt asks for an output."""
    if entry.verify is None:
        return None
    kind = next(k for k in ("value", "prints", "shape", "dtype", "raises") if k in entry.verify.expect.model_fields_set)
    if kind not in ASKS or not ASKS[kind].search(entry.question.prompt):
        return None
    if kind == "value" and not isinstance(entry.verify.expect.value, str):
        # a value verify often checks a claim rather than the shown output: only when the choices are values
        if not states_a_value(entry.question.choices[entry.question.answer]):
            return None
    return kind


def squash(text: str) -> str:
    """Runs of whitespace become one space: how printed text is compared with a choice."""
    return " ".join(text.split())


_REASON = re.compile(r"\s*[,;:]\s+(?:because|but|since|as|so|while|which|meaning|it|and)\b.*$", re.DOTALL)


def stated_output(choice: str) -> str:
    """The output a choice states: backticks dropped, "A, then B" read as two printed lines, and a trailing
    reason ("True, because ...") cut off."""
    text = choice.replace("`", "")
    text = re.sub(r",\s+then\s+", " ", text)
    return squash(_REASON.sub("", text))


def _shape_forms(shape: list[int]) -> set[str]:
    inner = ", ".join(map(str, shape))
    tup = f"({inner},)" if len(shape) == 1 else f"({inner})"
    return {squash(f) for f in (f"torch.Size([{inner}])", tup, f"[{inner}]")}


def _dtype_forms(dtype: str) -> set[str]:
    return {dtype, dtype.removeprefix("torch.")}


def _literal(text: str) -> Any:
    """A choice read as a Python value: literals, `tensor(...)` reprs, or space-separated literals."""
    text = text.strip()
    body = re.sub(r",\s*(dtype|device|requires_grad|grad_fn)=.*\)$", ")", text)
    m = re.fullmatch(r"tensor\((.*)\)", body, re.DOTALL)
    if m:
        body = m.group(1)
    body = re.sub(r"(\d)\.(?!\d)", r"\1.0", body)  # 2. -> 2.0
    for candidate in (body, "[" + ", ".join(body.split()) + "]"):
        try:
            return ast.literal_eval(candidate.replace("inf", "1e999").replace("nan", "None"))
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    raise ValueError(text)


def _same_value(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return abs(float(a) - float(b)) <= 1e-4 * max(1.0, abs(float(b))) or a == b
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def matching_choices(kind: str, observed: Any, choices: tuple[str, ...]) -> list[int]:
    """Indexes of the choices that state the observed output. observed: printed text (prints), a shape list,
    a dtype string, or a plain value (tensors through .tolist())."""
    stated = [stated_output(c) for c in choices]
    if kind == "prints":
        return [i for i, c in enumerate(stated) if c == squash(str(observed))]
    if kind == "shape":
        forms = {f.replace(" ", "") for f in _shape_forms(list(observed))}
        return [i for i, c in enumerate(stated) if c.replace(" ", "") in forms]
    if kind == "dtype":
        forms = _dtype_forms(str(observed))
        return [i for i, c in enumerate(stated) if c in forms]
    if isinstance(observed, str):
        return [i for i, c in enumerate(stated) if c == squash(observed)]
    found = []
    for i, c in enumerate(stated):
        try:
            value = _literal(c)
        except ValueError:
            continue
        if _same_value(_plain(value), observed):
            found.append(i)
    return found


def states_a_value(choice: str) -> bool:
    """Whether a choice reads as a value (a literal or a tensor repr), i.e. looks like an output."""
    try:
        _literal(stated_output(choice))
    except ValueError:
        return False
    return True


def observed_output(kind: str, seen: Observation) -> Any:
    """The output a choice must state, from an observation of a block that ran without error."""
    if kind == "prints":
        return _printed(seen.printed)
    if kind == "shape":
        return list(getattr(seen.result, "shape", seen.result))
    if kind == "dtype":
        return str(getattr(seen.result, "dtype", seen.result))
    return _plain(seen.result)


def discrimination_problem(entry: LoadedQuestion) -> str | None:
    """None when the verify's observed output states the marked choice and no other (or the question is not a
    "what does it print / which shape / which dtype" question); otherwise a message naming the question."""
    kind = expect_kind(entry)
    if kind is None:
        return None
    where = f"{entry.path}: question {entry.question.id}: field verify"
    seen = observe(entry)
    if seen.error is not None:
        return f"{where}: raised {type(seen.error).__name__} at {seen.error_line!r}"
    if kind != "prints" and not seen.has_result:
        return f"{where}: the code did not set `result`"
    observed = observed_output(kind, seen)
    hits = matching_choices(kind, observed, entry.question.choices)
    letters = ", ".join("ABCD"[i] for i in hits) or "none"
    if hits != [entry.question.answer]:
        return (
            f"{where}: observed {kind} {squash(str(observed))!r} matches choice(s) {letters}, "
            f"marked {entry.question.answer_letter}"
        )
    return None
