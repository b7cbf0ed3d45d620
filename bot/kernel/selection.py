"""Pure question selection: no repeat in a space until the whole filtered bank has been asked, and among the
least-asked questions the daily pick aims at about 70% right (Water Cooler Trivia's target): a question's
expected rate for the channel is its measured rate across the space, shrunk toward its difficulty label's
prior while answers are few, moved by how the channel answers compared with the space."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from bot.kernel.values import Difficulty, Question

AIM_LOW = 0.55  # the daily pick prefers questions whose expected rate lies in [AIM_LOW, AIM_HIGH]
AIM_HIGH = 0.85
AIM = 0.70  # with none in the band, the closest to this


PRIORS = {Difficulty.EASY: 0.85, Difficulty.MEDIUM: 0.65, Difficulty.HARD: 0.45}  # right rate by label


PRIOR_ANSWERS = 10  # a label's prior weighs as much as this many answers


CHANNEL_PRIOR_ANSWERS = 50  # a channel's own rate is shrunk toward the space's with this weight


RateOf = Callable[[Question], float]  # a question's expected right rate for the channel picking


class _Fewest:
    """A candidate list's least-asked questions (`fewest` times asked) and, once one is to be moved or taken
    out by its id, each one's place in them. The candidates hold each question once."""

    def __init__(self, candidates: Sequence[Question], counts: Mapping[str, int]) -> None:
        self.candidates = candidates  # held, so its id() is not reused while this is kept
        if counts:
            asked = [counts.get(q.id, 0) for q in candidates]
            self.fewest = min(asked, default=0)
            self.members = [q for q, n in zip(candidates, asked, strict=True) if n == self.fewest]
        else:
            self.fewest, self.members = 0, list(candidates)
        self._place: dict[str, int] | None = None

    def place_of(self, question_id: str) -> int | None:
        if self._place is None:
            self._place = {q.id: i for i, q in enumerate(self.members)}
        return self._place.get(question_id)

    def swap(self, i: int, j: int) -> None:
        members = self.members
        members[i], members[j] = members[j], members[i]
        if self._place is not None:
            self._place[members[i].id], self._place[members[j].id] = i, j

    def take(self, i: int) -> None:
        """Take out the question at place i (the last one moves there)."""
        self.swap(i, len(self.members) - 1)
        gone = self.members.pop()
        if self._place is not None:
            del self._place[gone.id]


def least_asked(
    candidates: Sequence[Question], asked_counts: Mapping[str, int], last_asked: str | None
) -> list[Question]:
    """The candidates asked the fewest times (a fresh cycle starts once all were asked equally often), without
    the question asked last when there is any other."""
    pool = _Fewest(candidates, asked_counts).members
    if len(pool) > 1 and last_asked is not None:
        pool = [q for q in pool if q.id != last_asked]
    return pool


def pick_question(
    candidates: Sequence[Question],
    asked_counts: Mapping[str, int],
    last_asked: str | None,
    rng: random.Random,
    expected: RateOf | None = None,
) -> Question | None:
    """Pick among the least-asked candidates (least_asked). With `expected` (a question's expected right rate
    for the channel, SpaceRates.rate_for), only those in [AIM_LOW, AIM_HIGH] are picked from, or with none in
    the band the ones closest to AIM: the no-repeat rule comes first, the aim only chooses among what it
    allows (see probe)."""
    pool = least_asked(candidates, asked_counts, last_asked)
    return pool[probe(pool, len(pool), rng, expected)] if pool else None


def probe(pool: Sequence[Question], n: int, rng: random.Random, expected: RateOf | None) -> int:
    """The place of a question of `pool[:n]` (n >= 1): with `expected`, of the first in the band found in a
    random order (a Fisher-Yates shuffle stopped early, kept as a map of moved places, so `pool` is not
    changed), uniform among those in the band, so a pick works out the rates of a few questions, not of the
    whole bank; with none in the band, of one of the closest to AIM (aimed)."""
    if expected is None:
        return rng.randrange(n)
    moved: dict[int, int] = {}  # place -> the place of `pool` whose question the shuffle put there
    for k in range(n):
        j = rng.randrange(k, n)
        here = moved.get(j, j)
        moved[j] = moved.get(k, k)
        if AIM_LOW <= expected(pool[here]) <= AIM_HIGH:
            return here
    return rng.choice(_aimed_places([expected(q) for q in pool[:n]]))


