"""The daily game's cards: a learner's stats and the notice of a skipped day."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

from bot.kernel.cards import more
from bot.kernel.scoring import shown_streak
from bot.kernel.timing import local_text
from bot.kernel.topics import TOPICS
from bot.kernel.values import (
    ChannelConfig,
    CommandNames,
    RoundKind,
    StreakState,
    TopicStats,
    weakest_topic,
)

MEMORY_LINES = 5  # topics the stats card names (a Discord field holds 1,024 characters; /quiz progress names 10)


@dataclass(frozen=True)
class TopicMemory:
    """How well a learner remembers a topic: the mean predicted recall of its seen questions now and some days
    on with no more answers (both None while too few are seen to say), and how many of its questions were seen."""

    topic: str
    seen: int
    total: int  # the topic's questions in the packs
    now: float | None  # 0..1; None: `needs` more questions seen first
    later: float | None
    needs: int = 0  # questions still to see before `now` and `later` are shown


@dataclass(frozen=True)
class LearningStats:
    """A learner's memory in one space (from the FSRS cards and the review log)."""

    due_now: int
    due_tomorrow: int  # due after now and by the end of tomorrow (the space's local time)
    next_due: dt.datetime | None
    mastery: tuple[TopicMemory, ...] = ()
    forecast_days: int = 30  # how far on `TopicMemory.later` looks
    sure_answers: int = 0  # answers given without "not sure"
    sure_right: int = 0
    rate_from: int = 1  # sure answers before `calibration` is given as a rate
    timezone: str = "UTC"  # the space's, for showing when the next review is due
    today: int = 0  # reviews still to do today: the share within the learner's daily limit (and plan)
    limit: int | None = None  # the learner's daily limit (None: none applied)
    paused_until: dt.datetime | None = None  # a vacation hold running
    plan: tuple[str, ...] = ()  # lines of a plan running

    @property
    def calibration(self) -> float | None:
        """How often an answer given "sure" was right (None before `rate_from` such answers, and before any)."""
        return self.sure_right / self.sure_answers if self.sure_answers >= max(1, self.rate_from) else None


@dataclass(frozen=True)
class StatsCard:
    user_id: str
    answered: int
    correct: int
    daily_answered: int
    practice_answered: int
    current_streak: int  # the streak shown: freezes bridge missed days
    best_streak: int
    points: int
    by_topic: tuple[TopicStats, ...] = field(default=())
    learning: LearningStats | None = None
    freezes: int = 0  # streak freezes held
    freezes_used: int = 0  # in all
    frozen: int = 0  # used within the current streak (0: it never used one)
    live_answered: int = 0  # in live games (bot.live)

    def kinds_text(self, spec: str = "") -> str:
        """The answers by kind, as /stats shows them: "3 daily, 1 practice", and ", 2 live" once there are
        any. `spec` formats each count ("," groups thousands)."""
        text = f"{self.daily_answered:{spec}} daily, {self.practice_answered:{spec}} practice"
        return text + (f", {self.live_answered:{spec}} live" if self.live_answered else "")

    @property
    def streak_text(self) -> str:
        """The streak line of /stats: now and best, freezes held and used, and a mark on a streak that
        never used a freeze."""
        now = f"{self.current_streak} now"
        if self.current_streak:
            now += (
                " (no freeze used)"
                if not self.frozen
                else f" ({self.frozen} freeze{'s' if self.frozen != 1 else ''} used)"
            )
        return f"{now}, best {self.best_streak}; freezes: {self.freezes} held, {self.freezes_used} used"

    @property
    def accuracy(self) -> float:
        return self.correct / self.answered if self.answered else 0.0

    @property
    def weakest_topic(self) -> TopicStats | None:
        return weakest_topic(self.by_topic)


def skipped_text(cfg: ChannelConfig, missed: Sequence[dt.datetime], commands: CommandNames) -> str:
    """The channel's note when the bot was down past the grace at the time of one daily post or more (`missed`:
    their instants, in order)."""
    zone = ZoneInfo(cfg.timezone)
    first, last = missed[0].astimezone(zone), missed[-1].astimezone(zone)
    if len(missed) == 1:
        return (
            f"The bot was offline at {first:%H:%M} ({cfg.timezone}) on {first:%a %d %b}, so that day's question "
            f"was not posted. An admin can post it now with {commands.post_now}."
        )
    return (
        f"The bot was offline at the posting time ({first:%H:%M}, {cfg.timezone}) on {len(missed)} days, from "
        f"{first:%a %d %b} to {last:%a %d %b}, so their questions were not posted. An admin can post one now with "
        f"{commands.post_now}."
    )


