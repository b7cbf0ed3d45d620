"""My progress: what the dashboard shows a learner about their learning in one space.

`progress_report` is the one function the page calls: the figures and charts of the chat's stats card
(accuracy by topic, streaks, reviews due, recall by topic) and the sections of the learning report that
`/quiz progress` shows (retention by week, missed questions that came back, calibration, forecast, plan)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.features import Features
from bot.kernel.timing import local_text
from bot.kernel.topics import TOPICS
from bot.practice.values import REVIEW_LIMIT_DEFAULT
from bot.web.charts import Bars, bars


@dataclass(frozen=True)
class ProgressReport:
    """A learner's progress: headline figures (label, value) and charts (each with its numbers)."""

    figures: tuple[tuple[str, str], ...]
    charts: tuple[tuple[str, Bars], ...]  # (name in the URL, chart)
    empty: bool
    learning: tuple[tuple[str, tuple[str, ...]], ...] = ()  # the learning report's sections: (heading, lines)
    review_limit: int = REVIEW_LIMIT_DEFAULT  # reviews a day at most
    reviews_today: int = 0  # still to do today, within the limit
    paused_until: str | None = None  # a vacation hold running: until when, in the space's time


def _topic(name: str) -> str:
    return TOPICS.get(name, name)


async def progress_report(features: Features, platform: str, space_id: str, user_id: str) -> ProgressReport:
    """The learner's progress in the space, from the same services as `/quiz stats`."""
    card = await features.boards.stats(platform, space_id, user_id)
    figures: list[tuple[str, str]] = [
        ("Answers", f"{card.answered:,} ({card.kinds_text(',')})"),
        ("Correct", f"{card.correct:,} ({card.accuracy:.0%})" if card.answered else "none yet"),
        ("Streak", f"{card.current_streak} now, best {card.best_streak}"),
        ("Points (all time)", f"{card.points:,}"),
    ]
    if card.weakest_topic is not None:
        figures.append(("Weakest topic", _topic(card.weakest_topic.topic)))
    charts: list[tuple[str, Bars]] = [
        (
            "accuracy",
            bars(
                "Accuracy by topic",
                "share of answers right",
                [(_topic(t.topic), t.accuracy) for t in sorted(card.by_topic, key=lambda t: t.topic)],
                percent=True,
                horizontal=True,
            ),
        )
    ]
    memory = card.learning
    if memory is not None:
        figures.append(("Reviews due", f"{memory.due_now} now, {memory.due_tomorrow} more by the end of tomorrow"))
        if memory.calibration is not None:
            figures.append(("Calibration", f"{memory.calibration:.0%} of your sure answers were right"))
        charts.append(
            (
                "memory",
                bars(
                    f"Memory by topic in {memory.forecast_days} days if you stop (predicted recall)",
                    "predicted recall",
                    [
                        (f"{_topic(m.topic)} ({m.seen}/{m.total})", m.later)
                        for m in memory.mastery
                        if m.later is not None
                    ],
                    percent=True,
                    horizontal=True,
                ),
            )
        )
    # The space's learning report, as `/quiz progress` shows it, seen from the whole space (its channels' packs).
    learning = await features.progress.space_report(platform, space_id, user_id)
    sections = tuple((s.heading, tuple(s.lines)) for s in learning.sections) if not learning.empty else ()
    paused = None
    if memory is not None and memory.paused_until is not None:
        paused = f"{local_text(memory.paused_until, memory.timezone)} ({memory.timezone})"
    return ProgressReport(
        tuple(figures),
        tuple(charts),
        empty=card.answered == 0,
        learning=sections,
        review_limit=(memory.limit if memory is not None else None) or REVIEW_LIMIT_DEFAULT,
        reviews_today=memory.today if memory is not None else 0,
        paused_until=paused,
    )
