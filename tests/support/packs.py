"""Question packs for tests: a valid CSV or YAML upload of n questions."""

from __future__ import annotations

import csv
import io

from bot.packs.files import CSV_COLUMNS


def pack_rows(n: int = 30, prefix: str = "team", topic: str = "team-lore") -> list[dict[str, str]]:
    levels = ("easy", "medium", "hard")
    return [
        {
            "id": f"{prefix}-{i}",
            "topic": topic if i % 2 else f"{topic}-2",
            "difficulty": levels[i % 3],
            "prompt": f"Which number does the team call question {i} of {prefix}?",
            "code": "x = 1\nprint(x)" if i % 5 == 0 else "",
            "choice_a": f"one {i}",
            "choice_b": f"two {i}",
            "choice_c": f"three {i}",
            "choice_d": f"four {i}",
            "answer": "ABCD"[i % 4],
            "explanation": f"The team wiki says so for question {i}, and it was checked twice.",
            "reference": f"https://example.org/wiki/{prefix}/{i}",
        }
        for i in range(n)
    ]


def pack_csv(rows: list[dict[str, str]] | None = None, columns: tuple[str, ...] = CSV_COLUMNS) -> bytes:
    out = io.StringIO(newline="")
    writer = csv.DictWriter(out, fieldnames=list(columns), extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in pack_rows() if rows is None else rows:
        writer.writerow(row)
    return out.getvalue().encode("utf-8")
