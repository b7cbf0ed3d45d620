"""Daily posts: a channel's (channel, local date) slot is claimed in the store with its question and its
promised reveal instant, then the card is sent the durable way (the send intent stored before the platform
call, the message id after it; a failure retried with backoff until the grace ends)."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol
from zoneinfo import ZoneInfo

from bot.daily import cards as daily_cards
from bot.daily.answers import open_round_in
from bot.daily.channels import ChannelSettings
from bot.daily.outcomes import SendOutcomes, earlier_send, retry_delay
from bot.daily.reveals import Reveals
from bot.daily.store import ChannelStore, DeliveryStore, QuestionRates, RoundStore
from bot.daily.values import DailyClaim, DuePost, PostFinish, SendClaim
from bot.kernel import cards
from bot.kernel.cards import QuestionCard
from bot.kernel.context import Context
from bot.kernel.errors import AlreadyPosted, BadSetting, NotAllowed
from bot.kernel.platform import IdempotentSends, NoticePlatform
from bot.kernel.rounds import RoundCache
from bot.kernel.selection import AskedCycle, pick_question
from bot.kernel.timing import local_date_of, missed_posts, next_post_after, post_instant, reveal_instant
from bot.kernel.values import Actor, ChannelConfig, ChannelRef, DueChannel, Question, Round, RoundKind, SpaceFilter
from bot.packs.catalog import PackCatalog
from bot.reports.service import HOLD_AT, ReportDesk
from bot.seasons.service import Seasons

log = logging.getLogger(__name__)


class PostingStore(ChannelStore, RoundStore, DeliveryStore, QuestionRates, Protocol):
    """What daily posts read and write."""


@dataclass(frozen=True)
class Opening:
    """A due channel's slot claimed with its batch (at `now`): its round, None when the slot was taken,
    or the error to raise in that channel's post."""

    now: dt.datetime
    round: Round | None
    error: Exception | None


def unheld(candidates: tuple[Question, ...], held: set[str]) -> tuple[Question, ...]:
    """The candidates not held: reported (3 open reports) or held by an admin, never picked until resolved."""
    if not held:
        return candidates
    candidates = tuple(q for q in candidates if q.id not in held)
    if not candidates:
        raise BadSetting("Every question this channel draws from is held by reports; resolve some first.")
    return candidates


