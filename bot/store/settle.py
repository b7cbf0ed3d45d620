"""The reveal transaction and the answer batch, written once for every store.

A store subclasses SettlingStore: its `_settling()` opens one transaction (with the store's own locking)
and yields an object that speaks SettleTransaction, a few short statements (or it overrides `_settle` to run
a step whole its own way: SQLite runs it on its connection's thread). The order of the
steps and the rules between them live here, the pure rules (points, streaks, periods, buckets, ranks) in
bot.scoring. A new step at reveal (FSRS card updates: see `update_learner_memory`) is one function here
and one method per store.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable, Collection, Coroutine, Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar, cast

from bot.kernel.scoring import (
    FREEZES_MAX,
    Board,
    BoardMoves,
    BoardRows,
    RevealInput,
    Scorer,
    bucket_moves,
    needs_missed,
    period_keys,
)
from bot.kernel.values import (
    Answer,
    AnswerStatus,
    AnswerWrite,
    ChannelRef,
    NewAnswer,
    PracticeAnswer,
    Round,
    RoundKind,
    StreakState,
)
from bot.practice import memory as learning
from bot.practice.memory import LEARN_BATCH, LEARN_ROUNDS, CardKey, LearnerCard, PendingAnswer, ReviewEvent
from bot.store.rows import board_key

P = ParamSpec("P")
T = TypeVar("T")


class SettlingStore:
    """The Store methods settled here, for a store that opens its own transaction (with its own locking)
    in `_settling()` and yields the steps on it; or that runs a step whole its own way (`_settle`)."""

    def _settling(self) -> AbstractAsyncContextManager[SettleTransaction]:
        raise NotImplementedError

    async def _settle(
        self,
        step: Callable[Concatenate[SettleTransaction, P], Coroutine[Any, Any, T]],
        /,
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> T:
        """step(tx, *args, **kwargs) on one transaction of `_settling()`."""
        async with self._settling() as tx:
            return await step(tx, *args, **kwargs)

    async def add_answers(self, answers: Sequence[NewAnswer], now: dt.datetime) -> list[AnswerWrite]:
        if not answers:
            return []
        return await self._settle(add_answers, answers, now)

    async def reveal_practice(
        self, answers: Sequence[PracticeAnswer], revealed_at: dt.datetime, *, learn: bool = True
    ) -> list[bool]:
        if not answers:
            return []
        return await self._settle(reveal_practice, answers, revealed_at, learn=learn)

    async def learn_practice(self, limit: int, learner: tuple[str, str, str] | None = None) -> int:
        return await self._settle(learn_practice, limit, learner)

    async def learn_rounds(self, limit: int, learner: tuple[str, str, str] | None = None) -> int:
        return await self._settle(learn_rounds, limit, learner)

    async def settle_learner(self, platform: str, space_id: str, user_id: str) -> None:
        """Write this learner's marked daily rounds and practice answers into their cards (before their cards
        are read)."""
        while await self.learn_rounds(LEARN_ROUNDS, (platform, space_id, user_id)) >= LEARN_ROUNDS:
            pass
        while await self.learn_practice(LEARN_BATCH, (platform, space_id, user_id)) >= LEARN_BATCH:
            pass

    async def reveal_round(
        self,
        round_id: int,
        revealed_at: dt.datetime,
        scorer: Scorer | None,
        *,
        learn: bool = True,
        unsure: Collection[str] = (),
    ) -> bool:
        return await self._settle(reveal, round_id, revealed_at, scorer, learn=learn, unsure=unsure)


async def reveal(
    tx: RevealTransaction,
    round_id: int,
    revealed_at: dt.datetime,
    scorer: Scorer | None,
    *,
    learn: bool = False,
    unsure: Collection[str] = (),
    folds: ScoreFolds | None = None,
    defer_cards: bool = False,
) -> bool:
    """Close a round once; a daily round with a scorer is also scored and folded into its space's
    leaderboards. With `learn`, the answers also update the learners' memory cards (`unsure`: users who
    marked their answer "not sure", besides the doubts stored with a daily round); with `defer_cards` too, a
    daily round is only marked for them (learn_rounds writes them later). False when it was
    already revealed (or does not exist). Any failure must roll the store's transaction back, so a failed
    reveal changes nothing. `folds`: the transaction's points still to fold into the boards (reveal_all
    writes them once for all its rounds); without it this round's points are folded in at once."""
    defer = defer_cards and not unsure
    round_ = await tx.claim_reveal(round_id, revealed_at)
    if round_ is None:
        return False
    if round_.kind is RoundKind.PRACTICE:
        if learn:
            await update_learner_memory(tx, round_, await tx.answers(round_id), frozenset(unsure))
        return True
    if scorer is None or round_.kind is not RoundKind.DAILY or round_.local_date is None:
        if learn and defer and round_.kind is RoundKind.DAILY:
            if await tx.answers(round_id):  # (a round nobody answered updates no card, as below)
                await tx.mark_cards_pending(round_id)
        elif learn:
            await update_learner_memory(tx, round_, await tx.answers(round_id), frozenset(unsure))
        return True
    ref = round_.ref
    await tx.lock_space(ref)
    answers = await tx.answers(round_id)
    previous = await tx.previous_date(ref, round_.local_date)
    streaks = await tx.streaks(ref, [a.user_id for a in answers]) if answers else {}
    missed = await missed_dates(tx, ref, round_.local_date, previous, answers, streaks)
    speed = await tx.speed_bonus(ref)
    result = scorer(RevealInput(round_, answers, previous, streaks, speed, missed))
    earned = {user: points for user, points in result.points.items() if points}
    if earned:  # an answer that earned nothing keeps None (those updates were a third of bench.reveal_batch's WAL)
        await tx.write_points(round_id, earned)
    if result.streaks:
        await tx.write_streaks(ref, result.streaks)
    if learn and defer:
        if answers:  # (a round nobody answered updates no card)
            await tx.mark_cards_pending(round_id)
    elif learn:
        await update_learner_memory(tx, round_, answers, frozenset(unsure))
    if not result.points:
        return True  # nothing to fold into the boards
    correct = {a.user_id: a.correct for a in answers}
    scored = {a.user_id: a.answered_at for a in answers if result.points.get(a.user_id, 0) > 0}
    mine = ScoreFolds() if folds is None else folds
    for period, key in period_keys(round_.local_date):
        mine.add(Board(ref.platform, ref.space_id, period, key), result.points, correct, scored)
    if folds is None:
        await mine.write(tx)
    return True


