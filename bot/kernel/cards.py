"""Platform-neutral cards every game shares: a question, a verdict, a reveal and a leaderboard.

Adapters render them their own way; features build them with the functions here.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import NamedTuple
from zoneinfo import ZoneInfo

from bot.kernel.scoring import LeaderboardRow
from bot.kernel.topics import TOPICS
from bot.kernel.values import (
    LETTERS,
    Answer,
    ChannelConfig,
    Difficulty,
    Period,
    Question,
    Round,
    RoundKind,
)


@dataclass(frozen=True)
class Verdict:
    """What a learner sees when a practice answer is judged at once."""

    correct: bool
    chosen_letter: str
    correct_letter: str
    explanation: str
    reference: str
    why_wrong: str = ""  # why the chosen choice fails ("" when it is right or no sentence is known)
    sure: bool = True  # False: the learner marked the answer "not sure"

    @property
    def confident_miss(self) -> bool:
        return self.sure and not self.correct


class AnswerOutcome(NamedTuple):
    """What the learner is told about one answer (a tuple: one is built per answer, and a frozen
    dataclass takes five times as long to build)."""

    round_id: int
    user_id: str
    chosen_letter: str
    text: str  # the private acknowledgement: never the verdict for a daily round
    verdict: Verdict | None = None  # practice only
    follow_up: QuestionCard | None = None  # a review's next question
    review_score: str | None = None  # after a review's last question: its score (also at the end of `text`)


@dataclass(frozen=True)
class QuestionCard:
    round_id: int
    kind: RoundKind
    title: str
    prompt: str
    choices: tuple[str, ...]
    topic: str  # empty on a daily question: its topic would hint at the answer before the reveal
    difficulty: Difficulty
    code: str | None = None
    reveal_note: str | None = None  # "Answers are revealed at ..." for daily rounds
    reveal_at: dt.datetime | None = None  # the promised reveal instant the note names (None: no such instant)
    reactions: bool = False
    ping_role: str | None = None  # Discord: the role a daily question mentions (the channel's ping_role)
    ping_group: str | None = None  # Slack: the user group a daily question mentions (the channel's ping_group)

    @property
    def lettered_choices(self) -> tuple[tuple[str, str], ...]:
        return tuple(zip(LETTERS, self.choices, strict=True))

    def reveal_text(self, show: Callable[[dt.datetime], str]) -> str | None:
        """The reveal note with its instant as `show` writes it: a platform's own timestamp, which each reader
        sees in their own timezone (Discord's <t:...>, Slack's <!date^...>), instead of the channel's."""
        if self.reveal_at is None:
            return self.reveal_note
        return REVEAL_AT.format(when=show(self.reveal_at))


@dataclass(frozen=True)
class RevealCard:
    round_id: int
    title: str
    prompt: str
    choices: tuple[str, ...]
    correct_letter: str
    explanation: str
    reference: str
    distribution: tuple[int, ...]  # answers per letter
    correct_users: tuple[str, ...]
    question_message_id: str | None = None
    code: str | None = None
    ping_winners: bool = False  # notify correct_users (the channel's setting); otherwise name them quietly
    common_wrong: tuple[str, str] | None = None  # (letter, why it fails) of the most chosen wrong choice
    note: str | None = None  # e.g. "Revealed late: the bot was offline."
    discussion: bool = False  # the channel's threads setting: open a thread on the reveal to talk about it

    @property
    def total(self) -> int:
        return sum(self.distribution)


@dataclass(frozen=True)
class LeaderboardCard:
    title: str
    period: Period
    period_label: str
    rows: tuple[LeaderboardRow, ...]
    me: LeaderboardRow | None = None
    public: bool = False  # asked to be posted in the channel for everyone (no asker's rank then)
    podium: tuple[LeaderboardRow, ...] = ()  # a season's archived top three (rank = place 1-3)
    note: str = ""  # a line under the board (e.g. when a season was archived)


