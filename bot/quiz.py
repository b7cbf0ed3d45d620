"""The quiz service: daily rounds, practice, answers, reveals, leaderboards, stats and channel settings.

Adapters call it with core types; it talks to the world only through the ports (Store, ChatPlatform,
Clock) and never imports a chat platform.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import random
from collections.abc import Awaitable, Callable
from dataclasses import replace
from zoneinfo import ZoneInfo

from bot.answer_batcher import AnswerBatcher
from bot.bank import TOPICS, Bank
from bot.errors import (
    AlreadyAnswered,
    AlreadyPosted,
    BadSetting,
    NotAllowed,
    NothingOpen,
    RoundClosed,
    UnknownRound,
)
from bot.metrics import Metrics
from bot.model import (
    LETTERS,
    Actor,
    AnswerOutcome,
    ChannelConfig,
    ChannelRef,
    ConfigCard,
    LeaderboardCard,
    Period,
    Question,
    QuestionCard,
    RevealCard,
    Round,
    RoundKind,
    StatsCard,
    TopicStats,
    Verdict,
)
from bot.ports import ChatPlatform, Clock, NewAnswer, Store, period_keys
from bot.scoring import current_streak, score_daily_round
from bot.selection import pick_question
from bot.timing import next_post_after

log = logging.getLogger(__name__)

LEADERBOARD_SIZE = 10
ROUND_CACHE_SIZE = 4096

ConfigListener = Callable[[ChannelConfig], Awaitable[None] | None]
RoundListener = Callable[[Round], Awaitable[None] | None]


class QuizService:
    """The one entry point for every platform: buttons, reactions, commands and the scheduler."""

    def __init__(
        self,
        store: Store,
        bank: Bank,
        clock: Clock,
        platforms: dict[str, ChatPlatform] | None = None,
        rng: random.Random | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        self.store = store
        self.metrics = metrics or Metrics()
        self.bank = bank
        self.clock = clock
        self.platforms: dict[str, ChatPlatform] = dict(platforms or {})
        self._rng = rng or random.Random()
        self._batcher = AnswerBatcher(store, clock.now)
        self._rounds: dict[int, Round] = {}
        self._config_listeners: list[ConfigListener] = []
        self._round_listeners: list[RoundListener] = []

    # ---- wiring ----------------------------------------------------------------------------------

    def add_platform(self, platform: ChatPlatform) -> None:
        self.platforms[platform.name] = platform

    def on_config_change(self, listener: ConfigListener) -> None:
        self._config_listeners.append(listener)

    def on_round_opened(self, listener: RoundListener) -> None:
        self._round_listeners.append(listener)

    async def close(self) -> None:
        await self._batcher.close()

    @staticmethod
    async def _notify(listeners: list, value: object) -> None:
        for listener in listeners:
            result = listener(value)
            if asyncio.iscoroutine(result):
                await result

    # ---- channel settings ------------------------------------------------------------------------

    async def channel_config(self, ref: ChannelRef) -> ChannelConfig:
        return await self.store.get_channel(ref) or ChannelConfig(ref=ref, paused=True)

    async def show_config(self, ref: ChannelRef) -> ConfigCard:
        cfg = await self.channel_config(ref)
        configured = await self.store.get_channel(ref) is not None
        next_post = None if cfg.paused or not configured else next_post_after(cfg, self.clock.now())
        return ConfigCard(cfg, next_post)

    async def configure(self, actor: Actor, ref: ChannelRef, **changes: object) -> ConfigCard:
        """Change a channel's daily schedule or rules. Only admins (as the adapter computed) may.

        A channel configured for the first time is switched on (unpaused) unless `paused` is given."""
        if not actor.is_admin:
            raise NotAllowed("Only members who can manage this server or workspace can change the quiz settings.")
        allowed = {
            "post_time", "timezone", "weekdays", "topics", "difficulties", "paused", "reactions",
            "answer_window", "speed_bonus",
        }
        unknown = set(changes) - allowed
        if unknown:
            raise BadSetting(f"Unknown setting {sorted(unknown)[0]!r}; settings: {', '.join(sorted(allowed))}.")
        existing = await self.store.get_channel(ref)
        base = existing or ChannelConfig(ref=ref)
        if "topics" in changes:
            unknown_topics = set(changes["topics"]) - set(TOPICS)  # type: ignore[arg-type]
            if unknown_topics:
                raise BadSetting(f"Unknown topic {sorted(unknown_topics)[0]!r}; topics: {', '.join(TOPICS)}.")
        if "timezone" in changes:
            try:
                ZoneInfo(str(changes["timezone"]))
            except (KeyError, ValueError):
                raise BadSetting(f"'{changes['timezone']}' is not an IANA timezone such as Europe/Berlin.") from None
        if "weekdays" in changes and not changes["weekdays"]:
            raise BadSetting("A schedule needs at least one weekday.")
        updated = replace(base, **changes)  # type: ignore[arg-type]
        if not self.bank.filtered(updated.topics, updated.difficulties):
            raise BadSetting("No question in the bank matches those topic and difficulty filters.")
        await self.store.save_channel(updated)
        log.info("channel %s/%s configured by %s", ref.platform, ref.channel_id, actor.user_id)
        await self._notify(self._config_listeners, updated)
        return await self.show_config(ref)

    # ---- daily rounds ----------------------------------------------------------------------------

    async def start_daily_round(
        self, ref: ChannelRef, *, actor: Actor | None = None, local_date: dt.date | None = None
    ) -> Round | None:
        """Post the daily question for the channel's local date, unless that slot is taken.

        With an actor (a manual `post-now`), admin rights are required and a taken slot raises
        AlreadyPosted; from the scheduler a taken slot is logged and skipped."""
        if actor is not None and not actor.is_admin:
            raise NotAllowed("Only members who can manage this server or workspace can post the question now.")
        cfg = await self.channel_config(ref)
        now = self.clock.now()
        day = local_date or now.astimezone(ZoneInfo(cfg.timezone)).date()
        candidates = self.bank.filtered(cfg.topics, cfg.difficulties) or self.bank.questions
        counts = await self.store.question_counts(ref.platform, ref.space_id, RoundKind.DAILY)
        last = await self.store.last_question_id(ref.platform, ref.space_id, RoundKind.DAILY)
        question = pick_question(candidates, counts, last, self._rng)
        if question is None:
            raise BadSetting("The question bank is empty.")
        closes_at = now + cfg.answer_window if cfg.answer_window else None
        round_ = await self.store.claim_daily_round(ref, day, question.id, question.topic, now, closes_at)
        if round_ is None:
            existing = await self.store.latest_daily_round(ref) if actor is not None else None
            if existing is not None and existing.local_date == day and existing.is_open and not existing.message_id:
                # only an admin's explicit post-now re-sends: another process may be posting this round
                # right now, and the scheduler must never post a round twice
                log.info("re-posting round %d, whose first post did not go out", existing.id)
                return await self._post(existing, cfg)
            log.info("daily round for %s/%s on %s already claimed; skipping", ref.platform, ref.channel_id, day)
            if actor is not None:
                raise AlreadyPosted(f"Today's question ({day:%Y-%m-%d}) is already posted in this channel.")
            return None
        for previous in await self.store.open_daily_rounds(ref):
            if previous.id != round_.id:
                await self.reveal_round(previous.id)
        round_ = await self._post(round_, cfg)
        await self._notify(self._round_listeners, round_)
        return round_

    async def _post(self, round_: Round, cfg: ChannelConfig) -> Round:
        """Send a daily round's question card and remember its message id. If the platform fails, the
        round stays claimed without a message id, and an admin's post-now that day sends it again."""
        self._remember(round_)
        platform = self.platforms.get(round_.ref.platform)
        if platform is None:
            log.warning("no platform %r is running; round %d is stored but not posted", round_.ref.platform, round_.id)
            return round_
        card = self.question_card(round_, self._question(round_), cfg)
        try:
            message_id = await platform.post_question(round_.ref, card)
        except Exception:
            self.metrics.post_failures.labels(round_.ref.platform).inc()
            raise
        self.metrics.posts_sent.labels(round_.ref.platform).inc()
        if message_id:
            await self.store.set_message_id(round_.id, message_id)
            round_ = replace(round_, message_id=message_id)
            self._remember(round_)
        return round_

    def question_card(self, round_: Round, question: Question, cfg: ChannelConfig | None) -> QuestionCard:
        if round_.kind is RoundKind.PRACTICE:
            title, note = f"Practice: {TOPICS.get(question.topic, question.topic)}", None
        else:
            title = f"Daily PyTorch question, {round_.local_date:%a %d %b %Y}"
            note = self._reveal_note(round_, cfg)
        return QuestionCard(
            round_id=round_.id,
            kind=round_.kind,
            title=title,
            prompt=question.prompt,
            choices=question.choices,
            topic=question.topic,
            difficulty=question.difficulty,
            code=question.code,
            reveal_note=note,
            reactions=bool(cfg and cfg.reactions and round_.kind is RoundKind.DAILY),
        )

    def _reveal_note(self, round_: Round, cfg: ChannelConfig | None) -> str:
        tz = ZoneInfo(cfg.timezone) if cfg else dt.UTC
        at = round_.closes_at
        if at is None and cfg is not None and not cfg.paused:
            at = next_post_after(cfg, round_.opened_at)
        if at is None:
            return "One answer each; it locks. The answer is revealed when an admin reveals it."
        return f"One answer each; it locks. The answer is revealed {at.astimezone(tz):%a %d %b %H:%M} ({tz})."

    async def open_round_in(self, ref: ChannelRef) -> Round:
        rounds = await self.store.open_daily_rounds(ref)
        if not rounds:
            raise NothingOpen("There is no open daily question in this channel right now; try /quiz for practice.")
        return max(rounds, key=lambda r: r.id)

    # ---- answers ---------------------------------------------------------------------------------

    async def submit_answer(self, round_id: int, user_id: str, choice: int) -> AnswerOutcome:
        """Record one answer (button, reaction or text all come here). The first answer locks; the
        acknowledgement of a daily answer never says whether it is right."""
        if not 0 <= choice < len(LETTERS):
            raise BadSetting("Answer with A, B, C or D.")
        round_ = self._rounds.get(round_id) or await self._round(round_id)
        letter = LETTERS[choice]
        if round_.kind is RoundKind.PRACTICE and round_.user_id != user_id:
            raise NotAllowed("That practice question belongs to someone else; use /quiz for one of your own.")
        now = self.clock.now()
        if not round_.is_open or (round_.closes_at is not None and now >= round_.closes_at):
            raise RoundClosed("This question is closed; its answer has been (or is about to be) revealed.")
        question = self._question(round_)
        write = await self._batcher.submit(
            NewAnswer(round_id, user_id, choice, choice == question.answer, now)
        )
        if write.status == "duplicate":
            previous = LETTERS[write.existing_choice] if write.existing_choice is not None else "?"
            raise AlreadyAnswered(
                f"You already answered {previous}; the first answer is the one that counts.", previous
            )
        if write.status == "closed":
            self._rounds.pop(round_id, None)
            raise RoundClosed("This question is closed; its answer has been (or is about to be) revealed.")
        if write.status == "unknown":
            raise UnknownRound("That question is not known here (it may be from another bot).")
        self.metrics.answer_recorded(round_.ref.platform, round_.kind)
        if round_.kind is RoundKind.PRACTICE:
            await self.store.reveal_round(round_id, now, None)
            self._rounds.pop(round_id, None)
            verdict = Verdict(choice == question.answer, letter, question.answer_letter, question.explanation,
                              question.reference)
            head = "Correct!" if verdict.correct else f"Not quite: the answer is {question.answer_letter}."
            return AnswerOutcome(round_id, user_id, letter, f"{head} {question.explanation}", verdict)
        return AnswerOutcome(
            round_id, user_id, letter,
            f"Your answer {letter} is locked in. You will see whether it is right when the answer is revealed.",
        )

    async def answer_by_message(self, platform: str, message_id: str, user_id: str, choice: int) -> AnswerOutcome:
        """A reaction on a posted question message: answers the round that message belongs to."""
        round_ = await self.store.round_by_message(platform, message_id)
        if round_ is None:
            raise UnknownRound("That message is not a quiz question.")
        cfg = await self.store.get_channel(round_.ref)
        if cfg is not None and not cfg.reactions:
            raise NotAllowed("Reaction answers are switched off in this channel; use the buttons or /quiz answer.")
        return await self.submit_answer(round_.id, user_id, choice)

    async def answer_in_channel(self, ref: ChannelRef, user_id: str, choice: int) -> AnswerOutcome:
        """A typed answer (`/quiz answer B`): goes to the channel's open daily question."""
        round_ = await self.open_round_in(ref)
        return await self.submit_answer(round_.id, user_id, choice)

    # ---- reveal ----------------------------------------------------------------------------------

    async def reveal_round(self, round_id: int) -> RevealCard | None:
        """Close a round, score it once and post the reveal; None if it was already revealed."""
        round_ = await self.store.get_round(round_id)
        if round_ is None:
            raise UnknownRound(f"There is no question number {round_id}.")
        if not round_.is_open:
            return None
        scorer = score_daily_round if round_.kind is RoundKind.DAILY else None
        now = self.clock.now()
        if not await self.store.reveal_round(round_id, now, scorer):
            return None
        self._rounds.pop(round_id, None)
        card = await self.reveal_card(replace(round_, revealed_at=now))
        platform = self.platforms.get(round_.ref.platform)
        if platform is not None and round_.kind is RoundKind.DAILY:
            await platform.post_reveal(round_.ref, card)
        return card

    async def reveal_now(self, actor: Actor, ref: ChannelRef) -> RevealCard:
        """An admin reveals the channel's open daily question early."""
        if not actor.is_admin:
            raise NotAllowed("Only members who can manage this server or workspace can reveal early.")
        round_ = await self.open_round_in(ref)
        card = await self.reveal_round(round_.id)
        if card is None:
            raise RoundClosed("That question was revealed a moment ago.")
        return card

    async def reveal_card(self, round_: Round) -> RevealCard:
        question = self._question(round_)
        answers = await self.store.round_answers(round_.id)
        distribution = [0] * len(LETTERS)
        for a in answers:
            distribution[a.choice] += 1
        right = tuple(a.user_id for a in sorted(answers, key=lambda a: (a.answered_at, a.user_id)) if a.correct)
        return RevealCard(
            round_id=round_.id,
            title=f"Answer: {question.answer_letter}"
            + (f" ({round_.local_date:%a %d %b})" if round_.local_date else ""),
            prompt=question.prompt,
            choices=question.choices,
            correct_letter=question.answer_letter,
            explanation=question.explanation,
            reference=question.reference,
            distribution=tuple(distribution),
            correct_users=right,
            question_message_id=round_.message_id,
            code=question.code,
        )

    # ---- practice --------------------------------------------------------------------------------

    async def start_practice(self, ref: ChannelRef, user_id: str, topic: str | None = None) -> QuestionCard:
        """A private question for one learner; it never counts toward leaderboards. Without a topic it
        leans toward the learner's weakest topic now and then."""
        if topic is not None and topic not in TOPICS:
            raise BadSetting(f"'{topic}' is not a topic; topics: {', '.join(TOPICS)}.")
        candidates = self.bank.filtered(frozenset({topic}) if topic else frozenset(), frozenset())
        if not candidates:
            raise BadSetting(f"There are no questions on {topic} yet.")
        if topic is None and self._rng.random() < 0.5:
            weak = (await self.stats(ref.platform, ref.space_id, user_id)).weakest_topic
            if weak is not None and weak.accuracy < 0.8:
                candidates = self.bank.filtered(frozenset({weak.topic}), frozenset()) or candidates
        counts = await self.store.question_counts(ref.platform, ref.space_id, RoundKind.PRACTICE, user_id)
        last = await self.store.last_question_id(ref.platform, ref.space_id, RoundKind.PRACTICE, user_id)
        question = pick_question(candidates, counts, last, self._rng)
        assert question is not None
        round_ = await self.store.create_practice_round(ref, user_id, question.id, question.topic, self.clock.now())
        self._remember(round_)
        return self.question_card(round_, question, None)

    # ---- leaderboards and stats ------------------------------------------------------------------

    async def _space_today(self, platform: str, space_id: str) -> tuple[dt.date, str]:
        tz = await self.store.space_timezone(platform, space_id) or "UTC"
        return self.clock.now().astimezone(ZoneInfo(tz)).date(), tz

    async def leaderboard(
        self, platform: str, space_id: str, period: Period, asker: str | None = None
    ) -> LeaderboardCard:
        """Top 10 for this week, this month or all time (in the space's timezone), plus the asker's rank."""
        today, _tz = await self._space_today(platform, space_id)
        key = dict(period_keys(today))[period]
        rows = await self.store.leaderboard(platform, space_id, period, key, LEADERBOARD_SIZE)
        me = await self.store.rank_of(platform, space_id, period, key, asker) if asker else None
        label = {Period.WEEK: f"week {key}", Period.MONTH: f"{today:%B %Y}", Period.ALL: "all time"}[period]
        return LeaderboardCard(f"Leaderboard: {label}", period, label, tuple(rows), me)

    async def stats(self, platform: str, space_id: str, user_id: str) -> StatsCard:
        """Answered, correct, accuracy by topic (daily and practice), streaks and all-time points."""
        rows = await self.store.user_topic_stats(platform, space_id, user_id)
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
        state = await self.store.streak(platform, space_id, user_id)
        latest = await self.store.latest_revealed_date(platform, space_id)
        mine = await self.store.rank_of(platform, space_id, Period.ALL, "all", user_id)
        return StatsCard(
            user_id=user_id,
            answered=sum(t.answered for t in topics),
            correct=sum(t.correct for t in topics),
            daily_answered=daily,
            practice_answered=practice,
            current_streak=current_streak(state, latest),
            best_streak=state.best if state else 0,
            points=mine.points if mine else 0,
            by_topic=topics,
        )

    # ---- helpers ---------------------------------------------------------------------------------

    def _remember(self, round_: Round) -> None:
        if len(self._rounds) >= ROUND_CACHE_SIZE:
            self._rounds.pop(next(iter(self._rounds)))
        self._rounds[round_.id] = round_

    async def _round(self, round_id: int) -> Round:
        cached = self._rounds.get(round_id)
        if cached is not None:
            return cached
        round_ = await self.store.get_round(round_id)
        if round_ is None:
            raise UnknownRound("That question is not known here; it may have been posted by another bot.")
        if round_.is_open:
            self._remember(round_)
        return round_

    def _question(self, round_: Round) -> Question:
        question = self.bank.get(round_.question_id)
        if question is None:
            raise UnknownRound(f"Question {round_.question_id} is no longer in the bank.")
        return question
