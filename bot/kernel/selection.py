"""Pure question selection: no repeat in a space until the whole filtered bank has been asked, and among the
least-asked questions the daily pick aims at about 70% right (Water Cooler Trivia's target): a question's
expected rate for the channel is its measured rate across the space, shrunk toward its difficulty label's
prior while answers are few, moved by how the channel answers compared with the space."""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence

from bot.kernel.values import Difficulty, Question

AIM_LOW = 0.55  # the daily pick prefers questions whose expected rate lies in [AIM_LOW, AIM_HIGH]
AIM_HIGH = 0.85
AIM = 0.70  # with none in the band, the closest to this


PRIORS = {Difficulty.EASY: 0.85, Difficulty.MEDIUM: 0.65, Difficulty.HARD: 0.45}  # right rate by label


PRIOR_ANSWERS = 10  # a label's prior weighs as much as this many answers


CHANNEL_PRIOR_ANSWERS = 50  # a channel's own rate is shrunk toward the space's with this weight


def pick_question(
    candidates: Sequence[Question],
    asked_counts: Mapping[str, int],
    last_asked: str | None,
    rng: random.Random,
    expected: Mapping[str, float] | None = None,
) -> Question | None:
    """Pick among the least-asked candidates (a fresh cycle starts once all were asked equally often),
    avoiding the question asked last when there is any other choice. With `expected` (question id ->
    expected right rate), only those in [AIM_LOW, AIM_HIGH] are picked from, or with none in the band the
    ones closest to AIM: the no-repeat rule comes first, the aim only chooses among what it allows."""
    if not candidates:
        return None
    fewest = min(asked_counts.get(q.id, 0) for q in candidates)
    pool = [q for q in candidates if asked_counts.get(q.id, 0) == fewest]
    if len(pool) > 1:
        pool = [q for q in pool if q.id != last_asked]
    if expected is not None:
        pool = aimed(pool, expected)
    return rng.choice(sorted(pool, key=lambda q: q.id))


def aimed(pool: Sequence[Question], expected: Mapping[str, float]) -> list[Question]:
    """The questions of `pool` whose expected rate lies in the band, or else the closest to AIM."""
    rate = {q.id: expected.get(q.id, PRIORS[q.difficulty]) for q in pool}
    inside = [q for q in pool if AIM_LOW <= rate[q.id] <= AIM_HIGH]
    if inside:
        return inside
    closest = min(abs(rate[q.id] - AIM) for q in pool)
    return [q for q in pool if abs(rate[q.id] - AIM) == closest]


def shrunk_rate(right: int, answers: int, prior: float, weight: float = PRIOR_ANSWERS) -> float:
    """The measured right rate pulled toward `prior` while answers are few."""
    return (right + weight * prior) / (answers + weight)


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x))


def expected_rates(
    questions: Iterable[Question], counts: Iterable[tuple[str, str, int, int]], channel_id: str | None = None
) -> dict[str, float]:
    """Each question's expected right rate for a channel, from the space's daily answers `counts` (channel
    id, question id, answers, right answers, of revealed rounds): its rate across the space shrunk toward its
    label's prior, then shifted (in log-odds) by how much better or worse the channel answers than the space,
    itself shrunk toward no difference while the channel has few answers."""
    per_question: dict[str, list[int]] = {}
    channel = [0, 0]
    space = [0, 0]
    for cid, qid, n, right in counts:
        tally = per_question.setdefault(qid, [0, 0])
        tally[0] += n
        tally[1] += right
        space[0] += n
        space[1] += right
        if cid == channel_id:
            channel[0] += n
            channel[1] += right
    offset = 0.0
    if channel_id is not None and channel[0] and space[0]:
        space_rate = space[1] / space[0]
        offset = _logit(shrunk_rate(channel[1], channel[0], space_rate, CHANNEL_PRIOR_ANSWERS)) - _logit(space_rate)
    out: dict[str, float] = {}
    for q in questions:
        n, right = per_question.get(q.id, (0, 0))
        base = shrunk_rate(right, n, PRIORS[q.difficulty])
        out[q.id] = _sigmoid(_logit(base) + offset) if offset else base
    return out
