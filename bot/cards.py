"""Cards: what people read about a question, a reveal, a verdict, a leaderboard or their stats, written once
for every platform. Renderers (adapters/*/render.py, adapters/slack/blocks.py) only lay cards out: the
texts and numbers they show come from here. No text here names a platform's command.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Iterable
from zoneinfo import ZoneInfo

from bot.bank.load import TOPICS
from bot.model import (
    LETTERS,
    Answer,
    ChannelConfig,
    CommandNames,
    LeaderboardCard,
    LeaderboardRow,
    LearningStats,
    Period,
    Question,
    QuestionCard,
    RevealCard,
    Round,
    RoundKind,
    StatsCard,
    StreakState,
    TopicStats,
    Verdict,
)
from bot.scoring import current_streak

NO_SCORES = "No scores yet: answers count once their question is revealed."


# ---- questions and reveals -------------------------------------------------------------------------


def question_card(round_: Round, question: Question, cfg: ChannelConfig | None) -> QuestionCard:
    """A daily question (with when its answer is revealed) or a private practice question."""
    if round_.kind is RoundKind.PRACTICE:
        title, note = f"Practice: {TOPICS.get(question.topic, question.topic)}", None
    else:
        # a space's own pack question (id PACK/ID) is not one of the shipped PyTorch bank's
        kind = "Daily question" if "/" in round_.question_id else "Daily PyTorch question"
        title = f"{kind}, {round_.local_date:%a %d %b %Y}"
        note = reveal_note(round_, cfg)
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
        reactions=bool(cfg and cfg.reactions and round_.kind is RoundKind.DAILY),
    )


def reveal_note(round_: Round, cfg: ChannelConfig | None) -> str:
    """When a daily round's answer comes: exactly the instant promised when it was posted."""
    tz = ZoneInfo(cfg.timezone) if cfg else dt.UTC
    at = round_.closes_at
    if at is None:
        return "One answer each; it locks. The answer is revealed when an admin reveals it."
    return f"One answer each; it locks. The answer is revealed {at.astimezone(tz):%a %d %b %H:%M} ({tz})."


def closed_text(closed_at: dt.datetime, timezone: str, answer_letter: str) -> str:
    """The reply to an answer that came after the question closed."""
    return (
        f"Today's question closed at {closed_at.astimezone(ZoneInfo(timezone)):%H:%M} ({timezone}); "
        f"the answer was {answer_letter}."
    )


def skipped_text(cfg: ChannelConfig, due_at: dt.datetime, commands: CommandNames) -> str:
    """The channel's note when the bot was down past the grace at the time of a daily post."""
    local = due_at.astimezone(ZoneInfo(cfg.timezone))
    return (
        f"The bot was offline at {local:%H:%M} ({cfg.timezone}) on {local:%a %d %b}, so that day's question "
        f"was not posted. An admin can post it now with {commands.post_now}."
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


# ---- answers ---------------------------------------------------------------------------------------


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


# ---- leaderboards and stats ------------------------------------------------------------------------


def leaderboard_card(
    period: Period, today: dt.date, key: str, rows: Iterable[LeaderboardRow], me: LeaderboardRow | None
) -> LeaderboardCard:
    label = {Period.WEEK: f"week {key}", Period.MONTH: f"{today:%B %Y}", Period.ALL: "all time"}[period]
    return LeaderboardCard(f"Leaderboard: {label}", period, label, tuple(rows), me)


def stats_card(
    user_id: str,
    rows: Iterable[tuple[RoundKind, TopicStats]],
    streak: StreakState | None,
    latest_revealed: dt.date | None,
    points: int,
) -> StatsCard:
    """Answered and correct by topic (daily and practice together), streaks and all-time points."""
    by_topic: dict[str, list[int]] = {}
    daily = practice = 0
    for kind, t in rows:
        acc = by_topic.setdefault(t.topic, [0, 0])
        acc[0] += t.answered
        acc[1] += t.correct
        if kind is RoundKind.DAILY:
            daily += t.answered
        else:
            practice += t.answered
    topics = tuple(TopicStats(topic, a, c) for topic, (a, c) in sorted(by_topic.items()))
    return StatsCard(
        user_id=user_id,
        answered=sum(t.answered for t in topics),
        correct=sum(t.correct for t in topics),
        daily_answered=daily,
        practice_answered=practice,
        current_streak=current_streak(streak, latest_revealed),
        best_streak=streak.best if streak else 0,
        points=points,
        by_topic=topics,
    )


# ---- reviews and learner memory --------------------------------------------------------------------


def review_title(position: int, total: int, topic: str) -> str:
    return f"Review {position}/{total}: {TOPICS.get(topic, topic)}"


def review_score_text(right: int, total: int) -> str:
    return f"Review done: {right} of {total} right."


def nothing_to_review_text(next_due: dt.datetime | None, tz: str) -> str:
    """A review with nothing due and nothing new in the weakest topic: when the next review comes."""
    if next_due is None:
        return "Nothing to review yet: your misses come back here once you have answered a few questions."
    when = next_due.astimezone(ZoneInfo(tz))
    return f"Nothing to review right now. Your next review is due {when:%a %d %b %H:%M} ({tz})."


def learning_lines(stats: LearningStats) -> tuple[str, ...]:
    """The memory part of /stats: reviews due, recall by topic, and how often a "sure" answer was right."""
    tz = stats.timezone
    lines = [f"Reviews due: {stats.due_now} now, {stats.due_tomorrow} more by the end of tomorrow"]
    if stats.due_now == 0 and stats.next_due is not None:
        lines[0] += f" (next {stats.next_due.astimezone(ZoneInfo(tz)):%a %d %b %H:%M})"
    for m in stats.mastery:
        lines.append(
            f"Memory of {TOPICS.get(m.topic, m.topic)}: {100 * m.retrievability:.0f}% ({m.seen} of {m.total} seen)"
        )
    if stats.calibration is not None:
        lines.append(f"When sure: right {stats.sure_right} of {stats.sure_answers} ({100 * stats.calibration:.0f}%)")
    return tuple(lines)


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
