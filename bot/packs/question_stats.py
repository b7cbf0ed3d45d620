"""Per-question statistics for admins: times asked, % correct, the most chosen wrong option and its share,
reports, and a flag for questions worth checking: answered more than 30 times, and under 15% right or a
wrong option chosen more than the right one (with fewer answers a single wrong click would flag it)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from bot.kernel.values import LETTERS, Actor
from bot.packs.catalog import BANK_PACK, PackCatalog, require_admin

FLAG_MIN_ANSWERS = 30  # "answered by more than 30 people"


FLAG_MAX_CORRECT = 0.15  # "... with under 15% correct"


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
    def check(self) -> bool:
        """Flagged "check this question": answered more than 30 times, with under 15% right or with a wrong
        option chosen more than the right one."""
        if self.answered <= FLAG_MIN_ANSWERS:
            return False
        if self.correct_share < FLAG_MAX_CORRECT:
            return True
        right = self.answers[self.answer] if self.answer is not None else 0
        return any(n > right for i, n in enumerate(self.answers) if i != self.answer)

    def line(self) -> str:
        wrong = self.common_wrong
        text = f"{self.question_id}: asked {self.asked}, {self.answered} answers, {self.correct_share:.0%} correct" + (
            f", most chosen wrong {wrong[0]} ({wrong[1]:.0%})" if wrong else ""
        )
        text += f", {self.reports} report{'s' if self.reports != 1 else ''}"
        return text + (" - check this question" if self.check else "")


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
    `hidden` ones (open as a daily round now: nothing of them shows before their reveal), by question id."""
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
    flagged = sorted((s for s in answered if s.check), key=lambda s: (s.correct_share, s.question_id))[:LISTED]
    reported = sorted((s for s in stats if s.reports), key=lambda s: (-s.reports, s.question_id))[:LISTED]
    return QuestionStatsCard(pack, tuple(hardest), tuple(flagged), tuple(reported))
