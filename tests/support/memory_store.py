"""An in-memory Store for unit tests (in the style of cosmicpython's FakeRepository).

`InMemoryStore` keeps plain dicts instead of tables and reproduces what `SqliteStore` does, down to its
quirks: timestamps come back in UTC, a channel config keeps what a row keeps, a lost daily claim still
uses up a round id, and a batch or a reveal that fails changes nothing. It passes the Store contract in
tests/integration/store_contract.py (see tests/unit/test_memory_store.py).

Concurrency: every method yields to the event loop once on entry, as a database driver would, so the
service's own races still interleave between store calls; after that it never awaits, so each call is
one atomic transaction without a lock. Each call checks its input before it changes anything; answer
batches and reveals run the stores' shared bot.store.settle code and undo their changes when a step fails.
Like SqliteStore(":memory:"), it refuses calls while closed, and closing it discards everything.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
from collections import Counter
from collections.abc import AsyncIterator, Collection, Hashable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import TypeVar

from bot.daily.values import DailyClaim, DueFinish, DuePost, PostFinish, RevealedRound, RevealFinish, SendClaim
from bot.installs.values import WorkspaceInstall
from bot.kernel.errors import PackError, PackExists
from bot.kernel.scoring import Board, LeaderboardRow, Scorer, ScoreRow
from bot.kernel.values import (
    Answer,
    ChannelConfig,
    ChannelRef,
    DueChannel,
    NewAnswer,
    Period,
    Round,
    RoundKind,
    SpaceFilter,
    StreakState,
    TopicStats,
)
from bot.mydata.export import Miss
from bot.mydata.forget import Forgotten
from bot.practice.memory import CardKey, LearnerCard, PendingAnswer, ReviewEvent
from bot.recap.values import RecapRound, RecapScorer
from bot.reminders.values import Reminder
from bot.reports.values import NewReport, Report, ReportWrite
from bot.seasons.values import SeasonArchive
from bot.store.migrations import load_migrations
from bot.store.reports_sql import HOLD_ACTIONS
from bot.store.rows import approved_question, config_from_row, config_to_row, month_span, pack_full, season_places
from bot.store.settle import SettlingStore, reveal
from bot.suggestions.values import Suggestion, SuggestionStatus
from tests.support.memory_reminders import MemoryReminders

SCHEMA_VERSION = max(v for v, _, _ in load_migrations("sqlite"))  # the version SqliteStore reaches

Tally = tuple[int, int, int]  # points, correct, answered
K = TypeVar("K", bound=Hashable)
BoardKey = tuple[str, str, Period, str]  # platform, space, period, period key


def _utc(moment: dt.datetime) -> dt.datetime:
    """What a stored timestamp reads back as (and the same refusal of naive datetimes)."""
    if moment.tzinfo is None:
        raise ValueError("timestamps must be timezone-aware")
    return moment.astimezone(dt.UTC)


def _in_space(round_: Round, platform: str, space_id: str) -> bool:
    return round_.ref.platform == platform and round_.ref.space_id == space_id


def _same_channel(a: ChannelRef, b: ChannelRef) -> bool:
    """Channels are keyed by (platform, channel id), as in SQLite: the space id plays no part."""
    return (a.platform, a.channel_id) == (b.platform, b.channel_id)


def _asked(rounds: dict[int, Round], platform: str, space_id: str, kind: RoundKind, user_id: str | None) -> list[Round]:
    """The rounds of a kind in a space (and for a user, if given), oldest first."""
    return [
        r
        for r in rounds.values()
        if _in_space(r, platform, space_id) and r.kind == kind and (user_id is None or r.user_id == user_id)
    ]


@dataclass
class _Tables:
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


def _add_once(marks: set[K], key: K) -> bool:
    """Add a once-ever mark; True if it was not there yet."""
    if key in marks:
        return False
    marks.add(key)
    return True


def _delivery(t: _Tables, round_id: int, what: str) -> list:
    return t.delivery.setdefault((round_id, what), ["due", 0, None, 0])


class InMemoryStore(MemoryReminders, SettlingStore):
    """Store port on plain dicts; behaves like SqliteStore(":memory:"). Answer batches and reveals run
    bot.store.settle over `_Settle`, as the SQL stores do."""

    def __init__(self) -> None:
        self._tables: _Tables | None = None

    async def _db(self) -> _Tables:
        """Enter a call: let other tasks run (as a driver does), then hand over the tables."""
        await asyncio.sleep(0)
        if self._tables is None:
            raise RuntimeError("the store is not open")
        return self._tables

    @contextlib.asynccontextmanager
    async def _settling(self) -> AsyncIterator[_Settle]:
        """One transaction: the steps never await, and a failure undoes every change they made."""
        tx = _Settle(await self._db())
        try:
            yield tx
        except BaseException:
            tx.rollback()
            raise

    # ---- lifecycle -------------------------------------------------------------------------------

    async def open(self, *, migrate: bool = True) -> None:
        if self._tables is None:
            self._tables = _Tables()
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

    # ---- channels --------------------------------------------------------------------------------

    async def save_channel(self, config: ChannelConfig) -> None:
        t = await self._db()
        key = (config.ref.platform, config.ref.channel_id)
        # keep what a row keeps: post_time to the minute, whole-second windows (zero means none), ...
        t.channels[key] = config_from_row(config_to_row(config, dt.datetime.now(dt.UTC)))
        t.saves += 1
        t.saved[key] = t.saves

    async def get_channel(self, ref: ChannelRef) -> ChannelConfig | None:
        return (await self._db()).channels.get((ref.platform, ref.channel_id))

    async def list_channels(self, platform: str | None = None) -> list[ChannelConfig]:
        t = await self._db()
        return [t.channels[key] for key in sorted(t.channels) if platform is None or key[0] == platform]

    async def space_timezone(self, platform: str, space_id: str) -> str | None:
        t = await self._db()
        mine = [key for key, c in t.channels.items() if c.ref.platform == platform and c.ref.space_id == space_id]
        return t.channels[max(mine, key=t.saved.__getitem__)].timezone if mine else None

    # ---- rounds ----------------------------------------------------------------------------------

    async def claim_daily_round(
        self,
        ref: ChannelRef,
        local_date: dt.date,
        question_id: str,
        topic: str,
        opened_at: dt.datetime,
        closes_at: dt.datetime | None,
        *,
        lease_until: dt.datetime | None = None,
    ) -> Round | None:
        t = await self._db()
        round_ = Round(
            id=t.last_id + 1,
            kind=RoundKind.DAILY,
            ref=ref,
            question_id=question_id,
            topic=topic,
            opened_at=_utc(opened_at),
            local_date=local_date,
            closes_at=_utc(closes_at) if closes_at else None,
            post_state="sending" if lease_until else "due",
        )
        t.last_id = round_.id  # like SQLite's AUTOINCREMENT, a lost claim uses up its id too
        slot = (ref.platform, ref.channel_id, local_date)
        if slot in t.daily_slots:
            return None
        t.daily_slots.add(slot)
        t.rounds[round_.id] = round_
        if lease_until:
            t.delivery[(round_.id, "post")] = ["sending", 1, _utc(lease_until), 0]
        return round_

    async def create_practice_round(
        self, ref: ChannelRef, user_id: str, question_id: str, topic: str, opened_at: dt.datetime
    ) -> Round:
        t = await self._db()
        round_ = Round(
            id=t.last_id + 1,
            kind=RoundKind.PRACTICE,
            ref=ref,
            question_id=question_id,
            topic=topic,
            opened_at=_utc(opened_at),
            user_id=user_id,
        )
        t.last_id = round_.id
        t.rounds[round_.id] = round_
        return round_

    async def get_round(self, round_id: int) -> Round | None:
        return (await self._db()).rounds.get(round_id)

    async def open_daily_rounds(self, ref: ChannelRef | None = None, *, unpromised: bool = False) -> list[Round]:
        t = await self._db()
        return [
            r
            for r in t.rounds.values()
            if r.kind is RoundKind.DAILY
            and r.revealed_at is None
            and (ref is None or _same_channel(r.ref, ref))
            and not (unpromised and r.closes_at is not None)
        ]

    async def latest_daily_round(self, ref: ChannelRef) -> Round | None:
        t = await self._db()
        mine = [r for r in t.rounds.values() if r.kind is RoundKind.DAILY and _same_channel(r.ref, ref)]
        return max(mine, key=lambda r: r.local_date or dt.date.min, default=None)

    async def set_message_id(self, round_id: int, message_id: str) -> None:
        t = await self._db()
        if round_id in t.rounds:
            t.rounds[round_id] = replace(t.rounds[round_id], message_id=message_id)

    async def round_by_message(self, platform: str, message_id: str) -> Round | None:
        t = await self._db()
        return next(
            (r for r in reversed(t.rounds.values()) if r.ref.platform == platform and r.message_id == message_id),
            None,
        )

    async def question_counts(
        self, platform: str, space_id: str, kind: RoundKind, user_id: str | None = None
    ) -> dict[str, int]:
        t = await self._db()
        counts = Counter(r.question_id for r in _asked(t.rounds, platform, space_id, kind, user_id))
        return dict(sorted(counts.items()))

    async def last_question_id(
        self, platform: str, space_id: str, kind: RoundKind, user_id: str | None = None
    ) -> str | None:
        t = await self._db()
        asked = _asked(t.rounds, platform, space_id, kind, user_id)
        return asked[-1].question_id if asked else None

    async def question_history(
        self, platform: str, space_id: str, kind: RoundKind, user_id: str | None = None
    ) -> tuple[dict[str, int], str | None]:
        counts = await self.question_counts(platform, space_id, kind, user_id)
        return counts, await self.last_question_id(platform, space_id, kind, user_id)

    # ---- durable daily work ----------------------------------------------------------------------

    async def set_next_post(self, ref: ChannelRef, at: dt.datetime | None) -> None:
        t = await self._db()
        key = (ref.platform, ref.channel_id)
        if key not in t.channels:
            return
        t.claimed.pop(key, None)
        if at is None:
            t.next_post.pop(key, None)
        else:
            t.next_post[key] = _utc(at)

    async def get_next_post(self, ref: ChannelRef) -> dt.datetime | None:
        return (await self._db()).next_post.get((ref.platform, ref.channel_id))

    async def unscheduled_channels(self, spaces: SpaceFilter | None = None) -> list[ChannelConfig]:
        t = await self._db()
        return [
            t.channels[k]
            for k in sorted(t.channels)
            if not t.channels[k].paused and k not in t.next_post and (spaces is None or spaces(t.channels[k].ref))
        ]

    async def claim_due_channels(
        self, now: dt.datetime, lease_until: dt.datetime, limit: int, spaces: SpaceFilter | None = None
    ) -> list[DueChannel]:
        t = await self._db()
        due = sorted(
            (at, key)
            for key, at in t.next_post.items()
            if at <= now
            and not t.channels[key].paused
            and (key not in t.claimed or t.claimed[key] <= now)
            and (spaces is None or spaces(t.channels[key].ref))
        )[: max(limit, 0)]
        for _, key in due:
            t.claimed[key] = _utc(lease_until)
        return [DueChannel(t.channels[key].ref, at) for at, key in due]

    async def _finish_due_channel(self, ref: ChannelRef, due_at: dt.datetime, next_at: dt.datetime | None) -> None:
        t = await self._db()
        key = (ref.platform, ref.channel_id)
        t.claimed.pop(key, None)
        if t.next_post.get(key) == due_at:
            if next_at is None:
                t.next_post.pop(key)
            else:
                t.next_post[key] = _utc(next_at)

    def _claim_sends(
        self,
        t: _Tables,
        what: str,
        now: dt.datetime,
        lease_until: dt.datetime,
        limit: int,
        round_id: int | None,
        force: bool,
        spaces: SpaceFilter | None,
    ) -> list[SendClaim]:
        out: list[SendClaim] = []
        for r in t.rounds.values():
            if len(out) >= limit:
                break
            if r.kind is not RoundKind.DAILY or (round_id is not None and r.id != round_id):
                continue
            if (r.revealed_at is None) != (what == "post") or (spaces is not None and not spaces(r.ref)):
                continue
            d = _delivery(t, r.id, what)
            state, attempts, due_at, doubts = d
            if state not in ("due", "sending", "failed"):
                continue
            if not (due_at is None or due_at <= now or (force and state == "failed")):
                continue
            doubtful = state == "sending"
            d[:] = ["sending", attempts + 1, _utc(lease_until), doubts + int(doubtful)]
            if what == "post":
                t.rounds[r.id] = r = replace(r, post_state="sending")
            out.append(SendClaim(r, attempts + 1, doubtful, doubts + int(doubtful)))
        return out

    async def claim_posts(
        self,
        now: dt.datetime,
        lease_until: dt.datetime,
        limit: int,
        *,
        round_id: int | None = None,
        force: bool = False,
        spaces: SpaceFilter | None = None,
    ) -> list[SendClaim]:
        t = await self._db()
        return self._claim_sends(t, "post", now, lease_until, limit, round_id, force, spaces)

    async def _finish_post(
        self, round_id: int, state: str, *, message_id: str | None = None, retry_at: dt.datetime | None = None
    ) -> None:
        t = await self._db()
        if round_id not in t.rounds:
            return
        d = _delivery(t, round_id, "post")
        d[0], d[2] = state, _utc(retry_at) if retry_at else None
        r = t.rounds[round_id]
        t.rounds[round_id] = replace(r, post_state=state, message_id=message_id or r.message_id)

    async def open_daily_question_ids(self, platform: str, space_id: str) -> set[str]:
        t = await self._db()
        return {
            r.question_id
            for r in t.rounds.values()
            if r.kind is RoundKind.DAILY and r.revealed_at is None and _in_space(r, platform, space_id)
        }

    async def set_reveal_at(self, round_id: int, at: dt.datetime) -> None:
        t = await self._db()
        r = t.rounds.get(round_id)
        if r is not None and r.closes_at is None and r.revealed_at is None:
            t.rounds[round_id] = replace(r, closes_at=_utc(at))

    async def due_reveals(self, now: dt.datetime, limit: int, spaces: SpaceFilter | None = None) -> list[Round]:
        t = await self._db()
        due = [
            r
            for r in t.rounds.values()
            if r.kind is RoundKind.DAILY
            and r.revealed_at is None
            and r.closes_at is not None
            and r.closes_at <= now
            and (spaces is None or spaces(r.ref))
        ]
        return sorted(due, key=lambda r: (r.closes_at, r.id))[: max(limit, 0)]

    async def claim_reveals(
        self,
        now: dt.datetime,
        lease_until: dt.datetime,
        limit: int,
        *,
        round_id: int | None = None,
        spaces: SpaceFilter | None = None,
    ) -> list[SendClaim]:
        t = await self._db()
        return self._claim_sends(t, "reveal", now, lease_until, limit, round_id, False, spaces)

    async def _finish_reveal(self, round_id: int, state: str, *, retry_at: dt.datetime | None = None) -> None:
        t = await self._db()
        if round_id in t.rounds:
            d = _delivery(t, round_id, "reveal")
            d[0], d[2] = state, _utc(retry_at) if retry_at else None

    # the same work by the batch (the fake composes the one-item methods; the reveals share one transaction)
    async def claim_due_posts(
        self, now: dt.datetime, lease_until: dt.datetime, limit: int, spaces: SpaceFilter | None = None
    ) -> list[DuePost]:
        return [
            DuePost(due, await self.get_channel(due.ref), tuple(await self.open_daily_rounds(due.ref)))
            for due in await self.claim_due_channels(now, lease_until, limit, spaces)
        ]

    async def reveal_due_rounds(
        self,
        round_ids: Sequence[int],
        revealed_at: dt.datetime,
        scorer: Scorer | None,
        lease_until: dt.datetime,
        *,
        learn: bool = True,
    ) -> list[RevealedRound]:
        if not round_ids:
            return []
        async with self._settling() as tx:
            done = [rid for rid in round_ids if await reveal(tx, rid, revealed_at, scorer, learn=learn)]
        out = []
        for rid in done:
            claims = await self.claim_reveals(revealed_at, lease_until, 1, round_id=rid)
            round_ = (await self._db()).rounds[rid]
            answers = tuple(await self.round_answers(rid))
            out.append(
                RevealedRound(round_, answers, await self.get_channel(round_.ref), claims[0] if claims else None)
            )
        return out

    async def claim_daily_rounds(self, claims: Sequence[DailyClaim]) -> list[Round | None]:
        return [
            await self.claim_daily_round(
                c.ref, c.local_date, c.question_id, c.topic, c.opened_at, c.closes_at, lease_until=c.lease_until
            )
            for c in claims
        ]

    async def finish_posts(self, items: Sequence[PostFinish]) -> None:
        for i in items:
            await self._finish_post(i.round_id, i.state, message_id=i.message_id, retry_at=i.retry_at)

    async def finish_reveals(self, items: Sequence[RevealFinish]) -> None:
        for i in items:
            await self._finish_reveal(i.round_id, i.state, retry_at=i.retry_at)

    async def finish_due_channels(self, items: Sequence[DueFinish]) -> None:
        for i in items:
            await self._finish_due_channel(i.ref, i.due_at, i.next_at)

    # ---- answers ---------------------------------------------------------------------------------

    async def get_answer(self, round_id: int, user_id: str) -> Answer | None:
        return (await self._db()).answers.get(round_id, {}).get(user_id)

    async def round_answers(self, round_id: int) -> list[Answer]:
        t = await self._db()
        return sorted(t.answers.get(round_id, {}).values(), key=lambda a: (a.answered_at, a.user_id))

    # ---- reveal and leaderboards -----------------------------------------------------------------

    async def leaderboard(
        self, platform: str, space_id: str, period: Period, period_key: str, limit: int
    ) -> list[LeaderboardRow]:
        t = await self._db()
        key = (platform, space_id, period, period_key)
        times = t.reached.get(key, {})
        never = dt.datetime.max.replace(tzinfo=dt.UTC)
        ordered = sorted(
            t.scores.get(key, {}).items(), key=lambda item: (-item[1][0], times.get(item[0], never), item[0])
        )
        if limit >= 0:  # SQLite reads a negative LIMIT as no limit at all
            ordered = ordered[:limit]
        out: list[LeaderboardRow] = []
        for i, (uid, (points, correct, answered)) in enumerate(ordered):
            rank = out[-1].rank if out and out[-1].points == points else i + 1
            out.append(LeaderboardRow(rank, uid, points, correct, answered))
        return out

    async def rank_of(
        self, platform: str, space_id: str, period: Period, period_key: str, user_id: str
    ) -> LeaderboardRow | None:
        t = await self._db()
        board = t.scores.get((platform, space_id, period, period_key), {})
        if user_id not in board:
            return None
        points, correct, answered = board[user_id]
        buckets = t.buckets.get((platform, space_id, period, period_key), {})
        above = sum(n for total, n in buckets.items() if total > points)
        return LeaderboardRow(above + 1, user_id, points, correct, answered)

    # ---- the weekly recap --------------------------------------------------------------------------

    async def set_next_recap(self, ref: ChannelRef, at: dt.datetime | None) -> None:
        t = await self._db()
        key = (ref.platform, ref.channel_id)
        if key not in t.channels:
            return
        t.recap_claimed.pop(key, None)
        if at is None:
            t.next_recap.pop(key, None)
        else:
            t.next_recap[key] = _utc(at)

    async def get_next_recap(self, ref: ChannelRef) -> dt.datetime | None:
        return (await self._db()).next_recap.get((ref.platform, ref.channel_id))

    async def unscheduled_recaps(self, spaces: SpaceFilter | None = None) -> list[ChannelConfig]:
        t = await self._db()
        return [
            t.channels[k]
            for k in sorted(t.channels)
            if not t.channels[k].paused
            and t.channels[k].recap_day is not None
            and k not in t.next_recap
            and (spaces is None or spaces(t.channels[k].ref))
        ]

    async def claim_due_recaps(
        self, now: dt.datetime, lease_until: dt.datetime, limit: int, spaces: SpaceFilter | None = None
    ) -> list[DueChannel]:
        t = await self._db()
        due = sorted(
            (at, key)
            for key, at in t.next_recap.items()
            if at <= now
            and not t.channels[key].paused
            and (key not in t.recap_claimed or t.recap_claimed[key] <= now)
            and (spaces is None or spaces(t.channels[key].ref))
        )[: max(limit, 0)]
        for _, key in due:
            t.recap_claimed[key] = _utc(lease_until)
        return [DueChannel(t.channels[key].ref, at) for at, key in due]

    async def finish_due_recap(self, ref: ChannelRef, due_at: dt.datetime, next_at: dt.datetime | None) -> None:
        t = await self._db()
        key = (ref.platform, ref.channel_id)
        t.recap_claimed.pop(key, None)
        if t.next_recap.get(key) == due_at:
            if next_at is None:
                t.next_recap.pop(key)
            else:
                t.next_recap[key] = _utc(next_at)

    async def mark_recap(self, ref: ChannelRef, week_end: dt.date, now: dt.datetime) -> bool:
        t = await self._db()
        _utc(now)
        return _add_once(t.recaps, (ref.platform, ref.channel_id, week_end))

    async def unmark_recap(self, ref: ChannelRef, week_end: dt.date) -> None:
        (await self._db()).recaps.discard((ref.platform, ref.channel_id, week_end))

    # ---- monthly seasons ---------------------------------------------------------------------------

    async def archive_season(self, platform: str, space_id: str, season: str, now: dt.datetime) -> SeasonArchive | None:
        t = await self._db()
        key = (platform, space_id, season)
        if key in t.seasons:
            return t.seasons[key]
        first, after = month_span(season)
        for r in t.rounds.values():
            if (
                _in_space(r, platform, space_id)
                and r.kind is RoundKind.DAILY
                and r.revealed_at is None
                and r.local_date is not None
                and first <= r.local_date < after
            ):
                return None
        board = await self.leaderboard(platform, space_id, Period.MONTH, season, -1)
        places = season_places((r.user_id, r.points, r.correct, r.answered) for r in board if r.points > 0)
        if key in t.seasons:  # another call archived it while the board was read
            return t.seasons[key]
        t.seasons[key] = SeasonArchive(platform, space_id, season, places, _utc(now))
        return t.seasons[key]

    async def season_archive(self, platform: str, space_id: str, season: str) -> SeasonArchive | None:
        return (await self._db()).seasons.get((platform, space_id, season))

    async def champion_before(self, platform: str, space_id: str, season: str) -> str | None:
        t = await self._db()
        earlier = sorted(
            (a for (p, sp, key), a in t.seasons.items() if p == platform and sp == space_id and key < season),
            key=lambda a: a.season,
        )
        champions = [a.champion for a in earlier if a.champion]
        return champions[-1] if champions else None

    async def mark_season_post(self, ref: ChannelRef, season: str, now: dt.datetime) -> bool:
        t = await self._db()
        _utc(now)
        return _add_once(t.season_posts, (ref.platform, ref.channel_id, season))

    async def unmark_season_post(self, ref: ChannelRef, season: str) -> None:
        (await self._db()).season_posts.discard((ref.platform, ref.channel_id, season))

    def _recap_rounds(
        self, t: _Tables, platform: str, space_id: str, start: dt.date, end: dt.date, channel_id: str | None
    ) -> list[Round]:
        return [
            r
            for r in t.rounds.values()
            if _in_space(r, platform, space_id)
            and r.kind is RoundKind.DAILY
            and r.revealed_at is not None
            and r.local_date is not None
            and start <= r.local_date <= end
            and (channel_id is None or r.ref.channel_id == channel_id)
        ]

    async def recap_rounds(
        self, platform: str, space_id: str, start: dt.date, end: dt.date, channel_id: str | None = None
    ) -> list[RecapRound]:
        t = await self._db()
        out = []
        for r in self._recap_rounds(t, platform, space_id, start, end, channel_id):
            answers = t.answers.get(r.id, {}).values()
            assert r.local_date is not None
            out.append(
                RecapRound(r.id, r.local_date, r.question_id, r.topic, len(answers), sum(a.correct for a in answers))
            )
        return sorted(out, key=lambda x: (x.local_date, x.round_id))

    async def recap_scorers(
        self, platform: str, space_id: str, start: dt.date, end: dt.date, limit: int, channel_id: str | None = None
    ) -> list[RecapScorer]:
        t = await self._db()
        mine: dict[str, list[Answer]] = {}
        for r in self._recap_rounds(t, platform, space_id, start, end, channel_id):
            for a in t.answers.get(r.id, {}).values():
                mine.setdefault(a.user_id, []).append(a)
        rows = []
        for uid, answers in mine.items():
            scoring = [a.answered_at for a in answers if (a.points or 0) > 0]
            reached = max(scoring) if scoring else min(a.answered_at for a in answers)
            rows.append(
                RecapScorer(
                    uid, sum(a.points or 0 for a in answers), sum(a.correct for a in answers), len(answers), reached
                )
            )
        rows.sort(key=lambda x: (-x.points, x.reached_at, x.user_id))
        return rows[: max(limit, 0)]

    # ---- stats -----------------------------------------------------------------------------------

    async def user_topic_stats(self, platform: str, space_id: str, user_id: str) -> list[tuple[RoundKind, TopicStats]]:
        t = await self._db()
        counts: dict[tuple[str, RoundKind], tuple[int, int]] = {}
        for r in t.rounds.values():
            answer = t.answers.get(r.id, {}).get(user_id)
            if answer is not None and r.revealed_at is not None and _in_space(r, platform, space_id):
                answered, correct = counts.get((r.topic, r.kind), (0, 0))
                counts[(r.topic, r.kind)] = (answered + 1, correct + answer.correct)
        return [(kind, TopicStats(topic, n, c)) for (topic, kind), (n, c) in sorted(counts.items())]

    async def streak(self, platform: str, space_id: str, user_id: str) -> StreakState | None:
        return (await self._db()).streaks.get((platform, space_id, user_id))

    async def latest_revealed_date(self, platform: str, space_id: str) -> dt.date | None:
        t = await self._db()
        return max(
            (
                r.local_date
                for r in t.rounds.values()
                if _in_space(r, platform, space_id)
                and r.kind is RoundKind.DAILY
                and r.revealed_at is not None
                and r.local_date is not None
            ),
            default=None,
        )

    async def remember_once(self, scope: str, key: str, now: dt.datetime, keep: dt.timedelta) -> bool:
        t = await self._db()
        now = _utc(now)
        for seen, expires in list(t.seen_once.items()):
            if expires <= now:
                del t.seen_once[seen]
        if (scope, key) in t.seen_once:
            return False
        t.seen_once[(scope, key)] = now + keep
        return True

    # ---- installations and OAuth states ----------------------------------------------------------

    async def save_install(self, install: WorkspaceInstall) -> None:
        t = await self._db()
        expires = install.token_expires_at
        t.installs[(install.platform, install.workspace_id)] = replace(
            install,
            installed_at=_utc(install.installed_at),
            scopes=install.scopes or "",
            token_expires_at=None if expires is None else _utc(expires),
        )
        t.refresh_claims.pop((install.platform, install.workspace_id), None)

    async def find_install(self, platform: str, workspace_id: str) -> WorkspaceInstall | None:
        return (await self._db()).installs.get((platform, workspace_id))

    async def delete_install(self, platform: str, workspace_id: str) -> bool:
        t = await self._db()
        t.refresh_claims.pop((platform, workspace_id), None)
        return t.installs.pop((platform, workspace_id), None) is not None

    async def claim_token_refresh(
        self, platform: str, workspace_id: str, token_secret: str, now: dt.datetime, until: dt.datetime
    ) -> bool:
        t = await self._db()
        key = (platform, workspace_id)
        found = t.installs.get(key)
        if found is None or found.token_secret != token_secret:
            return False
        claimed = t.refresh_claims.get(key)
        if claimed is not None and claimed > _utc(now):
            return False
        t.refresh_claims[key] = _utc(until)
        return True

    async def save_refreshed_token(
        self,
        platform: str,
        workspace_id: str,
        old_secret: str,
        token_secret: str,
        refresh_secret: str,
        expires_at: dt.datetime | None,
    ) -> bool:
        t = await self._db()
        key = (platform, workspace_id)
        found = t.installs.get(key)
        if found is None or found.token_secret != old_secret:
            return False
        t.installs[key] = replace(
            found,
            token_secret=token_secret,
            refresh_secret=refresh_secret,
            token_expires_at=None if expires_at is None else _utc(expires_at),
        )
        t.refresh_claims.pop(key, None)
        return True

    async def save_oauth_state(self, state: str, expires_at: dt.datetime) -> None:
        t = await self._db()
        if state in t.oauth_states:
            raise ValueError("duplicate OAuth state")  # as a primary key would refuse it
        t.oauth_states[state] = _utc(expires_at)

    async def consume_oauth_state(self, state: str, now: dt.datetime) -> bool:
        t = await self._db()
        now = _utc(now)
        for issued, expires in list(t.oauth_states.items()):
            if expires <= now:
                del t.oauth_states[issued]
        return t.oauth_states.pop(state, None) is not None

    # ---- learner memory -------------------------------------------------------------------------

    async def learner_cards(self, platform: str, space_id: str, user_id: str) -> list[LearnerCard]:
        await self.settle_learner(platform, space_id, user_id)
        t = await self._db()
        mine = [c for k, c in t.cards.items() if (k.platform, k.space_id, k.user_id) == (platform, space_id, user_id)]
        return sorted(mine, key=lambda c: c.key.question_id)

    async def review_events(self, platform: str, space_id: str, user_id: str) -> list[ReviewEvent]:
        await self.settle_learner(platform, space_id, user_id)
        t = await self._db()
        mine = [
            e
            for (k, _), e in t.review_log.items()
            if (k.platform, k.space_id, k.user_id) == (platform, space_id, user_id)
        ]
        return sorted(mine, key=lambda e: (e.reviewed_at, e.key.question_id))

    async def learner_misses(self, platform: str, space_id: str, user_id: str) -> list[Miss]:
        t = await self._db()
        attempts: dict[str, list[tuple[Answer, Round]]] = {}
        for r in t.rounds.values():
            answer = t.answers.get(r.id, {}).get(user_id)
            if answer is not None and r.revealed_at is not None and _in_space(r, platform, space_id):
                attempts.setdefault(r.question_id, []).append((answer, r))
        out: list[Miss] = []
        for question_id, tries in attempts.items():
            misses = sum(1 for a, _ in tries if not a.correct)
            if not misses:
                continue
            last, r = max(tries, key=lambda item: (item[0].answered_at, item[1].id))
            out.append(
                Miss(
                    question_id, r.topic, r.id, r.kind, len(tries), misses, last.answered_at, last.choice, last.correct
                )
            )
        return sorted(out, key=lambda m: (-m.last_answered_at.timestamp(), m.question_id))

    async def forget_learner(self, platform: str, space_id: str, user_id: str) -> Forgotten:
        await self.settle_learner(platform, space_id, user_id)
        t = await self._db()  # no await from here on: one atomic change
        scores = 0
        for key, board in t.scores.items():
            if key[:2] != (platform, space_id) or user_id not in board:
                continue
            points = board.pop(user_id)[0]
            t.reached.get(key, {}).pop(user_id, None)
            buckets = t.buckets.setdefault(key, {})
            buckets[points] = buckets.get(points, 0) - 1
            if buckets[points] <= 0:
                del buckets[points]
            scores += 1
        here = [r for r in t.rounds.values() if _in_space(r, platform, space_id)]
        answers = sum(1 for r in here if t.answers.get(r.id, {}).pop(user_id, None) is not None)
        for r in here:
            t.doubts.pop((r.id, user_id), None)
        practice = [r.id for r in here if r.kind is RoundKind.PRACTICE and r.user_id == user_id]
        for round_id in practice:
            t.rounds.pop(round_id)
            t.answers.pop(round_id, None)
            t.round_questions.pop(round_id, None)

        def mine(key: CardKey) -> bool:
            return (key.platform, key.space_id, key.user_id) == (platform, space_id, user_id)

        cards = [k for k in t.cards if mine(k)]
        for k in cards:
            del t.cards[k]
        reviews = [k for k in t.review_log if mine(k[0])]
        for k in reviews:
            del t.review_log[k]
        streak = t.streaks.pop((platform, space_id, user_id), None)
        for key, archive in list(t.seasons.items()):  # their places in archived seasons of the space
            if key[:2] == (platform, space_id):
                t.seasons[key] = dataclasses.replace(
                    archive, rows=tuple(r for r in archive.rows if r.user_id != user_id)
                )
        suggested = [
            sid
            for sid, s in t.suggestions.items()
            if (s.ref.platform, s.ref.space_id, s.author_id) == (platform, space_id, user_id)
        ]
        for sid in suggested:
            del t.suggestions[sid]
        reported = [
            rid for rid, x in t.reports.items() if (x.platform, x.space_id, x.reporter) == (platform, space_id, user_id)
        ]
        for rid in reported:
            del t.reports[rid]
        reminders = int(t.reminders.pop((platform, space_id, user_id), None) is not None)
        t.reminder_days = {d for d in t.reminder_days if d[:3] != (platform, space_id, user_id)}
        return Forgotten(
            answers,
            len(practice),
            len(cards),
            len(reviews),
            scores,
            int(streak is not None),
            reminders,
            suggestions=len(suggested),
            reports=len(reported),
        )

    async def mark_unsure(self, round_id: int, user_id: str) -> None:
        t = await self._db()
        if round_id not in t.rounds:  # SQLite's foreign key
            raise ValueError(f"no round {round_id}")
        t.doubts[(round_id, user_id)] = True

    # ---- question packs --------------------------------------------------------------------------

    async def save_pack(
        self,
        platform: str,
        space_id: str,
        name: str,
        questions: Sequence[tuple[str, str]],
        *,
        replace: bool,
        max_packs: int,
        now: dt.datetime,
    ) -> int:
        t = await self._db()
        _utc(now)
        key = (platform, space_id, name)
        if key in t.packs and not replace:
            raise PackExists(f"The pack {name} already exists in this space; import with --replace to replace it.")
        if key not in t.packs:
            count = sum(1 for p, s, _ in t.packs if (p, s) == (platform, space_id))
            if count >= max_packs:
                raise PackError(f"This space has {count} packs, the most it may hold; remove one first.")
        version = (t.packs[key][0] if key in t.packs else 0) + 1
        t.packs[key] = (version, [(str(q), str(b)) for q, b in questions])
        return version

    async def list_packs(self, platform: str, space_id: str) -> list[tuple[str, int, int]]:
        t = await self._db()
        return [(n, len(rows), v) for (p, s, n), (v, rows) in sorted(t.packs.items()) if (p, s) == (platform, space_id)]

    async def pack_questions(self, platform: str, space_id: str, name: str) -> list[tuple[str, str]]:
        t = await self._db()
        found = t.packs.get((platform, space_id, name))
        return list(found[1]) if found else []

    async def question_answer_counts(self, platform: str, space_id: str) -> list[tuple[str, int, tuple[int, ...], int]]:
        t = await self._db()
        asked: Counter[str] = Counter()
        chosen: dict[str, list[int]] = {}
        for r in t.rounds.values():
            if _in_space(r, platform, space_id) and r.revealed_at is not None:  # revealed rounds only
                asked[r.question_id] += 1
                row = chosen.setdefault(r.question_id, [0, 0, 0, 0, 0])
                for a in t.answers.get(r.id, {}).values():
                    row[a.choice] += 1
                    row[4] += int(a.correct)
        return sorted((q, n, tuple(chosen[q][:4]), chosen[q][4]) for q, n in asked.items())

    async def save_round_question(self, round_id: int, body: str) -> None:
        (await self._db()).round_questions.setdefault(round_id, body)

    async def round_question(self, round_id: int) -> str | None:
        return (await self._db()).round_questions.get(round_id)

    # ---- suggestions ----------------------------------------------------------------------------

    async def add_suggestion(
        self, ref: ChannelRef, author_id: str, body: str, now: dt.datetime, day: dt.date, limit: int
    ) -> Suggestion | None:
        t = await self._db()
        key = (ref.platform, ref.space_id, author_id, day)
        for old in [k for k in t.quota if k[3] < day - dt.timedelta(days=1)]:
            del t.quota[old]
        if t.quota.get(key, 0) >= limit:
            return None
        t.quota[key] = t.quota.get(key, 0) + 1
        sid = max(t.suggestions, default=0) + 1
        t.suggestions[sid] = Suggestion(sid, ref, author_id, body, SuggestionStatus.PENDING, _utc(now))
        return t.suggestions[sid]

    async def get_suggestion(self, platform: str, space_id: str, suggestion_id: int) -> Suggestion | None:
        found = (await self._db()).suggestions.get(suggestion_id)
        return found if found is not None and (found.ref.platform, found.ref.space_id) == (platform, space_id) else None

    async def list_suggestions(self, platform: str, space_id: str, status: str, limit: int) -> list[Suggestion]:
        t = await self._db()
        return [
            s
            for s in t.suggestions.values()
            if (s.ref.platform, s.ref.space_id) == (platform, space_id) and s.status == status
        ][:limit]

    @staticmethod
    def _pending(t: _Tables, platform: str, space_id: str, suggestion_id: int) -> Suggestion | None:
        found = t.suggestions.get(suggestion_id)
        if found is None or (found.ref.platform, found.ref.space_id) != (platform, space_id):
            return None
        return found if found.status is SuggestionStatus.PENDING else None

    async def approve_suggestion(
        self,
        platform: str,
        space_id: str,
        suggestion_id: int,
        pack: str,
        decided_by: str,
        now: dt.datetime,
        *,
        max_packs: int,
        max_questions: int,
    ) -> Suggestion | None:
        t = await self._db()  # no await below: one decision at a time, as a transaction
        found = self._pending(t, platform, space_id, suggestion_id)
        if found is None:
            return None
        key = (platform, space_id, pack)
        present = t.packs.get(key)
        packs = sum(1 for p, s, _ in t.packs if (p, s) == (platform, space_id))
        pack_full(pack, packs, None if present is None else len(present[1]), max_packs, max_questions)
        version, rows = present or (0, [])
        qid, body = approved_question(suggestion_id, found.body, {q for q, _ in rows})
        t.packs[key] = (version + 1, [*rows, (qid, body)])
        done = replace(
            found, status=SuggestionStatus.APPROVED, decided_by=decided_by, decided_at=_utc(now), question_id=qid
        )
        t.suggestions[suggestion_id] = done
        return done

    async def reject_suggestion(
        self, platform: str, space_id: str, suggestion_id: int, reason: str, decided_by: str, now: dt.datetime
    ) -> Suggestion | None:
        t = await self._db()
        found = self._pending(t, platform, space_id, suggestion_id)
        if found is None:
            return None
        done = replace(
            found, status=SuggestionStatus.REJECTED, reason=reason, decided_by=decided_by, decided_at=_utc(now)
        )
        t.suggestions[suggestion_id] = done
        return done

    # ---- reports of a question's problems --------------------------------------------------------

    async def add_report(
        self, report: NewReport, *, since: dt.datetime, daily_limit: int
    ) -> tuple[ReportWrite, int | None]:
        t = await self._db()
        created, since = _utc(report.created_at), _utc(since)
        space = [x for x in t.reports.values() if (x.platform, x.space_id) == (report.platform, report.space_id)]
        mine = [x for x in space if x.reporter == report.reporter]
        if any(x.is_open and x.question_id == report.question_id for x in mine):
            return ReportWrite.DUPLICATE, None
        if sum(1 for x in mine if x.created_at >= since) >= daily_limit:
            return ReportWrite.LIMIT, None
        t.last_report_id += 1
        t.reports[t.last_report_id] = Report(**asdict(replace(report, created_at=created)), id=t.last_report_id)
        return ReportWrite.ADDED, t.last_report_id

    async def reports(self, platform: str, space_id: str, *, open_only: bool = True, limit: int = 50) -> list[Report]:
        t = await self._db()
        found = [
            x
            for x in t.reports.values()
            if (x.platform, x.space_id) == (platform, space_id) and (x.is_open or not open_only)
        ]
        return found[:limit]

    async def get_report(self, platform: str, space_id: str, report_id: int) -> Report | None:
        found = (await self._db()).reports.get(report_id)
        return found if found is not None and (found.platform, found.space_id) == (platform, space_id) else None

    async def resolve_reports(
        self, platform: str, space_id: str, question_id: str, resolution: str, by: str, now: dt.datetime
    ) -> int:
        t = await self._db()
        now = _utc(now)
        closed = 0
        for rid, x in list(t.reports.items()):
            if (x.platform, x.space_id, x.question_id) == (platform, space_id, question_id) and x.is_open:
                t.reports[rid] = replace(x, status="resolved", resolution=resolution, resolved_by=by, resolved_at=now)
                closed += 1
        key = (platform, space_id, question_id)
        if resolution in HOLD_ACTIONS:
            t.holds.setdefault(key, (now, by))
        else:
            t.holds.pop(key, None)
        return closed

    async def held_question_ids(self, platform: str, space_id: str, threshold: int) -> set[str]:
        t = await self._db()
        open_counts = Counter(
            x.question_id for x in t.reports.values() if (x.platform, x.space_id) == (platform, space_id) and x.is_open
        )
        held = {q for q, n in open_counts.items() if n >= threshold}
        return held | {q for p, s, q in t.holds if (p, s) == (platform, space_id)}

    async def report_counts(self, platform: str, space_id: str) -> dict[str, tuple[int, int]]:
        t = await self._db()
        out: dict[str, tuple[int, int]] = {}
        for x in t.reports.values():
            if (x.platform, x.space_id) == (platform, space_id):
                every, still = out.get(x.question_id, (0, 0))
                out[x.question_id] = (every + 1, still + int(x.is_open))
        return out

    async def latest_practice_round(self, platform: str, space_id: str, user_id: str) -> Round | None:
        t = await self._db()
        mine = _asked(t.rounds, platform, space_id, RoundKind.PRACTICE, user_id)
        return mine[-1] if mine else None


_GONE = object()  # in the undo log: the key was not there


class _Settle:
    """The reveal and answer-batch steps (bot.ports.RevealTransaction, AnswerTransaction) on the tables.
    No step awaits, so a settle runs without a break; every change goes through `_put`, which logs what
    it replaced so that `rollback` can put it back."""

    def __init__(self, t: _Tables) -> None:
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
        revealed = replace(round_, revealed_at=_utc(revealed_at))
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
                if _in_space(r, ref.platform, ref.space_id)
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
            state = StreakState(int(s.current), int(s.best), s.last_date)
            self._put(self.t.streaks, (ref.platform, ref.space_id, uid), state)

    async def add_scores(self, board: Board, rows: Sequence[ScoreRow]) -> dict[str, tuple[int, int]]:
        tallies = self._table(self.t.scores, board)
        times = self._table(self.t.reached, board)
        for uid, points, right, at in rows:
            old_points, old_correct, old_answered = tallies.get(uid, (0, 0, 0))
            self._put(tallies, uid, (old_points + int(points), old_correct + right, old_answered + 1))
            if at is not None:
                self._put(times, uid, _utc(at))
        return {uid: (tallies[uid][0], tallies[uid][2]) for uid, _, _, _ in rows}

    async def move_buckets(self, board: Board, moves: Sequence[tuple[int, int]]) -> None:
        buckets = self._table(self.t.buckets, board)
        for total, change in moves:
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
        for rid in round_ids:
            if rid in self.t.learn_pending:
                self._put(self.t.learn_pending, rid, _GONE)

    async def cards_of(self, keys: Sequence[CardKey]) -> dict[CardKey, LearnerCard]:
        return {k: self.t.cards[k] for k in keys if k in self.t.cards}

    async def write_cards(self, updates: Sequence[tuple[LearnerCard, ReviewEvent]]) -> None:
        for card, event in updates:
            stored = replace(card, due=_utc(card.due), last_review=_utc(card.last_review) if card.last_review else None)
            self._put(self.t.cards, card.key, stored)
            at = _utc(event.reviewed_at)
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
            fresh.append(Answer(a.round_id, a.user_id, int(a.choice), bool(a.correct), _utc(a.answered_at)))
        for answer in fresh:
            self._put(self._table(self.t.answers, answer.round_id), answer.user_id, answer)
        return {(a.round_id, a.user_id) for a in fresh}

    async def stored_choices(self, keys: Sequence[tuple[int, str]]) -> dict[tuple[int, str], int]:
        return {k: self.t.answers[k[0]][k[1]].choice for k in keys if k[1] in self.t.answers.get(k[0], {})}