NO_SCORES = "No scores yet: answers count once their question is revealed."


class TimeMarks:
    """Instants kept apart from a text's escaping: `mark` stands in for each one (a NUL-delimited number, which
    typed text never holds), and `fill` puts the platform's own markup for it back once the text is escaped."""

    def __init__(self, show: Callable[[dt.datetime], str]) -> None:
        self._show = show
        self._marks: list[str] = []

    def mark(self, at: dt.datetime) -> str:
        self._marks.append(self._show(at))
        return f"\x00{len(self._marks) - 1}\x00"

    def fill(self, text: str) -> str:
        return re.sub("\x00(\\d+)\x00", lambda m: self._marks[int(m.group(1))], text)


REVEAL_AT = "One answer each; it locks. The answer is revealed {when}."  # {when}: the promised instant


def question_card(round_: Round, question: Question, cfg: ChannelConfig | None) -> QuestionCard:
    """A daily question (with when its answer is revealed) or a private practice question."""
    if round_.kind is RoundKind.PRACTICE:
        title, note = f"Practice: {TOPICS.get(question.topic, question.topic)}", None
    else:
        # a space's own pack question (id PACK/ID) is not one of the shipped PyTorch bank's
        kind = "Daily question" if "/" in round_.question_id else "Daily PyTorch question"
        title = f"{kind}, {round_.local_date:%a %d %b %Y}"
        note = reveal_note(round_, cfg)
    daily = round_.kind is not RoundKind.PRACTICE
    return QuestionCard(
        round_id=round_.id,
        kind=round_.kind,
        title=title,
        prompt=question.prompt,
        choices=question.choices,
        topic=question.topic if round_.kind is RoundKind.PRACTICE else "",  # a daily topic is a hint
        difficulty=question.difficulty,
        code=question.code,
        reveal_note=note,
        reveal_at=round_.closes_at if daily else None,
        reactions=bool(cfg and cfg.reactions and round_.kind is RoundKind.DAILY),
        ping_role=cfg.ping_role if cfg and round_.kind is RoundKind.DAILY else None,
        ping_group=cfg.ping_group if cfg and round_.kind is RoundKind.DAILY else None,
    )


def reveal_note(round_: Round, cfg: ChannelConfig | None) -> str:
    """When a daily round's answer comes: exactly the instant promised when it was posted."""
    tz = ZoneInfo(cfg.timezone) if cfg else dt.UTC
    at = round_.closes_at
    if at is None:
        return "One answer each; it locks. The answer is revealed when an admin reveals it."
    return REVEAL_AT.format(when=f"{at.astimezone(tz):%a %d %b %H:%M} ({tz})")


def closed_text(closed_at: dt.datetime, timezone: str, answer_letter: str) -> str:
    """The reply to an answer that came after the question closed."""
    return (
        f"Today's question closed at {closed_at.astimezone(ZoneInfo(timezone)):%H:%M} ({timezone}); "
        f"the answer was {answer_letter}."
    )


def reveal_card(
    round_: Round, question: Question, answers: Iterable[Answer], *, ping_winners: bool = False
) -> RevealCard:
    """The correct choice, its explanation, how the channel answered and who got it right (first first);
    `ping_winners`: the channel wants them notified."""
    answers = list(answers)
    distribution = [0] * len(LETTERS)
    for a in answers:
        distribution[a.choice] += 1
    right = tuple(a.user_id for a in sorted(answers, key=lambda a: (a.answered_at, a.user_id)) if a.correct)
    return RevealCard(
        common_wrong=most_chosen_wrong(question, distribution),
        round_id=round_.id,
        title=f"Answer: {question.answer_letter}" + (f" ({round_.local_date:%a %d %b})" if round_.local_date else ""),
        prompt=question.prompt,
        choices=question.choices,
        correct_letter=question.answer_letter,
        explanation=question.explanation,
        reference=question.reference,
        distribution=tuple(distribution),
        correct_users=right,
        question_message_id=round_.message_id,
        code=question.code,
        ping_winners=ping_winners,
    )


