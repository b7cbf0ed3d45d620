"""Reviews: what a learner is about to forget (their FSRS cards), asked first, confident misses before the rest,
within the learner's daily limit (`/quiz review limit N`), held during a vacation (`/quiz review pause DAYS`),
spread out after a gap, and with a plan's questions up to its daily target."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol
from zoneinfo import ZoneInfo

from bot.daily.boards import Boards
from bot.daily.cards import LearningStats, TopicMemory
from bot.kernel.cards import QuestionCard
from bot.kernel.context import Context
from bot.kernel.errors import BadSetting
from bot.kernel.values import ChannelRef, Question, TopicStats, weakness_order
from bot.practice import cards
from bot.practice.backlog import (
    at_risk_order,
    due_cards,
    had_gap,
    pause_moves,
    paused_days,
    shift_local,
    spread_moves,
    todays_share,
)
from bot.practice.cards import ReviewEmpty, ReviewNote
from bot.practice.memory import LearnerCard, ReviewEvent, next_due
from bot.practice.plans import (
    Plans,
    daily_target,
    days_left,
    exposures_needed,
    plan_items,
    plan_questions,
    plan_retention,
)
from bot.practice.progress import FORECAST_DAYS, MIN_RATE, memory_by_topic
from bot.practice.store import PracticeServiceStore
from bot.practice.values import PAUSE_MAX_DAYS, REVIEW_LIMIT_MAX, ReviewPrefs, ServedKind
from bot.reports.service import ReportDesk

log = logging.getLogger(__name__)

REVIEW_MAX = 20


REVIEW_DEFAULT = 5


SESSIONS_KEPT = 4096


@dataclass(frozen=True)
class ReviewPlan:
    """The questions of one review, in order, and when the next card falls due."""

    question_ids: tuple[str, ...]
    due: int  # how many of them are due cards (the rest: unseen questions of the weakest topic)
    next_due: dt.datetime | None


def plan_review(
    learner_cards: Sequence[LearnerCard],
    questions: Sequence[Question],
    topics: Iterable[TopicStats],
    now: dt.datetime,
    n: int,
    blocked: Collection[str] = (),
) -> ReviewPlan:
    """Up to `n` due cards (confident misses first, then the lowest predicted recall); when none is due, up
    to `n` unseen questions of the weakest topic that still has some. `blocked`: questions not to ask (open
    as a daily round in the space); questions gone from the bank are skipped."""
    in_bank = {q.id for q in questions}
    due = [
        c.key.question_id
        for c in due_cards(learner_cards, now)
        if c.key.question_id in in_bank and c.key.question_id not in blocked
    ][:n]
    if due:
        return ReviewPlan(tuple(due), len(due), next_due(learner_cards))
    return ReviewPlan(weak_unseen(learner_cards, questions, topics, n, blocked), 0, next_due(learner_cards))


def weak_unseen(
    learner_cards: Sequence[LearnerCard],
    questions: Sequence[Question],
    topics: Iterable[TopicStats],
    n: int,
    blocked: Collection[str] = (),
) -> tuple[str, ...]:
    """Up to `n` unseen questions of the weakest topic that still has some (what a review asks with nothing due)."""
    seen = {c.key.question_id for c in learner_cards}
    for weak in weakness_order(topics):
        unseen = sorted(q.id for q in questions if q.topic == weak.topic and q.id not in seen and q.id not in blocked)
        if unseen:
            return tuple(unseen[:n])
    return ()


def learning_stats(
    learner_cards: Sequence[LearnerCard],
    events: Sequence[ReviewEvent],
    questions: Sequence[Question],
    now: dt.datetime,
    tz: str,
    day: ReviewDay | None = None,
    memory: tuple[TopicMemory, ...] | None = None,
) -> LearningStats:
    """Reviews today (`day`: the share within the learner's limit; without it every due card), due by the
    end of tomorrow (local time in `tz`) among the cards of `questions` (what reviews may ask), memory by topic
    (`memory`, as the learning report has it; without it over `questions`) and calibration."""
    zone = ZoneInfo(tz)
    after_tomorrow = dt.datetime.combine(now.astimezone(zone).date() + dt.timedelta(days=2), dt.time(), zone)
    asked = {q.id for q in questions}
    mine = [c for c in learner_cards if c.key.question_id in asked]
    due_now = sum(1 for c in mine if c.due <= now)
    due_tomorrow = sum(1 for c in mine if now < c.due < after_tomorrow)
    sure = [e for e in events if e.sure]
    return LearningStats(
        due_now=due_now,
        due_tomorrow=due_tomorrow,
        next_due=next_due(mine),
        mastery=memory_by_topic(mine, (), questions, now) if memory is None else memory,
        forecast_days=FORECAST_DAYS,
        sure_answers=len(sure),
        sure_right=sum(1 for e in sure if e.rating > 1),
        rate_from=MIN_RATE,
        timezone=tz,
        today=due_now if day is None else day.today,
        limit=None if day is None else day.limit,
        paused_until=None if day is None else day.paused_until,
    )


@dataclass(frozen=True)
class ReviewDay:
    """A learner's reviews today in a space: what reminders and /stats speak of (today's share, never the
    whole debt), and what /quiz review serves."""

    limit: int
    served: int  # due cards reviews served today (each once): they count toward the limit
    offer: tuple[str, ...]  # due cards still offered today, the most at risk first
    waiting: int  # due, beyond today's share: later days
    plan: tuple[str, ...] = ()  # a plan's questions still to bring in today, in order (up to its target)
    paused_until: dt.datetime | None = None

    @property
    def today(self) -> int:
        """Reviews still to do today (a plan's questions included)."""
        return len(self.offer) + len(self.plan)


def reviews_today_text(count: int) -> str:
    return f"{count} review{'s' if count != 1 else ''} today"


@dataclass
class _Session:
    ref: ChannelRef
    user_id: str
    plan: tuple[str, ...]
    questions: dict[str, Question]  # the planned ones, from the channel's packs
    kinds: dict[str, ServedKind] = field(default_factory=dict)  # counted as served: due cards, plan questions
    day: dt.date | None = None  # the learner's local date they are counted on
    position: int = 0  # questions served so far
    right: int = 0


class Reviews:
    """Running reviews of one service: which practice round belongs to which review; the day's share
    within the learner's limit; vacation holds and catch-ups after a gap."""

    def __init__(
        self,
        ctx: Context,
        store: PracticeServiceStore,
        practice: PracticeRounds,
        boards: Boards,
        reports: ReportDesk,
        plans: Plans,
    ) -> None:
        self.ctx = ctx
        self.store = store
        self.practice = practice
        self.boards = boards
        self.reports = reports
        self.plans = plans
        self._sessions: dict[int, _Session] = {}  # round id -> its review

    # ---- the day's share ---------------------------------------------------------------------------

    async def day(
        self, platform: str, space_id: str, user_id: str, pool: Sequence[Question], blocked: Collection[str] = ()
    ) -> ReviewDay:
        """Today's reviews over the questions of `pool` (less `blocked`): a hold whose time is up ends (its
        due dates move), after a gap the overdue cards are spread over the next days, and the due cards
        are offered the most at risk first up to what the daily limit leaves; a plan adds its questions up
        to its daily target."""
        now = self.ctx.now()
        today, tz = await self.ctx.space_today(platform, space_id)
        prefs = await self.end_hold(platform, space_id, user_id, tz)
        if prefs.paused_until is not None:
            return ReviewDay(prefs.limit, 0, (), 0, paused_until=prefs.paused_until)
        allowed = {q.id for q in pool} - set(blocked)
        every = await self.store.learner_cards(platform, space_id, user_id)
        served = await self.store.served_reviews(platform, space_id, user_id, today)
        reviewed = {qid for qid, kind in served if kind == "review"}
        room = max(0, prefs.limit - len(reviewed))
        mine = [c for c in every if c.key.question_id in allowed]
        overdue = at_risk_order((c for c in mine if c.due <= now), now)
        if len(overdue) > room and had_gap(await self._last_active(platform, space_id, user_id, prefs), now):
            moves = spread_moves(overdue, (c for c in mine if c.due > now), room, prefs.limit, now, tz)
            if await self.store.move_card_dues(platform, space_id, user_id, moves):
                every = await self.store.learner_cards(platform, space_id, user_id)
                mine = [c for c in every if c.key.question_id in allowed]
        active = await self.plans.active(platform, space_id, user_id)
        retention = plan_retention(active[0], now, tz) if active else None
        share = todays_share(due_cards(mine, now, retention), reviewed, prefs.limit)
        offer = tuple(c.key.question_id for c in share.offer)
        plan: tuple[str, ...] = ()
        if active is not None:
            questions = [q for q in plan_questions(pool, active[0]) if q.id in allowed]
            cards = {c.key.question_id: c for c in every}
            done = sum(1 for _, kind in served if kind == "plan")
            target = daily_target(exposures_needed(questions, cards), done, days_left(active[0], today))
            items = [q.id for q in plan_items(questions, cards, today, tz) if q.id not in offer]
            plan = tuple(items[: max(0, target - done)])
        return ReviewDay(prefs.limit, len(reviewed), offer, share.waiting, plan)

    async def _last_active(self, platform: str, space_id: str, user_id: str, prefs: ReviewPrefs) -> dt.datetime | None:
        """The learner's last answer in the space, or the end of their last hold if later (a hold's days
        moved the due dates already: they are no gap)."""
        last = await self.store.last_reviewed_at(platform, space_id, user_id)
        if last is None or prefs.resumed_at is None:
            return last
        return max(last, prefs.resumed_at)

    async def end_hold(self, platform: str, space_id: str, user_id: str, tz: str, *, now: bool = False) -> ReviewPrefs:
        """End the learner's vacation hold if its time is up (or at once with `now`): every card's due date
        moves by the local days it lasted (decided once, in the store). The settings after."""
        prefs = await self.store.review_prefs(platform, space_id, user_id)
        at = self.ctx.now()
        if prefs.paused_at is None or prefs.paused_until is None or (not now and at < prefs.paused_until):
            return prefs
        ended = min(at, prefs.paused_until)
        days = paused_days(prefs.paused_at, ended, tz)
        cards = await self.store.learner_cards(platform, space_id, user_id)
        moves = pause_moves(cards, prefs.paused_at, days, tz)
        if await self.store.end_review_pause(platform, space_id, user_id, prefs.paused_at, ended, moves):
            log.info("review hold of %s/%s user %s ended: due dates moved %d days", platform, space_id, user_id, days)
        return replace(prefs, paused_at=None, paused_until=None, resumed_at=ended)

    # ---- the learner's settings ----------------------------------------------------------------------

    async def set_limit(self, ref: ChannelRef, user_id: str, limit: int) -> ReviewNote:
        if not 1 <= limit <= REVIEW_LIMIT_MAX:
            raise BadSetting(f"A daily review limit is 1 to {REVIEW_LIMIT_MAX}. Nothing was changed.")
        await self.store.set_review_limit(ref.platform, ref.space_id, user_id, limit)
        day = await self.day(ref.platform, ref.space_id, user_id, await self.practice.practice_pool(ref))
        return ReviewNote(cards.limit_text(limit, day.today, day.waiting, self.ctx.commands_of(ref.platform).review))

    async def pause(self, ref: ChannelRef, user_id: str, days: int) -> ReviewNote:
        if not 1 <= days <= PAUSE_MAX_DAYS:
            raise BadSetting(f"A pause lasts 1 to {PAUSE_MAX_DAYS} days. Nothing was changed.")
        _today, tz = await self.ctx.space_today(ref.platform, ref.space_id)
        await self.end_hold(ref.platform, ref.space_id, user_id, tz)  # one whose time is up ends first
        now = self.ctx.now()
        prefs = await self.store.pause_reviews(ref.platform, ref.space_id, user_id, now, shift_local(now, days, tz))
        assert prefs.paused_until is not None
        return ReviewNote(cards.paused_text(prefs.paused_until, tz, self.ctx.commands_of(ref.platform).review_resume))

    async def resume(self, ref: ChannelRef, user_id: str) -> ReviewNote:
        _today, tz = await self.ctx.space_today(ref.platform, ref.space_id)
        before = await self.store.review_prefs(ref.platform, ref.space_id, user_id)
        if before.paused_at is None:
            return ReviewNote("Your reviews are not paused.")
        await self.end_hold(ref.platform, ref.space_id, user_id, tz, now=True)
        moved = paused_days(before.paused_at, self.ctx.now(), tz)
        day = await self.day(ref.platform, ref.space_id, user_id, await self.practice.practice_pool(ref))
        return ReviewNote(cards.resumed_text(moved, day.today))

    # ---- a review ----------------------------------------------------------------------------------

    async def start(self, ref: ChannelRef, user_id: str, n: int = REVIEW_DEFAULT) -> QuestionCard | ReviewEmpty:
        learner_cards = await self.store.learner_cards(ref.platform, ref.space_id, user_id)
        blocked = await self.store.open_channel_question_ids(ref.platform, ref.space_id)
        blocked |= await self.reports.held(ref.platform, ref.space_id)  # held by reports: not asked
        pool = await self.practice.practice_pool(ref)
        today, tz = await self.ctx.space_today(ref.platform, ref.space_id)
        day = await self.day(ref.platform, ref.space_id, user_id, pool, blocked)
        names = self.ctx.commands_of(ref.platform)
        if day.paused_until is not None:
            return ReviewEmpty(cards.paused_text(day.paused_until, tz, names.review_resume))
        kinds: dict[str, ServedKind] = {qid: "review" for qid in day.offer[:n]}
        kinds.update({qid: "plan" for qid in day.plan[: n - len(kinds)]})
        chosen = tuple(kinds)
        if not chosen and day.waiting:
            return ReviewEmpty(cards.limit_reached_text(day.limit, names.review_limit))
        if not chosen:
            topics = (await self.boards.stats_without_memory(ref.platform, ref.space_id, user_id)).by_topic
            chosen = weak_unseen(learner_cards, pool, topics, n, blocked)
        if not chosen:
            return ReviewEmpty(cards.nothing_to_review_text(next_due(learner_cards), tz))
        planned = {q.id: q for q in pool if q.id in set(chosen)}
        return await self._serve(_Session(ref, user_id, chosen, planned, kinds, today))

    async def _serve(self, session: _Session) -> QuestionCard:
        qid = session.plan[session.position]
        question = session.questions[qid]  # plans only hold questions of the pool
        session.position += 1
        kind = session.kinds.get(qid)
        served = (session.day, kind) if kind is not None and session.day is not None else None
        card = await self.practice.practice_round(session.ref, session.user_id, question, served=served)
        if len(self._sessions) >= SESSIONS_KEPT:
            self._sessions.pop(next(iter(self._sessions)))
        self._sessions[card.round_id] = session
        title = cards.review_title(session.position, len(session.plan), question.topic, unseen=kind is None)
        return replace(card, title=title)

    async def after_answer(self, round_id: int, correct: bool) -> tuple[QuestionCard | None, str | None]:
        """The next question of the review this round belongs to, or its score after the last one."""
        session = self._sessions.pop(round_id, None)
        if session is None:
            return None, None
        session.right += int(correct)
        if session.position < len(session.plan):
            return await self._serve(session), None
        return None, cards.review_score_text(session.right, session.position)


class PracticeRounds(Protocol):
    """What a review asks of practice: the pool a channel draws from, and a practice round of a question
    (`served`: counted as served by a review on that local date, as that kind)."""

    async def practice_pool(self, ref: ChannelRef) -> tuple[Question, ...]: ...

    async def practice_round(
        self, ref: ChannelRef, user_id: str, question: Question, *, served: tuple[dt.date, ServedKind] | None = None
    ) -> QuestionCard: ...