class Posting:
    """Claims, posts and re-sends of daily questions."""

    def __init__(
        self,
        ctx: Context,
        store: PostingStore,
        packs: PackCatalog,
        reports: ReportDesk,
        channels: ChannelSettings,
        reveals: Reveals,
        seasons: Seasons,
        rounds: RoundCache,
        outcomes: SendOutcomes,
    ) -> None:
        self.ctx = ctx
        self.store = store
        self.packs = packs
        self.reports = reports
        self.channels = channels
        self.reveals = reveals
        self.seasons = seasons
        self.rounds = rounds
        self.outcomes = outcomes

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
        `claimed`: the slot's claim, made with others of the tick's batch (see open_due)."""
        cfg = cfg or await self.channels.channel_config(ref)
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
        lag = (round_.opened_at - post_instant(cfg, day)).total_seconds()
        self.ctx.metrics.scheduler_lag.observe(max(0.0, lag))
        return await self._open(round_, cfg, raise_errors=False, opened=opened)

    async def post_now(self, actor: Actor, ref: ChannelRef) -> Round:
        """An admin posts today's question now. If today's round was claimed but its post never went out
        (or failed), it is sent now; one being sent right now or posted already raises AlreadyPosted."""
        if not actor.is_admin:
            raise NotAllowed("Only members who can manage this server or workspace can post the question now.")
        cfg = await self.channels.channel_config(ref)
        day = self._today(cfg)
        round_ = await self._claim(ref, cfg, day)
        if round_ is not None:
            round_ = await self._open(round_, cfg, raise_errors=True)
            await self.channels.reschedule(await self.channels.channel_config(ref))  # today is taken: move on
            return round_
        existing = await self.store.latest_daily_round(ref)
        if existing is not None and existing.local_date == day and existing.is_open and not existing.is_posted:
            now = self.ctx.clock.now()
            claims = await self.store.claim_posts(now, now + self.ctx.send_lease, 1, round_id=existing.id, force=True)
            if claims:
                log.info("posting round %d now, whose earlier post did not go out", existing.id)
                return await self.send_post(claims[0], cfg, raise_errors=True, forced=True)
            raise AlreadyPosted(f"Today's question ({day:%Y-%m-%d}) is being posted in this channel right now.")
        log.info("daily round for %s/%s on %s already claimed; skipping", ref.platform, ref.channel_id, day)
        raise AlreadyPosted(f"Today's question ({day:%Y-%m-%d}) is already posted in this channel.")

    async def open_question_card(self, ref: ChannelRef) -> QuestionCard:
        """The card of the channel's open daily question (to show it again); NothingOpen when there is none."""
        round_ = await open_round_in(self.store, self.ctx, ref)
        await self.packs.prime(round_)
        question = self.packs.question_of(round_)
        return cards.question_card(round_, question, await self.channels.channel_config(ref))

    def _today(self, cfg: ChannelConfig) -> dt.date:
        return self.ctx.clock.now().astimezone(ZoneInfo(cfg.timezone)).date()

    async def _pick(self, ref: ChannelRef, cfg: ChannelConfig, history: tuple[dict[str, int], str | None]) -> Question:
        candidates = unheld(await self.packs.candidates(cfg), await self.reports.held(ref.platform, ref.space_id))
        rates = await self.store.daily_answer_rates(ref.platform, ref.space_id)
        question = pick_question(candidates, history[0], history[1], self.ctx.rng, rates.rate_for(ref.channel_id))
        if question is None:
            raise BadSetting("The question bank is empty.")
        return question

    async def _claim(self, ref: ChannelRef, cfg: ChannelConfig, day: dt.date) -> Round | None:
        """Pick the next question and claim the (channel, local date) slot, with its promised reveal
        instant and this process's claim on the first send; None when the slot is taken."""
        now = self.ctx.clock.now()
        history = await self.store.question_history(ref.platform, ref.space_id, RoundKind.DAILY)
        question = await self._pick(ref, cfg, history)
        closes_at = reveal_instant(cfg, day, now)
        round_ = await self.store.claim_daily_round(
            ref, day, question.id, question.topic, now, closes_at, lease_until=now + self.ctx.send_lease
        )
        if round_ is not None:
            await self.packs.remember(round_, question)  # kept as posted, whatever the pack becomes
        return round_

    async def open_due(self, items: Sequence[DuePost]) -> list[Opening | None]:
        """Claim the slots of the batch's channels that are to post now (running, within the grace), all in
        one store call, their questions picked in turn (what the picks read is read for the batch's spaces
        at once, and a space's history kept up to date as its channels pick: AskedCycle). Per channel: its
        claim, or None when run_due_post decides alone."""
        now = self.ctx.clock.now()
        out: list[Opening | None] = []
        todo: list[tuple[int, DailyClaim, Question]] = []
        posting = [i.config for i in items if i.config and not i.config.paused and now - i.due.due_at <= self.ctx.grace]
        failed: Exception = LookupError("no pick inputs read")
        try:
            inputs = await self.store.daily_pick_inputs([(c.ref.platform, c.ref.space_id) for c in posting], HOLD_AT)
        except Exception as exc:  # raised in each of those channels' posts
            inputs, failed = {}, exc
        cycles = {space: AskedCycle(got.counts, got.last) for space, got in inputs.items()}
        # channels of a space with the same packs and filters draw from one candidate tuple: its cycle reuses
        # the least-asked questions worked out for the first of them
        drawn: dict[tuple[object, ...], tuple[Question, ...]] = {}
        for item in items:
            cfg = item.config
            if cfg is None or cfg.paused or now - item.due.due_at > self.ctx.grace:
                out.append(None)
                continue
            ref = cfg.ref
            day = local_date_of(cfg, item.due.due_at)
            space = (ref.platform, ref.space_id)
            try:
                if space not in inputs:
                    raise failed
                key = (space, cfg.packs, cfg.topics, cfg.difficulties)
                candidates = drawn.get(key)
                if candidates is None:
                    candidates = drawn[key] = unheld(await self.packs.candidates(cfg), inputs[space].held)
                rate = inputs[space].rates.rate_for(ref.channel_id)
                question = cycles[space].pick(candidates, self.ctx.rng, rate)
                if question is None:
                    raise BadSetting("The question bank is empty.")
            except Exception as exc:  # raised for that channel alone, in its own post
                out.append(Opening(now, None, exc))
                continue
            closes_at = reveal_instant(cfg, day, now)
            claim = DailyClaim(ref, day, question.id, question.topic, now, closes_at, now + self.ctx.send_lease)
            todo.append((len(out), claim, question))
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
        then post it. An older round promised for later (the schedule moved) stays open until its promise.
        `opened`: the channel's open daily rounds, when the caller has just read them."""
        now = self.ctx.clock.now()
        for previous in opened if opened is not None else await self.store.open_daily_rounds(round_.ref):
            if previous.id != round_.id and (previous.closes_at is None or previous.closes_at <= now):
                try:
                    await self.reveals.reveal_round(previous.id)
                except Exception:
                    log.exception("reveal of round %d failed; posting round %d anyway", previous.id, round_.id)
        return await self.send_post(SendClaim(round_, 1, False, 0), cfg, raise_errors=raise_errors)

    async def send_post(
        self, claim: SendClaim, cfg: ChannelConfig, *, raise_errors: bool = False, forced: bool = False
    ) -> Round:
        """Send a claimed daily question and record the outcome: its message id, or a retry with backoff
        until the grace ends. After an attempt whose outcome is unknown the platform is asked first
        (outcomes.earlier_send): a message it already has is adopted, never sent again; when it has none
        and the grace is over, the day is skipped and the channel told (post-now, `forced`, still posts)."""
        round_, outcomes = claim.round, self.outcomes
        self.rounds.keep(round_)
        platform = self.ctx.platforms.get(round_.ref.platform)
        if platform is None:
            log.warning("no platform %r is running; round %d is stored but not posted", round_.ref.platform, round_.id)
            await outcomes.post(PostFinish(round_.id, "due"))
            return replace(round_, post_state="due")
        now = self.ctx.clock.now()
        deadline = round_.opened_at + self.ctx.grace
        try:
            earlier = await earlier_send(platform, claim, "question", round_.opened_at)
        except Exception as exc:  # could not ask: never guess, ask again later
            retry = now + retry_delay(claim.attempts)
            log.warning(
                "round %d: could not ask %s whether its question went out (%s); asking again at %s",
                round_.id,
                round_.ref.platform,
                type(exc).__name__,
                f"{retry:%H:%M:%S}",
            )
            await outcomes.post(PostFinish(round_.id, "failed", retry_at=retry))
            if raise_errors:
                raise
            return replace(round_, post_state="failed")
        if earlier.message_id is not None:
            return await self._posted(round_, earlier.message_id)
        if earlier.asked and now > deadline and not forced:
            await self._give_up(round_, cfg, "its question is not in the channel and the grace is over")
            return replace(round_, post_state="gave_up")
        await self.packs.prime(round_)
        card = cards.question_card(round_, self.packs.question_of(round_), cfg)
        try:
            message_id = await platform.post_question(round_.ref, card)
        except Exception as exc:
            self.ctx.metrics.post_failed(round_.ref.platform)
            retry = now + retry_delay(claim.attempts)
            # a platform that can be asked settles the failed call on the next attempt (it may have gone out)
            if retry > deadline and not isinstance(platform, IdempotentSends):
                await self._give_up(round_, cfg, f"after {claim.attempts} attempts: {type(exc).__name__}")
            else:
                log.warning(
                    "posting round %d failed (%s); retrying at %s", round_.id, type(exc).__name__, f"{retry:%H:%M:%S}"
                )
                await outcomes.post(PostFinish(round_.id, "failed", retry_at=retry))
            if raise_errors:
                raise
            return replace(round_, post_state="failed")
        self.ctx.metrics.post_sent(round_.ref.platform)
        return await self._posted(round_, message_id)

    async def _posted(self, round_: Round, message_id: str) -> Round:
        """Record the question as sent with its message (kept until the store takes it)."""
        await self.outcomes.post(PostFinish(round_.id, "sent", message_id=message_id or None))
        round_ = replace(round_, message_id=message_id or round_.message_id, post_state="sent")
        self.rounds.keep(round_)
        return round_

    async def _give_up(self, round_: Round, cfg: ChannelConfig, why: str) -> None:
        """The question never went out within the grace: the day is skipped, and the channel told (an admin
        can still post it now)."""
        log.error("gave up posting round %d (%s)", round_.id, why)
        await self.outcomes.post(PostFinish(round_.id, "gave_up"))
        commands = self.ctx.commands_of(cfg.ref.platform)
        await self._tell(cfg, daily_cards.not_posted_text(cfg, round_.opened_at, commands))

    async def schedule_unscheduled(self, spaces: SpaceFilter | None = None) -> None:
        """Give running channels saved without a stored next post one (a post missed within the grace
        still goes out)."""
        now = self.ctx.clock.now()
        for cfg in await self.store.unscheduled_channels(spaces):
            if spaces is None or spaces(cfg.ref):
                await self.store.set_next_post(cfg.ref, await self.channels.next_due(cfg, now - self.ctx.grace))
        for round_ in await self.store.open_daily_rounds(unpromised=True):  # posted before promises were stored
            if round_.closes_at is None and round_.local_date is not None and (spaces is None or spaces(round_.ref)):
                cfg = await self.channels.channel_config(round_.ref)
                await self.store.set_reveal_at(round_.id, reveal_instant(cfg, round_.local_date, round_.opened_at))

    async def run_due_post(
        self, due: DueChannel, claimed: DuePost | None = None, opening: Opening | None = None
    ) -> None:
        """A claimed due channel: post (or skip) its day and move its next post on. `claimed`: the
        channel's settings and open rounds, as read with the claim; `opening`: its day's slot, claimed
        with the batch's (see open_due)."""
        cfg = claimed.config if claimed is not None else await self.store.get_channel(due.ref)
        now = opening.now if opening is not None else self.ctx.clock.now()
        if cfg is None or cfg.paused:
            await self.outcomes.due(due.ref, due.due_at, None)
            return
        day = local_date_of(cfg, due.due_at)
        late = now - due.due_at
        if late > self.ctx.grace and await self.store.running_at(cfg.ref.platform, due.due_at):
            # the bot was running at the due instant (bot.daily.uptime): not downtime, but the clock stepped
            # forward past it (or its post kept failing); post it late, unless a later day is due as well
            later = next_post_after(cfg, due.due_at)
            if later is not None and later <= now:
                log.warning(
                    "the daily post of %s/%s for %s is overtaken by the next one (the clock moved on by %s while "
                    "the bot was running); posting only the latest",
                    cfg.ref.platform,
                    cfg.ref.channel_id,
                    day,
                    late,
                )
                await self.outcomes.due(due.ref, due.due_at, later)
                return
            log.warning(
                "posting %s/%s's question for %s %s late: the bot was running at its time (the clock moved forward)",
                cfg.ref.platform,
                cfg.ref.channel_id,
                day,
                late,
            )
        elif late > self.ctx.grace:
            latest = await self.store.latest_daily_round(cfg.ref)
            if latest is None or latest.local_date is None or latest.local_date < day:
                commands = self.ctx.commands_of(cfg.ref.platform)
                missed = missed_posts(cfg, due.due_at, now - self.ctx.grace)
                told = await self._tell(cfg, daily_cards.skipped_text(cfg, missed, commands))
                # the channel was told in plain words; the log keeps the details (a warning if it was not told)
                log.log(
                    logging.INFO if told else logging.WARNING,
                    "skipped the daily post of %s/%s for %s: missed by %s, more than the %s grace",
                    cfg.ref.platform,
                    cfg.ref.channel_id,
                    day,
                    late,
                    self.ctx.grace,
                )
            # every day missed beyond the grace is skipped at once; one still within it comes next
            after = max(due.due_at, now - self.ctx.grace - dt.timedelta(microseconds=1))
            await self.outcomes.due(due.ref, due.due_at, await self.channels.next_due(cfg, after))
            return
        opened = claimed.open_rounds if claimed is not None else None
        posted = await self.post_scheduled(cfg.ref, day, cfg, opened=opened, claimed=opening)
        after = max(now, due.due_at)
        taken = day if posted is not None else None  # just claimed: the latest round is today's
        await self.outcomes.due(due.ref, due.due_at, await self.channels.next_due(cfg, after, taken=taken))
        await self.seasons.after_due(cfg, due.due_at)  # on the 1st: last month's season card (once)

    async def _tell(self, cfg: ChannelConfig, text: str) -> bool:
        """A plain note in the channel (a platform's optional post_notice); False when it could not."""
        platform = self.ctx.platforms.get(cfg.ref.platform)
        if not isinstance(platform, NoticePlatform):
            return False
        try:
            await platform.post_notice(cfg.ref, text)
        except Exception as exc:
            log.warning("could not tell %s/%s: %s", cfg.ref.platform, cfg.ref.channel_id, type(exc).__name__)
            return False
        return True
