"""Per-question statistics for admins: times asked, % correct, the most chosen wrong option and its share,
reports, and flags for questions worth checking once answered at least 30 times: over 95% right (too easy),
under 20% right (too hard, or a wrong key), a wrong option chosen more than the right one, and dead
distractors (a wrong option chosen by under 3%). With fewer answers a single click would decide. Statistics
count revealed rounds only."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from bot.kernel.values import LETTERS, Actor, Question
from bot.packs.catalog import BANK_PACK, PackCatalog, require_admin

FLAG_MIN_ANSWERS = 30  # flags need at least this many answers


FLAG_MAX_CORRECT = 0.20  # under this share right: too hard (or a wrong key)


FLAG_MIN_CORRECT = 0.95  # over this share right: too easy


DEAD_DISTRACTOR = 0.03  # a wrong option chosen by under this share of the answers does no work


LISTED = 10


@dataclass(frozen=True)
class QuestionStat:
    question_id: str
    asked: int  # rounds that posted it (daily and practice)
    answers: tuple[int, ...]  # per choice A-D
    correct: int
    answer: int | None  # the correct choice now (None: the question is gone)
    reports: int = 0  # open reports of members about the question

    @property
    def answered(self) -> int:
        return sum(self.answers)

    @property
    def correct_share(self) -> float:
        return self.correct / self.answered if self.answered else 0.0

    @property
    def common_wrong(self) -> tuple[str, float] | None:
        """(letter, share of answers) of the most chosen wrong option; None when nobody chose a wrong one."""
        wrong = [(n, i) for i, n in enumerate(self.answers) if i != self.answer and n]
        if not wrong or not self.answered:
            return None
        n, i = max(wrong, key=lambda t: (t[0], -t[1]))
        return LETTERS[i], n / self.answered

    @property
    def reasons(self) -> tuple[str, ...]:
        """Why the question is worth checking (answered at least 30 times): over 95% or under 20% right, a
        wrong option chosen more than the right one, dead distractors (wrong options chosen under 3%)."""
        if self.answered < FLAG_MIN_ANSWERS:
            return ()
        found: list[str] = []
        if self.correct_share > FLAG_MIN_CORRECT:
            found.append(f"over {FLAG_MIN_CORRECT:.0%} right")
        if self.correct_share < FLAG_MAX_CORRECT:
            found.append(f"under {FLAG_MAX_CORRECT:.0%} right")
        right = self.answers[self.answer] if self.answer is not None else 0
        ahead = [LETTERS[i] for i, n in enumerate(self.answers) if i != self.answer and n > right]
        if ahead:
            found.append(f"{', '.join(ahead)} chosen more than the right one")
        if self.answer is not None:
            dead = [LETTERS[i] for i in self.dead_distractors]
            if dead:
                found.append(f"dead distractor{'s' if len(dead) > 1 else ''} {', '.join(dead)} (chosen under 3%)")
        return tuple(found)

    @property
    def dead_distractors(self) -> tuple[int, ...]:
        """The wrong options chosen by under 3% of the answers (with at least 30 answers)."""
        if self.answer is None or self.answered < FLAG_MIN_ANSWERS:
            return ()
        return tuple(i for i, n in enumerate(self.answers) if i != self.answer and n / self.answered < DEAD_DISTRACTOR)

    @property
    def check(self) -> bool:
        """Flagged "check this question" (see `reasons`)."""
        return bool(self.reasons)

    def line(self) -> str:
        wrong = self.common_wrong
        answers = f"{self.answered} answer{'s' if self.answered != 1 else ''}"
        text = f"{self.question_id}: asked {self.asked}, {answers}, {self.correct_share:.0%} correct" + (
            f", most chosen wrong {wrong[0]} ({wrong[1]:.0%})" if wrong else ""
        )
        text += f", {self.reports} report{'s' if self.reports != 1 else ''}"
        reasons = self.reasons
        return text + (f" - check this question: {'; '.join(reasons)}" if reasons else "")


@dataclass(frozen=True)
class QuestionStatsCard:
    pack: str | None
    hardest: tuple[QuestionStat, ...]  # the ten with the lowest share correct (answered at least once)
    flagged: tuple[QuestionStat, ...]
    reported: tuple[QuestionStat, ...] = ()  # the ten most reported (at least one report)

    @property
    def text(self) -> str:
        title = f"Question stats ({self.pack or 'every pack'})"
        if not self.hardest and not self.reported:
            return f"{title}\nNo answers yet."
        lines = [title, "Hardest:", *(s.line() for s in self.hardest)]
        if self.reported:
            lines += ["Most reported:", *(s.line() for s in self.reported)]
        lines += ["Check these:", *(s.line() for s in self.flagged)] if self.flagged else ["Nothing flagged."]
        return "\n".join(lines)


def flagged_in_order(stats: Iterable[QuestionStat]) -> tuple[QuestionStat, ...]:
    """The flagged questions, up to ten of each kind, in this order: too easy (the easiest first), too hard
    (the hardest first), a wrong option ahead of the right one, dead distractors; each question once."""
    flagged = [s for s in stats if s.check]
    kinds = (
        sorted(
            (s for s in flagged if s.correct_share > FLAG_MIN_CORRECT), key=lambda s: (-s.correct_share, s.question_id)
        ),
        sorted(
            (s for s in flagged if s.correct_share < FLAG_MAX_CORRECT), key=lambda s: (s.correct_share, s.question_id)
        ),
        sorted(flagged, key=lambda s: (s.correct_share, s.question_id)),  # the rest: option ahead, dead distractors
    )
    out: dict[str, QuestionStat] = {}
    for kind in kinds[:2]:
        out.update((s.question_id, s) for s in kind[:LISTED])
    rest = [s for s in kinds[2] if s.question_id not in out]
    out.update((s.question_id, s) for s in rest[:LISTED])
    return tuple(out.values())


def _in_pack(question_id: str, pack: str | None) -> bool:
    if pack is None:
        return True
    if pack == BANK_PACK:
        return "/" not in question_id
    return question_id.startswith(f"{pack}/")


async def question_table(
    catalog: PackCatalog,
    actor: Actor,
    platform: str,
    space_id: str,
    reports: Mapping[str, int],
    hidden: Collection[str],
) -> tuple[QuestionStat, ...]:
    """Admins only: every question asked in the space with its statistics (revealed rounds only), less the
    `hidden` ones (open in a channel now, daily or live: nothing of them shows before their reveal), by question id."""
    require_admin(actor, "see the statistics of")
    own = await catalog.questions(
        platform, space_id, [n for n, _, _ in await catalog.store.list_packs(platform, space_id)]
    )
    answers = {q.id: q.answer for q in (*catalog.bank.questions, *own)}
    rows = await catalog.store.question_answer_counts(platform, space_id)
    return tuple(
        sorted(
            (
                QuestionStat(qid, asked, chosen, correct, answers.get(qid), reports.get(qid, 0))
                for qid, asked, chosen, correct in rows
                if qid not in hidden
            ),
            key=lambda s: s.question_id,
        )
    )


async def question_stats(
    catalog: PackCatalog,
    actor: Actor,
    platform: str,
    space_id: str,
    pack: str | None = None,
    reports: Mapping[str, int] | None = None,
) -> QuestionStatsCard:
    """Admins only: the space's question statistics, of one pack or of all. `reports`: open reports per
    question id (none yet: every count is 0)."""
    require_admin(actor, "see the statistics of")
    own = await catalog.questions(
        platform, space_id, [n for n, _, _ in await catalog.store.list_packs(platform, space_id)]
    )
    answers = {q.id: q.answer for q in (*catalog.bank.questions, *own)}
    stats = [
        QuestionStat(qid, asked, chosen, correct, answers.get(qid), (reports or {}).get(qid, 0))
        for qid, asked, chosen, correct in await catalog.store.question_answer_counts(platform, space_id)
        if _in_pack(qid, pack)
    ]
    answered = [s for s in stats if s.answered]
    hardest = sorted(answered, key=lambda s: (s.correct_share, -s.answered, s.question_id))[:LISTED]
    flagged = flagged_in_order(answered)
    reported = sorted((s for s in stats if s.reports), key=lambda s: (-s.reports, s.question_id))[:LISTED]
    return QuestionStatsCard(pack, tuple(hardest), flagged, tuple(reported))


@dataclass(frozen=True)
class QuestionView:
    """One question of the space as an admin checks it: the question, its pack, its statistics (None: never
    revealed here) and its open reports; while it is open in a channel, its answer and figures wait."""

    question: Question
    pack: str
    stat: QuestionStat | None
    reports: int
    open_now: bool  # open in a channel now (daily or live): nothing of its answer shows before its reveal
    held: bool = False  # not asked in the space until an admin keeps it (open reports, or an admin's hold)


async def question_view(
    catalog: PackCatalog,
    actor: Actor,
    platform: str,
    space_id: str,
    question_id: str,
    reports: Mapping[str, int],
    hidden: Collection[str],
) -> QuestionView | None:
    """Admins only: one question of the shipped bank or of the space's own packs (None: no such question here)."""
    require_admin(actor, "see the questions of")
    question = await catalog.question(platform, space_id, question_id)
    if question is None:
        return None
    pack = question_id.split("/", 1)[0] if "/" in question_id else BANK_PACK
    open_now = question_id in hidden
    stat = None
    if not open_now:
        for qid, asked, chosen, correct in await catalog.store.question_answer_counts(platform, space_id):
            if qid == question_id:
                stat = QuestionStat(qid, asked, chosen, correct, question.answer, reports.get(qid, 0))
    return QuestionView(question, pack, stat, reports.get(question_id, 0), open_now)
