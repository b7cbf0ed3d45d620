"""The quiz service: daily rounds, practice, answers, reveals, leaderboards, stats and channel settings.

Adapters and the scheduler call it with core types; it talks to the world only through the ports (Store,
ChatPlatform, Clock) and never imports a chat platform. What people read is built in bot.cards; where a
message points to a command, the platform's own spelling (CommandNames, given by its adapter) is used.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import random
import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, NoReturn, TypeVar
from zoneinfo import ZoneInfo

from bot import cards
from bot.bank.load import TOPICS, Bank
from bot.batcher import AnswerBatcher
from bot.drain import Drain
from bot.echo import echo
from bot.errors import (
    AlreadyAnswered,
    AlreadyPosted,
    BadSetting,
    NotAllowed,
    NotAQuestion,
    NothingOpen,
    NothingToExport,
    QuizError,
    ReactionsOff,
    RoundClosed,
    StoreUnavailable,
    UnknownRound,
)
from bot.export import NOTHING_TO_EXPORT, MissesExport, build_export
from bot.forget import FORGET_WHAT, ForgetDone, ForgetPrompt, forgotten_text
from bot.group_commit import GroupCommit
from bot.installs import WorkspaceInstall
from bot.learning import LEARN_BATCH
from bot.metrics import Metrics
from bot.model import (
    LETTERS,
    Actor,
    Answer,
    AnswerOutcome,
    AnswerStatus,
    AnswerWrite,
    ChannelConfig,
    ChannelRef,
    CommandNames,
    ConfigCard,
    DailyClaim,
    Difficulty,
    DueChannel,
    DueFinish,
    DuePost,
    LeaderboardCard,
    NewAnswer,
    Period,
    PostFinish,
    PracticeAnswer,
    Question,
    QuestionCard,
    ReportReason,
    RevealCard,
    RevealedRound,
    RevealFinish,
    ReviewEmpty,
    Round,
    RoundKind,
    SendClaim,
    SpaceFilter,
    StatsCard,
)
from bot.packs import (
    Format,
    ImportResult,
    PackCatalog,
    PackFile,
    PacksCard,
    check_pack_name,
    require_admin,
)
from bot.ports import ChatPlatform, Clock, Store
from bot.priority import background
from bot.question_stats import QuestionStatsCard, question_stats
from bot.recap import RECAP_KEYS, next_recap_after
from bot.reminders import RemindCard, Reminders
from bot.reports import ReportDesk, ReportsCard
from bot.review import REVIEW_DEFAULT, REVIEW_MAX, Reviews, learning_stats
from bot.scoring import period_keys, score_daily_round
from bot.seasons import Seasons
from bot.selection import pick_question
from bot.settings import ConfigChange
from bot.suggestions import Suggestions
from bot.timing import local_date_of, next_post_after, post_instant, reveal_instant

log = logging.getLogger(__name__)

STORE_UNAVAILABLE = "The database is unavailable, so your answer was not recorded; please try again in a minute."
T = TypeVar("T")

LEADERBOARD_SIZE = 10
ROUND_CACHE_SIZE = 4096
CLOSED = "This question is closed; its answer has been (or is about to be) revealed."
OTHER_SPACE = "That channel belongs to another workspace or server; its quiz is managed there."
NOT_HERE = "That question is not known here (it may be from another bot)."
_PRACTICE = RoundKind.PRACTICE
_RECORDED = AnswerStatus.RECORDED.value
DEFAULT_GRACE = dt.timedelta(hours=1)  # how late a post may still go out, and how long sends are retried
SEND_LEASE = dt.timedelta(minutes=2)  # a claimed send is this process's until then (then another may retry)
LATE_REVEAL = dt.timedelta(minutes=2)  # a reveal later than this after its promise says it came late
LATE_NOTE = "Revealed late: the bot was offline."
WORK_BATCH = 50  # due channels or rounds claimed at most in one trip
SEND_CAP = 50  # items (each one or two platform calls) in flight per platform lane
REVEAL_BATCH = 5  # due daily rounds revealed in one store transaction (PostgreSQL runs SEND_CAP / 5 side by side)
MAX_PER_TICK = 1_000_000  # a bound on the items one drain takes in a tick (it normally ends when none is due)


def _unheld(candidates: tuple[Question, ...], held: set[str]) -> tuple[Question, ...]:
    """The candidates not held: reported (3 open reports) or held by an admin, never picked until resolved."""
    if not held:
        return candidates
    candidates = tuple(q for q in candidates if q.id not in held)
    if not candidates:
        raise BadSetting("Every question this channel draws from is held by reports; resolve some first.")
    return candidates


def _matching(questions: Sequence[Question], topic: str | None, levels: frozenset[Difficulty]) -> tuple[Question, ...]:
    return tuple(q for q in questions if (topic is None or q.topic == topic) and (not levels or q.difficulty in levels))


def retry_delay(attempts: int) -> dt.timedelta:
    """Backoff between send attempts: 5 s, 10 s, 20 s ... at most 5 minutes."""
    return min(dt.timedelta(seconds=5 * 2 ** max(attempts - 1, 0)), dt.timedelta(minutes=5))


async def _drain(
    fetch: Callable[[int, int], Awaitable[Sequence[T]]],
    work: Callable[[T], Awaitable[None]],
    cap: int = SEND_CAP,
) -> None:
    """Run `work` on what `fetch(n, busy)` returns (at most n items; `busy` are in flight), at most `cap`
    at once, fetching again as half the slots free, until a fetch returns nothing and all work is done.
    Cancelled (a stop during a tick), it cancels the work in flight and waits for it: nothing outlives it."""
    pending: set[asyncio.Task[None]] = set()
    taken = 0
    exhausted = False
    try:
        while True:
            free = cap - len(pending)
            if not exhausted and free >= max(1, cap // 2) and taken < MAX_PER_TICK:
                items = await fetch(min(free, WORK_BATCH), len(pending))
                exhausted = not items
                taken += len(items)
                pending.update(asyncio.ensure_future(work(item)) for item in items)
            if not pending:
                return
            done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            exhausted = exhausted and not done  # finished work may have left more due (a skipped day)
            for task in done:
                task.result()  # work() handles its own failures; a bug here should not pass silently
    finally:
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending)


@dataclass(frozen=True)
class Opening:
    """A due channel's slot claimed with its batch (at `now`): its round, None when the slot was taken,
    or the error to raise in that channel's post."""

    now: dt.datetime
    round: Round | None
    error: Exception | None


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
        *,
        learning: bool = True,
    ) -> None:
        self.store = store
        self.learning = learning  # answers update the learners' FSRS cards (off only to measure its cost)
        self.reviews = Reviews(self)
        self.seasons = Seasons(self)
        self.suggestions = Suggestions(self)  # members' question suggestions and their review
        self.reminders = Reminders(self)
        self.reports = ReportDesk(self)  # members report questions, admins resolve; 3 open reports hold one
        self.metrics = metrics or Metrics()
        self.packs = PackCatalog(store, bank)  # a space's own question packs, and what each round posted
        self.bank = bank
        self.clock = clock
        self.platforms: dict[str, ChatPlatform] = dict(platforms or {})
        self._commands: dict[str, CommandNames] = {}
        self._rng = rng or random.Random()
        self._batcher = AnswerBatcher(store, clock.now)
        self._practice_reveals: GroupCommit[PracticeAnswer, bool] = GroupCommit(self._reveal_practice)
        # practice answers' card updates, written after their replies (the marks are stored first); they
        # wait while answers queue for their replies, up to 2 s, so a burst of answers goes first
        self._card_updates = Drain(
            self._learn_practice, LEARN_BATCH, "practice card updates", busy=lambda: self._batcher.pending > 0
        )
        # the outcomes of sends, stored together when several finish at once (the tick's fan-out)
        self._post_finishes: GroupCommit[PostFinish, None] = GroupCommit(self._store_post_finishes)
        self._reveal_finishes: GroupCommit[RevealFinish, None] = GroupCommit(self._store_reveal_finishes)
        self._due_finishes: GroupCommit[DueFinish, None] = GroupCommit(self._store_due_finishes)
        self._rounds: dict[int, Round] = {}
        self._config_listeners: list[ConfigListener] = []
        self._round_listeners: list[RoundListener] = []
        self.grace = DEFAULT_GRACE  # the scheduler sets the configured misfire grace

    # ---- wiring (done by the composition root, bot/app/cli.py) ---------------------------------------

    @property
    def bank(self) -> Bank:
        """The shipped bank (the pack `pytorch`); setting it also gives it to the pack catalog."""
        return self._bank

    @bank.setter
    def bank(self, bank: Bank) -> None:
        self._bank = bank
        self.packs.bank = bank

    def add_platform(self, platform: ChatPlatform, commands: CommandNames | None = None) -> None:
        """Push to this platform; `commands` is how its members type the commands messages point to."""
        self.platforms[platform.name] = platform
        self._commands[platform.name] = commands or CommandNames()

    def commands_of(self, platform: str) -> CommandNames:
        return self._commands.get(platform) or CommandNames()

    def on_config_change(self, listener: ConfigListener) -> None:
        """Call `listener` with the new settings after every saved change of a channel's settings."""
        self._config_listeners.append(listener)

    def on_round_opened(self, listener: RoundListener) -> None:
        """Call `listener` with every daily round just posted (the scheduler plans its reveal)."""
        self._round_listeners.append(listener)

    @property
    def answers_waiting(self) -> int:
        """Answers queued for the next group commit (the overload limit applies to this queue)."""
        return self._batcher.pending

    async def close(self) -> None:
        await self._batcher.close()
        await self._practice_reveals.close()
        await self._card_updates.close()
        for finishes in (self._post_finishes, self._reveal_finishes, self._due_finishes):
            await finishes.close()

    async def _store_post_finishes(self, items: Sequence[PostFinish]) -> list[None]:
        await self.store.finish_posts(items)
        return [None] * len(items)

    async def _store_reveal_finishes(self, items: Sequence[RevealFinish]) -> list[None]:
        await self.store.finish_reveals(items)
        return [None] * len(items)

    async def _store_due_finishes(self, items: Sequence[DueFinish]) -> list[None]:
        await self.store.finish_due_channels(items)
        return [None] * len(items)

    async def _finish_post(self, item: PostFinish) -> None:
        await self._post_finishes.submit(item)

    async def _finish_reveal(self, item: RevealFinish) -> None:
        await self._reveal_finishes.submit(item)

    async def _finish_due(self, ref: ChannelRef, due_at: dt.datetime, next_at: dt.datetime | None) -> None:
        await self._due_finishes.submit(DueFinish(ref, due_at, next_at))

    async def _reveal_practice(self, answers: Sequence[PracticeAnswer]) -> list[bool]:
        revealed = await self.store.reveal_practice(answers, self.clock.now(), learn=self.learning)
        if self.learning:
            self._card_updates.nudge()
        return revealed

    async def _learn_practice(self) -> int:
        with background():
            return await self.store.learn_practice(LEARN_BATCH)

    async def write_card_updates(self) -> None:
        """Write every practice answer's card update still marked in the store (each tick does; one left by
        a crash or an outage, on any process, is written here)."""
        while await self.store.learn_practice(LEARN_BATCH) >= LEARN_BATCH:
            pass

    @staticmethod
    async def _notify(listeners: list[Callable[[Any], Awaitable[None] | None]], value: object) -> None:
        for listener in listeners:
            result = listener(value)
            if asyncio.iscoroutine(result):
                await result

    # ---- channel settings ------------------------------------------------------------------------

    async def _saved_channel(self, ref: ChannelRef) -> ChannelConfig | None:
        """The channel's saved settings, looked up within the asker's space: a channel id that belongs to
        another workspace or server can be neither read nor changed from this one."""
        cfg = await self.store.get_channel(ref)
        if cfg is not None and cfg.ref.space_id != ref.space_id:
            raise NotAllowed(OTHER_SPACE)
        return cfg

    async def channel_config(self, ref: ChannelRef) -> ChannelConfig:
        return await self._saved_channel(ref) or ChannelConfig(ref=ref, paused=True)

    async def show_config(self, ref: ChannelRef) -> ConfigCard:
        cfg = await self.channel_config(ref)
        configured = await self._saved_channel(ref) is not None
        next_post = None if cfg.paused or not configured else await self.next_due(cfg, self.clock.now())
        if next_post is not None:
            next_post = next_post.astimezone(ZoneInfo(cfg.timezone))
        return ConfigCard(cfg, next_post)

    async def next_due(
        self, cfg: ChannelConfig, after: dt.datetime, *, taken: dt.date | None = None
    ) -> dt.datetime | None:
        """The channel's next scheduled post after `after` on a local date not taken yet (None: paused).
        `taken`: a local date the caller knows is the channel's latest round (saves reading it)."""
        if cfg.paused:
            return None
        if taken is None:
            latest = await self.store.latest_daily_round(cfg.ref)
            taken = latest.local_date if latest is not None else None
        at = next_post_after(cfg, after)
        for _ in range(10):  # bounded: the latest round is at most a day or two ahead
            if at is None or taken is None or local_date_of(cfg, at) > taken:
                break
            at = next_post_after(cfg, at)
        return at

    async def _reschedule(self, cfg: ChannelConfig) -> None:
        """Store the channel's next due post, so every process's tick sees the change."""
        await self.store.set_next_post(cfg.ref, await self.next_due(cfg, self.clock.now()))

    async def configure(self, actor: Actor, ref: ChannelRef, change: ConfigChange | None = None) -> ConfigCard:
        """Change a channel's daily schedule or rules (values were checked when `change` was made). Only
        admins (as the adapter computed) may.

        A channel configured for the first time is switched on (unpaused) unless `paused` is given."""
        if not actor.is_admin:
            raise NotAllowed("Only members who can manage this server or workspace can change the quiz settings.")
        existing = await self._saved_channel(ref)
        base = existing or ChannelConfig(ref=ref)
        updated = (change or ConfigChange()).apply(base)
        await self.seasons.check_setting(ref, change or ConfigChange())
        if not await self.packs.candidates(updated, strict=True):
            raise BadSetting("No question in the channel's packs matches those topic and difficulty filters.")
        await self.store.save_channel(updated)
        await self._reschedule(updated)
        if existing is None or any(key in (change or ConfigChange()) for key in RECAP_KEYS):
            await self.store.set_next_recap(ref, next_recap_after(updated, self.clock.now()))
        log.info("channel %s/%s configured by %s", ref.platform, ref.channel_id, actor.user_id)
        await self._notify(self._config_listeners, updated)
        return await self.show_config(ref)

    async def packs_card(self, ref: ChannelRef) -> PacksCard:
        """The space's question packs with their question counts, marking the ones this channel uses."""
        cfg = await self.channel_config(ref)
        return PacksCard(tuple(await self.packs.list(ref.platform, ref.space_id)), cfg.packs)

    async def question_stats(
        self, actor: Actor, platform: str, space_id: str, pack: str | None = None
    ) -> QuestionStatsCard:
        """Admins only: times asked, % correct, the most chosen wrong option and its share, reports; the ten
        hardest, the ten most reported and the ones flagged "check this question"."""
        return await question_stats(
            self.packs, actor, platform, space_id, pack, await self.report_counts(platform, space_id)
        )

    async def report_counts(self, platform: str, space_id: str) -> dict[str, int]:
        """Open reports per question id in the space (members' reports of problems, bot.reports)."""
        counts = await self.store.report_counts(platform, space_id)
        return {question: still for question, (_, still) in counts.items() if still}

    def check_import(self, actor: Actor, pack: str | None) -> None:
        """Admins only, and a valid pack name if one is given: checked before a platform asks for the file."""
        require_admin(actor, "import")
        if pack is not None:
            check_pack_name(pack)

    async def import_pack(
        self,
        actor: Actor,
        ref: ChannelRef,
        pack: str,
        data: bytes | Callable[[], Awaitable[bytes]],
        fmt: Format,
        *,
        replace: bool = False,
        label: str = "file",
        size: int | None = None,
    ) -> ImportResult:
        """Admins only: a YAML or CSV pack into the space, all or nothing (PackError lists every problem).
        `data` may be a fetcher, called only once `size` (what the platform says the file weighs) is checked."""
        return await self.packs.import_pack(
            actor,
            ref.platform,
            ref.space_id,
            pack,
            data,
            fmt,
            replace=replace,
            now=self.clock.now(),
            label=label,
            size=size,
        )

    async def export_pack(self, actor: Actor, ref: ChannelRef, pack: str | None, fmt: Format) -> PackFile:
        """Admins only: one of the space's own packs as a file (no name: the space's only pack)."""
        require_admin(actor, "export")
        name = await self.packs.own_pack(ref.platform, ref.space_id, pack)
        return PackFile(name, fmt, await self.packs.export_pack(actor, ref.platform, ref.space_id, name, fmt))

    # ---- reports of a question's problems (bot.reports) -----------------------------------------

    async def report_round(
        self,
        user_id: str,
        round_id: int,
        reason: ReportReason,
        text: str = "",
        *,
        space: tuple[str, str] | None = None,
    ) -> str:
        """Anyone: report the question a round asked (a reveal's or a verdict's button); the reporter's reply.
        ReportRefused: reported already, or today's 5 reports are made."""
        return await self.reports.report_round(user_id, round_id, reason, text, space=space)

    async def report_latest(self, ref: ChannelRef, user_id: str, reason: ReportReason, text: str = "") -> str:
        """Anyone, typed (`/quiz report`): report the more recent of the channel's latest daily question and
        the member's own latest practice question."""
        return await self.reports.report_latest(ref, user_id, reason, text)

    async def reports_queue(
        self, actor: Actor, platform: str, space_id: str, resolve_hint: str | None = None
    ) -> ReportsCard:
        """Admins only: the space's open reports (oldest first) and held questions."""
        return await self.reports.queue(actor, platform, space_id, resolve_hint)

    async def resolve_report(self, actor: Actor, platform: str, space_id: str, report_id: int, action: str) -> str:
        """Admins only: resolve a report (every open report of its question) with keep, hold or edit."""
        return await self.reports.resolve(actor, platform, space_id, report_id, action)

    # ---- what the scheduler reads --------------------------------------------------------------

    async def channels(self) -> list[ChannelConfig]:
        """Every configured channel (paused ones too)."""
        return await self.store.list_channels()

    async def open_daily_rounds(self) -> list[Round]:
        """Daily rounds not revealed yet, in every channel."""
        return await self.store.open_daily_rounds()

    async def latest_daily_round(self, ref: ChannelRef) -> Round | None:
        return await self.store.latest_daily_round(ref)

    # ---- daily rounds ----------------------------------------------------------------------------

    async def post_scheduled(
        self,
        ref: ChannelRef,
        local_date: dt.date | None = None,
        cfg: ChannelConfig | None = None,
        *,
        opened: Sequence[Round] | None = None,
        claimed: Opening | None = None,
    ) -> Round | None:
        """The scheduler's daily post for the channel's local date (default: today there). A taken slot
        is logged and skipped (None): another process may be posting it, and no round is posted twice.
        A failed send is not raised: the round stays due and the tick retries it until the grace ends.
        How late the post started after its scheduled instant is measured. `cfg`: the channel's settings,
        when the caller has just read them; `opened`: the channel's open daily rounds, read just before;
        `claimed`: the slot's claim, made with others of the tick's batch (see _open_due)."""
        cfg = cfg or await self.channel_config(ref)
        day = local_date or self._today(cfg)
        if claimed is not None:
            if claimed.error is not None:
                raise claimed.error
            round_ = claimed.round
        else:
            round_ = await self._claim(ref, cfg, day)
        if round_ is None:
            log.info("daily round for %s/%s on %s already claimed; skipping", ref.platform, ref.channel_id, day)
            return None
        self.metrics.scheduler_lag.observe(max(0.0, (round_.opened_at - post_instant(cfg, day)).total_seconds()))
        return await self._open(round_, cfg, raise_errors=False, opened=opened)

    async def post_now(self, actor: Actor, ref: ChannelRef) -> Round:
        """An admin posts today's question now. If today's round was claimed but its post never went out
        (or failed), it is sent now; one being sent right now or posted already raises AlreadyPosted."""
        if not actor.is_admin:
            raise NotAllowed("Only members who can manage this server or workspace can post the question now.")
        cfg = await self.channel_config(ref)
        day = self._today(cfg)
        round_ = await self._claim(ref, cfg, day)
        if round_ is not None:
            round_ = await self._open(round_, cfg, raise_errors=True)
            await self._reschedule(await self.channel_config(ref))  # today is taken: the next post moves on
            return round_
        existing = await self.store.latest_daily_round(ref)
        if existing is not None and existing.local_date == day and existing.is_open and not existing.is_posted:
            now = self.clock.now()
            claims = await self.store.claim_posts(now, now + SEND_LEASE, 1, round_id=existing.id, force=True)
            if claims:
                log.info("posting round %d now, whose earlier post did not go out", existing.id)
                return await self._send_post(claims[0], cfg, raise_errors=True)
            raise AlreadyPosted(f"Today's question ({day:%Y-%m-%d}) is being posted in this channel right now.")
        log.info("daily round for %s/%s on %s already claimed; skipping", ref.platform, ref.channel_id, day)
        raise AlreadyPosted(f"Today's question ({day:%Y-%m-%d}) is already posted in this channel.")

    def _today(self, cfg: ChannelConfig) -> dt.date:
        return self.clock.now().astimezone(ZoneInfo(cfg.timezone)).date()

    async def _claim(self, ref: ChannelRef, cfg: ChannelConfig, day: dt.date) -> Round | None:
        """Pick the next question and claim the (channel, local date) slot, with its promised reveal
        instant and this process's claim on the first send; None when the slot is taken."""
        now = self.clock.now()
        candidates = await self.packs.candidates(cfg)
        candidates = _unheld(candidates, await self.reports.held(ref.platform, ref.space_id))
        counts, last = await self.store.question_history(ref.platform, ref.space_id, RoundKind.DAILY)
        question = pick_question(candidates, counts, last, self._rng)
        if question is None:
            raise BadSetting("The question bank is empty.")
        closes_at = reveal_instant(cfg, day, now)
        round_ = await self.store.claim_daily_round(
            ref, day, question.id, question.topic, now, closes_at, lease_until=now + SEND_LEASE
        )
        if round_ is not None:
            await self.packs.remember(round_, question)  # kept as posted, whatever the pack becomes
        return round_

    async def _open_due(self, items: Sequence[DuePost]) -> list[Opening | None]:
        """Claim the slots of the batch's channels that are to post now (running, within the grace), all in
        one store call, their questions picked in turn (a space's history read once and kept up to date
        as its channels pick). Per channel: its claim, or None when _run_due_post decides alone."""
        now = self.clock.now()
        out: list[Opening | None] = []
        todo: list[tuple[int, DailyClaim, Question]] = []
        histories: dict[tuple[str, str], tuple[dict[str, int], str | None]] = {}
        holds: dict[tuple[str, str], set[str]] = {}
        for item in items:
            cfg = item.config
            if cfg is None or cfg.paused or now - item.due.due_at > self.grace:
                out.append(None)
                continue
            ref = cfg.ref
            day = local_date_of(cfg, item.due.due_at)
            try:
                space = (ref.platform, ref.space_id)
                if space not in histories:
                    holds[space] = await self.reports.held(ref.platform, ref.space_id)
                    histories[space] = await self.store.question_history(ref.platform, ref.space_id, RoundKind.DAILY)
                counts, last = histories[space]
                candidates = _unheld(await self.packs.candidates(cfg), holds[space])
                question = pick_question(candidates, counts, last, self._rng)
                if question is None:
                    raise BadSetting("The question bank is empty.")
            except Exception as exc:  # raised for that channel alone, in its own post
                out.append(Opening(now, None, exc))
                continue
            histories[space] = ({**counts, question.id: counts.get(question.id, 0) + 1}, question.id)
            closes_at = reveal_instant(cfg, day, now)
            todo.append(
                (
                    len(out),
                    DailyClaim(ref, day, question.id, question.topic, now, closes_at, now + SEND_LEASE),
                    question,
                )
            )
            out.append(None)
        if not todo:
            return out
        try:
            rounds = await self.store.claim_daily_rounds([claim for _, claim, _ in todo])
        except Exception as exc:
            for i, _claim, _question in todo:
                out[i] = Opening(now, None, exc)
            return out
        for (i, _claim, question), round_ in zip(todo, rounds, strict=True):
            try:
                if round_ is not None:
                    await self.packs.remember(round_, question)  # kept as posted, whatever the pack becomes
                out[i] = Opening(now, round_, None)
            except Exception as exc:
                out[i] = Opening(now, None, exc)
        return out

    async def _open(
        self, round_: Round, cfg: ChannelConfig, *, raise_errors: bool, opened: Sequence[Round] | None = None
    ) -> Round:
        """A freshly claimed round: reveal the channel's older open rounds that are due (their promise has
        passed, or they were posted before promises were stored; a failure there never blocks this post),
        post it, tell the listeners. An older round promised for later (the schedule moved) stays open
        until its promise. `opened`: the channel's open daily rounds, when the caller has just read them."""
        now = self.clock.now()
        for previous in opened if opened is not None else await self.store.open_daily_rounds(round_.ref):
            if previous.id != round_.id and (previous.closes_at is None or previous.closes_at <= now):
                try:
                    await self.reveal_round(previous.id)
                except Exception:
                    log.exception("reveal of round %d failed; posting round %d anyway", previous.id, round_.id)
        round_ = await self._send_post(SendClaim(round_, 1, False, 0), cfg, raise_errors=raise_errors)
        await self._notify(self._round_listeners, round_)
        return round_

    async def _send_post(self, claim: SendClaim, cfg: ChannelConfig, *, raise_errors: bool = False) -> Round:
        """Send a claimed daily question and record the outcome: its message id, or a retry with backoff
        until the grace ends. A send that may have gone out before a crash is sent once more at most."""
        round_ = claim.round
        self._remember(round_)
        platform = self.platforms.get(round_.ref.platform)
        if platform is None:
            log.warning("no platform %r is running; round %d is stored but not posted", round_.ref.platform, round_.id)
            await self._finish_post(PostFinish(round_.id, "due"))
            return replace(round_, post_state="due")
        now = self.clock.now()
        if claim.doubts > 1:  # two sends were interrupted: one of them most likely went out
            log.error(
                "round %d: not sending again, an earlier duplicate may already be out; taking it as posted", round_.id
            )
            await self._finish_post(PostFinish(round_.id, "sent"))
            return replace(round_, post_state="sent")
        if claim.doubtful:
            log.warning(
                "round %d: an earlier send was interrupted and may have gone out; sending again "
                "(this may be its one duplicate)",
                round_.id,
            )
        await self.packs.prime(round_)
        card = cards.question_card(round_, self._question(round_), cfg)
        try:
            message_id = await platform.post_question(round_.ref, card)
        except Exception as exc:
            self.metrics.post_failed(round_.ref.platform)
            retry = now + retry_delay(claim.attempts)
            if retry > round_.opened_at + self.grace:
                log.error(
                    "gave up posting round %d after %d attempts: %s", round_.id, claim.attempts, type(exc).__name__
                )
                await self._finish_post(PostFinish(round_.id, "gave_up"))
            else:
                log.warning(
                    "posting round %d failed (%s); retrying at %s", round_.id, type(exc).__name__, f"{retry:%H:%M:%S}"
                )
                await self._finish_post(PostFinish(round_.id, "failed", retry_at=retry))
            if raise_errors:
                raise
            return replace(round_, post_state="failed")
        self.metrics.post_sent(round_.ref.platform)
        await self._finish_post(PostFinish(round_.id, "sent", message_id=message_id or None))
        round_ = replace(round_, message_id=message_id or round_.message_id, post_state="sent")
        self._remember(round_)
        return round_

    # ---- the durable work every process's tick claims -------------------------------------------

    async def schedule_unscheduled(self, spaces: SpaceFilter | None = None) -> None:
        """Give running channels saved without a stored next post one (a post missed within the grace
        still goes out)."""
        now = self.clock.now()
        for cfg in await self.store.unscheduled_channels(spaces):
            if spaces is None or spaces(cfg.ref):
                await self.store.set_next_post(cfg.ref, await self.next_due(cfg, now - self.grace))
        for round_ in await self.store.open_daily_rounds(unpromised=True):  # posted before promises were stored
            if round_.closes_at is None and round_.local_date is not None and (spaces is None or spaces(round_.ref)):
                cfg = await self.channel_config(round_.ref)
                await self.store.set_reveal_at(round_.id, reveal_instant(cfg, round_.local_date, round_.opened_at))

    async def run_due_work(self, spaces: SpaceFilter | None = None) -> None:
        """One tick: reveal rounds whose promised instant passed, resend failed reveals, post due
        channels, resend failed or interrupted posts. Each item is claimed in the store first, so any
        number of processes can run this at once; a failure of one item never stops the others.

        Each platform is a lane of its own (one platform's rate limits never hold up another's), and in a
        lane at most SEND_CAP items are in flight: more are claimed as slots free, so a claim's lease
        starts when its work does, and a tick with thousands of channels due drains them all.

        It is background work (bot.priority): answers and reads go first in the store's queue."""
        with background():
            if spaces is not None and spaces.platforms and len(spaces.platforms) > 1:
                lanes = [replace(spaces, platforms=(name,)) for name in spaces.platforms]
                await asyncio.gather(*(self._run_lane(lane) for lane in lanes))
            else:
                await self._run_lane(spaces)

    async def _run_lane(self, spaces: SpaceFilter | None) -> None:
        now = self.clock.now()
        failed: set[int] = set()  # reveals that raised: still due, not fetched again this tick

        async def due_reveals(n: int, busy: int) -> list[Round]:
            rows = await self.store.due_reveals(now, n + busy + len(failed), spaces)
            return [r for r in rows if r.id not in failed and r.id not in active][:n]

        active: set[int] = set()

        async def reveal(round_: Round) -> None:
            active.add(round_.id)
            try:
                await self.reveal_round(round_.id, round_)
            except Exception:
                failed.add(round_.id)
                log.exception("reveal of round %d failed", round_.id)
            finally:
                active.discard(round_.id)

        async def resend_reveal(claim: SendClaim) -> None:
            try:
                await self._send_reveal(claim)
            except Exception:
                log.exception("reveal post of round %d failed", claim.round.id)
                await self._finish_reveal(RevealFinish(claim.round.id, "failed", now + retry_delay(claim.attempts)))

        async def reveal_batch(chunk: list[Round]) -> None:
            ids = [r.id for r in chunk]
            active.update(ids)
            try:
                at = self.clock.now()
                try:
                    revealed = await self.store.reveal_due_rounds(
                        ids, at, score_daily_round, at + SEND_LEASE, learn=self.learning
                    )
                except Exception:  # none of them was revealed: one by one, so one bad round holds up no other
                    log.warning(
                        "revealing %d rounds together failed; revealing them one by one", len(ids), exc_info=True
                    )
                    for round_ in chunk:
                        await reveal(round_)
                    return
                before = {r.id: r for r in chunk}
                await asyncio.gather(*(announce(before[item.round.id], item, at) for item in revealed))
            finally:
                active.difference_update(ids)

        async def announce(round_: Round, item: RevealedRound, at: dt.datetime) -> None:
            try:
                await self._announce_reveal(round_, item, at)
            except Exception:
                failed.add(round_.id)
                log.exception("reveal of round %d failed", round_.id)

        async def due_reveal_batches(n: int, busy: int) -> list[list[Round]]:
            # by space, then as due: a batch locks its spaces in one order (two batches never wait on each
            # other in a circle on PostgreSQL), and a space's rounds keep their order
            rounds = sorted(
                await due_reveals(n * REVEAL_BATCH, len(active)),
                key=lambda r: (r.ref.platform, r.ref.space_id, r.closes_at or now, r.id),
            )
            return [rounds[i : i + REVEAL_BATCH] for i in range(0, len(rounds), REVEAL_BATCH)]

        async def due_posts(n: int, busy: int) -> list[tuple[DuePost, Opening | None]]:
            items = await self.store.claim_due_posts(now, lease, n, spaces)
            return list(zip(items, await self._open_due(items), strict=True))

        async def post(item: tuple[DuePost, Opening | None]) -> None:
            due, opening = item
            try:
                await self._run_due_post(due.due, due, opening)
            except Exception:
                log.exception("daily post of %s/%s failed", due.due.ref.platform, due.due.ref.channel_id)
                await self._finish_due(due.due.ref, due.due.due_at, now + dt.timedelta(minutes=1))

        async def resend_post(claim: SendClaim) -> None:
            try:
                await self._send_post(claim, await self.channel_config(claim.round.ref))
            except Exception:
                log.exception("post of round %d failed", claim.round.id)

        lease = now + SEND_LEASE
        await _drain(due_reveal_batches, reveal_batch, max(1, SEND_CAP // REVEAL_BATCH))
        await _drain(lambda n, _b: self.store.claim_reveals(now, lease, n, spaces=spaces), resend_reveal)
        # a skipped day may leave a later one due within the grace: the drain takes it in the same tick
        await _drain(due_posts, post)
        await _drain(lambda n, _b: self.store.claim_posts(now, lease, n, spaces=spaces), resend_post)

    async def _run_due_post(
        self, due: DueChannel, claimed: DuePost | None = None, opening: Opening | None = None
    ) -> None:
        """A claimed due channel: post (or skip) its day and move its next post on. `claimed`: the
        channel's settings and open rounds, as read with the claim; `opening`: its day's slot, claimed
        with the batch's (see _open_due)."""
        cfg = claimed.config if claimed is not None else await self.store.get_channel(due.ref)
        now = opening.now if opening is not None else self.clock.now()
        if cfg is None or cfg.paused:
            await self._finish_due(due.ref, due.due_at, None)
            return
        day = local_date_of(cfg, due.due_at)
        late = now - due.due_at
        if late > self.grace:
            latest = await self.store.latest_daily_round(cfg.ref)
            if latest is None or latest.local_date is None or latest.local_date < day:
                told = await self._tell(cfg, cards.skipped_text(cfg, due.due_at, self.commands_of(cfg.ref.platform)))
                # the channel was told in plain words; the log keeps the details (a warning if it was not told)
                log.log(
                    logging.INFO if told else logging.WARNING,
                    "skipped the daily post of %s/%s for %s: missed by %s, more than the %s grace",
                    cfg.ref.platform,
                    cfg.ref.channel_id,
                    day,
                    late,
                    self.grace,
                )
            # every day missed beyond the grace is skipped at once; one still within it comes next
            after = max(due.due_at, now - self.grace - dt.timedelta(microseconds=1))
        else:
            opened = claimed.open_rounds if claimed is not None else None
            posted = await self.post_scheduled(cfg.ref, day, cfg, opened=opened, claimed=opening)
            after = max(now, due.due_at)
            taken = day if posted is not None else None  # just claimed: the latest round is today's
            await self._finish_due(due.ref, due.due_at, await self.next_due(cfg, after, taken=taken))
            await self.seasons.after_due(cfg, due.due_at)  # on the 1st: last month's season card (once)
            return
        await self._finish_due(due.ref, due.due_at, await self.next_due(cfg, after))

    async def _tell(self, cfg: ChannelConfig, text: str) -> bool:
        """A plain note in the channel (a platform's optional `post_notice`); False when it could not."""
        platform = self.platforms.get(cfg.ref.platform)
        notice = getattr(platform, "post_notice", None)
        if notice is None:
            return False
        try:
            await notice(cfg.ref, text)
        except Exception as exc:
            log.warning("could not tell %s/%s: %s", cfg.ref.platform, cfg.ref.channel_id, type(exc).__name__)
            return False
        return True

    async def open_round_in(self, ref: ChannelRef) -> Round:
        rounds = [r for r in await self.store.open_daily_rounds(ref) if r.is_posted and r.ref == ref]
        if not rounds:
            practice = self.commands_of(ref.platform).practice
            raise NothingOpen(
                f"There is no open daily question in this channel right now; try {practice} for practice."
            )
        return max(rounds, key=lambda r: r.id)

    async def open_question_card(self, ref: ChannelRef) -> QuestionCard:
        """The card of the channel's open daily question (to show it again); NothingOpen when there is none."""
        round_ = await self.open_round_in(ref)
        await self.packs.prime(round_)
        return cards.question_card(round_, self._question(round_), await self.channel_config(ref))

    async def is_configured(self, ref: ChannelRef) -> bool:
        """Whether the channel has saved settings (a daily schedule, running or paused)."""
        return await self._saved_channel(ref) is not None

    async def first_delivery(self, scope: str, key: str, keep: dt.timedelta) -> bool:
        """True the first time a platform delivery (an event id, a request signature) is seen within
        `keep`, by any process on the same database; adapters drop the repeats."""
        return await self.store.remember_once(scope, key, self.clock.now(), keep)

    # ---- installations ("Add to Slack") ----------------------------------------------------------

    async def save_install(self, install: WorkspaceInstall) -> None:
        """Keep a workspace's installation (its token already encrypted by the adapter); a reinstall replaces it."""
        await self.store.save_install(install)
        log.info("installed in %s workspace %s", install.platform, install.workspace_id)

    async def find_install(self, platform: str, workspace_id: str) -> WorkspaceInstall | None:
        return await self.store.find_install(platform, workspace_id)

    async def forget_install(self, platform: str, workspace_id: str) -> bool:
        """The workspace uninstalled the bot or revoked its token: drop the installation."""
        gone = await self.store.delete_install(platform, workspace_id)
        if gone:
            log.info("uninstalled from %s workspace %s", platform, workspace_id)
        return gone

    async def claim_token_refresh(self, install: WorkspaceInstall, lease: dt.timedelta) -> bool:
        """Claim the renewal of this installation's (expiring) token for `lease`: one caller across every
        process; False when another holds the claim or the stored token is no longer this one."""
        now = self.clock.now()
        return await self.store.claim_token_refresh(
            install.platform, install.workspace_id, install.token_secret, now, now + lease
        )

    async def save_refreshed_token(self, old: WorkspaceInstall, renewed: WorkspaceInstall) -> bool:
        """Store a renewed token (encrypted by the adapter) in place of `old`'s, only while `old`'s is still the
        stored one (a reinstall or another renewal in between wins); ends the claim."""
        if renewed.refresh_secret is None:
            raise ValueError("a renewed token comes with its refresh token")
        return await self.store.save_refreshed_token(
            old.platform,
            old.workspace_id,
            old.token_secret,
            renewed.token_secret,
            renewed.refresh_secret,
            renewed.token_expires_at,
        )

    async def issue_oauth_state(self, keep: dt.timedelta) -> str:
        """A fresh, unguessable state for one install attempt, valid for `keep`."""
        state = secrets.token_urlsafe(24)
        await self.store.save_oauth_state(state, self.clock.now() + keep)
        return state

    async def consume_oauth_state(self, state: str) -> bool:
        """True once for a state this bot issued that has not expired."""
        return bool(state) and await self.store.consume_oauth_state(state, self.clock.now())

    # ---- answers ---------------------------------------------------------------------------------

    async def submit_answer(
        self, round_id: int, user_id: str, choice: int, *, space: tuple[str, str] | None = None, sure: bool = True
    ) -> AnswerOutcome:
        """Record one answer (button, reaction or text all come here). The first answer locks; the
        acknowledgement of a daily answer never says whether it is right. `space` (platform, space id)
        is where the click came from: a round of another space is not known there. `sure=False`: the
        learner marked it "not sure" (their memory card learns it; scores do not)."""
        if not 0 <= choice < len(LETTERS):
            raise BadSetting("Answer with A, B, C or D.")
        round_ = self._rounds.get(round_id) or await self._round(round_id)
        if space is not None and (round_.ref.platform, round_.ref.space_id) != space:
            raise UnknownRound(NOT_HERE)
        letter = LETTERS[choice]
        practice = round_.kind is _PRACTICE  # (module globals: an enum member's lookup costs more, per answer)
        if practice and round_.user_id != user_id:
            command = self.commands_of(round_.ref.platform).practice
            raise NotAllowed(f"That practice question belongs to someone else; use {command} for one of your own.")
        now = self.clock.now()
        if not round_.is_open or (round_.closes_at is not None and now >= round_.closes_at):
            raise RoundClosed(await self._closed_text(round_))
        question = self.bank.get(round_.question_id)
        if question is None:  # a pack's question (the shipped bank's need no await: this runs per answer)
            await self.packs.prime(round_)
            question = self._question(round_)
        try:
            write = await self._batcher.submit(NewAnswer(round_id, user_id, choice, choice == question.answer, now))
        except QuizError:
            raise
        except Exception as exc:  # the store failed; the answer batcher logs the outage once
            raise StoreUnavailable(STORE_UNAVAILABLE) from exc
        if write.status != _RECORDED:
            await self._not_recorded(write, round_)
        self.metrics.answer_recorded(round_.ref.platform, round_.kind)
        if practice:
            await self._practice_reveals.submit(PracticeAnswer(round_id, user_id, choice == question.answer, sure, now))
            self._rounds.pop(round_id, None)
            verdict = cards.verdict(question, choice, sure=sure)
            follow_up, score = await self.reviews.after_answer(round_id, verdict.correct)
            text = cards.verdict_text(verdict) + (f"\n{score}" if score else "")
            return AnswerOutcome(round_id, user_id, letter, text, verdict, follow_up, score)
        if not sure:
            await self.store.mark_unsure(round_id, user_id)
        return AnswerOutcome(round_id, user_id, letter, cards.locked_in_text(letter))

    async def _not_recorded(self, write: AnswerWrite, round_: Round) -> NoReturn:
        """Raise what the learner is told about an answer the store did not record."""
        match AnswerStatus(write.status):
            case AnswerStatus.DUPLICATE:
                previous = LETTERS[write.existing_choice] if write.existing_choice is not None else "?"
                raise AlreadyAnswered(
                    f"You already answered {previous}; the first answer is the one that counts.", previous
                )
            case AnswerStatus.CLOSED:
                self._rounds.pop(round_.id, None)
                raise RoundClosed(await self._closed_text(await self.store.get_round(round_.id) or round_))
            case _:
                raise UnknownRound(NOT_HERE)

    async def answer_by_reaction(self, platform: str, message_id: str, user_id: str, choice: int) -> AnswerOutcome:
        """A reaction on a posted question message answers the round that message belongs to, if the
        channel takes reaction answers. NotAQuestion: the message is no quiz question; ReactionsOff: the
        channel has reaction answers switched off (adapters ignore the reaction in both cases)."""
        round_ = await self.store.round_by_message(platform, message_id)
        if round_ is None:
            raise NotAQuestion("That message is not a quiz question.")
        cfg = await self.store.get_channel(round_.ref)
        if cfg is not None and not cfg.reactions:
            answer = self.commands_of(platform).answer
            raise ReactionsOff(f"Reaction answers are switched off in this channel; use the buttons or {answer}.")
        return await self.submit_answer(round_.id, user_id, choice)

    async def answer_in_channel(
        self, ref: ChannelRef, user_id: str, choice: int, *, sure: bool = True
    ) -> AnswerOutcome:
        """A typed answer (`/quiz answer B`, Discord's `/answer`): goes to the channel's open daily question."""
        round_ = await self.open_round_in(ref)
        return await self.submit_answer(round_.id, user_id, choice, sure=sure)

    async def answer_open_practice(
        self, ref: ChannelRef, user_id: str, choice: int, *, sure: bool = True
    ) -> AnswerOutcome:
        """A typed answer where there are no daily questions (Discord's `/answer` in a DM): goes to the asker's
        latest unanswered practice or review question in this conversation that this process served (its buttons
        work from any process); NothingOpen when there is none."""
        mine = [
            r
            for r in self._rounds.values()
            if r.kind is RoundKind.PRACTICE and r.user_id == user_id and r.ref == ref and r.is_open
        ]
        if not mine:
            practice = self.commands_of(ref.platform).practice
            raise NothingOpen(f"You have no practice question waiting here; {practice} gives you one.")
        return await self.submit_answer(max(mine, key=lambda r: r.id).id, user_id, choice, sure=sure)

    # ---- reveal ----------------------------------------------------------------------------------

    async def reveal_round(self, round_id: int, round_: Round | None = None) -> RevealCard | None:
        """Close a round, score it once and post the reveal; None if it was already revealed. The reveal
        post is claimed and retried through the store: a failure is never raised here. `round_`: the
        round as the caller just read it (the store's reveal decides whether it is still open)."""
        if round_ is None or round_.id != round_id:
            round_ = await self.store.get_round(round_id)
        if round_ is None:
            raise UnknownRound(f"There is no question number {round_id}.")
        if not round_.is_open:
            return None
        scorer = score_daily_round if round_.kind is RoundKind.DAILY else None
        now = self.clock.now()
        if not await self.store.reveal_round(round_id, now, scorer, learn=self.learning):
            return None
        self._rounds.pop(round_id, None)
        revealed = replace(round_, revealed_at=now)
        card = await self.reveal_card(revealed)
        if round_.kind is RoundKind.DAILY:
            for claim in await self.store.claim_reveals(now, now + SEND_LEASE, 1, round_id=round_id):
                try:
                    await self._send_reveal(claim, card if claim.round.is_posted == revealed.is_posted else None)
                except Exception:  # settled all the same; the tick retries the post
                    log.exception("reveal post of round %d failed", round_id)
                    await self._finish_reveal(RevealFinish(round_id, "failed", now + retry_delay(claim.attempts)))
        return card

    async def _send_reveal(self, claim: SendClaim, card: RevealCard | None = None) -> None:
        """Post a claimed reveal and record it; a failure is retried with backoff until the grace ends.
        `card`: the reveal card, when the caller has just built it."""
        round_ = claim.round
        if not round_.is_posted:  # nobody saw the question: there is nothing to reveal in the channel
            await self._finish_reveal(RevealFinish(round_.id, "none"))
            return
        platform = self.platforms.get(round_.ref.platform)
        if platform is None:
            await self._finish_reveal(RevealFinish(round_.id, "due"))
            return
        if claim.doubts > 1:
            log.error("round %d: not posting its reveal again, an earlier one may already be out", round_.id)
            await self._finish_reveal(RevealFinish(round_.id, "gave_up"))
            return
        if claim.doubtful:
            log.warning(
                "round %d: an earlier reveal post was interrupted and may have gone out; posting again "
                "(this may be its one duplicate)",
                round_.id,
            )
        now = self.clock.now()
        try:
            await platform.post_reveal(round_.ref, card or await self.reveal_card(round_))
        except Exception as exc:
            retry = now + retry_delay(claim.attempts)
            started = round_.revealed_at or now
            if retry > started + self.grace:
                log.error(
                    "gave up posting the reveal of round %d after %d attempts: %s",
                    round_.id,
                    claim.attempts,
                    type(exc).__name__,
                )
                await self._finish_reveal(RevealFinish(round_.id, "gave_up"))
            else:
                log.warning("posting the reveal of round %d failed (%s); retrying", round_.id, type(exc).__name__)
                await self._finish_reveal(RevealFinish(round_.id, "failed", retry_at=retry))
            return
        await self._finish_reveal(RevealFinish(round_.id, "sent"))

    async def _closed_text(self, round_: Round) -> str:
        """What a late answer hears: when the question closed (channel time) and its answer."""
        question = self.bank.get(round_.question_id)
        ends = [t for t in (round_.closes_at, round_.revealed_at) if t is not None]
        if round_.kind is not RoundKind.DAILY or question is None or not ends:
            return CLOSED
        cfg = await self.store.get_channel(round_.ref)
        return cards.closed_text(min(ends), cfg.timezone if cfg else "UTC", question.answer_letter)

    async def reveal_now(self, actor: Actor, ref: ChannelRef) -> RevealCard:
        """An admin reveals the channel's open daily question early."""
        if not actor.is_admin:
            raise NotAllowed("Only members who can manage this server or workspace can reveal early.")
        round_ = await self.open_round_in(ref)
        card = await self.reveal_round(round_.id)
        if card is None:
            raise RoundClosed("That question was revealed a moment ago.")
        return card

    async def _announce_reveal(self, round_: Round, item: RevealedRound, now: dt.datetime) -> None:
        """The rest of reveal_round for a round revealed in a batch (`item`, at `now`): its card and post."""
        self._rounds.pop(round_.id, None)
        revealed = replace(round_, revealed_at=now)
        card = await self._reveal_card(revealed, item.config, item.answers)
        claim = item.claim
        if claim is not None:
            try:
                await self._send_reveal(claim, card if claim.round.is_posted == revealed.is_posted else None)
            except Exception:  # settled all the same; the tick retries the post
                log.exception("reveal post of round %d failed", round_.id)
                await self._finish_reveal(RevealFinish(round_.id, "failed", now + retry_delay(claim.attempts)))

    async def reveal_card(self, round_: Round) -> RevealCard:
        cfg = await self.store.get_channel(round_.ref) if round_.kind is RoundKind.DAILY else None
        answers = await self.store.round_answers(round_.id)
        return await self._reveal_card(round_, cfg, answers)

    async def _reveal_card(self, round_: Round, cfg: ChannelConfig | None, answers: Sequence[Answer]) -> RevealCard:
        await self.packs.prime(round_)
        card = cards.reveal_card(round_, self._question(round_), answers, ping_winners=bool(cfg and cfg.ping_winners))
        if cfg is not None and cfg.threads:
            card = replace(card, discussion=True)
        if (
            round_.kind is RoundKind.DAILY
            and round_.revealed_at
            and round_.closes_at
            and round_.revealed_at - round_.closes_at > LATE_REVEAL
        ):
            card = replace(card, note=LATE_NOTE)
        return card

    # ---- practice --------------------------------------------------------------------------------

    async def start_practice(
        self, ref: ChannelRef, user_id: str, topic: str | None = None, difficulty: Difficulty | None = None
    ) -> QuestionCard:
        """A private question for one learner; it never counts toward leaderboards, and it is never a question
        open as a daily round in the space. Without a topic it leans toward the learner's weakest topic now
        and then."""
        pool = await self.practice_pool(ref)
        known = sorted({q.topic for q in pool})
        if topic is not None and topic not in known and topic not in TOPICS:  # a bank topic: "none yet" below
            raise BadSetting(f"'{echo(topic)}' is not a topic here; topics: {', '.join(known)}.")
        levels = frozenset({difficulty}) if difficulty else frozenset()
        candidates = _matching(pool, topic, levels)
        if not candidates:
            if difficulty is None:
                raise BadSetting(f"There are no questions on {topic} yet.")
            raise BadSetting(f"There are no {difficulty.value} questions{f' on {topic}' if topic else ''} yet.")
        # never a question that is open as a daily round in this space: it would give its answer away
        live = await self.store.open_daily_question_ids(ref.platform, ref.space_id)
        live |= await self.reports.held(ref.platform, ref.space_id)  # held by reports: not asked either
        if topic is None and self._rng.random() < 0.5:
            weak = (await self.stats_without_memory(ref.platform, ref.space_id, user_id)).weakest_topic
            if weak is not None and weak.accuracy < 0.8:
                weak_ones = _matching(pool, weak.topic, levels)
                candidates = tuple(q for q in weak_ones if q.id not in live) or candidates
        if live:
            candidates = tuple(q for q in candidates if q.id not in live)
            if not candidates:
                raise BadSetting(
                    f"The only {topic or 'practice'} questions are today's open daily question; "
                    "try another topic or come back after the reveal."
                )
        counts, last = await self.store.question_history(ref.platform, ref.space_id, RoundKind.PRACTICE, user_id)
        question = pick_question(candidates, counts, last, self._rng)
        assert question is not None
        return await self.practice_round(ref, user_id, question)

    async def practice_round(self, ref: ChannelRef, user_id: str, question: Question) -> QuestionCard:
        """Open a private practice round of this question for one learner."""
        round_ = await self.store.create_practice_round(ref, user_id, question.id, question.topic, self.clock.now())
        self._remember(round_)
        await self.packs.remember(round_, question)  # a pack question is kept as asked
        return cards.question_card(round_, question, None)

    async def practice_pool(self, ref: ChannelRef) -> tuple[Question, ...]:
        """What practice and review draw from here: every question of the channel's packs (the `packs`
        setting, not its daily topic filters); the shipped bank when those packs hold none."""
        cfg = await self.channel_config(ref)
        return await self.packs.questions(ref.platform, ref.space_id, cfg.packs, strict=False) or self.bank.questions

    # ---- reviews and memory ----------------------------------------------------------------------

    async def start_review(self, ref: ChannelRef, user_id: str, n: int = REVIEW_DEFAULT) -> QuestionCard | ReviewEmpty:
        """A private review of `n` (1-20) questions: due cards first, else the weakest topic's unseen ones;
        ReviewEmpty says when the next review is due. Each answer brings the next question."""
        if not 1 <= n <= REVIEW_MAX:
            raise BadSetting(f"A review takes 1 to {REVIEW_MAX} questions.")
        return await self.reviews.start(ref, user_id, n)

    async def set_reminder(self, ref: ChannelRef, user_id: str, on: bool, at: dt.time | None = None) -> RemindCard:
        """Turn the learner's daily reminder in this space on (at local time `at`, default 09:00, in their
        own timezone when the platform knows it, else the channel's) or off. Private to the learner."""
        return await self.reminders.set(ref, user_id, on, at)

    async def run_due_reminders(self, spaces: SpaceFilter | None = None) -> None:
        """The tick's reminders: each due learner is claimed for the day in the store, so any number of
        processes send at most one message a day per learner and space."""
        await self.reminders.run_due(spaces)

    def topics(self) -> tuple[str, ...]:
        """Every topic of the bank with its question counts."""
        return cards.topic_lines(self.bank.questions)

    async def practice_topics(self, ref: ChannelRef) -> tuple[str, ...]:
        """The topics `start_practice` takes in this channel (of its packs), sorted."""
        return tuple(sorted({q.topic for q in await self.practice_pool(ref)}))

    async def topics_in(self, ref: ChannelRef) -> tuple[str, ...]:
        """Every topic of the channel's packs with its question counts (what /quiz practice takes there)."""
        return cards.topic_lines(await self.practice_pool(ref))

    # ---- leaderboards and stats ------------------------------------------------------------------

    async def _space_today(self, platform: str, space_id: str) -> tuple[dt.date, str]:
        tz = await self.store.space_timezone(platform, space_id) or "UTC"
        return self.clock.now().astimezone(ZoneInfo(tz)).date(), tz

    async def leaderboard(
        self, platform: str, space_id: str, period: Period, asker: str | None = None, *, public: bool = False
    ) -> LeaderboardCard:
        """Top 10 for this week, this month or all time (in the space's timezone), plus the asker's rank;
        `public`: to be posted in the channel (the adapter shows names without notifying anyone)."""
        today, _tz = await self._space_today(platform, space_id)
        key = dict(period_keys(today))[period]
        rows = await self.store.leaderboard(platform, space_id, period, key, LEADERBOARD_SIZE)
        me = await self.store.rank_of(platform, space_id, period, key, asker) if asker else None
        card = cards.leaderboard_card(period, today, key, rows, me)
        return replace(card, public=True) if public else card

    async def season_board(
        self, platform: str, space_id: str, season: str, asker: str | None = None, *, public: bool = False
    ) -> LeaderboardCard:
        """An archived season (YYYY-MM): its top three and the month's top 10, plus the asker's rank."""
        return await self.seasons.board(platform, space_id, season, asker, public=public)

    async def stats(self, platform: str, space_id: str, user_id: str) -> StatsCard:
        """Answered, correct, accuracy by topic (daily and practice), streaks, all-time points and the
        learner's memory (reviews due, recall by topic, calibration)."""
        card = await self.stats_without_memory(platform, space_id, user_id)
        _today, tz = await self._space_today(platform, space_id)
        learner_cards = await self.store.learner_cards(platform, space_id, user_id)
        events = await self.store.review_events(platform, space_id, user_id)
        memory = learning_stats(learner_cards, events, self.bank.questions, self.clock.now(), tz)
        return replace(card, learning=memory)

    async def space_today(self, platform: str, space_id: str) -> tuple[dt.date, str]:
        """Today's date in the space and its timezone name."""
        return await self._space_today(platform, space_id)

    async def stats_without_memory(self, platform: str, space_id: str, user_id: str) -> StatsCard:
        rows = await self.store.user_topic_stats(platform, space_id, user_id)
        state = await self.store.streak(platform, space_id, user_id)
        latest = await self.store.latest_revealed_date(platform, space_id)
        mine = await self.store.rank_of(platform, space_id, Period.ALL, "all", user_id)
        return cards.stats_card(user_id, rows, state, latest, mine.points if mine else 0)

    # ---- a learner's own data: export and forget-me ------------------------------------------------

    async def export_misses(self, platform: str, space_id: str, user_id: str) -> MissesExport:
        """The learner's own misses in the space (revealed rounds, daily or practice) as a CSV and an
        Anki-importable TSV; NothingToExport when there is none. Only ever the asker's: adapters pass the
        id of the member who typed the command."""
        items = []
        for miss in await self.store.learner_misses(platform, space_id, user_id):
            question = self.bank.get(miss.question_id)
            if question is None:  # a pack question: the text its round was asked with
                round_ = await self.store.get_round(miss.round_id)
                if round_ is not None:
                    await self.packs.prime(round_)
                    question = self.packs.posted(round_)
            if question is not None:
                items.append((miss, question))
        if not items:
            raise NothingToExport(NOTHING_TO_EXPORT)
        today, _tz = await self._space_today(platform, space_id)
        return build_export(items, today)

    def forget_me_prompt(self) -> ForgetPrompt:
        """forget-me before its confirmation: what would be deleted (nothing is changed)."""
        return ForgetPrompt(FORGET_WHAT)

    async def forget_me(self, platform: str, space_id: str, user_id: str) -> ForgetDone:
        """Confirmed forget-me: delete the learner's answers, practice rounds, memory cards, review log,
        streak and leaderboard rows in this space, in one transaction; leaderboards recount without them."""
        forgotten = await self.store.forget_learner(platform, space_id, user_id)
        for round_id, round_ in list(self._rounds.items()):  # their cached practice rounds are gone too
            if round_.user_id == user_id and (round_.ref.platform, round_.ref.space_id) == (platform, space_id):
                self._rounds.pop(round_id, None)
        log.info(
            "forget-me in %s/%s: %d answers, %d cards deleted", platform, space_id, forgotten.answers, forgotten.cards
        )
        return ForgetDone(forgotten, forgotten_text(forgotten))

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
        question = self.bank.get(round_.question_id) or self.packs.posted(round_)
        if question is None:
            raise UnknownRound(f"Question {round_.question_id} is no longer in the bank.")
        return question