def aimed(pool: Sequence[Question], rate: RateOf) -> list[Question]:
    """The questions of `pool` whose expected rate lies in the band, or else the closest to AIM."""
    return [pool[i] for i in _aimed_places([rate(q) for q in pool])]


def _aimed_places(rates: Sequence[float]) -> list[int]:
    inside = [i for i, r in enumerate(rates) if AIM_LOW <= r <= AIM_HIGH]
    if inside:
        return inside
    closest = min(abs(r - AIM) for r in rates)
    return [i for i, r in enumerate(rates) if abs(r - AIM) == closest]


class AskedCycle:
    """A space's no-repeat state across its channels' picks in one batch: each candidate list's least-asked
    questions are worked out once, and each pick takes its question out of them, so a pick costs about the
    questions it probes, not a pass over the bank. Picks as pick_question does, with the counts and the
    last question updated by every pick."""

    def __init__(self, asked_counts: Mapping[str, int], last_asked: str | None) -> None:
        self.counts = dict(asked_counts)
        self.last = last_asked
        self._fewest: dict[int, _Fewest] = {}

    def pick(
        self, candidates: Sequence[Question], rng: random.Random, expected: RateOf | None = None
    ) -> Question | None:
        """The next question from `candidates` (pass the same sequence object to reuse its work)."""
        fewest = self._fewest.get(id(candidates))
        if fewest is None or fewest.candidates is not candidates or not fewest.members:
            fewest = self._fewest[id(candidates)] = _Fewest(candidates, self.counts)
        n = len(fewest.members)
        if n == 0:
            return None
        if n > 1 and self.last is not None and self.counts.get(self.last, 0) == fewest.fewest:
            last = fewest.place_of(self.last)  # not the question asked last, when there is any other
            if last is not None:
                fewest.swap(last, n - 1)
                n -= 1
        i = probe(fewest.members, n, rng, expected)
        question = fewest.members[i]
        fewest.take(i)
        self.counts[question.id] = self.counts.get(question.id, 0) + 1
        self.last = question.id
        for other in self._fewest.values():
            if other is not fewest and self.counts[question.id] - 1 == other.fewest:
                j = other.place_of(question.id)
                if j is not None:
                    other.take(j)
        return question


def shrunk_rate(right: int, answers: int, prior: float, weight: float = PRIOR_ANSWERS) -> float:
    """The measured right rate pulled toward `prior` while answers are few."""
    return (right + weight * prior) / (answers + weight)


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x))


@dataclass(frozen=True)
class SpaceRates:
    """A space's daily answers of revealed rounds, as (answers, right answers) per question and per channel
    (the store keeps them as rounds are revealed): each of its channels' picks works out the expected rates
    of just the questions it probes."""

    questions: dict[str, tuple[int, int]] = field(default_factory=dict)
    channels: dict[str, tuple[int, int]] = field(default_factory=dict)

    @classmethod
    def tally(cls, counts: Iterable[tuple[str, str, int, int]]) -> SpaceRates:
        """From rows of (channel id, question id, answers, right answers)."""
        questions: dict[str, tuple[int, int]] = {}
        channels: dict[str, tuple[int, int]] = {}
        for cid, qid, n, right in counts:
            q, c = questions.get(qid, (0, 0)), channels.get(cid, (0, 0))
            questions[qid] = (q[0] + n, q[1] + right)
            channels[cid] = (c[0] + n, c[1] + right)
        return cls(questions, channels)

    def offset(self, channel_id: str | None) -> float:
        """How much better or worse (log-odds) the channel answers than the space, shrunk toward no difference
        while the channel has few answers."""
        channel = self.channels.get(channel_id) if channel_id is not None else None
        if not channel or not channel[0]:
            return 0.0
        space = (sum(n for n, _ in self.channels.values()), sum(right for _, right in self.channels.values()))
        space_rate = space[1] / space[0]
        return _logit(shrunk_rate(channel[1], channel[0], space_rate, CHANNEL_PRIOR_ANSWERS)) - _logit(space_rate)

    def rate_for(self, channel_id: str | None = None) -> RateOf:
        """A question's expected right rate for the channel: its rate across the space shrunk toward its
        label's prior, shifted by the channel's offset."""
        offset, questions = self.offset(channel_id), self.questions

        def rate(q: Question) -> float:
            n, right = questions.get(q.id, (0, 0))
            base = shrunk_rate(right, n, PRIORS[q.difficulty])
            return _sigmoid(_logit(base) + offset) if offset else base

        return rate
