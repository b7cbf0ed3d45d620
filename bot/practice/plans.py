"""Interview-date plans: `/quiz plan 2027-01-20 [topic,...]` (Discord `/plan`).

Until the date (the space's local date) the learner's desired retention rises from the scheduler's 0.9
toward 0.95 (a card falls due once its predicted recall drops to it: shorter intervals, read at review time,
so the cards stored stay the scheduler's own), every question of the chosen topics (default: every topic of
the channel's packs) is brought in at least twice before the date, and a daily target is derived from the
exposures still needed and the days left. The plan ends by itself after the date.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol
from zoneinfo import ZoneInfo

from bot.kernel.context import Context
from bot.kernel.echo import echo
from bot.kernel.errors import BadSetting
from bot.kernel.timing import resolve_local
from bot.kernel.topics import not_a_topic
from bot.kernel.values import ChannelRef, Question
from bot.practice.memory import DESIRED_RETENTION, LearnerCard, retrievability
from bot.practice.progress_cards import PlanProgress
from bot.practice.store import PracticeServiceStore
from bot.practice.values import LearnerPlan

PLAN_RETENTION = 0.95  # the desired retention a plan reaches on its date


EXPOSURES = 2  # each of the plan's questions is brought in at least this often before the date


PLAN_DAYS_MAX = 730  # a plan's date at most this many days ahead


_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def parse_plan_date(text: str) -> dt.date:
    """A plan's date as YYYY-MM-DD; BadSetting says what is accepted."""
    word = text.strip()
    try:
        if not _DATE.fullmatch(word):
            raise ValueError
        return dt.date.fromisoformat(word)
    except ValueError:
        raise BadSetting(
            f"'{echo(word, 20)}' is not a date: give the interview's date as YYYY-MM-DD, for example "
            "/quiz plan 2027-01-20. Nothing was changed."
        ) from None


def parse_plan_topics(words: Sequence[str]) -> tuple[str, ...]:
    """Topics as typed after the date: separated by commas and/or spaces, lower-cased, each once."""
    found: list[str] = []
    for part in re.split(r"[,\s]+", " ".join(words).lower()):
        if part and part not in found:
            found.append(part)
    return tuple(found)


def day_start(day: dt.date, tz: str) -> dt.datetime:
    """The first instant of a local date (UTC)."""
    return resolve_local(day, dt.time(0, 0), ZoneInfo(tz))


def plan_retention(plan: LearnerPlan, at: dt.datetime, tz: str) -> float:
    """The desired retention at `at`: 0.9 when the plan was made, rising evenly to 0.95 at the start of its date."""
    span = (day_start(plan.plan_date, tz) - plan.started_at).total_seconds()
    done = (at - plan.started_at).total_seconds()
    share = 1.0 if span <= 0 else min(1.0, max(0.0, done / span))
    return DESIRED_RETENTION + (PLAN_RETENTION - DESIRED_RETENTION) * share


def plan_questions(pool: Sequence[Question], plan: LearnerPlan) -> tuple[Question, ...]:
    """The plan's questions: the pool's of its topics (every topic when it names none)."""
    wanted = set(plan.topics)
    return tuple(q for q in pool if not wanted or q.topic in wanted)


def days_left(plan: LearnerPlan, today: dt.date) -> int:
    """Local days left before the date, today included (0 on the date and after)."""
    return max(0, (plan.plan_date - today).days)


def exposures_needed(questions: Sequence[Question], cards: Mapping[str, LearnerCard]) -> int:
    """How many more times the plan's questions must be brought in (each at least EXPOSURES times)."""
    return sum(max(0, EXPOSURES - (cards[q.id].reviews if q.id in cards else 0)) for q in questions)


def daily_target(needed: int, done_today: int, left: int) -> int:
    """Today's plan questions: what is still needed (counting what today brought in already) over the days
    left, rounded up; 0 once no day is left."""
    if left <= 0:
        return 0
    return math.ceil((needed + done_today) / left)


