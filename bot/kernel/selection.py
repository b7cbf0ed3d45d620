"""Pure question selection: no repeat in a space until the whole filtered bank has been asked."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from bot.kernel.values import Question


def pick_question(
    candidates: Sequence[Question],
    asked_counts: Mapping[str, int],
    last_asked: str | None,
    rng: random.Random,
) -> Question | None:
    """Pick among the least-asked candidates (a fresh cycle starts once all were asked equally often),
    avoiding the question asked last when there is any other choice."""
    if not candidates:
        return None
    fewest = min(asked_counts.get(q.id, 0) for q in candidates)
    pool = [q for q in candidates if asked_counts.get(q.id, 0) == fewest]
    if len(pool) > 1:
        pool = [q for q in pool if q.id != last_asked]
    return rng.choice(sorted(pool, key=lambda q: q.id))
