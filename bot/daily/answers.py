"""Answers: a button click, a reaction or a typed `/quiz answer B` all come here.

The first answer locks; a daily answer's acknowledgement never says whether it is right. Rounds of other
kinds (practice, live games) are answered the same way up to the store's commit, then handed to the
feature that owns that kind (registered by the composition root), which builds the reply.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Sequence
from typing import NoReturn, Protocol

from bot.daily.answer_batcher import AnswerBatcher
from bot.daily.store import RoundStore
from bot.kernel import cards
from bot.kernel.cards import AnswerOutcome
from bot.kernel.context import Context
from bot.kernel.errors import (
    AlreadyAnswered,
    BadSetting,
    NotAllowed,
    NotAQuestion,
    NothingOpen,
    QuizError,
    ReactionsOff,
    RoundClosed,
    StoreUnavailable,
    UnknownRound,
)
from bot.kernel.group_commit import GroupCommit
from bot.kernel.outage import STORE_DOWN
from bot.kernel.rounds import RoundCache
from bot.kernel.store import ChannelReads, RoundReads
from bot.kernel.values import (
    LETTERS,
    AnswerStatus,
    AnswerWrite,
    ChannelRef,
    NewAnswer,
    Question,
    Round,
    RoundKind,
)
from bot.packs.catalog import PackCatalog

STORE_UNAVAILABLE = STORE_DOWN  # the answer was not recorded (an outage): the reply every request gets then
CLOSED = "This question is closed; its answer has been (or is about to be) revealed."
NOT_HERE = "That question is not known here (it may be from another bot)."
_DAILY = RoundKind.DAILY
_RECORDED = AnswerStatus.RECORDED.value
MISSED_ROUNDS_PER_READ = 1000  # rounds not in memory, read in one trip at most
REACTIONS_PER_READ = 1000  # reactions whose rounds and channel settings are read in one trip at most


class AnswerStore(RoundStore, ChannelReads, Protocol):
    """What answering reads and writes."""


class KindAnswers(Protocol):
    """The feature that owns a kind of round: what happens after one of its answers was recorded."""

    async def answered(
        self, round_: Round, user_id: str, choice: int, question: Question, *, sure: bool, now: dt.datetime
    ) -> AnswerOutcome: ...


async def open_round_in(store: RoundReads, ctx: Context, ref: ChannelRef) -> Round:
    """The channel's open (posted) daily round; NothingOpen when there is none."""
    rounds = [r for r in await store.open_daily_rounds(ref) if r.is_posted and r.ref == ref]
    if not rounds:
        practice = ctx.commands_of(ref.platform).practice
        raise NothingOpen(f"There is no open daily question in this channel right now; try {practice} for practice.")
    return max(rounds, key=lambda r: r.id)


