"""Near-copies across questions: equal code blocks (spacing, comments and imports aside), and prompt +
code too alike by idf-weighted word overlap (the cosine of their word vectors).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from typing import Protocol, TypeVar

from bot.kernel.values import Question

NEAR_COPY_THRESHOLD = 0.93  # distinct pairs of the 574-question bank score at most 0.915 (0.928 at 293 questions)
NEAR_COPY_PROSE_THRESHOLD = 0.80  # when neither question shows code (distinct prose pairs: at most 0.732)


class Entry(Protocol):
    """A question as the check sees it (the loader's LoadedQuestion)."""

    @property
    def question(self) -> Question: ...


E = TypeVar("E", bound=Entry)


def normalise(text: str) -> str:
    """Lower-case, accents folded, punctuation and runs of whitespace removed: for duplicate checks."""
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9]+", " ", text).strip()


def _code_key(code: str | None) -> str | None:
    """A code block with comments, blank lines and spacing removed; None when there is hardly any code."""
    if not code:
        return None
    lines = [" ".join(line.split()) for line in code.splitlines()]
    kept = [line for line in lines if line and not line.startswith("#") and not line.startswith("import ")]
    return "\n".join(kept) if len(kept) >= 2 else None


def _words(q: Question) -> list[str]:
    """Normalised words of prompt + code, without the import lines every snippet shares."""
    code = [line for line in (q.code or "").splitlines() if not line.strip().startswith(("import ", "from "))]
    return normalise(q.prompt + " " + "\n".join(code)).split()


def _word_vectors(entries: list[E], corpus: list[E] | None = None) -> list[dict[str, float]]:
    """Unit-length idf-weighted word vectors of prompt + code (idf over corpus, by default the entries)."""
    docs = [Counter(_words(e.question)) for e in entries]
    df: Counter[str] = Counter(w for d in docs for w in d)
    n = len(docs)
    if corpus is not None:
        df = Counter(w for e in corpus for w in set(_words(e.question)))
        n = len(corpus)
    vectors = []
    for d in docs:
        v = {w: (1 + math.log(c)) * (math.log((1 + n) / (1 + df[w])) + 1) for w, c in d.items()}
        norm = math.sqrt(sum(x * x for x in v.values())) or 1.0
        vectors.append({w: x / norm for w, x in v.items()})
    return vectors


def similarity_pairs(
    entries: list[E], threshold: float | None = None, corpus: list[E] | None = None
) -> list[tuple[float, E, E]]:
    """Pairs whose prompt + code vectors have cosine >= threshold, most alike first. Without a threshold:
    NEAR_COPY_PROSE_THRESHOLD when neither question shows code, else NEAR_COPY_THRESHOLD. corpus: the
    questions the word weights come from (default: the entries)."""
    vectors = _word_vectors(entries, corpus)
    df: Counter[str] = Counter(w for v in vectors for w in v)
    # every pair up to 3,000 questions; beyond, only pairs sharing an uncommon word (a near-copy shares
    # nearly all its words), which keeps a large bank from taking minutes
    uncommon = len(vectors) if len(vectors) <= 3000 else max(10, len(vectors) // 20)
    # each question meets the earlier ones through the words they share (an inverted index of the
    # weights), so a pair costs its shared words, not all of one side's words
    postings: dict[str, list[tuple[int, float]]] = {}
    found = []
    for i, v in enumerate(vectors):
        dots: dict[int, float] = {}
        common = []
        for w, x in v.items():
            if df[w] > uncommon:
                common.append((w, x))
                continue
            earlier = postings.setdefault(w, [])
            for j, y in earlier:
                dots[j] = dots.get(j, 0.0) + x * y
            earlier.append((i, x))
        for j, score in dots.items():
            score += sum(x * vectors[j].get(w, 0.0) for w, x in common)
            prose = not entries[i].question.code and not entries[j].question.code
            limit = NEAR_COPY_PROSE_THRESHOLD if prose else NEAR_COPY_THRESHOLD
            limit = limit if threshold is None else threshold
            if score >= limit:
                found.append((score, entries[j], entries[i]))
    return sorted(found, key=lambda t: -t[0])
