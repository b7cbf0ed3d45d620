"""Reveals: a round is closed and scored once (in the store, whichever process), and its reveal card is
posted the durable way (claimed, retried with backoff until the grace ends, never blocking the next post)."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from bot.daily.answers import open_round_in
from bot.daily.outcomes import SendOutcomes, earlier_send, retry_delay
from bot.daily.store import DeliveryStore
from bot.daily.values import PostFinish, RevealedRound, RevealFinish, SendClaim
from bot.kernel import cards
from bot.kernel.cards import RevealCard
from bot.kernel.context import Context
from bot.kernel.errors import NotAllowed, RoundClosed, UnknownRound
from bot.kernel.platform import CannotLook, ChatPlatform, IdempotentSends
from bot.kernel.rounds import RoundCache
from bot.kernel.scoring import score_daily_round
from bot.kernel.store import ChannelReads, RoundReads
from bot.kernel.values import Actor, Answer, ChannelConfig, ChannelRef, Round, RoundKind
from bot.packs.catalog import PackCatalog

log = logging.getLogger(__name__)

# a reveal later than this after its promise, when no process was running at the promise, says it came late
LATE_REVEAL = dt.timedelta(minutes=2)
LATE_NOTE = "Revealed late: the bot was offline."


class RevealStore(RoundReads, ChannelReads, DeliveryStore, Protocol):
    """What reveals read and write: rounds, their channels, reveal claims, and the reveal itself."""


class Reveals:
    """Closing rounds, their reveal cards and the reveal posts."""

    def __init__(
        self, ctx: Context, store: RevealStore, packs: PackCatalog, rounds: RoundCache, outcomes: SendOutcomes
    ) -> None:
        self.ctx = ctx
        self.store = store
        self.packs = packs
        self.rounds = rounds
        self.outcomes = outcomes

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
        now = self.ctx.clock.now()
        if not await self.store.reveal_round(round_id, now, scorer, learn=self.ctx.learning):
            return None
        self.rounds.drop(round_id)
        revealed = replace(round_, revealed_at=now)
        card = await self.reveal_card(revealed)
        if round_.kind is RoundKind.DAILY:
            for claim in await self.store.claim_reveals(now, now + self.ctx.send_lease, 1, round_id=round_id):
                try:
                    await self.send_reveal(claim, card if claim.round.is_posted == revealed.is_posted else None)
                except Exception:  # settled all the same; the tick retries the post
                    log.exception("reveal post of round %d failed", round_id)
                    await self.outcomes.reveal(RevealFinish(round_id, "failed", now + retry_delay(claim.attempts)))
        return card

    async def reveal_now(self, actor: Actor, ref: ChannelRef) -> RevealCard:
        """An admin reveals the channel's open daily question early."""
        if not actor.is_admin:
            raise NotAllowed("Only members who can manage this server or workspace can reveal early.")
        round_ = await open_round_in(self.store, self.ctx, ref)
        card = await self.reveal_round(round_.id)
        if card is None:
            raise RoundClosed("That question was revealed a moment ago.")
        return card

    async def send_reveal(self, claim: SendClaim, card: RevealCard | None = None) -> None:
        """Post a claimed reveal and record it; a failure is retried with backoff until the grace ends.
        After an attempt whose outcome is unknown the platform is asked first (outcomes.earlier_send): a
        reveal it already has is taken as sent, never posted again. `card`: the reveal card, when the
        caller has just built it."""
        round_, outcomes = claim.round, self.outcomes
        platform = self.ctx.platforms.get(round_.ref.platform)
        if platform is None:
            await outcomes.reveal(RevealFinish(round_.id, "due" if round_.is_posted else "none"))
            return
        now = self.ctx.clock.now()
        started = round_.revealed_at or now
        try:
            if not round_.is_posted:
                round_ = await self._question_out(platform, round_)
                card = None  # its question message may have been found
            if not round_.is_posted:  # nobody saw the question: there is nothing to reveal in the channel
                await outcomes.reveal(RevealFinish(round_.id, "none"))
                return
            earlier = await earlier_send(platform, claim, "reveal", started)
        except Exception as exc:  # could not ask: never guess, ask again later
            retry = now + retry_delay(claim.attempts)
            log.warning(
                "round %d: could not ask %s whether its reveal went out (%s); asking again at %s",
                round_.id,
                round_.ref.platform,
                type(exc).__name__,
                f"{retry:%H:%M:%S}",
            )
            await outcomes.reveal(RevealFinish(round_.id, "failed", retry_at=retry))
            return
        if earlier.message_id is not None:
            await outcomes.reveal(RevealFinish(round_.id, "sent"))
            return
        if earlier.asked and now > started + self.ctx.grace:
            log.error(
                "gave up posting the reveal of round %d: it is not in the channel and the grace is over", round_.id
            )
            await outcomes.reveal(RevealFinish(round_.id, "gave_up"))
            return
        try:
            await platform.post_reveal(round_.ref, card or await self.reveal_card(round_))
        except Exception as exc:
            retry = now + retry_delay(claim.attempts)
            # a platform that can be asked settles the failed call on the next attempt (it may have gone out)
            if retry > started + self.ctx.grace and not isinstance(platform, IdempotentSends):
                log.error(
                    "gave up posting the reveal of round %d after %d attempts: %s",
                    round_.id,
                    claim.attempts,
                    type(exc).__name__,
                )
                await outcomes.reveal(RevealFinish(round_.id, "gave_up"))
            else:
                log.warning("posting the reveal of round %d failed (%s); retrying", round_.id, type(exc).__name__)
                await outcomes.reveal(RevealFinish(round_.id, "failed", retry_at=retry))
            return
        await outcomes.reveal(RevealFinish(round_.id, "sent"))

    async def _question_out(self, platform: ChatPlatform, round_: Round) -> Round:
        """A round revealed while its question's send was unsettled (interrupted or failed): the platform is
        asked whether the question went out, and a message it has is adopted (then the reveal goes out)."""
        if round_.post_state not in ("sending", "failed") or not isinstance(platform, IdempotentSends):
            return round_
        try:
            found = await platform.find_sent(round_.ref, round_.id, "question", round_.opened_at)
        except CannotLook:
            return round_
        if found is None:
            return round_
        log.info("round %d: its question is out (message %s) though its post was unsettled", round_.id, found)
        await self.outcomes.post(PostFinish(round_.id, "sent", message_id=found))
        return replace(round_, message_id=found, post_state="sent")

    async def announce(self, round_: Round, item: RevealedRound, now: dt.datetime) -> None:
        """The rest of reveal_round for a round revealed in a batch (`item`, at `now`): its card and post."""
        self.rounds.drop(round_.id)
        revealed = replace(round_, revealed_at=now)
        card = await self._card(revealed, item.config, item.answers)
        claim = item.claim
        if claim is not None:
            try:
                await self.send_reveal(claim, card if claim.round.is_posted == revealed.is_posted else None)
            except Exception:  # settled all the same; the tick retries the post
                log.exception("reveal post of round %d failed", round_.id)
                await self.outcomes.reveal(RevealFinish(round_.id, "failed", now + retry_delay(claim.attempts)))

    async def reveal_card(self, round_: Round) -> RevealCard:
        cfg = await self.store.get_channel(round_.ref) if round_.kind is RoundKind.DAILY else None
        answers = await self.store.round_answers(round_.id)
        return await self._card(round_, cfg, answers)

    async def _card(self, round_: Round, cfg: ChannelConfig | None, answers: Sequence[Answer]) -> RevealCard:
        await self.packs.prime(round_)
        question = self.packs.question_of(round_)
        card = cards.reveal_card(round_, question, answers, ping_winners=bool(cfg and cfg.ping_winners))
        if cfg is not None and cfg.threads:
            card = replace(card, discussion=True)
        if (
            round_.kind is RoundKind.DAILY
            and round_.revealed_at
            and round_.closes_at
            and round_.revealed_at - round_.closes_at > LATE_REVEAL
            and not await self.store.running_at(round_.ref.platform, round_.closes_at)  # late, but not offline
        ):
            card = replace(card, note=LATE_NOTE)
        return card