async def reveal_all(
    tx: RevealTransaction,
    round_ids: Sequence[int],
    revealed_at: dt.datetime,
    scorer: Scorer | None,
    *,
    learn: bool,
    defer_cards: bool = True,
) -> list[int]:
    """Reveal each round (`reveal`) in this one transaction, their points folded into the boards once at the
    end: a space's channels revealed together write each of its board rows once, not once per round. The
    daily rounds' card updates are deferred (`defer_cards`: learn_rounds writes them after the fan-out). The
    rounds revealed now, in the order given."""
    folds = ScoreFolds()
    done = [
        rid
        for rid in round_ids
        if await reveal(tx, rid, revealed_at, scorer, learn=learn, folds=folds, defer_cards=defer_cards)
    ]
    await folds.write(tx)
    return done


def latest_date(taken: Iterable[dt.date], before: dt.date, stored: dt.date | None) -> dt.date | None:
    """A reveal batch's previous_date: the latest daily date before `before` among those its rounds claimed so
    far (`taken`) and the one stored before the batch (`stored`: read leaving the batch's rounds out)."""
    return max([d for d in taken if d < before] + ([stored] if stored is not None else []), default=None)


async def missed_dates(
    tx: RevealTransaction,
    ref: ChannelRef,
    day: dt.date,
    previous: dt.date | None,
    answers: Sequence[Answer],
    streaks: dict[str, StreakState],
) -> dict[str, int]:
    """For each right answer whose learner holds a streak freeze and missed the previous daily date: the
    space's revealed daily dates they missed (counted once per last date, up to FREEZES_MAX + 1)."""
    missed: dict[str, int] = {}
    counted: dict[dt.date, int] = {}
    for a in answers:
        state = streaks.get(a.user_id)
        if not a.correct or state is None or not needs_missed(state, previous) or state.last_date is None:
            continue
        if state.last_date not in counted:
            counted[state.last_date] = await tx.daily_dates_between(ref, state.last_date, day, FREEZES_MAX + 1)
        missed[a.user_id] = counted[state.last_date]
    return missed