class AnswerDesk:
    """Records answers through the group commit and says what the learner is told."""

    def __init__(
        self, ctx: Context, store: AnswerStore, packs: PackCatalog, rounds: RoundCache, batcher: AnswerBatcher
    ) -> None:
        self.ctx = ctx
        self.store = store
        self.packs = packs
        self.rounds = rounds
        self.batcher = batcher
        self._kinds: dict[RoundKind, KindAnswers] = {}
        self._reading: dict[int, asyncio.Task[Round]] = {}  # rounds being read from the store, by id
        # the rounds missed at once (a restart under load, a burst of questions another process posted) are read
        # together: one trip for all that queued meanwhile, one read in flight, not a trip and a connection each
        self._round_reads = GroupCommit(
            self._read_rounds, MISSED_ROUNDS_PER_READ, outage=ctx.outage, name="round read", writes=False
        )
        self._reaction_reads = GroupCommit(
            self._read_reactions, REACTIONS_PER_READ, outage=ctx.outage, name="reaction read", writes=False
        )

    def register(self, kind: RoundKind, owner: KindAnswers) -> None:
        """The feature that replies to answers of rounds of `kind` (every kind but daily has one)."""
        self._kinds[kind] = owner

    @property
    def answers_waiting(self) -> int:
        """Answers queued for the next group commit (the overload limit applies to this queue)."""
        return self.batcher.pending

    async def todays_answer(self, ref: ChannelRef, user_id: str) -> tuple[Round, str | None] | None:
        """The channel's daily question open now (posted, not revealed) and the member's recorded choice as its
        letter (None: not answered yet); None when no question is open there."""
        shown = [r for r in await self.store.open_daily_rounds(ref) if r.is_posted]
        if not shown:
            return None
        round_ = max(shown, key=lambda r: r.id)
        answer = await self.store.get_answer(round_.id, user_id)
        return round_, None if answer is None else LETTERS[answer.choice]

    async def submit_answer(
        self, round_id: int, user_id: str, choice: int, *, space: tuple[str, str] | None = None, sure: bool = True
    ) -> AnswerOutcome:
        """Record one answer. The first answer locks; the acknowledgement of a daily answer never says whether
        it is right. `space` (platform, space id) is where the click came from: a round of another space is not
        known there. `sure=False`: the learner marked it "not sure" (their memory card learns it; scores do not)."""
        if not 0 <= choice < len(LETTERS):
            raise BadSetting("Answer with A, B, C or D.")
        round_ = self.rounds.get(round_id) or await self._round(round_id)
        if space is not None and (round_.ref.platform, round_.ref.space_id) != space:
            raise UnknownRound(NOT_HERE)
        daily = round_.kind is _DAILY  # (a module global: an enum member's lookup costs more, per answer)
        if round_.user_id is not None and round_.user_id != user_id:
            command = self.ctx.commands_of(round_.ref.platform).practice
            raise NotAllowed(f"That practice question belongs to someone else; use {command} for one of your own.")
        now = self.ctx.clock.now()
        if not round_.is_open or (round_.closes_at is not None and now >= round_.closes_at):
            raise RoundClosed(await self._closed_text(round_))
        question = self.ctx.bank.get(round_.question_id)
        if question is None:  # a pack's question (the shipped bank's need no await: this runs per answer)
            await self.packs.prime(round_)
            question = self.packs.question_of(round_)
        try:
            write = await self.batcher.submit(NewAnswer(round_id, user_id, choice, choice == question.answer, now))
        except QuizError:
            raise
        except Exception as exc:  # the store failed; the batcher told the process's StoreOutage (logged once)
            raise StoreUnavailable(STORE_UNAVAILABLE) from exc
        if write.status != _RECORDED:
            await self._not_recorded(write, round_)
        self.ctx.metrics.answer_recorded(round_.ref.platform, round_.kind)
        if not daily:
            return await self._kinds[round_.kind].answered(round_, user_id, choice, question, sure=sure, now=now)
        if not sure:
            await self.store.mark_unsure(round_id, user_id)
        letter = LETTERS[choice]
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
                self.rounds.drop(round_.id)
                raise RoundClosed(await self._closed_text(await self.store.get_round(round_.id) or round_))
            case _:
                raise UnknownRound(NOT_HERE)

    async def answer_by_reaction(self, platform: str, message_id: str, user_id: str, choice: int) -> AnswerOutcome:
        """A reaction on a posted question message answers the round that message belongs to, if the
        channel takes reaction answers. NotAQuestion: the message is no quiz question; ReactionsOff: the
        channel has reaction answers switched off (adapters ignore the reaction in both cases). The round and
        the channel's setting are one read, shared by every reaction that came meanwhile (a burst of reactions
        to many questions is one trip), and the round read is kept for the answer path."""
        found = await self._reaction_reads.submit((platform, message_id))
        if found is None:
            raise NotAQuestion("That message is not a quiz question.")
        round_, reactions = found
        if not reactions:
            answer = self.ctx.commands_of(platform).answer
            raise ReactionsOff(f"Reaction answers are switched off in this channel; use the buttons or {answer}.")
        self._known(round_)
        return await self.submit_answer(round_.id, user_id, choice)

    async def answer_in_channel(
        self, ref: ChannelRef, user_id: str, choice: int, *, sure: bool = True
    ) -> AnswerOutcome:
        """A typed answer (`/quiz answer B`, Discord's `/answer`): goes to the channel's open daily question
        (one read: the channel's open rounds)."""
        round_ = await open_round_in(self.store, self.ctx, ref)
        self._known(round_)
        return await self.submit_answer(round_.id, user_id, choice, sure=sure)

    def _known(self, round_: Round) -> None:
        """A round just read for an answer (by its message or its channel): kept if open, so the answer
        itself reads it no second time."""
        if round_.is_open and self.rounds.get(round_.id) is None:
            self.rounds.keep(round_)

    async def _round(self, round_id: int) -> Round:
        """A round not in memory, read once however many answers to it wait for the read (the first clicks on
        a question just posted by another process all miss the cache at once)."""
        reading = self._reading.get(round_id)
        if reading is None:
            reading = self._reading[round_id] = asyncio.ensure_future(self._read_round(round_id))
            reading.add_done_callback(lambda done: self._read_done(round_id, done))
        return await asyncio.shield(reading)  # one waiter cancelled does not cancel the others' read

    def _read_done(self, round_id: int, done: asyncio.Task[Round]) -> None:
        self._reading.pop(round_id, None)
        if not done.cancelled():
            done.exception()  # each waiter has it raised; retrieved here too, so no waiter left is no warning

    async def _read_round(self, round_id: int) -> Round:
        round_ = await self._round_reads.submit(round_id)
        if round_ is None:
            raise UnknownRound("That question is not known here; it may have been posted by another bot.")
        if round_.is_open:
            self.rounds.keep(round_)
        return round_

    async def _read_rounds(self, round_ids: Sequence[int]) -> list[Round | None]:
        return await self.store.get_rounds(round_ids)

    async def _read_reactions(self, messages: Sequence[tuple[str, str]]) -> list[tuple[Round, bool] | None]:
        return await self.store.reaction_rounds(messages)

    async def _closed_text(self, round_: Round) -> str:
        """What a late answer hears: when the question closed (channel time) and its answer."""
        question = self.ctx.bank.get(round_.question_id)
        ends = [t for t in (round_.closes_at, round_.revealed_at) if t is not None]
        if round_.kind is not RoundKind.DAILY or question is None or not ends:
            return CLOSED
        cfg = await self.store.get_channel(round_.ref)
        return cards.closed_text(min(ends), cfg.timezone if cfg else "UTC", question.answer_letter)

    async def close(self) -> None:
        await self.batcher.close()
        await self._round_reads.close()
        await self._reaction_reads.close()