def plan_items(
    questions: Sequence[Question], cards: Mapping[str, LearnerCard], today: dt.date, tz: str
) -> list[Question]:
    """The plan's questions still to bring in, in order: never seen first (coverage), then those seen fewer
    than EXPOSURES times, longest ago first (none seen today: a second time the same day teaches little)."""
    zone = ZoneInfo(tz)

    def seen_before_today(card: LearnerCard) -> bool:
        return card.last_review is None or card.last_review.astimezone(zone).date() < today

    unseen = sorted((q for q in questions if q.id not in cards), key=lambda q: q.id)
    again = [
        q for q in questions if q.id in cards and cards[q.id].reviews < EXPOSURES and seen_before_today(cards[q.id])
    ]
    again.sort(key=lambda q: (cards[q.id].last_review or cards[q.id].due, q.id))
    return [*unseen, *again]


@dataclass(frozen=True)
class PlanStatus:
    """Where a plan stands: what the learner sees in /quiz plan and /quiz progress."""

    plan_date: dt.date
    topics: tuple[str, ...]  # empty: every topic
    questions: int  # the plan's
    seen: int  # of them, brought in at least once
    seen_twice: int  # at least EXPOSURES times
    days_left: int  # before the date, today included
    daily_target: int  # plan questions to bring in today
    done_today: int  # brought in by reviews today
    retention: float  # desired retention now
    recall_on_day: float  # mean predicted recall of the plan's questions at the start of the date (unseen: 0)
    timezone: str

    @property
    def coverage(self) -> float:
        """Questions seen of the plan's."""
        return self.seen / self.questions if self.questions else 0.0

    def lines(self) -> tuple[str, ...]:
        what = ", ".join(self.topics) if self.topics else "every topic"
        left = max(0, self.daily_target - self.done_today)
        return (
            f"Plan for {self.plan_date:%a %d %b %Y} ({what}): {self.days_left} day"
            f"{'s' if self.days_left != 1 else ''} left",
            f"Coverage: {self.seen} of {self.questions} questions seen ({100 * self.coverage:.0f}%), "
            f"{self.seen_twice} seen twice",
            f"Daily target: {self.daily_target} plan question{'s' if self.daily_target != 1 else ''} today "
            f"({self.done_today} done, {left} to go)",
            f"Predicted recall on the day: {100 * self.recall_on_day:.0f}% (desired retention now "
            f"{self.retention:.2f}, rising to {PLAN_RETENTION:.2f})",
        )

    @property
    def text(self) -> str:
        return "\n".join(self.lines())


def plan_status(
    plan: LearnerPlan,
    questions: Sequence[Question],
    cards: Mapping[str, LearnerCard],
    done_today: int,
    now: dt.datetime,
    tz: str,
) -> PlanStatus:
    today = now.astimezone(ZoneInfo(tz)).date()
    on_day = day_start(plan.plan_date, tz)
    mine = [cards[q.id] for q in questions if q.id in cards]
    left = days_left(plan, today)
    recall = sum(retrievability(c, on_day) for c in mine) / len(questions) if questions else 0.0
    return PlanStatus(
        plan_date=plan.plan_date,
        topics=plan.topics,
        questions=len(questions),
        seen=len(mine),
        seen_twice=sum(1 for c in mine if c.reviews >= EXPOSURES),
        days_left=left,
        daily_target=daily_target(exposures_needed(questions, cards), done_today, left),
        done_today=done_today,
        retention=plan_retention(plan, now, tz),
        recall_on_day=recall,
        timezone=tz,
    )


@dataclass(frozen=True)
class PlanCard:
    """The private reply to `/quiz plan ...`."""

    text: str
    status: PlanStatus | None = None


class PracticePool(Protocol):
    """What a plan draws from: the questions practice and reviews draw from in a channel."""

    async def practice_pool(self, ref: ChannelRef) -> tuple[Question, ...]: ...


