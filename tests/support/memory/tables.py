"""The in-memory fake's tables, its transactions and its lifecycle: what every part of the fake stands on.

`MemoryTables` keeps plain dicts instead of tables (one `Tables`, shared by every feature's part) and
reproduces what `SqliteStore` does, down to its quirks: timestamps come back in UTC, and a batch or a
reveal that fails changes nothing. Each feature's part (tests/support/memory/<feature>.py) is a mixin over
it; tests/support/memory_store.py composes them into `InMemoryStore`.

Concurrency: every method yields to the event loop once on entry (`_db`), as a database driver would, so
the service's own races still interleave between store calls; after that it never awaits, so each call is
one atomic transaction without a lock. Answer batches and reveals run the stores' shared bot.store.settle
code over `Settle`, which undoes their changes when a step fails. Like SqliteStore(":memory:"), the store
refuses calls while closed, and closing it discards everything.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
from collections.abc import AsyncIterator, Collection, Hashable, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar

from bot.installs.values import WorkspaceInstall
from bot.kernel.scoring import Board, BoardMoves, BoardRows, ScoreRow
from bot.kernel.values import Answer, ChannelConfig, ChannelRef, NewAnswer, Period, Round, RoundKind, StreakState
from bot.live.values import LiveGame, LiveQuestion, Standing
from bot.practice.memory import CardKey, LearnerCard, PendingAnswer, ReviewEvent
from bot.practice.values import LearnerPlan, ReviewPrefs
from bot.reminders.values import Reminder
from bot.reports.values import Report
from bot.seasons.values import SeasonArchive
from bot.store.migrations import load_migrations
from bot.store.settle import SettlingStore
from bot.suggestions.values import Suggestion
from bot.teams.values import TeamTotal

SCHEMA_VERSION = max(v for v, _, _ in load_migrations("sqlite"))  # the version SqliteStore reaches

Tally = tuple[int, int, int]  # points, correct, answered
K = TypeVar("K", bound=Hashable)
BoardKey = tuple[str, str, Period, str]  # platform, space, period, period key


def utc(moment: dt.datetime) -> dt.datetime:
    """What a stored timestamp reads back as (and the same refusal of naive datetimes)."""
    if moment.tzinfo is None:
        raise ValueError("timestamps must be timezone-aware")
    return moment.astimezone(dt.UTC)


def in_space(round_: Round, platform: str, space_id: str) -> bool:
    return round_.ref.platform == platform and round_.ref.space_id == space_id


def daily_dates(t: Tables, platform: str, space_id: str, after: dt.date, before: dt.date) -> set[dt.date]:
    """The distinct revealed daily dates of a space strictly between `after` and `before`."""
    return {
        r.local_date
        for r in t.rounds.values()
        if in_space(r, platform, space_id)
        and r.kind is RoundKind.DAILY
        and r.revealed_at is not None
        and r.local_date is not None
        and after < r.local_date < before
    }


def add_once(marks: set[K], key: K) -> bool:
    """Add a once-ever mark; True if it was not there yet."""
    if key in marks:
        return False
    marks.add(key)
    return True


@dataclass
class Tables:
    channels: dict[tuple[str, str], ChannelConfig] = field(default_factory=dict)  # (platform, channel_id)
    saved: dict[tuple[str, str], int] = field(default_factory=dict)  # channel -> number of its latest save
    rounds: dict[int, Round] = field(default_factory=dict)  # insertion order is id order
    daily_slots: set[tuple[str, str, dt.date]] = field(default_factory=set)  # (platform, channel id, date)
    answers: dict[int, dict[str, Answer]] = field(default_factory=dict)  # round id -> user -> answer
    scores: dict[BoardKey, dict[str, Tally]] = field(default_factory=dict)
    buckets: dict[BoardKey, dict[int, int]] = field(default_factory=dict)  # points total -> users with it
    streaks: dict[tuple[str, str, str], StreakState] = field(default_factory=dict)  # (platform, space, user)
    seen_once: dict[tuple[str, str], dt.datetime] = field(default_factory=dict)  # (scope, key) -> expires at
    installs: dict[tuple[str, str], WorkspaceInstall] = field(default_factory=dict)  # (platform, workspace)
    oauth_states: dict[str, dt.datetime] = field(default_factory=dict)  # state -> expires at
    refresh_claims: dict[tuple[str, str], dt.datetime] = field(default_factory=dict)  # workspace -> claim end
    cards: dict[CardKey, LearnerCard] = field(default_factory=dict)
    review_log: dict[tuple[CardKey, dt.datetime], ReviewEvent] = field(default_factory=dict)
    doubts: dict[tuple[int, str], bool] = field(default_factory=dict)  # (round id, user): marked "not sure"
    learn_pending: dict[int, bool] = field(default_factory=dict)  # practice round -> sure, card update to write
    cards_pending: dict[int, bool] = field(default_factory=dict)  # daily round -> True: its card updates to write
    live_games: dict[int, LiveGame] = field(default_factory=dict)  # bot.live: id -> game
    live_claims: dict[int, dt.datetime] = field(default_factory=dict)  # game id -> lease end
    live_questions: dict[tuple[int, int], LiveQuestion] = field(default_factory=dict)  # (game, position)
    live_scores: dict[tuple[str, str, str], Standing] = field(default_factory=dict)  # (platform, space, user)
    review_prefs: dict[tuple[str, str, str], ReviewPrefs] = field(default_factory=dict)  # (platform, space, user)
    plans: dict[tuple[str, str, str], LearnerPlan] = field(default_factory=dict)
    review_days: dict[int, tuple[str, str, str, dt.date, str, str]] = field(default_factory=dict)  # by round id
    packs: dict[tuple[str, str, str], tuple[int, list[tuple[str, str]]]] = field(default_factory=dict)
    round_questions: dict[int, str] = field(default_factory=dict)
    suggestions: dict[int, Suggestion] = field(default_factory=dict)
    quota: dict[tuple[str, str, str, dt.date], int] = field(default_factory=dict)  # (platform, space, user, day)
    reports: dict[int, Report] = field(default_factory=dict)  # id order
    holds: dict[tuple[str, str, str], tuple[dt.datetime, str]] = field(default_factory=dict)
    last_report_id: int = 0
    version: int = 0
    last_id: int = 0
    saves: int = 0
    next_post: dict[tuple[str, str], dt.datetime] = field(default_factory=dict)  # channel -> next due post
    claimed: dict[tuple[str, str], dt.datetime] = field(default_factory=dict)  # channel -> lease end
    # (round id, "post" | "reveal") -> [state, attempts, due_at, doubts]
    delivery: dict[tuple[int, str], list] = field(default_factory=dict)
    next_recap: dict[tuple[str, str], dt.datetime] = field(default_factory=dict)  # channel -> next due recap
    recap_claimed: dict[tuple[str, str], dt.datetime] = field(default_factory=dict)  # channel -> lease end
    recaps: set[tuple[str, str, dt.date]] = field(default_factory=set)  # (platform, channel id, week end)
    reached: dict[BoardKey, dict[str, dt.datetime]] = field(default_factory=dict)  # when a total was reached
    seasons: dict[tuple[str, str, str], SeasonArchive] = field(default_factory=dict)  # (platform, space, season)
    season_posts: set[tuple[str, str, str]] = field(default_factory=set)  # (platform, channel id, season)
    reminders: dict[tuple[str, str, str], Reminder] = field(default_factory=dict)  # (platform, space, user)
    reminder_days: set[tuple[str, str, str, dt.date]] = field(default_factory=set)  # days claimed
    running: dict[tuple[str, str], tuple[dt.datetime, dt.datetime]] = field(default_factory=dict)  # spans
    # the dashboard: token hash -> [platform, space, user, is_admin, expires_at, used_at]; (bucket, window) -> count
    login_links: dict[str, list] = field(default_factory=dict)
    login_attempts: dict[tuple[str, dt.datetime], int] = field(default_factory=dict)
    teams: dict[tuple[str, str, str], str] = field(default_factory=dict)  # (platform, space, team key) -> name
    team_members: dict[tuple[str, str, str], str] = field(default_factory=dict)  # (platform, space, user) -> key
    season_teams: dict[tuple[str, str, str], TeamTotal | None] = field(default_factory=dict)  # decided once


class MemoryTables(SettlingStore):
    """The tables and their transactions, and the Store's lifecycle; with bot.store.settle's reveal and answer
    batch (SettlingStore) over `Settle`, as the SQL stores have them. Every part of the fake is a mixin over it."""

    def __init__(self) -> None:
        self._tables: Tables | None = None

    async def _db(self) -> Tables:
        """Enter a call: let other tasks run (as a driver does), then hand over the tables."""
        await asyncio.sleep(0)
        if self._tables is None:
            raise RuntimeError("the store is not open")
        return self._tables

    @contextlib.asynccontextmanager
    async def _settling(self) -> AsyncIterator[Settle]:
        """One transaction: the steps never await, and a failure undoes every change they made."""
        tx = Settle(await self._db())
        try:
            yield tx
        except BaseException:
            tx.rollback()
            raise

    async def open(self, *, migrate: bool = True) -> None:
        if self._tables is None:
            self._tables = Tables()
        if migrate:
            await self.migrate()

    async def close(self) -> None:
        self._tables = None

    async def migrate(self) -> list[int]:
        t = await self._db()
        if t.version >= SCHEMA_VERSION:
            return []
        t.version = SCHEMA_VERSION
        return [SCHEMA_VERSION]

    async def schema_version(self) -> int:
        return (await self._db()).version


_GONE = object()  # in the undo log: the key was not there


class Settle:
    """The reveal and answer-batch steps (bot.store.settle.RevealTransaction, AnswerTransaction) on the tables.
    No step awaits, so a settle runs without a break; every change goes through `_put`, which logs what
    it replaced so that `rollback` can put it back."""

    def __init__(self, t: Tables) -> None:
        self.t = t
        self._undo: list[tuple[dict, object, object]] = []

    def _put(self, table: dict, key: object, value: object) -> None:
        self._undo.append((table, key, table.get(key, _GONE)))
        if value is _GONE:
            del table[key]
        else:
            table[key] = value

    def _table(self, tables: dict, key: object) -> dict:
        if key not in tables:
            self._put(tables, key, {})
        return tables[key]

    def rollback(self) -> None:
        for table, key, old in reversed(self._undo):
            if old is _GONE:
                table.pop(key, None)
            else:
                table[key] = old
        self._undo.clear()

    async def claim_reveal(self, round_id: int, revealed_at: dt.datetime) -> Round | None:
        round_ = self.t.rounds.get(round_id)
        if round_ is None or round_.revealed_at is not None:
            return None
        revealed = replace(round_, revealed_at=utc(revealed_at))
        self._put(self.t.rounds, round_id, revealed)
        return revealed

    async def lock_space(self, ref: ChannelRef) -> None:
        pass

    async def answers(self, round_id: int) -> tuple[Answer, ...]:
        return tuple(sorted(self.t.answers.get(round_id, {}).values(), key=lambda a: a.user_id))

    async def previous_date(self, ref: ChannelRef, before: dt.date) -> dt.date | None:
        return max(
            (
                r.local_date
                for r in self.t.rounds.values()
                if in_space(r, ref.platform, ref.space_id)
                and r.kind is RoundKind.DAILY
                and r.revealed_at is not None
                and r.local_date is not None
                and r.local_date < before
            ),
            default=None,
        )

    async def streaks(self, ref: ChannelRef, users: Sequence[str]) -> dict[str, StreakState]:
        keys = {u: (ref.platform, ref.space_id, u) for u in users}
        return {u: self.t.streaks[k] for u, k in keys.items() if k in self.t.streaks}

    async def speed_bonus(self, ref: ChannelRef) -> bool:
        channel = self.t.channels.get((ref.platform, ref.channel_id))
        return bool(channel and channel.speed_bonus)

    async def write_points(self, round_id: int, points: dict[str, int]) -> None:
        mine = self.t.answers.get(round_id, {})
        for uid, p in points.items():
            self._put(mine, uid, replace(mine[uid], points=int(p)))  # KeyError for a user who did not answer

    async def write_streaks(self, ref: ChannelRef, streaks: dict[str, StreakState]) -> None:
        for uid, s in streaks.items():
            state = StreakState(
                int(s.current),
                int(s.best),
                s.last_date,
                int(s.kept),
                int(s.freezes),
                int(s.freezes_used),
                int(s.frozen),
            )
            self._put(self.t.streaks, (ref.platform, ref.space_id, uid), state)

    async def daily_dates_between(self, ref: ChannelRef, after: dt.date, before: dt.date, limit: int) -> int:
        return min(limit, len(daily_dates(self.t, ref.platform, ref.space_id, after, before)))

    async def add_scores(self, boards: BoardRows) -> dict[Board, dict[str, tuple[int, int]]]:
        return {board: self._add_scores(board, rows) for board, rows in boards.items()}

    def _add_scores(self, board: Board, rows: Sequence[ScoreRow]) -> dict[str, tuple[int, int]]:
        tallies = self._table(self.t.scores, board)
        times = self._table(self.t.reached, board)
        for uid, points, right, at, rounds in rows:
            old_points, old_correct, old_answered = tallies.get(uid, (0, 0, 0))
            self._put(tallies, uid, (old_points + int(points), old_correct + right, old_answered + rounds))
            if at is not None:
                self._put(times, uid, utc(at))
        return {uid: (tallies[uid][0], tallies[uid][2]) for uid, *_ in rows}

    async def move_buckets(self, moves: BoardMoves) -> None:
        for board, changes in moves.items():
            buckets = self._table(self.t.buckets, board)
            for total, change in changes:
                users = buckets.get(total, 0) + change
                if users > 0:
                    self._put(buckets, total, users)
                elif total in buckets:
                    self._put(buckets, total, _GONE)

    async def doubts(self, round_id: int) -> set[str]:
        return {user for (rid, user) in self.t.doubts if rid == round_id}

    async def cards(
        self, platform: str, space_id: str, question_id: str, users: Sequence[str]
    ) -> dict[str, LearnerCard]:
        keys = {u: CardKey(platform, space_id, u, question_id) for u in users}
        return {u: self.t.cards[k] for u, k in keys.items() if k in self.t.cards}

    async def claim_practice(
        self, round_ids: Sequence[int], revealed_at: dt.datetime, *, learn: bool, unsure: Collection[int] = ()
    ) -> set[int]:
        claimed = set()
        for rid in round_ids:
            if rid not in self.t.rounds or self.t.rounds[rid].kind is not RoundKind.PRACTICE:
                continue
            if await self.claim_reveal(rid, revealed_at) is not None:
                claimed.add(rid)
                if learn:
                    self._put(self.t.learn_pending, rid, rid not in unsure)
        return claimed

    async def lock_learning(self) -> None:
        pass  # a settle runs without a break

    async def pending_practice(self, limit: int, learner: tuple[str, str, str] | None) -> list[PendingAnswer]:
        found: list[PendingAnswer] = []
        for rid in sorted(self.t.learn_pending):
            round_ = self.t.rounds.get(rid)
            answer = self.t.answers.get(rid, {}).get(round_.user_id or "") if round_ is not None else None
            if round_ is None or answer is None or round_.user_id is None:
                continue
            ref = round_.ref
            if learner is not None and (ref.platform, ref.space_id, round_.user_id) != learner:
                continue
            key = CardKey(ref.platform, ref.space_id, round_.user_id, round_.question_id)
            found.append(PendingAnswer(rid, key, answer.correct, self.t.learn_pending[rid], answer.answered_at))
            if len(found) == limit:
                break
        return found

    async def clear_pending(self, round_ids: Sequence[int]) -> None:
        self._unmark(self.t.learn_pending, round_ids)

    async def mark_cards_pending(self, round_id: int) -> None:
        self._put(self.t.cards_pending, round_id, True)

    async def space_to_learn(self) -> tuple[str, str] | None:
        for rid in sorted(self.t.cards_pending):
            if rid in self.t.rounds:  # (a round deleted since leaves its mark behind here, unlike a table row)
                ref = self.t.rounds[rid].ref
                return ref.platform, ref.space_id
        return None

    async def rounds_to_learn(self, platform: str, space_id: str, limit: int, user_id: str | None) -> list[Round]:
        found: list[Round] = []
        for rid in sorted(self.t.cards_pending):
            round_ = self.t.rounds.get(rid)
            if round_ is None or (round_.ref.platform, round_.ref.space_id) != (platform, space_id):
                continue
            if user_id is not None and user_id not in self.t.answers.get(rid, {}):
                continue
            found.append(round_)
            if len(found) == limit:
                break
        return found

    async def clear_cards_pending(self, round_ids: Sequence[int]) -> None:
        self._unmark(self.t.cards_pending, round_ids)

    def _unmark(self, marks: dict[int, bool], round_ids: Sequence[int]) -> None:
        """Drop these rounds' marks (learn_pending, cards_pending), as a column set to NULL."""
        for rid in round_ids:
            if rid in marks:
                self._put(marks, rid, _GONE)

    async def cards_of(self, keys: Sequence[CardKey]) -> dict[CardKey, LearnerCard]:
        return {k: self.t.cards[k] for k in keys if k in self.t.cards}

    async def write_cards(self, updates: Sequence[tuple[LearnerCard, ReviewEvent]]) -> None:
        for card, event in updates:
            stored = replace(card, due=utc(card.due), last_review=utc(card.last_review) if card.last_review else None)
            self._put(self.t.cards, card.key, stored)
            at = utc(event.reviewed_at)
            if (event.key, at) not in self.t.review_log:
                self._put(self.t.review_log, (event.key, at), replace(event, reviewed_at=at))

    async def round_windows(self, round_ids: Sequence[int]) -> dict[int, tuple[dt.datetime | None, dt.datetime | None]]:
        rounds = [self.t.rounds[rid] for rid in round_ids if rid in self.t.rounds]
        return {r.id: (r.revealed_at, r.closes_at) for r in rounds}

    async def insert_answers(self, answers: Sequence[NewAnswer]) -> set[tuple[int, str]]:
        fresh: list[Answer] = []
        for a in answers:  # check every answer before storing any
            if a.user_id in self.t.answers.get(a.round_id, {}):
                continue
            if not 0 <= a.choice <= 3:  # SQLite's CHECK constraint fails the whole batch
                raise ValueError(f"choice {a.choice} of {a.user_id!r} is not between 0 and 3")
            fresh.append(Answer(a.round_id, a.user_id, int(a.choice), bool(a.correct), utc(a.answered_at)))
        for answer in fresh:
            self._put(self._table(self.t.answers, answer.round_id), answer.user_id, answer)
        return {(a.round_id, a.user_id) for a in fresh}

    async def stored_choices(self, keys: Sequence[tuple[int, str]]) -> dict[tuple[int, str], int]:
        return {k: self.t.answers[k[0]][k[1]].choice for k in keys if k[1] in self.t.answers.get(k[0], {})}
