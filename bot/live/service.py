"""Live games: a run of questions in one channel, each open for a few seconds, scored by correctness and speed.

Durable and shared by processes, like the daily round: `/quiz live` stores the game with its first step due
now; every process's tick (bot/app/scheduler.py) runs `run_due`, which claims due steps in the store with a
lease (one process per step), does them and moves the game on with a compare-and-set:

- post: pick the question (the channel's packs, never a question open in the space's channels, questions the space
  has not seen for 30 days first), store its round (kind live), post it, record its message and when it
  closes (the close is due then);
- close: close the round (bot.store.settle: once, and the answers update the learners' memory cards), write
  its points once, and edit its message into the close (one edit); the next question is due a few seconds
  later, or the end;
- end: add the game to the space's live board (once) and post the podium and the full table.

A process killed mid-game leaves its step to the next process whose lease comes free (a waiting question
holds no lease at all), so the game continues at the next step; a send that may have gone out before the
kill is sent once more at most. An answer is acknowledged only once stored, and the round closes in the
store before its answers are read, so no acknowledged answer is left out of the scores.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Protocol

from bot.kernel.cards import AnswerOutcome
from bot.kernel.context import Context
from bot.kernel.errors import BadSetting, NotAllowed, NothingOpen
from bot.kernel.rounds import RoundCache
from bot.kernel.topics import not_a_topic
from bot.kernel.values import LETTERS, Actor, ChannelRef, Question, Round, SpaceFilter
from bot.live import cards
from bot.live.cards import Fastest, LiveBoardCard, LiveCloseCard, LiveFinalCard, LivePlatform
from bot.live.store import LiveServiceStore
from bot.live.values import (
    QUESTIONS_DEFAULT,
    QUESTIONS_MAX,
    QUESTIONS_MIN,
    SECONDS_DEFAULT,
    SECONDS_MAX,
    SECONDS_MIN,
    UNSEEN_DAYS,
    GameRunning,
    LiveGame,
    LiveStep,
    NewLiveGame,
    Placed,
    live_points,
    placed,
    winners,
)
from bot.packs.catalog import PackCatalog
from bot.practice.service import Practice

log = logging.getLogger(__name__)

LEASE = dt.timedelta(seconds=30)  # a step (one post or one edit) never takes this long; a dead process's ends
GAP = dt.timedelta(seconds=4)  # from a close to the next question (or the podium): reading time
RETRY = dt.timedelta(seconds=5)  # after a failed send
MAX_ATTEMPTS = 3  # sends of one step before the game gives it up
CLAIM_BATCH = 20
MAX_PASSES = 100  # a bound on one run's claim rounds (it ends as soon as nothing is due)
BOARD_SIZE = 10
RUNNING = "A live game is already running in this channel; wait for its final table, or {stop} ends it."
NOT_HERE = "Live games are not available on this platform."


class TeamTotals(Protocol):
    """Team totals under a game's final table (the teams feature provides them; none without teams)."""

    async def team_lines(self, platform: str, space_id: str, points: Mapping[str, int]) -> tuple[str, ...]:
        """One line per team of these players (their points in the game), best first; () when the space has
        no teams."""
        ...