async def update_learner_memory(
    tx: RevealTransaction, round_: Round, answers: Sequence[Answer], unsure: frozenset[str] = frozenset()
) -> None:
    """FSRS card updates at reveal, one per answer of the round, inside the same transaction (so a failed
    reveal leaves the cards unchanged too). A daily round runs this after points and streaks are written
    and before the leaderboards are folded; it never touches them. Each answer is rated as of when it was
    given (never before the card's last review); doubts stored with the round count as "not sure"."""
    if not answers:
        return
    ref = round_.ref
    users = sorted({a.user_id for a in answers})
    doubts = unsure | await tx.doubts(round_.id) if round_.kind is RoundKind.DAILY else unsure
    cards = await tx.cards(ref.platform, ref.space_id, round_.question_id, users)
    updates: list[tuple[LearnerCard, ReviewEvent]] = []
    for a in sorted(answers, key=lambda a: a.user_id):
        key = CardKey(ref.platform, ref.space_id, a.user_id, round_.question_id)
        updates.append(_review(cards.get(a.user_id), key, a.correct, a.user_id not in doubts, a.answered_at))
    await tx.write_cards(updates)


async def reveal_practice(
    tx: RevealTransaction, answers: Sequence[PracticeAnswer], revealed_at: dt.datetime, *, learn: bool
) -> list[bool]:
    """Reveal a batch of answered practice rounds (each once) and, with `learn`, mark each for its card
    update, which learn_practice writes after the reply (a practice round has one answer: its learner's).
    Per answer: revealed now."""
    unsure = {a.round_id for a in answers if not a.sure} if learn else set()
    claimed = await tx.claim_practice(sorted({a.round_id for a in answers}), revealed_at, learn=learn, unsure=unsure)
    return [a.round_id in claimed for a in answers]


async def learn_practice(tx: RevealTransaction, limit: int, learner: tuple[str, str, str] | None = None) -> int:
    """Rate up to `limit` marked practice answers into their learners' cards, oldest round first (a card
    met twice is reviewed twice, in order), and unmark them; how many. One process at a time (so two
    never review one card from the same old state)."""
    await tx.lock_learning()
    pending = await tx.pending_practice(limit, learner)
    if not pending:
        return 0
    cards: dict[CardKey, LearnerCard] = await tx.cards_of(sorted({p.key for p in pending}, key=_card_order))
    updates: list[tuple[LearnerCard, ReviewEvent]] = []
    for p in pending:
        cards[p.key], event = _review(cards.get(p.key), p.key, p.correct, p.sure, p.answered_at)
        updates.append((cards[p.key], event))
    await tx.write_cards(updates)
    await tx.clear_pending([p.round_id for p in pending])
    return len(pending)


async def learn_rounds(tx: RevealTransaction, limit: int, learner: tuple[str, str, str] | None = None) -> int:
    """Write the card updates of up to `limit` daily rounds marked at their reveal, all of one space, oldest
    round first, and unmark them; how many rounds. `learner`: (platform, space, user): only rounds they
    answered. One writer of marked card updates at a time (lock_learning: no practice card update reads a card
    this is writing), under the space's scoring lock, so a forget-me of one of their learners has finished (its
    answers are gone, and no card of theirs is written) or waits for this."""
    await tx.lock_learning()
    space = learner[:2] if learner is not None else await tx.space_to_learn()
    if space is None:
        return 0
    await tx.lock_space(ChannelRef(space[0], space[1], ""))
    rounds = await tx.rounds_to_learn(space[0], space[1], limit, learner[2] if learner is not None else None)
    for round_ in rounds:
        await update_learner_memory(tx, round_, await tx.answers(round_.id))
    await tx.clear_cards_pending([r.id for r in rounds])
    return len(rounds)


