"""Reviews: what a learner is about to forget (their FSRS cards), asked first, confident misses before the rest."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol
from zoneinfo import ZoneInfo

from bot.daily.boards import Boards
from bot.daily.cards import LearningStats, TopicMastery
from bot.kernel.cards import QuestionCard
from bot.kernel.context import Context
from bot.kernel.values import ChannelRef, Question, TopicStats, weakness_order
from bot.practice import cards
from bot.practice.cards import ReviewEmpty
from bot.practice.memory import LearnerCard, ReviewEvent, due_queue, next_due, retrievability
from bot.practice.store import PracticeServiceStore
from bot.reports.service import ReportDesk

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
    """Up to `n` due cards (confident misses first, then the most overdue); when none is due, up to `n`
    unseen questions of the weakest topic that still has some. `blocked`: questions not to ask (open as a
    daily round in the space); questions gone from the bank are skipped."""
    in_bank = {q.id for q in questions}
    due = [
        c.key.question_id
        for c in due_queue(learner_cards, now)
        if c.key.question_id in in_bank and c.key.question_id not in blocked
    ][:n]
    if due:
        return ReviewPlan(tuple(due), len(due), next_due(learner_cards))
    seen = {c.key.question_id for c in learner_cards}
    for weak in weakness_order(topics):
        unseen = sorted(q.id for q in questions if q.topic == weak.topic and q.id not in seen and q.id not in blocked)
        if unseen:
            return ReviewPlan(tuple(unseen[:n]), 0, next_due(learner_cards))
    return ReviewPlan((), 0, next_due(learner_cards))


def learning_stats(
    learner_cards: Sequence[LearnerCard],
    events: Sequence[ReviewEvent],
    questions: Sequence[Question],
    now: dt.datetime,
    tz: str,
) -> LearningStats:
    """Reviews due now and by the end of tomorrow (local time in `tz`), recall by topic and calibration."""
    zone = ZoneInfo(tz)
    after_tomorrow = dt.datetime.combine(now.astimezone(zone).date() + dt.timedelta(days=2), dt.time(), zone)
    in_bank = {q.id: q.topic for q in questions}
    mine = [c for c in learner_cards if c.key.question_id in in_bank]
    due_now = sum(1 for c in mine if c.due <= now)
    due_tomorrow = sum(1 for c in mine if now < c.due < after_tomorrow)
    totals: dict[str, int] = {}
    for q in questions:
        totals[q.topic] = totals.get(q.topic, 0) + 1
    recall: dict[str, list[float]] = {}
    for c in mine:
        recall.setdefault(in_bank[c.key.question_id], []).append(retrievability(c, now))
    mastery = tuple(
        TopicMastery(topic, sum(values) / len(values), len(values), totals[topic])
        for topic, values in sorted(recall.items())
    )
    sure = [e for e in events if e.sure]
    return LearningStats(
        due_now=due_now,
        due_tomorrow=due_tomorrow,
        next_due=next_due(mine),
        mastery=mastery,
        sure_answers=len(sure),
        sure_right=sum(1 for e in sure if e.rating > 1),
        timezone=tz,
    )


@dataclass
class _Session:
    ref: ChannelRef
    user_id: str
    plan: tuple[str, ...]
    questions: dict[str, Question]  # the planned ones, from the channel's packs
    position: int = 0  # questions served so far
    right: int = 0


class Reviews:
    """Running reviews of one service: which practice round belongs to which review."""

    def __init__(
        self, ctx: Context, store: PracticeServiceStore, practice: PracticeRounds, boards: Boards, reports: ReportDesk
    ) -> None:
        self.ctx = ctx
        self.store = store
        self.practice = practice
        self.boards = boards
        self.reports = reports
        self._sessions: dict[int, _Session] = {}  # round id -> its review

    async def start(self, ref: ChannelRef, user_id: str, n: int = REVIEW_DEFAULT) -> QuestionCard | ReviewEmpty:
        now = self.ctx.clock.now()
        learner_cards = await self.store.learner_cards(ref.platform, ref.space_id, user_id)
        topics = (await self.boards.stats_without_memory(ref.platform, ref.space_id, user_id)).by_topic
        blocked = await self.store.open_daily_question_ids(ref.platform, ref.space_id)
        blocked |= await self.reports.held(ref.platform, ref.space_id)  # held by reports: not asked
        pool = await self.practice.practice_pool(ref)
        plan = plan_review(learner_cards, pool, topics, now, n, blocked)
        if not plan.question_ids:
            _today, tz = await self.ctx.space_today(ref.platform, ref.space_id)
            return ReviewEmpty(cards.nothing_to_review_text(plan.next_due, tz))
        planned = {q.id: q for q in pool if q.id in set(plan.question_ids)}
        return await self._serve(_Session(ref, user_id, plan.question_ids, planned))

    async def _serve(self, session: _Session) -> QuestionCard:
        question = session.questions[session.plan[session.position]]  # plans only hold questions of the pool
        session.position += 1
        card = await self.practice.practice_round(session.ref, session.user_id, question)
        if len(self._sessions) >= SESSIONS_KEPT:
            self._sessions.pop(next(iter(self._sessions)))
        self._sessions[card.round_id] = session
        return replace(card, title=cards.review_title(session.position, len(session.plan), question.topic))

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
    """What a review asks of practice: the pool a channel draws from, and a practice round of a question."""

    async def practice_pool(self, ref: ChannelRef) -> tuple[Question, ...]: ...

    async def practice_round(self, ref: ChannelRef, user_id: str, question: Question) -> QuestionCard: ...