class LiveGames:
    """Starts and stops live games, answers their questions' clicks, and runs their due steps."""

    def __init__(
        self, ctx: Context, store: LiveServiceStore, packs: PackCatalog, practice: Practice, rounds: RoundCache
    ) -> None:
        self.ctx = ctx
        self.store = store
        self.packs = packs
        self.practice = practice
        self.rounds = rounds
        self.teams: TeamTotals | None = None  # set by the composition root when teams exist
        self.wake: Callable[[], None] | None = None  # the scheduler's nudge: a step is due sooner than it knew

    # ---- commands --------------------------------------------------------------------------------

    async def start(
        self,
        ref: ChannelRef,
        user_id: str,
        questions: int | None = None,
        topic: str | None = None,
        seconds: int | None = None,
    ) -> str:
        """Start a game in the channel: `questions` (3-30, default 10) from the channel's packs (one topic, if
        given), each open for `seconds` (10-120, default 20). One game per channel at a time (GameRunning)."""
        n = QUESTIONS_DEFAULT if questions is None else questions
        secs = SECONDS_DEFAULT if seconds is None else seconds
        if not QUESTIONS_MIN <= n <= QUESTIONS_MAX:
            raise BadSetting(f"A live game has {QUESTIONS_MIN} to {QUESTIONS_MAX} questions, not {n}.")
        if not SECONDS_MIN <= secs <= SECONDS_MAX:
            raise BadSetting(f"Each live question is open {SECONDS_MIN} to {SECONDS_MAX} seconds, not {secs}.")
        if not isinstance(self.ctx.platforms.get(ref.platform), LivePlatform):
            raise BadSetting(NOT_HERE)
        if await self.store.running_live_game(ref) is not None:
            raise GameRunning(self._running_text(ref))
        pool = await self._pool(ref, topic)
        hidden = await self.store.open_channel_question_ids(ref.platform, ref.space_id)
        available = len([q for q in pool if q.id not in hidden])
        on = f" on {cards.topic_name(topic)}" if topic else ""
        if available < QUESTIONS_MIN:
            raise BadSetting(
                f"There are only {available} questions{on} here; a live game needs at least {QUESTIONS_MIN}."
            )
        total = min(n, available)
        game = await self.store.start_live_game(NewLiveGame(ref, user_id, total, secs, topic, self.ctx.now()))
        if game is None:  # another process started one meanwhile
            raise GameRunning(self._running_text(ref))
        self._nudge()
        fewer = f" (only {total} questions{on} here)" if total < n else ""
        return (
            f"Live game on: {total} questions{on}, {secs} seconds each{fewer}. The first comes in a moment; "
            "everyone in the channel can answer, and the fastest right answers score most."
        )

    async def stop(self, actor: Actor, ref: ChannelRef) -> str:
        """End the channel's game (its starter or an admin): the open question closes now, then the final
        table so far is posted."""
        game = await self.store.running_live_game(ref)
        if game is None:
            raise NothingOpen(f"No live game is running in this channel; {self._live_command(ref)} starts one.")
        if actor.user_id != game.starter_id and not actor.is_admin:
            raise NotAllowed("Only the member who started this live game, or an admin, can stop it.")
        stopped = await self.store.stop_live_game(game.id, actor.user_id, self.ctx.now())
        if stopped is None:
            return "This live game is already ending; its final table comes in a moment."
        for question in await self.store.live_questions(game.id):
            self.rounds.drop(question.round_id)  # its new closing instant is in the store
        await self.run_due(game_id=game.id)
        self._nudge()
        return "Live game stopped: the final table so far is in the channel."

    async def running(self, ref: ChannelRef) -> bool:
        """Whether a live game runs in the channel now (between its questions too)."""
        return await self.store.running_live_game(ref) is not None

    async def open_round(self, ref: ChannelRef) -> Round | None:
        """The question of the channel's game that is open for answers now, if any (typed answers)."""
        game = await self.store.running_live_game(ref)
        if game is None or game.step is not LiveStep.CLOSE:
            return None
        found = [q for q in await self.store.live_questions(game.id) if q.position == game.position]
        round_ = await self.store.get_round(found[0].round_id) if found else None
        if round_ is None or not round_.is_open:
            return None
        return round_

    async def answered(
        self, round_: Round, user_id: str, choice: int, question: Question, *, sure: bool, now: dt.datetime
    ) -> AnswerOutcome:
        """A live answer was stored (AnswerDesk): acknowledge it privately, never whether it is right."""
        letter = LETTERS[choice]
        text = f"Your answer {letter} is locked in; the answer and the scores come when the question closes."
        return AnswerOutcome(round_.id, user_id, letter, text)

    async def board(self, platform: str, space_id: str, asker: str | None = None) -> LiveBoardCard:
        """The space's live board (points and games won, all time), top 10 and the asker's place."""
        rows = await self.store.live_board(platform, space_id, BOARD_SIZE)
        me = await self.store.live_standing(platform, space_id, asker) if asker else None
        return LiveBoardCard(
            "Live games: all time",
            tuple(placed(rows)),
            Placed(me[0], me[1]) if me is not None else None,
        )

    # ---- the tick's work -------------------------------------------------------------------------

    async def run_due(self, spaces: SpaceFilter | None = None, *, game_id: int | None = None) -> dt.datetime | None:
        """Do every step due now of the games of these spaces (on the platforms this process runs), then say
        when the next one is due (None: no game runs there)."""
        here = self._here(spaces)
        for _ in range(MAX_PASSES):
            now = self.ctx.now()
            games = await self.store.claim_live_games(now, now + LEASE, CLAIM_BATCH, here, game_id=game_id)
            if not games:
                break
            await asyncio.gather(*(self._step(g) for g in games))
        return await self.store.next_live_due(here)

    def _here(self, spaces: SpaceFilter | None) -> SpaceFilter:
        running = tuple(sorted(self.ctx.platforms))
        if spaces is None or spaces.platforms is None:
            return replace(spaces or SpaceFilter(), platforms=running)
        return replace(spaces, platforms=tuple(p for p in spaces.platforms if p in running))

    async def _step(self, game: LiveGame) -> None:
        try:
            match game.step:
                case LiveStep.POST:
                    await self._post(game)
                case LiveStep.CLOSE:
                    await self._close(game)
                case LiveStep.END:
                    await self._end(game)
                case LiveStep.DONE:
                    pass
        except Exception:
            log.exception(
                "live game %d: its %s step failed; it is taken up again when its lease ends", game.id, game.step
            )

    async def _post(self, game: LiveGame) -> None:
        now = self.ctx.now()
        if game.stopped_by is not None:
            await self.store.advance_live_game(game.id, game.step, game.position, LiveStep.END, game.position, now)
            return
        asked = await self.store.live_questions(game.id)
        existing = next((q for q in asked if q.position == game.position), None)
        question: Question | None
        if existing is not None:  # a retry: the round was stored before the last attempt
            round_ = await self.store.get_round(existing.round_id)
            if round_ is not None and round_.message_id is not None and round_.closes_at is not None:
                # posted and recorded by a process that died before moving the game on: close it when due
                await self.store.advance_live_game(
                    game.id, game.step, game.position, LiveStep.CLOSE, game.position, round_.closes_at
                )
                return
            question = await self._question_of(round_) if round_ is not None else None
        else:
            question = await self._next_question(game, {q.question_id for q in asked})
        if question is None:  # nothing left to ask (a pack emptied meanwhile): the game ends here
            await self.store.advance_live_game(game.id, game.step, game.position, LiveStep.END, game.position, now)
            return
        seconds = dt.timedelta(seconds=game.seconds)
        round_ = await self.store.open_live_question(
            game.id, game.position, question.id, question.topic, now, now + seconds
        )
        await self.packs.remember(round_, question)
        platform = self.ctx.platforms[game.ref.platform]
        card = cards.question_card(round_, question, game.position, game.total, game.seconds)
        try:
            message_id = await platform.post_question(game.ref, card)
        except Exception as exc:  # noqa: BLE001 - any failure of the platform: retried, then given up
            log.warning("live game %d: posting question %d failed: %s", game.id, game.position + 1, exc)
            if await self._failed(game, now, give_up=LiveStep.END):
                await self.store.reveal_round(round_.id, now, None, learn=False)  # never seen: nothing to learn
            return
        sent = self.ctx.now()
        round_ = await self.store.record_live_post(round_.id, message_id, sent, sent + seconds)
        self.rounds.keep(round_)
        assert round_.closes_at is not None
        await self.store.advance_live_game(
            game.id, game.step, game.position, LiveStep.CLOSE, game.position, round_.closes_at
        )

    async def _close(self, game: LiveGame) -> None:
        now = self.ctx.now()
        found = [q for q in await self.store.live_questions(game.id) if q.position == game.position]
        if not found:
            await self.store.advance_live_game(game.id, game.step, game.position, LiveStep.END, game.position, now)
            return
        asked = found[0]
        # closed in the store first: an answer still in flight is either in (and scored) or refused (never
        # acknowledged), and the memory cards learn each answer in the same transaction
        await self.store.reveal_round(asked.round_id, now, None, learn=self.ctx.learning)
        self.rounds.drop(asked.round_id)
        round_ = await self.store.get_round(asked.round_id)
        assert round_ is not None and round_.closes_at is not None
        answers = await self.store.round_answers(asked.round_id)
        if not asked.scored:
            points = {
                a.user_id: live_points(round_.opened_at, round_.closes_at, a.answered_at, a.correct) for a in answers
            }
            await self.store.score_live_question(game.id, game.position, points)
        standings = await self.store.live_standings(game.id)
        fresh = await self.store.get_live_game(game.id)
        stopped = fresh is not None and fresh.stopped_by is not None
        last = stopped or game.position + 1 >= game.total
        question = await self._question_of(round_)
        right = sorted((a for a in answers if a.correct), key=lambda a: (a.answered_at, a.user_id))
        card = LiveCloseCard(
            round_id=round_.id,
            question_message_id=round_.message_id,
            title=f"Live question {game.position + 1} of {game.total}",
            prompt=question.prompt if question else "",
            choices=question.choices if question else ("", "", "", ""),
            correct_letter=question.answer_letter if question else "?",
            explanation=cards.short(question.explanation) if question else "",
            answered=len(answers),
            right=len(right),
            fastest=tuple(
                Fastest(a.user_id, max(0.0, (a.answered_at - round_.opened_at).total_seconds()))
                for a in right[: cards.FASTEST]
            ),
            top=tuple(placed(standings)[: cards.TOP]),
            code=question.code if question else None,
            next_note="Final results next." if last else "Next question in a few seconds.",
        )
        platform = self.ctx.platforms[game.ref.platform]
        if round_.message_id is not None and isinstance(platform, LivePlatform) and question is not None:
            try:
                await platform.close_live_question(game.ref, card)
            except Exception as exc:  # noqa: BLE001 - a deleted message, lost access: the game goes on
                log.warning("live game %d: could not close question %d: %s", game.id, game.position + 1, exc)
        if last:
            due = now if stopped else now + GAP
            await self.store.advance_live_game(game.id, game.step, game.position, LiveStep.END, game.position, due)
        else:
            await self.store.advance_live_game(
                game.id, game.step, game.position, LiveStep.POST, game.position + 1, now + GAP
            )

    async def _end(self, game: LiveGame) -> None:
        now = self.ctx.now()
        standings = await self.store.live_standings(game.id)
        await self.store.finish_live_game(game.id, now, standings, winners(standings))
        ref = game.ref
        teams: tuple[str, ...] = ()
        if self.teams is not None and standings:
            try:
                teams = await self.teams.team_lines(
                    ref.platform, ref.space_id, {s.user_id: s.points for s in standings}
                )
            except Exception:  # noqa: BLE001 - the table goes out without team totals
                log.exception("live game %d: team totals failed", game.id)
        asked = len([q for q in await self.store.live_questions(game.id) if q.scored])
        table = tuple(placed(standings))
        stopped = game.stopped_by is not None
        title = "Live game: final results" + (
            f" (stopped after {asked} question{'s' if asked != 1 else ''})" if stopped else ""
        )
        podium = tuple(p for p in table[: cards.PODIUM] if p.standing.points > 0)  # no medal for 0 points
        card = LiveFinalCard(game.id, title, podium, table, asked, stopped, teams)
        platform = self.ctx.platforms[ref.platform]
        if isinstance(platform, LivePlatform):
            try:
                await platform.post_live_final(ref, card)
            except Exception as exc:  # noqa: BLE001 - retried, then given up
                log.warning("live game %d: posting the final table failed: %s", game.id, exc)
                await self._failed(game, now, give_up=LiveStep.DONE)
                return
        await self.store.advance_live_game(game.id, game.step, game.position, LiveStep.DONE, game.position, None)

    async def _failed(self, game: LiveGame, now: dt.datetime, *, give_up: LiveStep) -> bool:
        """A send of the step failed: try again shortly, or after MAX_ATTEMPTS move on to `give_up`. True when
        it gave up."""
        attempts = game.attempts + 1
        if attempts < MAX_ATTEMPTS:
            await self.store.advance_live_game(
                game.id, game.step, game.position, game.step, game.position, now + RETRY, attempts=attempts
            )
            return False
        log.warning("live game %d: gave up its %s step after %d attempts", game.id, game.step, attempts)
        due = None if give_up is LiveStep.DONE else now
        await self.store.advance_live_game(game.id, game.step, game.position, give_up, game.position, due)
        return True

    # ---- questions -------------------------------------------------------------------------------

    async def _pool(self, ref: ChannelRef, topic: str | None) -> list[Question]:
        """The channel's packs' questions (the practice pool), of one topic if given."""
        pool = await self.practice.practice_pool(ref)
        if topic is None:
            return list(pool)
        topics = sorted({q.topic for q in pool})
        if topic not in topics:
            raise BadSetting(not_a_topic(topic, topics))
        return [q for q in pool if q.topic == topic]

    async def _next_question(self, game: LiveGame, asked: set[str]) -> Question | None:
        """Never a question open in the space's channels (daily or another game's) nor one this game asked;
        a question the space has not seen for UNSEEN_DAYS first (at random), else the one it saw longest ago."""
        ref = game.ref
        try:
            pool = await self._pool(ref, game.topic)
        except BadSetting:  # the topic left the channel's packs meanwhile
            return None
        hidden = await self.store.open_channel_question_ids(ref.platform, ref.space_id)
        candidates = sorted((q for q in pool if q.id not in hidden and q.id not in asked), key=lambda q: q.id)
        if not candidates:
            return None
        since = self.ctx.now() - dt.timedelta(days=UNSEEN_DAYS)
        seen = await self.store.recent_questions(ref.platform, ref.space_id, since)
        unseen = [q for q in candidates if q.id not in seen]
        if unseen:
            return self.ctx.rng.choice(unseen)
        return min(candidates, key=lambda q: (seen[q.id], q.id))

    async def _question_of(self, round_: Round) -> Question | None:
        question = self.ctx.bank.get(round_.question_id)
        if question is None:
            await self.packs.prime(round_)
            question = self.packs.posted(round_)
        return question

    # ---- texts -----------------------------------------------------------------------------------

    def _live_command(self, ref: ChannelRef) -> str:
        return self.ctx.commands_of(ref.platform).live

    def _running_text(self, ref: ChannelRef) -> str:
        return RUNNING.format(stop=self.ctx.commands_of(ref.platform).live_stop)

    def _nudge(self) -> None:
        if self.wake is not None:
            self.wake()