def _review(
    card: LearnerCard | None, key: CardKey, correct: bool, sure: bool, answered_at: dt.datetime
) -> tuple[LearnerCard, ReviewEvent]:
    """learning.review of one answer, rated as of when it was given but never before the card's last review."""
    at = answered_at
    if card is not None and card.last_review is not None and card.last_review > at:
        at = card.last_review
    return learning.review(card, key, correct, sure=sure, at=at)


def _card_order(key: CardKey) -> tuple[str, str, str, str]:
    return key.platform, key.space_id, key.user_id, key.question_id


@dataclass(slots=True)
class _Fold:
    """One user's points on one board, summed over the rounds folded so far."""

    points: int = 0
    correct: int = 0
    rounds: int = 0
    reached: dt.datetime | None = None


class ScoreFolds:
    """Rounds' points to fold into their boards, summed per board and user until `write`: each user's total
    grows by the sum, their answered count by the rounds, and the time they reached it is their latest
    answer that scored (None: the total's time stays)."""

    def __init__(self) -> None:
        self._boards: dict[Board, dict[str, _Fold]] = {}

    def add(
        self, board: Board, points: dict[str, int], correct: dict[str, bool], scored: dict[str, dt.datetime]
    ) -> None:
        """One round's points on one board (`correct` and `scored` by user, as `reveal` works them out)."""
        users = self._boards.setdefault(board, {})
        for uid, p in points.items():
            fold = users.get(uid)
            if fold is None:
                fold = users[uid] = _Fold()
            fold.points += p
            fold.correct += int(correct[uid])  # KeyError: points for a non-answer
            fold.rounds += 1
            at = scored.get(uid)
            if at is not None and (fold.reached is None or at > fold.reached):
                fold.reached = at

    async def write(self, tx: RevealTransaction) -> None:
        """Add the sums to the boards (every board in one call, boards and users in order), then move the
        users between their boards' score buckets (one more call)."""
        boards, self._boards = self._boards, {}
        rows: BoardRows = {
            board: [(u, f[u].points, f[u].correct, f[u].reached, f[u].rounds) for u in sorted(f)]
            for board, f in sorted(boards.items(), key=lambda item: board_key(item[0]))
            if f
        }
        if not rows:
            return
        totals = await tx.add_scores(rows)
        moves: dict[Board, list[tuple[int, int]]] = {}
        for board, after in totals.items():
            folds = boards[board]
            points = {u: folds[u].points for u in folds}
            # new to the board with these rounds: answered no more than the rounds folded now
            old = {u: total - points[u] for u, (total, answered) in after.items() if answered > folds[u].rounds}
            if changes := bucket_moves(old, points):
                moves[board] = changes
        if moves:
            await tx.move_buckets(moves)


def accepts_answers(revealed_at: dt.datetime | None, closes_at: dt.datetime | None, now: dt.datetime) -> bool:
    """A round takes answers until it is revealed or its answer window ends."""
    return revealed_at is None and (closes_at is None or closes_at > now)


async def add_answers(tx: AnswerTransaction, answers: Sequence[NewAnswer], now: dt.datetime) -> list[AnswerWrite]:
    """Record a batch: each answer only if its round is open and the user has not answered it yet (the
    first of a batch's answers by one user counts). A duplicate learns the stored choice."""
    if not answers:
        return []
    windows = await tx.round_windows(sorted({a.round_id for a in answers}))
    results, pending = sort_answers(answers, windows, now)
    inserted = await tx.insert_answers([answers[i] for i in pending]) if pending else set()
    return await answer_writes(answers, results, pending, inserted, tx.stored_choices)


Windows = dict[int, tuple[dt.datetime | None, dt.datetime | None]]  # round id: (revealed_at, closes_at)
# the verdicts without a stored choice, shared (a batch holds thousands; AnswerWrite is frozen)
RECORDED_WRITE = AnswerWrite(AnswerStatus.RECORDED)
CLOSED_WRITE = AnswerWrite(AnswerStatus.CLOSED)
UNKNOWN_WRITE = AnswerWrite(AnswerStatus.UNKNOWN)


