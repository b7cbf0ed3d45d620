"""Practice: a private question for one learner at any time, never counting toward leaderboards and never a
question open in a channel of the space (daily or live). Its answers are verdicts at once; each one updates the
learner's memory card (written in the background by the batch, and before anything reads the learner's cards)."""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from collections.abc import Sequence
from dataclasses import replace

from bot.daily.answers import AnswerDesk
from bot.daily.boards import Boards
from bot.daily.cards import LearningStats
from bot.daily.channels import ChannelSettings
from bot.kernel import cards
from bot.kernel.cards import AnswerOutcome, QuestionCard, Verdict
from bot.kernel.context import Context
from bot.kernel.drain import Drain
from bot.kernel.errors import BadSetting, NothingOpen
from bot.kernel.group_commit import GroupCommit
from bot.kernel.priority import background
from bot.kernel.rounds import RoundCache
from bot.kernel.selection import pick_question
from bot.kernel.topics import TOPICS, not_a_topic
from bot.kernel.values import LETTERS, ChannelRef, Difficulty, PracticeAnswer, Question, Round, RoundKind
from bot.packs.catalog import BANK_PACK, PackCatalog
from bot.practice.cards import ReviewEmpty, ReviewNote
from bot.practice.memory import LEARN_BATCH, LEARN_ROUNDS
from bot.practice.plans import Plans
from bot.practice.progress import memory_by_topic
from bot.practice.reviews import REVIEW_DEFAULT, REVIEW_MAX, ReviewDay, Reviews, learning_stats
from bot.practice.store import PracticeServiceStore
from bot.practice.values import ServedKind
from bot.reports.service import ReportDesk


def matching(questions: Sequence[Question], topic: str | None, levels: frozenset[Difficulty]) -> tuple[Question, ...]:
    return tuple(q for q in questions if (topic is None or q.topic == topic) and (not levels or q.difficulty in levels))


ROUND_CARDS_BUDGET = 5.0  # s of a tick (15 s) spent on the daily rounds' card updates, rests included


