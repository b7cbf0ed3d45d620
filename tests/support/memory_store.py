"""An in-memory Store for unit tests (in the style of cosmicpython's FakeRepository).

`InMemoryStore` keeps plain dicts instead of tables and reproduces what `SqliteStore` does, down to its
quirks: timestamps come back in UTC, a channel config keeps what a row keeps, a lost daily claim still
uses up a round id, and a batch or a reveal that fails changes nothing. It passes the Store contract in
tests/integration/store_contract.py (see tests/unit/test_memory_store.py).

Concurrency: every method yields to the event loop once on entry, as a database driver would, so the
service's own races still interleave between store calls; after that it never awaits, so each call is
one atomic transaction without a lock. Each call checks its input before it changes anything.
Like SqliteStore(":memory:"), it refuses calls while closed, and closing it discards everything.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from bot.model import Answer, ChannelConfig, ChannelRef, LeaderboardRow, Period, Round, RoundKind, TopicStats
from bot.ports import (
    AnswerWrite,
    DueChannel,
    NewAnswer,
    RevealInput,
    Scorer,
    SendClaim,
    SpaceFilter,
    StreakState,
    period_keys,
)
from bot.store.migrations import load_migrations
from bot.store.rows import config_from_row, config_to_row

SCHEMA_VERSION = max(v for v, _, _ in load_migrations("sqlite"))  # the version SqliteStore reaches

Tally = tuple[int, int, int]  # points, correct, answered
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


def _asked(
    rounds: dict[int, Round], platform: str, space_id: str, kind: RoundKind, user_id: str | None
) -> list[Round]:
    """The rounds of a kind in a space (and for a user, if given), oldest first."""
    return [
        r for r in rounds.values()
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
    streaks: dict[tuple[str, str, str], StreakState] = field(default_factory=dict)  # (platform, space, user)
    version: int = 0
    last_id: int = 0
    saves: int = 0
    next_post: dict[tuple[str, str], dt.datetime] = field(default_factory=dict)  # channel -> next due post
    claimed: dict[tuple[str, str], dt.datetime] = field(default_factory=dict)  # channel -> lease end
    # (round id, "post" | "reveal") -> [state, attempts, due_at, doubts]
    delivery: dict[tuple[int, str], list] = field(default_factory=dict)


def _delivery(t: _Tables, round_id: int, what: str) -> list:
    return t.delivery.setdefault((round_id, what), ["due", 0, None, 0])


class InMemoryStore:
    """Store port on plain dicts; behaves like SqliteStore(":memory:")."""

    def __init__(self) -> None:
        self._tables: _Tables | None = None

    async def _db(self) -> _Tables:
        """Enter a call: let other tasks run (as a driver does), then hand over the tables."""
        await asyncio.sleep(0)
        if self._tables is None:
            raise RuntimeError("the store is not open")
        return self._tables

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
        self, ref: ChannelRef, local_date: dt.date, question_id: str, topic: str, opened_at: dt.datetime,
        closes_at: dt.datetime | None, *, lease_until: dt.datetime | None = None,
    ) -> Round | None:
        t = await self._db()
        round_ = Round(
            id=t.last_id + 1, kind=RoundKind.DAILY, ref=ref, question_id=question_id, topic=topic,
            opened_at=_utc(opened_at), local_date=local_date, closes_at=_utc(closes_at) if closes_at else None,
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
            id=t.last_id + 1, kind=RoundKind.PRACTICE, ref=ref, question_id=question_id, topic=topic,
            opened_at=_utc(opened_at), user_id=user_id,
        )
        t.last_id = round_.id
        t.rounds[round_.id] = round_
        return round_

    async def get_round(self, round_id: int) -> Round | None:
        return (await self._db()).rounds.get(round_id)

    async def open_daily_rounds(self, ref: ChannelRef | None = None) -> list[Round]:
        t = await self._db()
        return [
            r for r in t.rounds.values()
            if r.kind is RoundKind.DAILY and r.revealed_at is None
            and (ref is None or _same_channel(r.ref, ref))
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

    async def unscheduled_channels(self) -> list[ChannelConfig]:
        t = await self._db()
        return [t.channels[k] for k in sorted(t.channels) if not t.channels[k].paused and k not in t.next_post]

    async def claim_due_channels(
        self, now: dt.datetime, lease_until: dt.datetime, limit: int, spaces: SpaceFilter | None = None
    ) -> list[DueChannel]:
        t = await self._db()
        due = sorted(
            (at, key) for key, at in t.next_post.items()
            if at <= now and not t.channels[key].paused
            and (key not in t.claimed or t.claimed[key] <= now)
            and (spaces is None or spaces(t.channels[key].ref))
        )[: max(limit, 0)]
        for _, key in due:
            t.claimed[key] = _utc(lease_until)
        return [DueChannel(t.channels[key].ref, at) for at, key in due]

    async def finish_due_channel(self, ref: ChannelRef, due_at: dt.datetime, next_at: dt.datetime | None) -> None:
        t = await self._db()
        key = (ref.platform, ref.channel_id)
        t.claimed.pop(key, None)
        if t.next_post.get(key) == due_at:
            if next_at is None:
                t.next_post.pop(key)
            else:
                t.next_post[key] = _utc(next_at)

    def _claim_sends(
        self, t: _Tables, what: str, now: dt.datetime, lease_until: dt.datetime, limit: int, round_id: int | None,
        force: bool, spaces: SpaceFilter | None,
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
        self, now: dt.datetime, lease_until: dt.datetime, limit: int, *, round_id: int | None = None,
        force: bool = False, spaces: SpaceFilter | None = None,
    ) -> list[SendClaim]:
        t = await self._db()
        return self._claim_sends(t, "post", now, lease_until, limit, round_id, force, spaces)

    async def finish_post(
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
            r.question_id for r in t.rounds.values()
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
            r for r in t.rounds.values()
            if r.kind is RoundKind.DAILY and r.revealed_at is None and r.closes_at is not None
            and r.closes_at <= now and (spaces is None or spaces(r.ref))
        ]
        return sorted(due, key=lambda r: (r.closes_at, r.id))[: max(limit, 0)]

    async def claim_reveals(
        self, now: dt.datetime, lease_until: dt.datetime, limit: int, *, round_id: int | None = None,
        spaces: SpaceFilter | None = None,
    ) -> list[SendClaim]:
        t = await self._db()
        return self._claim_sends(t, "reveal", now, lease_until, limit, round_id, False, spaces)

    async def finish_reveal(self, round_id: int, state: str, *, retry_at: dt.datetime | None = None) -> None:
        t = await self._db()
        if round_id in t.rounds:
            d = _delivery(t, round_id, "reveal")
            d[0], d[2] = state, _utc(retry_at) if retry_at else None

    # ---- answers ---------------------------------------------------------------------------------

    async def add_answers(self, answers: Sequence[NewAnswer], now: dt.datetime) -> list[AnswerWrite]:
        t = await self._db()
        verdicts: list[str] = []
        fresh: dict[tuple[int, str], Answer] = {}
        for a in answers:  # first decide every answer; store nothing until the whole batch is valid
            round_ = t.rounds.get(a.round_id)
            if round_ is None:
                verdicts.append("unknown")
            elif round_.revealed_at is not None or (round_.closes_at is not None and round_.closes_at <= now):
                verdicts.append("closed")
            elif (a.round_id, a.user_id) in fresh or a.user_id in t.answers.get(a.round_id, {}):
                verdicts.append("duplicate")
            else:
                if not 0 <= a.choice <= 3:  # SQLite's CHECK constraint fails the whole batch
                    raise ValueError(f"choice {a.choice} of {a.user_id!r} is not between 0 and 3")
                fresh[(a.round_id, a.user_id)] = Answer(
                    a.round_id, a.user_id, int(a.choice), bool(a.correct), _utc(a.answered_at)
                )
                verdicts.append("recorded")
        for (round_id, user_id), answer in fresh.items():
            t.answers.setdefault(round_id, {})[user_id] = answer
        return [
            AnswerWrite(v, t.answers[a.round_id][a.user_id].choice) if v == "duplicate" else AnswerWrite(v)
            for v, a in zip(verdicts, answers, strict=True)
        ]

    async def get_answer(self, round_id: int, user_id: str) -> Answer | None:
        return (await self._db()).answers.get(round_id, {}).get(user_id)

    async def round_answers(self, round_id: int) -> list[Answer]:
        t = await self._db()
        return sorted(t.answers.get(round_id, {}).values(), key=lambda a: (a.answered_at, a.user_id))

    # ---- reveal and leaderboards -----------------------------------------------------------------

    async def reveal_round(self, round_id: int, revealed_at: dt.datetime, scorer: Scorer | None) -> bool:
        t = await self._db()
        round_ = t.rounds.get(round_id)
        if round_ is None or round_.revealed_at is not None:
            return False
        revealed = replace(round_, revealed_at=_utc(revealed_at))
        day, ref = revealed.local_date, revealed.ref
        if scorer is None or revealed.kind is not RoundKind.DAILY or day is None:
            t.rounds[round_id] = revealed
            return True
        answers = tuple(sorted(t.answers.get(round_id, {}).values(), key=lambda a: a.user_id))
        previous = max(
            (r.local_date for r in t.rounds.values()
             if _in_space(r, ref.platform, ref.space_id) and r.kind is RoundKind.DAILY
             and r.revealed_at is not None and r.local_date is not None and r.local_date < day),
            default=None,
        )
        streaks = {
            a.user_id: t.streaks[(ref.platform, ref.space_id, a.user_id)]
            for a in answers if (ref.platform, ref.space_id, a.user_id) in t.streaks
        }
        channel = t.channels.get((ref.platform, ref.channel_id))
        result = scorer(RevealInput(revealed, answers, previous, streaks, bool(channel and channel.speed_bonus)))
        correct = {a.user_id: a.correct for a in answers}
        folded = [(uid, int(p), int(correct[uid])) for uid, p in result.points.items()]  # KeyError, as SQLite
        # nothing can fail from here on: commit
        t.rounds[round_id] = revealed
        mine = t.answers.get(round_id, {})
        for uid, points, _ in folded:
            mine[uid] = replace(mine[uid], points=points)
        for uid, s in result.streaks.items():
            t.streaks[(ref.platform, ref.space_id, uid)] = StreakState(int(s.current), int(s.best), s.last_date)
        for period, key in period_keys(day):
            board = t.scores.setdefault((ref.platform, ref.space_id, period, key), {})
            for uid, points, right in folded:
                old_points, old_correct, old_answered = board.get(uid, (0, 0, 0))
                board[uid] = (old_points + points, old_correct + right, old_answered + 1)
        return True

    async def leaderboard(
        self, platform: str, space_id: str, period: Period, period_key: str, limit: int
    ) -> list[LeaderboardRow]:
        t = await self._db()
        ordered = sorted(t.scores.get((platform, space_id, period, period_key), {}).items(),
                         key=lambda item: (-item[1][0], item[0]))
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
        above = sum(1 for other, _, _ in board.values() if other > points)
        return LeaderboardRow(above + 1, user_id, points, correct, answered)

    # ---- stats -----------------------------------------------------------------------------------

    async def user_topic_stats(
        self, platform: str, space_id: str, user_id: str
    ) -> list[tuple[RoundKind, TopicStats]]:
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
            (r.local_date for r in t.rounds.values()
             if _in_space(r, platform, space_id) and r.kind is RoundKind.DAILY and r.revealed_at is not None
             and r.local_date is not None),
            default=None,
        )