def not_posted_text(cfg: ChannelConfig, opened_at: dt.datetime, commands: CommandNames) -> str:
    """The channel's note when a day's question could not be posted within the grace (the platform kept
    refusing it, and says it is not in the channel)."""
    local = opened_at.astimezone(ZoneInfo(cfg.timezone))
    return (
        f"Today's question ({local:%a %d %b}) could not be posted, so that day's question was skipped. "
        f"An admin can post it now with {commands.post_now}."
    )


def stats_card(
    user_id: str,
    rows: Iterable[tuple[RoundKind, TopicStats]],
    streak: StreakState | None,
    latest_revealed: dt.date | None,
    points: int,
    missed: int = 0,
) -> StatsCard:
    """Answered and correct by topic (daily, practice and live together), streaks (`missed`: the space's revealed
    daily dates since the learner's last right one, which held freezes bridge) and all-time points."""
    by_topic: dict[str, list[int]] = {}
    by_kind = dict.fromkeys(RoundKind, 0)
    for kind, t in rows:
        acc = by_topic.setdefault(t.topic, [0, 0])
        acc[0] += t.answered
        acc[1] += t.correct
        by_kind[kind] += t.answered
    topics = tuple(TopicStats(topic, a, c) for topic, (a, c) in sorted(by_topic.items()))
    shown = shown_streak(streak, latest_revealed, missed)
    return StatsCard(
        user_id=user_id,
        answered=sum(t.answered for t in topics),
        correct=sum(t.correct for t in topics),
        daily_answered=by_kind[RoundKind.DAILY],
        practice_answered=by_kind[RoundKind.PRACTICE],
        live_answered=by_kind[RoundKind.LIVE],
        current_streak=shown.days,
        best_streak=shown.best,
        points=points,
        by_topic=topics,
        freezes=shown.freezes,
        freezes_used=shown.freezes_used,
        frozen=shown.frozen,
    )


def memory_lines(
    memory: Sequence[TopicMemory], limit: int, days: int, *, prefix: str = "", end: str = "", rest: str = ""
) -> list[str]:
    """The first `limit` topics' memory (`Autograd: 96% now, 61% in 30 days (3 of 24 seen)`, or how many more
    questions a topic needs), then how many topics are left; each line starts with `prefix` and ends with `end`."""
    lines = []
    for m in memory[:limit]:
        name, seen = TOPICS.get(m.topic, m.topic), f"{m.seen} of {m.total} seen"
        if m.now is None or m.later is None:
            lines.append(f"{prefix}{name}: {seen}; needs {more(m.needs, 'question')} seen{end}")
        else:
            lines.append(f"{prefix}{name}: {m.now:.0%} now, {m.later:.0%} in {days} days ({seen}){end}")
    if len(memory) > limit:
        left = len(memory) - limit
        lines.append(f"… and {left} more topic{'s' if left != 1 else ''}{rest}{end}")
    return lines


def learning_lines(stats: LearningStats, show_time: Callable[[dt.datetime], str] | None = None) -> tuple[str, ...]:
    """The memory part of /stats: today's reviews (today's share, never the whole debt), a plan, recall by
    topic, and how often a "sure" answer was right. Instants as `show_time` writes them (a platform's own
    timestamp, read in each member's timezone), else in the space's timezone."""
    tz = stats.timezone

    def local(at: dt.datetime) -> str:
        return f"{local_text(at, tz)} ({tz})"

    when = show_time or local
    if stats.paused_until is not None:
        lines = [f"Reviews paused until {when(stats.paused_until)}"]
    else:
        count = stats.today
        lines = [f"Reviews: {count} today" + (f" (at most {stats.limit} a day)" if stats.limit is not None else "")]
        if count == 0 and stats.due_now == 0 and stats.next_due is not None:
            lines[0] += f"; next {when(stats.next_due)}"
        elif count == 0 and stats.due_now:
            lines[0] += "; today's are done, the rest wait for the coming days"
    lines += stats.plan
    lines += memory_lines(
        stats.mastery, MEMORY_LINES, stats.forecast_days, prefix="Memory of ", rest=" in your progress report"
    )
    if stats.sure_answers:
        sure = f"When sure: right {stats.sure_right} of {stats.sure_answers}"
        if stats.calibration is None:
            lines.append(f"{sure}; a rate needs {more(stats.rate_from - stats.sure_answers, 'answer')}")
        else:
            lines.append(f"{sure} ({stats.calibration:.0%})")
    return tuple(lines)
