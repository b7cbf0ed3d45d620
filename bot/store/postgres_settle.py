"""PostgreSQL's reveal and answer-batch steps on one open transaction (bot.store.settle's port), and the
reveal batch's two statements: its locks (LOCK_ROUNDS) and its claim with everything its reveals read
(CLAIM_BATCH)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Collection, Sequence

import asyncpg

from bot.daily.values import RevealedRound, SendClaim
from bot.kernel.scoring import Board, BoardMoves, BoardRows
from bot.kernel.values import Answer, ChannelConfig, ChannelRef, NewAnswer, Round, RoundKind, StreakState
from bot.practice.memory import CardKey, LearnerCard, PendingAnswer, ReviewEvent
from bot.store import rows as stored
from bot.store.base import PENDING_PRACTICE, numbered, sendable
from bot.store.settle import latest_date

# the column order of rows.config_from_row, with the time rendered as HH:MM like the SQLite text
CHANNEL_COLUMNS = (
    "platform, channel_id, space_id, to_char(post_time, 'HH24:MI'), timezone, weekdays, topics, difficulties, "
    "paused, reactions, answer_window_s, speed_bonus, updated_at, ping_winners, recap_day, threads, packs, "
    "champion_role, manager_role, ping_role, ping_group"
)
# advisory lock keys (two int4 keys): a namespace of ours, then 0 or a hash of the space (bot.store.postgres
# has the others)
LOCK_SPACE = 0x53420002
LOCK_LEARNING = 0x53420071  # one writer of marked card updates at a time (learn_practice, learn_rounds)

ROUND_WIDTH = len(stored.ROUND_COLUMNS.split(","))
# A reveal batch's locks in one statement: its rounds FOR UPDATE in id order, then (the GROUP BY reads them
# all first) each of their spaces' advisory locks in one order (byte order of platform, then space).
LOCK_ROUNDS = (
    "WITH r AS MATERIALIZED (SELECT platform, space_id FROM rounds WHERE id = ANY($2::bigint[]) "
    "ORDER BY id FOR UPDATE) "
    "SELECT s.platform, s.space_id, pg_advisory_xact_lock($1, hashtext(s.platform || chr(31) || s.space_id)) "
    'FROM (SELECT platform, space_id FROM r GROUP BY 1, 2 ORDER BY platform COLLATE "C", space_id COLLATE "C" '
    "OFFSET 0) s"
)
# Claim a reveal batch's rounds, with their reveal posts (as DueSends("reveal") claims them: a lease until
# $4), and read, per round claimed, what its reveal reads: the space's latest revealed daily date before the
# round's (as it stood before this statement's claims), its answers, their streaks, its doubts, their cards
# ($3: with learning now) and its channel's settings (rows.config_from_row). $5: the answered daily rounds are
# marked for their card updates (bot.store.settle.learn_rounds writes them after the fan-out).
_SEND = "w.sends"
CLAIM_BATCH = (
    "WITH c AS (UPDATE rounds r SET revealed_at = $1, "
    f"reveal_state = CASE WHEN {_SEND} THEN 'sending' ELSE r.reveal_state END, "
    f"reveal_attempts = r.reveal_attempts + CASE WHEN {_SEND} THEN 1 ELSE 0 END, "
    f"reveal_due_at = CASE WHEN {_SEND} THEN $4 ELSE r.reveal_due_at END, "
    f"reveal_doubts = r.reveal_doubts + CASE WHEN {_SEND} AND w.prev_state = 'sending' THEN 1 ELSE 0 END, "
    "cards_pending = CASE WHEN $5 AND r.kind = 'daily' AND EXISTS (SELECT 1 FROM answers a WHERE a.round_id = r.id) "
    "THEN 1 ELSE r.cards_pending END "
    "FROM (SELECT id AS claimed, reveal_state AS prev_state, "
    f"(kind = 'daily' AND {sendable('reveal', '$1')}) AS sends FROM rounds WHERE id = ANY($2::bigint[])) w "
    "WHERE r.id = w.claimed AND r.revealed_at IS NULL "
    f"RETURNING {stored.ROUND_COLUMNS_OF_R}, "
    "r.reveal_attempts, r.reveal_doubts, w.prev_state, w.sends) "
    "SELECT c.*, "
    "(SELECT MAX(p.local_date) FROM rounds p WHERE p.platform = c.platform AND p.space_id = c.space_id "
    "AND p.kind = 'daily' AND p.revealed_at IS NOT NULL AND p.local_date < c.local_date), "
    f"ARRAY(SELECT ROW({', '.join('a.' + col for col in stored.ANSWER_COLUMNS.split(', '))}) FROM answers a "
    "WHERE a.round_id = c.id ORDER BY a.answered_at, a.user_id), "
    "ARRAY(SELECT ROW(s.user_id, s.current, s.best, s.last_date, s.kept, s.freezes, s.freezes_used, s.frozen) "
    "FROM answers a JOIN streaks s "
    "ON s.platform = c.platform AND s.space_id = c.space_id AND s.user_id = a.user_id "
    "WHERE a.round_id = c.id AND c.kind = 'daily'), "
    "ARRAY(SELECT d.user_id FROM answer_doubts d WHERE d.round_id = c.id), "
    f"ARRAY(SELECT ROW({', '.join('k.' + col for col in stored.CARD_COLUMNS.split(', '))}) FROM answers a "
    "JOIN learner_cards k ON k.platform = c.platform AND k.space_id = c.space_id AND k.user_id = a.user_id "
    "AND k.question_id = c.question_id WHERE $3 AND a.round_id = c.id), "
    "ch.* FROM c LEFT JOIN LATERAL "
    f"(SELECT true AS found, {CHANNEL_COLUMNS} FROM channels WHERE platform = c.platform "
    "AND channel_id = c.channel_id) ch ON true"
)
# The daily rounds of one space marked for their card updates, oldest first ($3 of them; $4: only those that
# user answered), each with what update_learner_memory reads: its answers, its doubts and their cards.
ROUNDS_TO_LEARN = (
    f"WITH r AS (SELECT {stored.ROUND_COLUMNS} FROM rounds WHERE cards_pending IS NOT NULL AND platform = $1 "
    "AND space_id = $2 AND ($4::text IS NULL OR EXISTS (SELECT 1 FROM answers a WHERE a.round_id = rounds.id "
    "AND a.user_id = $4)) ORDER BY id LIMIT $3) "
    "SELECT r.*, "
    f"ARRAY(SELECT ROW({', '.join('a.' + col for col in stored.ANSWER_COLUMNS.split(', '))}) FROM answers a "
    "WHERE a.round_id = r.id ORDER BY a.answered_at, a.user_id), "
    "ARRAY(SELECT d.user_id FROM answer_doubts d WHERE d.round_id = r.id), "
    f"ARRAY(SELECT ROW({', '.join('k.' + col for col in stored.CARD_COLUMNS.split(', '))}) FROM answers a "
    "JOIN learner_cards k ON k.platform = r.platform AND k.space_id = r.space_id AND k.user_id = a.user_id "
    "AND k.question_id = r.question_id WHERE a.round_id = r.id) "
    "FROM r ORDER BY r.id"
)


class PgSettle:
    """The reveal and answer-batch steps (bot.store.settle.RevealTransaction, AnswerTransaction) on one open
    transaction. Batches lock their rounds FOR SHARE and a reveal takes the space's advisory lock.

    A reveal batch (`lock_rounds`, then `claim_batch`) claims all its rounds in one statement that also reads
    what their reveals will read; the steps then answer from those rows, as the same reads one round after
    another would have (a round sees the daily dates claimed before it in the batch, and the streaks and
    cards written before it), so each round's reveal costs trips only for its writes."""

    def __init__(self, conn: asyncpg.Connection) -> None:
        self.conn = conn
        self._locked: set[tuple[str, str]] = set()  # spaces whose lock this transaction holds already
        self._batch: set[int] = set()  # the rounds of claim_batch
        self._claimed: dict[int, Round] = {}  # those it claimed (as revealed now)
        self._sends: dict[int, SendClaim] = {}  # the reveal posts it claimed
        self._untaken: set[int] = set()  # those claimed but not yet taken by claim_reveal
        self._marked: set[int] = set()  # those the claim marked for their card updates
        self._taken: dict[tuple[str, str], list[dt.date]] = {}  # daily dates taken so far, by space
        self._before: dict[tuple[str, str, dt.date], dt.date | None] = {}  # previous dates before the batch
        self._answers: dict[int, tuple[Answer, ...]] = {}
        self._configs: dict[int, ChannelConfig | None] = {}
        self._speed: dict[tuple[str, str], bool] = {}  # (platform, channel): speed bonus on
        self._streaks: dict[tuple[str, str, str], StreakState | None] = {}  # None: known to have none
        self._doubts: dict[int, set[str]] = {}
        self._cards: dict[CardKey, LearnerCard | None] = {}
        # once a batch is claimed (`_batch`), its writes of points, streaks and cards wait for flush_writes (one
        # statement each for the batch, not one per round); the caches above already hold what they write
        self._points: dict[tuple[int, str], int] = {}
        self._streak_writes: dict[tuple[str, str, str], StreakState] = {}
        self._card_writes: dict[CardKey, LearnerCard] = {}
        self._events: list[ReviewEvent] = []

    async def lock_rounds(self, round_ids: Sequence[int]) -> None:
        """Lock a reveal batch's rounds in id order (as answer batches do, FOR SHARE), then their spaces in
        one order, all in one statement: a batch never waits in a circle with an answer batch or another
        reveal."""
        rows = await self.conn.fetch(LOCK_ROUNDS, LOCK_SPACE, list(round_ids))
        self._locked.update((r[0], r[1]) for r in rows)

    async def claim_batch(
        self,
        round_ids: Sequence[int],
        revealed_at: dt.datetime,
        lease_until: dt.datetime,
        *,
        learn: bool,
        mark_cards: bool = False,
    ) -> None:
        """Claim these rounds' reveals, and the reveal posts of those free to send (leased until
        `lease_until`: see revealed()), and read their reveals' inputs (after lock_rounds). Their reveals'
        writes of points, streaks and cards then wait for flush_writes. `learn`: their cards are read (for
        updates now); `mark_cards`: the daily rounds are marked for their card updates instead."""
        self._batch.update(round_ids)
        rows = await self.conn.fetch(CLAIM_BATCH, revealed_at, list(round_ids), learn, lease_until, mark_cards)
        for r in rows:
            round_ = stored.round_from_row(r[:ROUND_WIDTH])
            attempts, send_doubts, prev_state, sends, previous, answers, streaks, doubts, cards, found, *config = r[
                ROUND_WIDTH:
            ]
            ref = round_.ref
            self._claimed[round_.id] = round_
            if mark_cards and round_.kind is RoundKind.DAILY and answers:
                self._marked.add(round_.id)
            if sends:
                self._sends[round_.id] = SendClaim(round_, int(attempts), prev_state == "sending", int(send_doubts))
            self._untaken.add(round_.id)
            if round_.local_date is not None:
                self._before[(ref.platform, ref.space_id, round_.local_date)] = previous
            self._answers[round_.id] = tuple(stored.answer_from_row(a) for a in answers)
            users = {a[1] for a in answers}
            if round_.kind is RoundKind.DAILY:  # (the statement reads streaks for daily rounds only)
                self._streaks.update({(ref.platform, ref.space_id, u): None for u in users})
                self._streaks.update(
                    {(ref.platform, ref.space_id, r[0]): stored.streak_from_row(tuple(r)[1:]) for r in streaks}
                )
            self._doubts[round_.id] = set(doubts)
            if learn:
                self._cards.update({CardKey(ref.platform, ref.space_id, u, round_.question_id): None for u in users})
                self._cards.update({c.key: c for c in map(stored.card_from_row, cards)})
            channel = stored.config_from_row(config) if found else None
            self._configs[round_.id] = channel
            self._speed[(ref.platform, ref.channel_id)] = channel is not None and channel.speed_bonus

    def revealed(self, round_id: int) -> RevealedRound:
        """A round revealed by this batch as the transaction leaves it: its row, its answers (scored, in the
        order they came), its channel's settings and the claim of its reveal post (None: not free to send)."""
        return RevealedRound(
            self._claimed[round_id], self._answers[round_id], self._configs[round_id], self._sends.get(round_id)
        )

    async def claim_reveal(self, round_id: int, revealed_at: dt.datetime) -> Round | None:
        if round_id in self._batch:  # claimed (or found revealed already) by claim_batch
            if round_id not in self._untaken:
                return None
            self._untaken.discard(round_id)
            round_ = self._claimed[round_id]
            if round_.kind is RoundKind.DAILY and round_.local_date is not None:
                self._taken.setdefault((round_.ref.platform, round_.ref.space_id), []).append(round_.local_date)
            return round_
        row = await self.conn.fetchrow(
            "UPDATE rounds SET revealed_at = $1 WHERE id = $2 AND revealed_at IS NULL "
            f"RETURNING {stored.ROUND_COLUMNS}",
            revealed_at,
            round_id,
        )
        return stored.round_from_row(row) if row else None

    async def lock_space(self, ref: ChannelRef) -> None:
        # a transaction-scoped lock is held to the commit: taking it again in the same transaction (each
        # round of a reveal batch) would be a trip that changes nothing
        space = (ref.platform, ref.space_id)
        if space in self._locked:
            return
        await self.conn.execute(
            "SELECT pg_advisory_xact_lock($1, hashtext($2))", LOCK_SPACE, f"{ref.platform}\x1f{ref.space_id}"
        )
        self._locked.add(space)

    async def answers(self, round_id: int) -> tuple[Answer, ...]:
        if round_id in self._answers:
            return self._answers[round_id]
        await self.flush_writes()  # the read sees the points this transaction wrote
        rows = await self.conn.fetch(f"SELECT {stored.ANSWER_COLUMNS} FROM answers WHERE round_id = $1", round_id)
        return tuple(stored.answer_from_row(r) for r in rows)

    async def previous_date(self, ref: ChannelRef, before: dt.date) -> dt.date | None:
        space = (ref.platform, ref.space_id)
        key = (*space, before)
        if key in self._before:
            day = self._before[key]
        else:  # as it stood before the batch: its rounds not taken yet are left out
            day = await self.conn.fetchval(
                "SELECT MAX(local_date) FROM rounds WHERE platform = $1 AND space_id = $2 AND kind = 'daily' "
                "AND revealed_at IS NOT NULL AND local_date < $3 AND NOT (id = ANY($4::bigint[]))",
                ref.platform,
                ref.space_id,
                before,
                list(self._untaken),
            )
        return latest_date(self._taken.get(space, ()), before, day)

    async def streaks(self, ref: ChannelRef, users: Sequence[str]) -> dict[str, StreakState]:
        keys = [(ref.platform, ref.space_id, u) for u in users]
        if all(k in self._streaks for k in keys):
            return {k[2]: s for k in keys if (s := self._streaks[k]) is not None}
        await self.flush_writes()  # the read sees what this transaction wrote
        # a join with unnest, not `user_id = ANY($3)`: a filter on a 10,000-element array is checked row by row
        return {
            r[0]: stored.streak_from_row(tuple(r)[1:])
            for r in await self.conn.fetch(
                "SELECT s.user_id, s.current, s.best, s.last_date, s.kept, s.freezes, s.freezes_used, s.frozen "
                "FROM streaks s "
                "JOIN unnest($3::text[]) AS u(user_id) ON s.user_id = u.user_id "
                "WHERE s.platform = $1 AND s.space_id = $2",
                ref.platform,
                ref.space_id,
                list(users),
            )
        }

    async def speed_bonus(self, ref: ChannelRef) -> bool:
        if (ref.platform, ref.channel_id) in self._speed:
            return self._speed[(ref.platform, ref.channel_id)]
        return bool(
            await self.conn.fetchval(
                "SELECT speed_bonus FROM channels WHERE platform = $1 AND channel_id = $2", ref.platform, ref.channel_id
            )
        )

    async def write_points(self, round_id: int, points: dict[str, int]) -> None:
        if round_id in self._answers:
            self._answers[round_id] = tuple(
                dataclasses.replace(a, points=points[a.user_id]) if a.user_id in points else a
                for a in self._answers[round_id]
            )
        self._points.update({(round_id, u): p for u, p in points.items()})
        await self._flush_outside_batch()

    async def write_streaks(self, ref: ChannelRef, streaks: dict[str, StreakState]) -> None:
        written = {(ref.platform, ref.space_id, u): s for u, s in streaks.items()}
        self._streaks.update(written)
        self._streak_writes.update(written)
        await self._flush_outside_batch()

    async def _flush_outside_batch(self) -> None:
        """Outside a claimed batch a write goes out at once; inside one it waits for flush_writes."""
        if not self._batch:
            await self.flush_writes()

    async def flush_writes(self) -> None:
        """Write the points, streaks and cards (with their review log) kept back so far: a statement each."""
        if self._points:
            keys = sorted(self._points)
            await self.conn.execute(
                "UPDATE answers AS a SET points = u.points FROM unnest($1::bigint[], $2::text[], $3::integer[]) "
                "AS u(round_id, user_id, points) WHERE a.round_id = u.round_id AND a.user_id = u.user_id",
                [k[0] for k in keys],
                [k[1] for k in keys],
                [self._points[k] for k in keys],
            )
            self._points = {}
        if self._streak_writes:
            await self._upsert_streaks(self._streak_writes)
            self._streak_writes = {}
        if self._card_writes:
            await self._upsert_cards(list(self._card_writes.values()), self._events)
            self._card_writes, self._events = {}, []

    async def _upsert_streaks(self, streaks: dict[tuple[str, str, str], StreakState]) -> None:
        keys = sorted(streaks)
        states = [streaks[k] for k in keys]
        await self.conn.execute(
            "INSERT INTO streaks (platform, space_id, user_id, current, best, last_date, kept, freezes, "
            "freezes_used, frozen) SELECT u.* FROM unnest($1::text[], $2::text[], $3::text[], $4::integer[], "
            "$5::integer[], $6::date[], $7::integer[], $8::integer[], $9::integer[], $10::integer[]) AS u "
            "ON CONFLICT (platform, space_id, user_id) DO UPDATE SET current = excluded.current, "
            "best = excluded.best, last_date = excluded.last_date, kept = excluded.kept, "
            "freezes = excluded.freezes, freezes_used = excluded.freezes_used, frozen = excluded.frozen",
            [k[0] for k in keys],
            [k[1] for k in keys],
            [k[2] for k in keys],
            [s.current for s in states],
            [s.best for s in states],
            [s.last_date for s in states],
            [s.kept for s in states],
            [s.freezes for s in states],
            [s.freezes_used for s in states],
            [s.frozen for s in states],
        )

    async def daily_dates_between(self, ref: ChannelRef, after: dt.date, before: dt.date, limit: int) -> int:
        # as previous_date: the batch's dates taken so far, and those revealed before the batch (its rounds
        # not taken yet left out)
        taken = {d for d in self._taken.get((ref.platform, ref.space_id), ()) if after < d < before}
        rows = await self.conn.fetch(
            "SELECT DISTINCT local_date FROM rounds WHERE platform = $1 AND space_id = $2 AND kind = 'daily' "
            "AND revealed_at IS NOT NULL AND local_date > $3 AND local_date < $4 AND NOT (id = ANY($5::bigint[])) "
            "ORDER BY local_date LIMIT $6",
            ref.platform,
            ref.space_id,
            after,
            before,
            list(self._untaken),
            limit,
        )
        return min(limit, len(taken | {r[0] for r in rows}))

    async def add_scores(self, boards: BoardRows) -> dict[Board, dict[str, tuple[int, int]]]:
        # every board of the batch in one statement (rows in board and user order: the order rows are locked in)
        keys = [(stored.board_key(board), row) for board, rows in boards.items() for row in rows]
        written = await self.conn.fetch(
            "INSERT INTO scores (platform, space_id, period, period_key, user_id, points, correct, answered, "
            "reached_at) SELECT u.platform, u.space_id, u.period, u.period_key, u.user_id, u.points, u.correct, "
            "u.answered, u.at FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], "
            "$6::integer[], $7::integer[], $8::timestamptz[], $9::integer[]) "
            "AS u(platform, space_id, period, period_key, user_id, points, correct, at, answered) "
            "ON CONFLICT (platform, space_id, period, period_key, user_id) DO UPDATE SET "
            "points = scores.points + excluded.points, correct = scores.correct + excluded.correct, "
            "answered = scores.answered + excluded.answered, "
            "reached_at = COALESCE(excluded.reached_at, scores.reached_at) "
            "RETURNING platform, space_id, period, period_key, user_id, points, answered",
            *(list(column) for column in zip(*(key for key, _row in keys), strict=True)),
            *(list(column) for column in zip(*(row for _key, row in keys), strict=True)),
        )
        by_key = {stored.board_key(board): board for board in boards}
        after: dict[Board, dict[str, tuple[int, int]]] = {board: {} for board in boards}
        for r in written:
            after[by_key[(r[0], r[1], r[2], r[3])]][r[4]] = (int(r[5]), int(r[6]))
        return after

    async def move_buckets(self, moves: BoardMoves) -> None:
        # one upsert for every board; it names the buckets it emptied, and only then a second statement deletes
        # them (by key): most moves leave every bucket with someone in it, so most batches take one trip here
        rows = [(*stored.board_key(board), *change) for board, changes in moves.items() for change in changes]
        columns = [list(column) for column in zip(*rows, strict=True)]
        emptied = await self.conn.fetch(
            "WITH m AS (INSERT INTO score_buckets (platform, space_id, period, period_key, points, users) "
            "SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::integer[], $6::integer[]) "
            "ON CONFLICT (platform, space_id, period, period_key, points) DO UPDATE SET "
            "users = score_buckets.users + excluded.users RETURNING platform, space_id, period, period_key, points, "
            "users) SELECT platform, space_id, period, period_key, points FROM m WHERE users <= 0",
            *columns,
        )
        if emptied:
            await self.conn.execute(
                "DELETE FROM score_buckets WHERE (platform, space_id, period, period_key, points) IN "
                "(SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::integer[])) "
                "AND users <= 0",
                *(list(column) for column in zip(*emptied, strict=True)),
            )

    async def doubts(self, round_id: int) -> set[str]:
        if round_id in self._doubts:
            return set(self._doubts[round_id])
        rows = await self.conn.fetch("SELECT user_id FROM answer_doubts WHERE round_id = $1", round_id)
        return {r[0] for r in rows}

    async def cards(
        self, platform: str, space_id: str, question_id: str, users: Sequence[str]
    ) -> dict[str, LearnerCard]:
        keys = [CardKey(platform, space_id, u, question_id) for u in users]
        if all(k in self._cards for k in keys):
            return {k.user_id: c for k in keys if (c := self._cards[k]) is not None}
        await self.flush_writes()  # the read sees what this transaction wrote
        rows = await self.conn.fetch(
            f"SELECT {', '.join('c.' + c for c in stored.CARD_COLUMNS.split(', '))} FROM learner_cards c "
            "JOIN unnest($4::text[]) AS u(user_id) ON c.user_id = u.user_id "
            "WHERE c.platform = $1 AND c.space_id = $2 AND c.question_id = $3",
            platform,
            space_id,
            question_id,
            list(users),
        )
        return {c.key.user_id: c for c in map(stored.card_from_row, rows)}

    async def write_cards(self, updates: Sequence[tuple[LearnerCard, ReviewEvent]]) -> None:
        if not updates:
            return
        latest = {card.key: card for card, _ in updates}
        self._cards.update(latest)
        self._card_writes.update(latest)
        self._events += [event for _, event in updates]
        await self._flush_outside_batch()

    async def _upsert_cards(self, cards: Sequence[LearnerCard], events: Sequence[ReviewEvent]) -> None:
        cols = list(zip(*(stored.card_values(card) for card in cards), strict=True))
        await self.conn.execute(
            f"INSERT INTO learner_cards ({stored.CARD_COLUMNS}) SELECT * FROM unnest($1::text[], $2::text[], "
            "$3::text[], $4::text[], $5::smallint[], $6::integer[], $7::float8[], $8::float8[], $9::timestamptz[], "
            "$10::timestamptz[], $11::integer[], $12::integer[], $13::boolean[]) "
            "ON CONFLICT (platform, space_id, user_id, question_id) DO UPDATE SET state = excluded.state, "
            "step = excluded.step, stability = excluded.stability, difficulty = excluded.difficulty, "
            "due = excluded.due, last_review = excluded.last_review, reviews = excluded.reviews, "
            "lapses = excluded.lapses, confident_miss = excluded.confident_miss",
            *(list(c) for c in cols),
        )
        rows = list(zip(*(stored.event_values(event) for event in events), strict=True))
        await self.conn.execute(
            f"INSERT INTO review_log ({stored.EVENT_COLUMNS}) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], "
            "$4::text[], $5::timestamptz[], $6::smallint[], $7::boolean[], $8::timestamptz[], $9::float8[]) "
            "ON CONFLICT DO NOTHING",
            *(list(c) for c in rows),
        )

    async def claim_practice(
        self, round_ids: Sequence[int], revealed_at: dt.datetime, *, learn: bool, unsure: Collection[int] = ()
    ) -> set[int]:
        rows = await self.conn.fetch(
            "UPDATE rounds SET revealed_at = $1, learn_pending = CASE WHEN $3 THEN "
            "CASE WHEN id = ANY($4::bigint[]) THEN 0 ELSE 1 END END "
            "WHERE id = ANY($2::bigint[]) AND revealed_at IS NULL AND kind = 'practice' RETURNING id",
            revealed_at,
            list(round_ids),
            learn,
            sorted(unsure),
        )
        return {int(r[0]) for r in rows}

    async def lock_learning(self) -> None:
        await self.conn.execute("SELECT pg_advisory_xact_lock($1, 0)", LOCK_LEARNING)

    async def pending_practice(self, limit: int, learner: tuple[str, str, str] | None) -> list[PendingAnswer]:
        mine = "AND r.platform = ? AND r.space_id = ? AND r.user_id = ? " if learner else ""
        # FOR UPDATE: a forget-me deleting these rounds waits, then deletes the cards written here
        sql = numbered(PENDING_PRACTICE.format(rounds="rounds r", learner=mine)) + " FOR UPDATE OF r"
        rows = await self.conn.fetch(sql, *(learner or ()), limit)
        return [PendingAnswer(int(r[0]), CardKey(r[1], r[2], r[3], r[4]), bool(r[6]), bool(r[5]), r[7]) for r in rows]

    async def clear_pending(self, round_ids: Sequence[int]) -> None:
        await self.conn.execute("UPDATE rounds SET learn_pending = NULL WHERE id = ANY($1::bigint[])", list(round_ids))

    async def mark_cards_pending(self, round_id: int) -> None:
        if round_id not in self._marked:  # (claim_batch marked its daily rounds)
            await self.conn.execute("UPDATE rounds SET cards_pending = 1 WHERE id = $1", round_id)

    async def space_to_learn(self) -> tuple[str, str] | None:
        row = await self.conn.fetchrow("SELECT platform, space_id FROM rounds WHERE cards_pending IS NOT NULL LIMIT 1")
        return None if row is None else (row[0], row[1])

    async def rounds_to_learn(self, platform: str, space_id: str, limit: int, user_id: str | None) -> list[Round]:
        """One statement reads the rounds and what their card updates read; the updates then wait for
        clear_cards_pending (one statement for the cards, one for the review log)."""
        found: list[Round] = []
        for r in await self.conn.fetch(ROUNDS_TO_LEARN, platform, space_id, limit, user_id):
            round_ = stored.round_from_row(r[:ROUND_WIDTH])
            answers, doubts, cards = r[ROUND_WIDTH:]
            self._batch.add(round_.id)  # its writes wait for the flush
            self._answers[round_.id] = tuple(stored.answer_from_row(a) for a in answers)
            self._doubts[round_.id] = set(doubts)
            ref = round_.ref
            self._cards.update({CardKey(ref.platform, ref.space_id, a[1], round_.question_id): None for a in answers})
            self._cards.update({c.key: c for c in map(stored.card_from_row, cards)})
            found.append(round_)
        return found

    async def clear_cards_pending(self, round_ids: Sequence[int]) -> None:
        await self.flush_writes()
        if round_ids:
            await self.conn.execute(
                "UPDATE rounds SET cards_pending = NULL WHERE id = ANY($1::bigint[])", list(round_ids)
            )

    async def cards_of(self, keys: Sequence[CardKey]) -> dict[CardKey, LearnerCard]:
        await self.flush_writes()  # the read sees what this transaction wrote
        rows = await self.conn.fetch(
            f"SELECT {', '.join('c.' + c for c in stored.CARD_COLUMNS.split(', '))} FROM learner_cards c "
            "JOIN unnest($1::text[], $2::text[], $3::text[], $4::text[]) "
            "AS k(platform, space_id, user_id, question_id) "
            "ON c.platform = k.platform AND c.space_id = k.space_id AND c.user_id = k.user_id "
            "AND c.question_id = k.question_id",
            [k.platform for k in keys],
            [k.space_id for k in keys],
            [k.user_id for k in keys],
            [k.question_id for k in keys],
        )
        return {c.key: c for c in map(stored.card_from_row, rows)}

    async def round_windows(self, round_ids: Sequence[int]) -> dict[int, tuple[dt.datetime | None, dt.datetime | None]]:
        # FOR SHARE: batches run side by side, but a reveal (UPDATE of the round) waits for them, and a
        # batch that waited for a reveal reads the revealed row; no answer slips in after a reveal.
        rows = await self.conn.fetch(
            "SELECT id, revealed_at, closes_at FROM rounds WHERE id = ANY($1::bigint[]) ORDER BY id FOR SHARE",
            list(round_ids),
        )
        return {r[0]: (r[1], r[2]) for r in rows}

    async def insert_answers(self, answers: Sequence[NewAnswer]) -> set[tuple[int, str]]:
        rows = await self.conn.fetch(
            "INSERT INTO answers (round_id, user_id, choice, correct, answered_at) "
            "SELECT * FROM unnest($1::bigint[], $2::text[], $3::smallint[], $4::boolean[], "
            "$5::timestamptz[]) ON CONFLICT DO NOTHING RETURNING round_id, user_id",
            *(list(column) for column in zip(*answers, strict=True)),
        )
        return {(r[0], r[1]) for r in rows}

    async def stored_choices(self, keys: Sequence[tuple[int, str]]) -> dict[tuple[int, str], int]:
        # read inside the batch's transaction, so it sees the batch's own rows
        return {
            (r[0], r[1]): int(r[2])
            for r in await self.conn.fetch(
                "SELECT a.round_id, a.user_id, a.choice FROM answers a "
                "JOIN unnest($1::bigint[], $2::text[]) AS k(round_id, user_id) "
                "ON a.round_id = k.round_id AND a.user_id = k.user_id",
                [k[0] for k in keys],
                [k[1] for k in keys],
            )
        }