def most_chosen_wrong(question: Question, distribution: list[int]) -> tuple[str, str] | None:
    """The wrong choice most people picked (the earlier letter on a tie) and why it fails, if anyone did."""
    wrong = [(n, -i) for i, n in enumerate(distribution) if i != question.answer and n > 0]
    if not wrong:
        return None
    index = -max(wrong)[1]
    sentence = question.why_wrong[index] if index < len(question.why_wrong) else ""
    return (LETTERS[index], sentence) if sentence else None


def common_wrong_text(card: RevealCard) -> str:
    """The reveal's line on the most chosen wrong choice ("" when there is none)."""
    if card.common_wrong is None:
        return ""
    letter, sentence = card.common_wrong
    return f"Most chosen wrong answer, {letter}: {sentence}"


def shares(card: RevealCard) -> tuple[int, ...]:
    """Each choice's share of the answers, in whole percent (all 0 when nobody answered)."""
    total = card.total
    return tuple(round(100 * n / total) if total else 0 for n in card.distribution)


def verdict(question: Question, choice: int, *, sure: bool = True) -> Verdict:
    why = question.why_wrong[choice] if choice != question.answer and choice < len(question.why_wrong) else ""
    return Verdict(
        choice == question.answer,
        LETTERS[choice],
        question.answer_letter,
        question.explanation,
        question.reference,
        why,
        sure,
    )


def verdict_headline(v: Verdict) -> str:
    return "Correct!" if v.correct else f"Not quite: the answer is {v.correct_letter}"


CONFIDENT_MISS = "You were sure, and it was wrong: this one comes back first in your next review."


def verdict_text(v: Verdict) -> str:
    """A practice answer judged at once: the headline and the explanation (and, for a wrong answer given
    sure, that it was a confident miss)."""
    head = verdict_headline(v) + ("" if v.correct else ".")
    why = f" Why not {v.chosen_letter}: {v.why_wrong}" if v.why_wrong else ""
    text = f"{head}{why} {v.explanation}"
    return f"{text}\n{CONFIDENT_MISS}" if v.confident_miss else text


@functools.cache  # one per letter, asked for once per answer
def locked_in_text(letter: str) -> str:
    """The private acknowledgement of a daily answer: never whether it is right."""
    return f"Your answer {letter} is locked in. You will see whether it is right when the answer is revealed."


def leaderboard_card(
    period: Period, today: dt.date, key: str, rows: Iterable[LeaderboardRow], me: LeaderboardRow | None
) -> LeaderboardCard:
    label = {Period.WEEK: f"week {key}", Period.MONTH: f"{today:%B %Y}", Period.ALL: "all time"}[period]
    return LeaderboardCard(f"Leaderboard: {label}", period, label, tuple(rows), me)


def topic_lines(questions: Iterable[Question]) -> tuple[str, ...]:
    """Every topic with its number of questions, by difficulty."""
    counts: dict[str, dict[str, int]] = {}
    for q in questions:
        per = counts.setdefault(q.topic, {})
        per[q.difficulty.value] = per.get(q.difficulty.value, 0) + 1
    lines = []
    for topic in sorted(counts, key=lambda t: (list(TOPICS).index(t) if t in TOPICS else len(TOPICS), t)):
        per = counts[topic]
        split = ", ".join(f"{per[d]} {d}" for d in ("easy", "medium", "hard") if per.get(d))
        n = sum(per.values())
        lines.append(f"{topic}: {TOPICS.get(topic, topic)}, {n} question{'' if n == 1 else 's'} ({split})")
    return tuple(lines)


def more(n: int, what: str) -> str:
    """How many more of something: 1 more review, 2 more reviews, 2 more misses."""
    return f"{n} more {what}" if n == 1 else f"{n} more {what}{'es' if what.endswith('s') else 's'}"