class Plans:
    """A learner's interview-date plan in a space: made, shown, ended; what reviews and progress read of it."""

    def __init__(self, ctx: Context, store: PracticeServiceStore, pool: PracticePool) -> None:
        self.ctx = ctx
        self.store = store
        self.pool = pool

    async def set(self, ref: ChannelRef, user_id: str, day: dt.date, topics: Sequence[str] = ()) -> PlanCard:
        """Make (or replace) the learner's plan for `day`, of these topics of the channel's packs (none: all)."""
        today, tz = await self.ctx.space_today(ref.platform, ref.space_id)
        names = self.ctx.commands_of(ref.platform)
        if day <= today:
            raise BadSetting(
                f"{day:%Y-%m-%d} is not after today ({today:%Y-%m-%d}, {tz}): a plan needs a date still to come. "
                "Nothing was changed."
            )
        if (day - today).days > PLAN_DAYS_MAX:
            raise BadSetting(f"A plan's date is at most {PLAN_DAYS_MAX} days ahead. Nothing was changed.")
        pool = await self.pool.practice_pool(ref)
        known = sorted({q.topic for q in pool})
        unknown = [t for t in topics if t not in known]
        if unknown:
            raise BadSetting(f"{not_a_topic(unknown[0], known)} Nothing was changed.")
        plan = LearnerPlan(ref.platform, ref.space_id, user_id, ref.channel_id, day, tuple(topics), self.ctx.now())
        await self.store.save_plan(plan)
        status = await self.status(ref.platform, ref.space_id, user_id)
        assert status is not None
        head = f"Plan saved: {names.review} brings in its questions (your daily limit and any pause still apply)."
        return PlanCard(f"{head}\n{status.text}", status)

    async def off(self, ref: ChannelRef, user_id: str) -> PlanCard:
        dropped = await self.store.drop_plan(ref.platform, ref.space_id, user_id)
        return PlanCard("Your plan is off." if dropped else "You have no plan here.")

    async def show(self, ref: ChannelRef, user_id: str) -> PlanCard:
        status = await self.status(ref.platform, ref.space_id, user_id)
        if status is None:
            plan = self.ctx.commands_of(ref.platform).plan
            return PlanCard(f"You have no plan here: {plan} with a date (YYYY-MM-DD) and topics makes one.")
        return PlanCard(status.text, status)

    async def active(self, platform: str, space_id: str, user_id: str) -> tuple[LearnerPlan, str] | None:
        """The learner's plan and the space's timezone, unless there is none or its date has passed (it
        ended by itself)."""
        plan = await self.store.learner_plan(platform, space_id, user_id)
        if plan is None:
            return None
        today, tz = await self.ctx.space_today(platform, space_id)
        return (plan, tz) if today <= plan.plan_date else None

    async def plan_progress(self, platform: str, space_id: str, user_id: str, now: dt.datetime) -> PlanProgress | None:
        """The learning report's plan section (progress_cards.PlanFigures): coverage, predicted recall on the
        day, the daily target and the retention the plan sets now; None without a plan running."""
        status = await self.status(platform, space_id, user_id)
        if status is None:
            return None
        return PlanProgress(
            status.plan_date,
            status.seen,
            status.questions,
            status.recall_on_day,
            status.daily_target,
            status.retention,
        )

    async def status(self, platform: str, space_id: str, user_id: str) -> PlanStatus | None:
        """The plan's coverage (questions seen of the plan's), predicted recall on the day and daily target;
        None without a plan running. (What /quiz progress shows of a plan.)"""
        found = await self.active(platform, space_id, user_id)
        if found is None:
            return None
        plan, tz = found
        now = self.ctx.now()
        questions = plan_questions(await self.pool.practice_pool(plan.ref), plan)
        cards = {c.key.question_id: c for c in await self.store.learner_cards(platform, space_id, user_id)}
        today = now.astimezone(ZoneInfo(tz)).date()
        served = await self.store.served_reviews(platform, space_id, user_id, today)
        done = sum(1 for _, kind in served if kind == "plan")
        return plan_status(plan, questions, cards, done, now, tz)
