"""Run a question's `verify` block and compare what happens with what the block expects.

Needs torch at run time (the verify code imports it); studybot itself never does. Each block runs in a
fresh namespace with a fixed seed; its code sets `result` (for value, shape and dtype expectations),
prints (for `prints`), or raises (for `raises`, with `raised_at` naming the line that raises).
"""

from __future__ import annotations

import contextlib
import io
import traceback
from typing import Any

from bot.bank import LoadedQuestion, VerifyExpect

FILENAME = "<verify>"


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
    return a == b


def run_verify(entry: LoadedQuestion) -> str | None:
    """Run one verify block; None when it matches, otherwise a message naming file, question and problem."""
    spec = entry.verify
    if spec is None:
        return None
    where = f"{entry.path}: question {entry.question.id}: field verify"
    expect: VerifyExpect = spec.expect
    namespace: dict[str, Any] = {"__name__": "__verify__"}
    out = io.StringIO()
    lines = spec.code.splitlines()
    try:
        import torch

        torch.manual_seed(0)
        code = compile(spec.code, FILENAME, "exec")
        with contextlib.redirect_stdout(out):
            exec(code, namespace)  # noqa: S102 - verify blocks are our own reviewed bank content
    except Exception as exc:  # noqa: BLE001 - any exception is either expected or a failure to report
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == FILENAME]
        line = lines[frames[-1].lineno - 1].strip() if frames and frames[-1].lineno else "?"
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
        got = "\n".join(s.rstrip() for s in out.getvalue().rstrip().splitlines())
        want = "\n".join(s.rstrip() for s in (expect.prints or "").rstrip().splitlines())
        return None if got == want else f"{where}: printed {got!r}, expected {want!r}"
    if "result" not in namespace:
        return f"{where}: the code did not set `result`"
    result = namespace["result"]
    if "shape" in expect.model_fields_set:
        got_shape = list(getattr(result, "shape", result))
        return None if got_shape == expect.shape else f"{where}: shape {got_shape}, expected {expect.shape}"
    if "dtype" in expect.model_fields_set:
        got_dtype = str(getattr(result, "dtype", result))
        return None if got_dtype == expect.dtype else f"{where}: dtype {got_dtype}, expected {expect.dtype}"
    got_value = _plain(result)
    return None if _close(got_value, expect.value) else f"{where}: value {got_value!r}, expected {expect.value!r}"
