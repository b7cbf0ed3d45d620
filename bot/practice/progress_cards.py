"""The learning report's card (`/quiz progress`, Discord `/progress`): plain labelled numbers in a few sections
that every platform lays out its own way, the chart's alt text, and the hook an interview-date plan fills.

Every figure says what it counts ("5 of 6 right"); a rate from too few answers is never shown: the line says
how many more answers it needs instead.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Protocol

from bot.daily.cards import TopicMemory, memory_lines
from bot.kernel.cards import more
from bot.kernel.topics import TOPICS
from bot.practice.progress import (
    COMEBACK_DAYS,
    FORECAST_DAYS,
    MIN_BUCKET,
    MIN_COMEBACKS,
    MIN_RATE,
    MIN_WEEK,
    TARGET,
    BucketTally,
    ProgressCounts,
    Tally,
)

TITLE = "Your progress"


CHART_NAME = "progress.png"


ALT_LIMIT = 1000  # Slack's alt text and Discord's attachment description both stay under 1,024


MAX_TOPIC_LINES = 10


@dataclass(frozen=True)
class PlanProgress:
    """What an interview-date plan adds to the report (the plan's feature fills it through PlanFigures)."""

    day: dt.date  # the interview date
    seen: int  # questions of the plan seen at least once
    total: int  # questions in the plan
    predicted_on_day: float | None  # mean predicted recall of the plan's questions on the day (None: unknown)
    daily_target: int | None = None  # questions a day until then
    target: float | None = None  # the desired retention the plan sets now (None: the default)


class PlanFigures(Protocol):
    """The hook of an interview-date plan: its coverage and predicted recall on the day, or None without a plan."""

    async def plan_progress(
        self, platform: str, space_id: str, user_id: str, now: dt.datetime
    ) -> PlanProgress | None: ...


@dataclass(frozen=True)
class ProgressSection:
    heading: str
    lines: tuple[str, ...]


@dataclass(frozen=True)
class ProgressCard:
    """One learner's report in a space; `png` is its chart (None: nothing to chart yet)."""

    user_id: str
    counts: ProgressCounts
    topics: tuple[TopicMemory, ...]
    timezone: str
    plan: PlanProgress | None = None
    png: bytes | None = None
    practice_command: str = "/quiz practice"

    @property
    def target(self) -> float:
        return self.plan.target if self.plan is not None and self.plan.target is not None else TARGET

    @property
    def empty(self) -> bool:
        """Nothing answered and revealed yet: no section has anything to say."""
        return self.counts.answered == 0 and self.counts.misses.missed == 0 and not self.topics

    @property
    def title(self) -> str:
        return TITLE

    @property
    def sections(self) -> tuple[ProgressSection, ...]:
        if self.empty:
            return (ProgressSection("Nothing to report yet", (nothing_yet_text(self.practice_command),)),)
        found = [
            ProgressSection(
                f"Memory that holds (reviews that came due, right; target {pct(self.target)})", retention_lines(self)
            ),
            ProgressSection(f"Missed daily questions, {COMEBACK_DAYS}+ days later", miss_lines(self.counts)),
            ProgressSection("Calibration", calibration_lines(self.counts)),
            ProgressSection(
                f"Memory by topic (predicted recall now and in {FORECAST_DAYS} days if you stop)", topic_lines(self)
            ),
        ]
        if self.plan is not None:
            found.append(ProgressSection(f"Interview plan ({self.plan.day:%d %b %Y})", plan_lines(self.plan)))
        return tuple(found)

    def text(self) -> str:
        """The whole report as plain text (the console; the fallback text elsewhere)."""
        parts = [f"== {self.title} =="]
        for section in self.sections:
            parts.append(f"{section.heading}:")
            parts.extend(f"  {line}" for line in section.lines)
        return "\n".join(parts)


def nothing_yet_text(practice: str) -> str:
    return (
        f"Answer today's question or practise ({practice}); your report fills in as your answers are revealed "
        "and your misses come back."
    )


def pct(share: float) -> str:
    return f"{round(100 * share)}%"


def of(tally: Tally) -> str:
    return f"{tally.right} of {tally.answered} right"


def rate_text(tally: Tally, least: int, what: str) -> str:
    """A share with what it counts, or what it still needs: "5 of 6 right (83%)", "2 of 3 right; a rate needs ..."."""
    share = tally.rate(least)
    if share is not None:
        return f"{of(tally)} ({pct(share)})"
    return f"{of(tally)}; a rate needs {more(tally.needs(least), what)}"


def retention_lines(card: ProgressCard) -> tuple[str, ...]:
    counts = card.counts
    if not counts.weeks:
        return (
            "No review has come due yet (a miss comes back the next day, a right answer a few days later); "
            f"a rate needs {more(MIN_RATE, 'review')} that came due.",
        )
    total = counts.retention
    span = f"Last {len(counts.weeks)} week{'s' if len(counts.weeks) != 1 else ''}"
    lines = [f"{span}: {rate_text(total, MIN_RATE, 'review')}."]
    for week in counts.weeks:
        label = f"Week of {week.start:%d %b}"
        if week.reviews.answered == 0:
            lines.append(f"{label}: none came due.")
        else:
            lines.append(f"{label}: {rate_text(week.reviews, MIN_WEEK, 'review')}.")
    return tuple(lines)


def miss_lines(counts: ProgressCounts) -> tuple[str, ...]:
    misses = counts.misses
    if misses.missed == 0:
        return ("No daily question missed yet.",)
    back = misses.tally
    share = back.rate(MIN_COMEBACKS)
    if share is not None:
        later = f"{COMEBACK_DAYS} or more days later"
        first = f"{back.right} of {back.answered} right when they came back {later} ({pct(share)})."
    else:
        first = (
            f"{back.answered} of your misses came back {COMEBACK_DAYS} or more days later, {back.right} right; "
            f"a share needs {more(back.needs(MIN_COMEBACKS), 'miss')} to come back."
        )
    lines = [first]
    if misses.waiting:
        lines.append(
            f"{misses.waiting} missed question{'s have' if misses.waiting != 1 else ' has'} not come back "
            f"{COMEBACK_DAYS} or more days later yet."
        )
    return tuple(lines)


def bucket_label(bucket: BucketTally) -> str:
    if bucket.low == 0.0:
        return f"predicted under {pct(bucket.high)}"
    if bucket.high >= 1.0:
        return f"predicted {pct(bucket.low)} or more"
    return f"predicted {pct(bucket.low)}–{pct(bucket.high)}"


def calibration_lines(counts: ProgressCounts) -> tuple[str, ...]:
    lines = []
    for label, tally in (("When sure", counts.sure), ("When not sure", counts.unsure)):
        if tally.answered == 0:
            lines.append(f"{label}: no answers yet.")
        else:
            lines.append(f"{label}: {rate_text(tally, MIN_RATE, 'answer')}.")
    filled = [b for b in counts.buckets if b.reviews.answered]
    if not filled:
        lines.append("Predicted recall against your answers: no review with a prediction yet.")
        return tuple(lines)
    lines.append("Predicted recall (FSRS) against your answers:")
    for b in filled:
        mean = f" (mean {pct(b.predicted)})" if b.predicted is not None else ""
        lines.append(f"{bucket_label(b)}{mean}: {rate_text(b.reviews, MIN_BUCKET, 'review')}.")
    return tuple(lines)


def topic_name(topic: str) -> str:
    return TOPICS.get(topic, topic)


def topic_lines(card: ProgressCard) -> tuple[str, ...]:
    if not card.topics:
        return ("No question seen yet.",)
    return tuple(memory_lines(card.topics, MAX_TOPIC_LINES, FORECAST_DAYS, end="."))


def plan_lines(plan: PlanProgress) -> tuple[str, ...]:
    lines = [f"Coverage: {plan.seen} of {plan.total} questions seen."]
    if plan.predicted_on_day is not None:
        lines.append(f"Predicted recall on {plan.day:%d %b}: {pct(plan.predicted_on_day)}.")
    if plan.daily_target is not None:
        lines.append(f"Daily target: {plan.daily_target} question{'s' if plan.daily_target != 1 else ''}.")
    return tuple(lines)


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def progress_alt_text(card: ProgressCard) -> str:
    """What the chart shows, in words (alt text for screen readers), at most ALT_LIMIT characters."""
    counts = card.counts
    parts = [f"Chart, {card.title}."]
    weeks = [w for w in counts.weeks if w.reviews.answered]
    if weeks:
        parts.append(
            f"Retention by week against the target {pct(card.target)}: "
            + ", ".join(f"week of {w.start:%d %b} {w.reviews.right} of {w.reviews.answered}" for w in weeks)
            + "."
        )
    parts.append(
        f"Right when sure {of(counts.sure)}, when not sure {of(counts.unsure)}; missed questions back "
        f"{COMEBACK_DAYS}+ days later {of(counts.misses.tally)}."
    )
    filled = [b for b in counts.buckets if b.reviews.answered]
    if filled:
        parts.append(
            "Predicted against observed: "
            + ", ".join(f"{bucket_label(b)} {b.reviews.right} of {b.reviews.answered} right" for b in filled)
            + "."
        )
    shown = [t for t in card.topics if t.now is not None and t.later is not None]
    if shown:
        parts.append(
            f"Memory now and in {FORECAST_DAYS} days: "
            + ", ".join(f"{topic_name(t.topic)} {pct(t.now or 0)} to {pct(t.later or 0)}" for t in shown)
            + "."
        )
    return _clip(" ".join(parts), ALT_LIMIT)