def sort_answers(
    answers: Sequence[NewAnswer], windows: Windows, now: dt.datetime
) -> tuple[list[AnswerWrite | None], list[int]]:
    """Each answer's status where its round decides it (UNKNOWN, CLOSED; None otherwise), and the answers
    to insert (by index): the first by each user to each open round."""
    open_rounds = {rid for rid, window in windows.items() if accepts_answers(*window, now)}  # once per batch
    results: list[AnswerWrite | None] = [None] * len(answers)
    pending: list[int] = []
    seen: set[tuple[int, str]] = set()
    for i, a in enumerate(answers):
        key = (a.round_id, a.user_id)
        if a.round_id not in open_rounds:
            results[i] = CLOSED_WRITE if a.round_id in windows else UNKNOWN_WRITE
        elif key not in seen:
            seen.add(key)
            pending.append(i)
    return results, pending


async def answer_writes(
    answers: Sequence[NewAnswer],
    results: list[AnswerWrite | None],
    pending: Sequence[int],
    inserted: Collection[tuple[int, str]] | None,
    stored_choices: Callable[[Sequence[tuple[int, str]]], Awaitable[dict[tuple[int, str], int]]],
) -> list[AnswerWrite]:
    """The batch's results once the `pending` answers are tried: RECORDED for those inserted (all of them
    when `inserted` is None), the rest DUPLICATE with the stored choice."""
    if inserted is None:  # every one of them went in
        for i in pending:
            results[i] = RECORDED_WRITE
    else:
        for i in pending:
            a = answers[i]
            if (a.round_id, a.user_id) in inserted:
                results[i] = RECORDED_WRITE
    duplicates = [i for i, r in enumerate(results) if r is None]  # a batch's second answer by one user too
    if duplicates:
        keys = sorted({(answers[i].round_id, answers[i].user_id) for i in duplicates})
        stored = await stored_choices(keys)
        for i in duplicates:
            results[i] = AnswerWrite(AnswerStatus.DUPLICATE, stored.get((answers[i].round_id, answers[i].user_id)))
    return cast(list[AnswerWrite], results)  # every answer has its verdict now