class Practice:
    """Practice questions, reviews of what a learner is about to forget, and their answers."""

    def __init__(
        self,
        ctx: Context,
        store: PracticeServiceStore,
        packs: PackCatalog,
        reports: ReportDesk,
        boards: Boards,
        channels: ChannelSettings,
        answers: AnswerDesk,
        rounds: RoundCache,
    ) -> None:
        self.ctx = ctx
        self.store = store
        self.packs = packs
        self.reports = reports
        self.boards = boards
        self.channels = channels
        self.answers = answers
        self.rounds = rounds
        self.plans = Plans(ctx, store, self)  # interview-date plans (what /quiz progress reads: plans.status)
        self.reviews = Reviews(ctx, store, self, boards, reports, self.plans)
        self._reveals: GroupCommit[PracticeAnswer, bool] = GroupCommit(self._reveal, outage=ctx.outage)
        # practice answers' card updates, written after their replies (the marks are stored first); they
        # wait while answers queue for their replies, up to 2 s, so a burst of answers goes first
        self._card_updates = Drain(
            self._learn,
            LEARN_BATCH,
            "practice card updates",
            busy=lambda: answers.answers_waiting > 0,
            outage=ctx.outage,
        )

    # ---- questions -------------------------------------------------------------------------------

    async def start_practice(
        self, ref: ChannelRef, user_id: str, topic: str | None = None, difficulty: Difficulty | None = None
    ) -> QuestionCard:
        """A private question for one learner; it never counts toward leaderboards, and it is never a question
        open in a channel of the space, daily or live. Without a topic it leans toward the learner's weakest topic now
        and then."""
        pool = await self.practice_pool(ref)
        known = sorted({q.topic for q in pool})
        if topic is not None and topic not in known and topic not in TOPICS:  # a bank topic: "none yet" below
            raise BadSetting(not_a_topic(topic, known))
        levels = frozenset({difficulty}) if difficulty else frozenset()
        candidates = matching(pool, topic, levels)
        if not candidates:
            if difficulty is None:
                raise BadSetting(f"There are no questions on {topic} yet.")
            raise BadSetting(f"There are no {difficulty.value} questions{f' on {topic}' if topic else ''} yet.")
        # never a question open in a channel of this space (daily or live): it would give its answer away
        hidden = await self.store.open_channel_question_ids(ref.platform, ref.space_id)
        hidden |= await self.reports.held(ref.platform, ref.space_id)  # held by reports: not asked either
        rng = self.ctx.rng
        if topic is None and rng.random() < 0.5:
            weak = (await self.boards.stats_without_memory(ref.platform, ref.space_id, user_id)).weakest_topic
            if weak is not None and weak.accuracy < 0.8:
                weak_ones = matching(pool, weak.topic, levels)
                candidates = tuple(q for q in weak_ones if q.id not in hidden) or candidates
        if hidden:
            candidates = tuple(q for q in candidates if q.id not in hidden)
            if not candidates:
                raise BadSetting(
                    f"The only {topic or 'practice'} questions are open in a channel right now (or held after a "
                    "report); try another topic or come back after the reveal."
                )
        counts, last = await self.store.question_history(ref.platform, ref.space_id, RoundKind.PRACTICE, user_id)
        question = pick_question(candidates, counts, last, rng)
        assert question is not None
        return await self.practice_round(ref, user_id, question)

    async def practice_round(
        self, ref: ChannelRef, user_id: str, question: Question, *, served: tuple[dt.date, ServedKind] | None = None
    ) -> QuestionCard:
        """Open a private practice round of this question for one learner (`served`: a review's, counted as
        served on that local date as that kind, in the same transaction)."""
        now = self.ctx.now()
        if served is None:
            round_ = await self.store.create_practice_round(ref, user_id, question.id, question.topic, now)
        else:
            day, kind = served
            round_ = await self.store.open_review_round(ref, user_id, question.id, question.topic, now, day, kind)
        self.rounds.keep(round_)
        await self.packs.remember(round_, question)  # a pack question is kept as asked
        return cards.question_card(round_, question, None)

    async def practice_pool(self, ref: ChannelRef) -> tuple[Question, ...]:
        """What practice and review draw from here: every question of the channel's packs (the `packs`
        setting, not its daily topic filters); the shipped bank when those packs hold none."""
        cfg = await self.channels.channel_config(ref)
        found = await self.packs.questions(ref.platform, ref.space_id, cfg.packs, strict=False)
        return found or self.ctx.bank.questions

    async def space_practice_pool(self, platform: str, space_id: str) -> tuple[Question, ...]:
        """What practice draws from across the space's quiz channels (every question of their packs); the
        shipped bank when they hold none. A space-wide view's pool (the dashboard's learning report)."""
        names = {name for cfg in await self.store.space_channels(platform, space_id) for name in cfg.packs}
        found = await self.packs.questions(platform, space_id, names, strict=False) if names else ()
        return found or self.ctx.bank.questions

    def topics(self) -> tuple[str, ...]:
        """Every topic of the bank with its question counts."""
        return cards.topic_lines(self.ctx.bank.questions)

    async def practice_topics(self, ref: ChannelRef) -> tuple[str, ...]:
        """The topics `start_practice` takes in this channel (of its packs), sorted."""
        return tuple(sorted({q.topic for q in await self.practice_pool(ref)}))

    async def topics_in(self, ref: ChannelRef) -> tuple[str, ...]:
        """Every topic of the channel's packs with its question counts (what /quiz practice takes there)."""
        return cards.topic_lines(await self.practice_pool(ref))

    async def start_review(self, ref: ChannelRef, user_id: str, n: int = REVIEW_DEFAULT) -> QuestionCard | ReviewEmpty:
        """A private review of `n` (1-20) questions: today's share of the due cards (the most at risk first,
        within the learner's daily limit), then a plan's questions, else the weakest topic's unseen ones;
        ReviewEmpty says when the next review is due, that today's are done, or that reviews are paused.
        Each answer brings the next question."""
        if not 1 <= n <= REVIEW_MAX:
            raise BadSetting(f"A review takes 1 to {REVIEW_MAX} questions.")
        return await self.reviews.start(ref, user_id, n)

    async def review_limit(self, ref: ChannelRef, user_id: str, limit: int) -> ReviewNote:
        """At most `limit` (1-100) reviews a day for this learner in the space; the rest wait (most at risk first)."""
        return await self.reviews.set_limit(ref, user_id, limit)

    async def pause_reviews(self, ref: ChannelRef, user_id: str, days: int) -> ReviewNote:
        """A vacation hold of `days` (1-60): no reviews and no reminders; when it ends the due dates move by
        the days it lasted."""
        return await self.reviews.pause(ref, user_id, days)

    async def resume_reviews(self, ref: ChannelRef, user_id: str) -> ReviewNote:
        """End a vacation hold now (the due dates move by the days it lasted)."""
        return await self.reviews.resume(ref, user_id)

    async def reviews_today(self, ref: ChannelRef, user_id: str) -> ReviewDay:
        """The learner's reviews today in the channel's pool (what a reminder speaks of)."""
        return await self.reviews.day(ref.platform, ref.space_id, user_id, await self.practice_pool(ref))

    async def space_pool(self, platform: str, space_id: str) -> tuple[Question, ...]:
        """Every question of the space: the shipped bank and the space's own packs."""
        own = [name for name, _, _ in await self.packs.store.list_packs(platform, space_id)]
        return await self.packs.questions(platform, space_id, [BANK_PACK, *own], strict=False)

    # ---- answers ---------------------------------------------------------------------------------

    async def answered(
        self, round_: Round, user_id: str, choice: int, question: Question, *, sure: bool, now: dt.datetime
    ) -> AnswerOutcome:
        """A practice answer was recorded: reveal it (group commit), and reply with the verdict at once, with
        the review's next question or its score when it was part of one."""
        correct = choice == question.answer
        await self._reveals.submit(PracticeAnswer(round_.id, user_id, correct, sure, now))
        self.rounds.drop(round_.id)
        verdict = cards.verdict(question, choice, sure=sure)
        follow_up, score = await self.reviews.after_answer(round_.id, verdict.correct)
        text = cards.verdict_text(verdict) + (f"\n{score}" if score else "")
        return AnswerOutcome(round_.id, user_id, LETTERS[choice], text, verdict, follow_up, score)

    async def waiting_question(self, platform: str, space_id: str, user_id: str) -> QuestionCard | None:
        """The learner's latest practice or review question in the space while it waits for their answer (None
        when it has one, or its question is gone): the dashboard's review page shows it again on a reload."""
        round_ = await self.store.latest_practice_round(platform, space_id, user_id)
        if round_ is None or not round_.is_open:
            return None
        question = await self.packs.asked(round_)
        return None if question is None else cards.question_card(round_, question, None)

    async def verdict_of(
        self, platform: str, space_id: str, user_id: str, round_id: int, *, sure: bool = True
    ) -> tuple[Question, Verdict] | None:
        """One of the learner's own answered practice rounds in the space, with its verdict (None for any other
        round): what the dashboard shows after an answer, reloaded as often as they like."""
        round_ = await self.store.get_round(round_id)
        if (
            round_ is None
            or round_.kind is not RoundKind.PRACTICE
            or round_.user_id != user_id
            or (round_.ref.platform, round_.ref.space_id) != (platform, space_id)
        ):
            return None
        answer = await self.store.get_answer(round_id, user_id)
        question = await self.packs.asked(round_)
        if answer is None or question is None:
            return None
        return question, cards.verdict(question, answer.choice, sure=sure)

    async def answer_open_practice(
        self, ref: ChannelRef, user_id: str, choice: int, *, sure: bool = True
    ) -> AnswerOutcome:
        """A typed answer where there are no daily questions (Discord's `/answer` in a DM): goes to the asker's
        latest unanswered practice or review question in this conversation that this process served (its buttons
        work from any process); NothingOpen when there is none."""
        mine = [
            r
            for r in self.rounds
            if r.kind is RoundKind.PRACTICE and r.user_id == user_id and r.ref == ref and r.is_open
        ]
        if not mine:
            practice = self.ctx.commands_of(ref.platform).practice
            raise NothingOpen(f"You have no practice question waiting here; {practice} gives you one.")
        return await self.answers.submit_answer(max(mine, key=lambda r: r.id).id, user_id, choice, sure=sure)

    async def _reveal(self, answers: Sequence[PracticeAnswer]) -> list[bool]:
        revealed = await self.store.reveal_practice(answers, self.ctx.now(), learn=self.ctx.learning)
        if self.ctx.learning:
            self._card_updates.nudge()
        return revealed

    async def _learn(self) -> int:
        with background():
            return await self.store.learn_practice(LEARN_BATCH)

    async def write_card_updates(self) -> None:
        """Write every practice answer's card update still marked in the store (each tick does; one left by
        a crash or an outage, on any process, is written here)."""
        while await self.store.learn_practice(LEARN_BATCH) >= LEARN_BATCH:
            pass

    async def write_round_card_updates(self, budget: float = ROUND_CARDS_BUDGET) -> int:
        """Write the card updates of daily rounds the tick revealed (marked at their reveal, so the 09:00
        fan-out writes half the WAL and takes half the CPU it did), a space a transaction, oldest first, for
        about `budget` seconds (the rest waits for the next tick). After each transaction it rests as long as
        that took, so the answers coming meanwhile share the machine with half of it. A learner's marked
        rounds are written before anything reads their cards (the store does that), so this is only ever
        late, never wrong. How many rounds were written."""
        written = 0
        end = time.monotonic() + budget
        while True:
            began = time.monotonic()
            done = await self.store.learn_rounds(LEARN_ROUNDS)
            written += done
            took = time.monotonic() - began
            if not done or time.monotonic() + took >= end:
                return written
            await asyncio.sleep(took)

    # ---- memory (the stats card's part) ------------------------------------------------------------

    async def learning(self, platform: str, space_id: str, user_id: str, tz: str) -> LearningStats:
        """The learner's memory in the space: today's reviews (within their limit), a plan, recall by topic,
        calibration."""
        space = await self.space_pool(platform, space_id)
        day = await self.reviews.day(platform, space_id, user_id, space)
        learner_cards = await self.store.learner_cards(platform, space_id, user_id)
        events = await self.store.review_events(platform, space_id, user_id)
        now, pool = self.ctx.now(), await self.space_practice_pool(platform, space_id)
        memory = memory_by_topic(learner_cards, self.ctx.bank.questions, pool, now)
        stats = learning_stats(learner_cards, events, space, now, tz, day, memory)
        plan = await self.plans.status(platform, space_id, user_id)
        return replace(stats, plan=plan.lines() if plan is not None else ())

    async def close(self) -> None:
        await self._reveals.close()
        await self._card_updates.close()