class RevealTransaction(Protocol):
    """The steps of one reveal, inside one open transaction of a store (bot.store.settle.reveal calls them
    in order). Each step is a statement or two; the rules between them live in bot.store.settle."""

    async def claim_reveal(self, round_id: int, revealed_at: dt.datetime) -> Round | None:
        """Mark the round revealed unless it already is: the revealed round, or None (revealed or unknown)."""
        ...

    async def lock_space(self, ref: ChannelRef) -> None:
        """Hold off every other scoring in this space until commit (streaks, the previous date and the score
        buckets are read, then written). A store whose transactions are serial already does nothing."""
        ...

    async def answers(self, round_id: int) -> tuple[Answer, ...]:
        """The round's answers."""
        ...

    async def previous_date(self, ref: ChannelRef, before: dt.date) -> dt.date | None:
        """The space's latest revealed daily date before `before`."""
        ...

    async def streaks(self, ref: ChannelRef, users: Sequence[str]) -> dict[str, StreakState]:
        """The stored streaks of these users in the space (users without one are left out)."""
        ...

    async def speed_bonus(self, ref: ChannelRef) -> bool:
        """Whether the round's channel has the speed bonus on."""
        ...

    async def daily_dates_between(self, ref: ChannelRef, after: dt.date, before: dt.date, limit: int) -> int:
        """How many distinct daily dates of the space were revealed strictly between `after` and `before` (as
        this transaction sees them, the rounds revealed before this one in it included), at most `limit`."""
        ...

    async def write_points(self, round_id: int, points: dict[str, int]) -> None:
        """Set the points of these users' answers to the round (only answers that earned some are given)."""
        ...

    async def write_streaks(self, ref: ChannelRef, streaks: dict[str, StreakState]) -> None:
        """Store these users' new streaks in the space."""
        ...

    async def add_scores(self, boards: BoardRows) -> dict[Board, dict[str, tuple[int, int]]]:
        """Add (user, points, correct answers, reached, rounds answered) to the users' totals on each board
        (boards in key order, each user once a board); each board's users' (points, answered) after.
        `reached`: when the user reached the new total (the answer that scored), or None when it scored
        nothing and the total's time stays; a tie on points is listed by who got there first."""
        ...

    async def move_buckets(self, moves: BoardMoves) -> None:
        """Add (points total, change in users) to each board's score buckets; drop the buckets left empty."""
        ...

    async def doubts(self, round_id: int) -> set[str]:
        """The users who marked their answer to this round "not sure"."""
        ...

    async def cards(
        self, platform: str, space_id: str, question_id: str, users: Sequence[str]
    ) -> dict[str, LearnerCard]:
        """These users' memory cards for one question (users without one are left out)."""
        ...

    async def write_cards(self, updates: Sequence[tuple[LearnerCard, ReviewEvent]]) -> None:
        """Store these cards (insert or replace; of a card given twice, the later stands) and append their
        review events to the log."""
        ...

    async def claim_practice(
        self, round_ids: Sequence[int], revealed_at: dt.datetime, *, learn: bool, unsure: Collection[int] = ()
    ) -> set[int]:
        """claim_reveal for many practice rounds at once (other rounds are left alone): the ids revealed now.
        With `learn`, each of them is marked for its card update (`unsure`: rounds answered "not sure")."""
        ...

    async def lock_learning(self) -> None:
        """Wait until no other process is writing marked card updates (learn_practice, learn_rounds)."""
        ...

    async def mark_cards_pending(self, round_id: int) -> None:
        """Mark a daily round revealed in this transaction, and answered, for its card updates (learn_rounds)."""
        ...

    async def space_to_learn(self) -> tuple[str, str] | None:
        """(platform, space) of some daily round marked for its card updates; None when none is."""
        ...

    async def rounds_to_learn(self, platform: str, space_id: str, limit: int, user_id: str | None) -> list[Round]:
        """Up to `limit` daily rounds of the space marked for their card updates, oldest first; `user_id`: only
        those that user answered."""
        ...

    async def clear_cards_pending(self, round_ids: Sequence[int]) -> None:
        """Unmark these daily rounds (the last step of learn_rounds: their card updates are written by its end)."""
        ...

    async def pending_practice(self, limit: int, learner: tuple[str, str, str] | None) -> list[PendingAnswer]:
        """Up to `limit` marked practice answers, oldest round first; `learner`: (platform, space, user) only."""
        ...

    async def clear_pending(self, round_ids: Sequence[int]) -> None:
        """Unmark these practice rounds: their card updates are written."""
        ...

    async def cards_of(self, keys: Sequence[CardKey]) -> dict[CardKey, LearnerCard]:
        """The memory cards with these keys (keys without one are left out)."""
        ...


class AnswerTransaction(Protocol):
    """The steps of one answer batch, inside one open transaction (bot.store.settle.add_answers)."""

    async def round_windows(self, round_ids: Sequence[int]) -> dict[int, tuple[dt.datetime | None, dt.datetime | None]]:
        """(revealed_at, closes_at) of each of these rounds that exists. A store whose reveals can run
        alongside also keeps them from being revealed until this transaction commits."""
        ...

    async def insert_answers(self, answers: Sequence[NewAnswer]) -> set[tuple[int, str]] | None:
        """Insert answers (one per round and user), skipping those already stored: the (round, user) keys
        inserted, or None when every one was. An invalid answer fails the whole batch."""
        ...

    async def stored_choices(self, keys: Sequence[tuple[int, str]]) -> dict[tuple[int, str], int]:
        """The stored choice of each (round, user) that has an answer (this batch's included)."""
        ...


class SettleTransaction(RevealTransaction, AnswerTransaction, Protocol):
    """Both sets of steps on one open transaction (what a store's `_settling()` yields)."""
