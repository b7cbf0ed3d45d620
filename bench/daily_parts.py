"""The pieces of bench.daily_minute shared by its one-process run and its split run (bench.daily_roles): the
clock, the fake platforms with their rate limits, the seeded store, the answer load and the quiet days."""

from __future__ import annotations

import array
import asyncio
import collections
import contextlib
import datetime as dt
import functools
import gc
import random
import resource
import shutil
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

from bot.app.bootstrap import bootstrap
from bot.bank.load import Bank, load_bank
from bot.daily.delivery import ANSWERING_BATCHES, Batching
from bot.daily.values import PostFinish
from bot.features import Features
from bot.kernel.rounds import ROUND_CACHE_SIZE
from bot.kernel.values import ChannelConfig, ChannelRef, NewAnswer, Period, SpaceFilter
from bot.practice.memory import LEARN_ROUNDS
from bot.store.ports import Store
from bot.store.sqlite import SqliteStore

DAY1 = dt.date(2026, 12, 1)  # a Tuesday: "today" of the loaded run
INSTANT = dt.datetime(2026, 12, 1, 9, tzinfo=dt.UTC)
LEAD = 10.0  # seconds of load before 09:00
START_LEAD = 10.0  # seconds for the bot's start before the load's: 10,000 channels on PostgreSQL took about 4
CALL = 0.05  # every fake platform call takes this long
CHANNELS_PER_SPACE = 10
HOT_ROUNDS = 20  # rounds open all along (answers go to them and to today's rounds as they are posted)
HOT_FOR = dt.timedelta(days=30)  # their promised reveal: after the quiet days (their answers are scored then)
# the leaderboards a running community has before the loaded day: its all-time board, this month's and the two
# past weeks' (this week's first reveal is 09:00's: DAY1 is a Tuesday), each with BOARD_USERS learners a space
HISTORY_BOARDS = (("all", "all"), ("month", "2026-11"), ("week", "2026-W47"), ("week", "2026-W48"))
BOARD_USERS = 50
DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/test"


@functools.cache
def daily_bank() -> Bank:
    """The shipped question bank (520 questions), as the bot runs it: a daily pick chooses among the whole
    bank, so a smaller synthetic one made the fan-out look cheaper than it is."""
    return load_bank()


class RealTimeClock:
    """A clock that starts at a chosen instant and advances with the real (monotonic) clock."""

    def __init__(self, start: dt.datetime, t0: float | None = None) -> None:
        self.jump(start, t0)

    def jump(self, to: dt.datetime, t0: float | None = None) -> None:
        """`to` now, or at monotonic instant `t0` (the monotonic clock is one for every process here)."""
        self._base = to
        self._t0 = time.monotonic() if t0 is None else t0

    def now(self) -> dt.datetime:
        return self._base + dt.timedelta(seconds=time.monotonic() - self._t0)


class Limits:
    """Sliding windows of call times per key; `wait` returns once a call fits every window of its keys. Keys
    whose window has emptied are let go now and then (a deque per channel is the harness's memory, not the
    bot's: at 10,000 channels it was 9 MB of the RSS)."""

    SWEEP_EVERY = 2_000  # calls between sweeps

    def __init__(self) -> None:
        self._calls: dict[tuple[str, str], collections.deque[float]] = collections.defaultdict(collections.deque)
        self._period: dict[str, float] = {}  # per kind: its window
        self._until_sweep = self.SWEEP_EVERY
        self.waited = 0.0

    def sweep(self, now: float) -> None:
        """Let go of the keys with no call left in their window."""
        self._calls = collections.defaultdict(
            collections.deque,
            {k: calls for k, calls in self._calls.items() if calls and calls[-1] > now - self._period[k[0]]},
        )

    async def wait(self, windows: list[tuple[str, str, int, float]]) -> None:
        while True:
            now = time.monotonic()
            delay = 0.0
            for kind, key, limit, period in windows:
                calls = self._calls[(kind, key)]
                while calls and calls[0] <= now - period:
                    calls.popleft()
                if len(calls) >= limit:
                    delay = max(delay, calls[0] + period - now)
            if delay <= 0:
                for kind, key, _limit, period in windows:
                    self._calls[(kind, key)].append(now)
                    self._period[kind] = period
                self._until_sweep -= 1
                if self._until_sweep <= 0:
                    self._until_sweep = self.SWEEP_EVERY
                    self.sweep(now)
                return
            self.waited += delay
            await asyncio.sleep(delay)


class FakePlatform:
    """A chat service that takes CALL seconds per call and keeps to its rate limits (by waiting)."""

    def __init__(
        self, name: str, clock: RealTimeClock, log: dict[tuple[str, str], dt.datetime], opened: list[int]
    ) -> None:
        self.name = name
        self.clock = clock
        self.limits = Limits()
        self.log = log  # (kind, channel id) -> when its call finished (clock time)
        self.opened = opened  # round ids posted (the answer load picks among them)
        self.calls = 0
        self.in_flight = 0
        self.max_in_flight = 0

    def _windows(self, ref: ChannelRef) -> list[tuple[str, str, int, float]]:
        if self.name == "discord":
            return [("channel", ref.channel_id, 5, 5.0), ("global", "", 50, 1.0)]
        return [("channel", ref.channel_id, 1, 1.0), ("workspace", ref.space_id, 300, 60.0)]

    async def _call(self, ref: ChannelRef, kind: str) -> None:
        await self.limits.wait(self._windows(ref))
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await asyncio.sleep(CALL)
        finally:
            self.in_flight -= 1
        self.calls += 1
        self.log[(kind, ref.channel_id)] = self.clock.now()

    async def post_question(self, ref, card) -> str:  # type: ignore[no-untyped-def]
        await self._call(ref, "post")
        self.opened.append(card.round_id)
        return f"m{card.round_id}"

    async def post_reveal(self, ref, card) -> None:  # type: ignore[no-untyped-def]
        await self._call(ref, "reveal")

    async def send_private(self, ref, user_id, text) -> None:  # type: ignore[no-untyped-def]
        return None


def channel_refs(n: int, discord_share: float) -> list[ChannelRef]:
    n_discord = round(n * discord_share)
    refs = []
    for i in range(n):
        platform = "discord" if i < n_discord else "slack"
        space = str((1000 + i // CHANNELS_PER_SPACE) << 22) if platform == "discord" else f"T{i // CHANNELS_PER_SPACE}"
        refs.append(ChannelRef(platform, space, f"c{i}"))
    return refs


async def seed(store: Store, refs: list[ChannelRef], answers_per_round: int) -> list[int]:
    """Channels due at 09:00 with yesterday's round posted and answered, its reveal promised for 09:00; plus
    HOT_ROUNDS open rounds that stay open, and the spaces' leaderboards of the past weeks (seed_boards).
    Returns the hot rounds' ids."""
    bank = daily_bank()
    yesterday = DAY1 - dt.timedelta(days=1)
    opened_at = INSTANT - dt.timedelta(days=1)

    async def one(i: int, ref: ChannelRef) -> int:
        await store.save_channel(ChannelConfig(ref=ref, paused=False))
        q = bank.questions[i % len(bank.questions)]
        r = await store.claim_daily_round(ref, yesterday, q.id, q.topic, opened_at, INSTANT)
        assert r is not None
        await store.finish_posts([PostFinish(r.id, "sent", message_id=f"y{r.id}")])
        await store.set_next_post(ref, INSTANT)
        return r.id

    round_ids: list[int] = []
    for k in range(0, len(refs), 100):  # a hundred at once (PostgreSQL's pool takes them side by side)
        round_ids += await asyncio.gather(*(one(k + j, ref) for j, ref in enumerate(refs[k : k + 100])))
    hot: list[int] = []
    for k in range(HOT_ROUNDS):
        ref = ChannelRef("slack", "Thot", f"hot{k}")
        await store.save_channel(ChannelConfig(ref=ref, paused=False))
        q = bank.questions[k % len(bank.questions)]
        r = await store.claim_daily_round(ref, DAY1, q.id, q.topic, INSTANT - dt.timedelta(hours=1), INSTANT + HOT_FOR)
        assert r is not None
        await store.finish_posts([PostFinish(r.id, "sent", message_id=f"h{r.id}")])
        await store.set_next_post(ref, INSTANT + HOT_FOR)
        hot.append(r.id)
    at = opened_at + dt.timedelta(minutes=5)
    batch: list[NewAnswer] = []
    for rid in round_ids:
        for u in range(answers_per_round):
            batch.append(NewAnswer(rid, f"u{u}", u % 4, u % 4 == 0, at))
            if len(batch) >= 2000:
                await store.add_answers(batch, at)
                batch = []
    if batch:
        await store.add_answers(batch, at)
    await seed_boards(store, sorted({(r.platform, r.space_id) for r in refs} | {("slack", "Thot")}))
    await fresh_statistics(store)
    return hot


def board_rows(
    spaces: Sequence[tuple[str, str]], stored: Callable[[dt.datetime], object]
) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    """(scores rows, score_buckets rows) of the HISTORY_BOARDS of these spaces: BOARD_USERS learners each,
    yesterday's answerers (u0, u1, ...) among them, points as a board's would be; `stored` writes a reached_at."""
    rng = random.Random(7)
    scores: list[tuple[object, ...]] = []
    buckets: list[tuple[object, ...]] = []
    for platform, space in spaces:
        for period, key in HISTORY_BOARDS:
            top = {"all": 4000, "month": 1200, "week": 300}[period]
            users = collections.Counter()
            for n in range(BOARD_USERS):
                user = f"u{n}" if n < 20 else f"h{n}"
                answered = rng.randint(1, top // 10)
                correct = rng.randint(0, answered)
                points = correct * 10
                reached = INSTANT - dt.timedelta(days=2, minutes=rng.randint(0, 60 * 24 * 7))
                scores.append((platform, space, period, key, user, points, correct, answered, stored(reached)))
                users[points] += 1
            buckets += [(platform, space, period, key, points, n) for points, n in sorted(users.items())]
    return scores, buckets


async def seed_boards(store: Store, spaces: Sequence[tuple[str, str]]) -> None:
    """Leaderboards with a history (board_rows), written as `studybot db copy` writes rows. A store with empty
    boards read them as nothing (PostgreSQL's planner, told by ANALYZE the table was empty, kept a full scan for
    the leaderboard reads prepared before 09:00, and every read then scanned all the boards the fan-out wrote)."""
    from bot.store.copy_tables import TABLES
    from bot.store.postgres import PostgresStore
    from bot.store.rows import to_ts

    if not isinstance(store, SqliteStore | PostgresStore):
        raise TypeError(f"no bulk import on {type(store).__name__}")
    # asyncpg takes datetimes; SQLite stores the text
    scores, buckets = board_rows(spaces, to_ts if isinstance(store, SqliteStore) else (lambda t: t))
    columns = {name: [column for column, _kind in spec] for name, spec, _order in TABLES}  # as `db copy` has them

    async def batches() -> AsyncIterator[tuple[str, Sequence[str], list[tuple[object, ...]]]]:
        yield "scores", columns["scores"], scores
        yield "score_buckets", columns["score_buckets"], buckets

    await store.import_rows(batches())


async def fresh_statistics(store: Store) -> None:
    """On PostgreSQL, the statistics autovacuum keeps in a database that has been running: a store seeded in
    seconds has none yet, and the planner then reads every round of a platform for one space's pick inputs
    (3.6 ms of the server's time per read at 2,000 channels, 0.5 ms with statistics) and the fan-out measures
    the missing ANALYZE, not the bot."""
    from bot.store.postgres import PostgresStore

    if isinstance(store, PostgresStore):
        await store.pool.execute("ANALYZE")


async def server_wal(store: Store) -> dict[str, Any]:
    """On PostgreSQL: the WAL the server has written so far (bytes), the checkpoints it has begun and its
    max_wal_size; nothing on SQLite. A checkpoint in the measured minute makes the next change to each page a
    full image in the WAL, which the answers' commits wait for (docs/operations.md)."""
    from bot.store.postgres import PostgresStore

    if not isinstance(store, PostgresStore):
        return {}
    from bench.postgres import checkpoints_begun, wal_insert_position  # asyncpg is the postgres extra's

    return {
        "wal": await wal_insert_position(store.pool),
        "checkpoints": await checkpoints_begun(store.pool),
        "max_wal_size": await store.pool.fetchval("SHOW max_wal_size"),
    }


def wal_figures(before: dict[str, Any], after: dict[str, Any], channels: int) -> dict[str, Any]:
    """The server's WAL and checkpoints between two server_wal readings (nothing on SQLite)."""
    if not before:
        return {}
    wal = after["wal"] - before["wal"]
    return {
        "wal_mb": wal / 1e6,
        "wal_kb_per_channel": wal / 1e3 / channels,
        "checkpoints": after["checkpoints"] - before["checkpoints"],
        "max_wal_size": after["max_wal_size"],
    }


def quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@contextlib.asynccontextmanager
async def sqlite_store() -> AsyncIterator[Store]:
    folder = tempfile.mkdtemp(prefix="studybot-bench-daily-")
    store = SqliteStore(Path(folder) / "bench.db")
    await store.open()
    try:
        yield store
    finally:
        await store.close()
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.asynccontextmanager
async def postgres_store(server: str) -> AsyncIterator[Store]:
    from bench.postgres import throwaway_database
    from bot.store.postgres import PostgresStore

    async with throwaway_database(server) as url:
        store = PostgresStore(url)
        await store.open()
        try:
            yield store
        finally:
            await store.close()


class AnswerLoad:
    """Answers at `rate` a second (to a random round of `opened`) and leaderboard reads at `reads` a second
    through one service, each timed from when it was planned, as an adapter starts a task per event."""

    def __init__(
        self,
        service: Features,
        opened: list[int],
        spaces: list[tuple[str, str]],
        rate: int,
        reads: int,
        *,
        users: str = "p",
    ):
        self.service = service
        self.users = users  # the answering people's ids: this prefix and a number
        self.opened = opened
        self.spaces = spaces
        self.rate = rate
        self.reads_per_s = reads
        self.rng = random.Random(2)
        self.latencies = array.array("d")  # 8 bytes an answer, not a float object each: the harness is not the bot
        self.planned_at = array.array("d")  # each answer's planned start, in seconds after 09:00 (the same order)
        self.missed = array.array("b")  # 1: the answer's round was not in the process's round cache (the same order)
        self.errors: collections.Counter[str] = collections.Counter()
        self.reads: list[float] = []
        self.tasks: set[asyncio.Task[None]] = set()
        self.start = 0.0

    async def _answer(self, user: int, planned: float) -> None:
        loop = asyncio.get_running_loop()
        round_id = self.rng.choice(self.opened)
        self.missed.append(self.service.answers.rounds.get(round_id) is None)
        try:
            await self.service.answers.submit_answer(round_id, f"{self.users}{user}", user % 4)
        except Exception as exc:  # closed rounds, duplicates: still a full trip through the core
            self.errors[type(exc).__name__] += 1
        self.latencies.append(loop.time() - planned)
        self.planned_at.append(planned - self.start - LEAD)

    async def _read(self, planned: float) -> None:
        platform, space = self.rng.choice(self.spaces)
        await self.service.boards.leaderboard(platform, space, Period.WEEK, "p1")
        self.reads.append(asyncio.get_running_loop().time() - planned)

    def _spawn(self, coro) -> None:  # type: ignore[no-untyped-def]
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def run(self, seconds: float, done: Callable[[], bool], deadline: float) -> None:
        """Fire for `seconds` (from LEAD s before 09:00); then wait until `done()` or `deadline` s have passed."""
        loop = asyncio.get_running_loop()
        self.start = loop.time()
        n_answers = n_reads = 0
        while True:
            elapsed = loop.time() - self.start
            if elapsed >= seconds and (done() or elapsed >= deadline):
                break
            if elapsed < seconds:
                while n_answers < elapsed * self.rate:
                    self._spawn(self._answer(n_answers, self.start + n_answers / self.rate))
                    n_answers += 1
                while n_reads < elapsed * self.reads_per_s:
                    self._spawn(self._read(self.start + n_reads / self.reads_per_s))
                    n_reads += 1
            await asyncio.sleep(0.001)
        await asyncio.gather(*self.tasks)

    def figures(self, fan_out_end: float) -> dict[str, float]:
        """Answer and read latencies (ms): p50, p99, p99.9, max, and p99 by when the answers came."""
        q = statistics.quantiles(self.latencies, n=1000) if len(self.latencies) > 1000 else [float("nan")] * 999
        out = {
            "answers": float(len(self.latencies)),
            "answer_p50_ms": q[499] * 1000,
            "answer_p99_ms": q[989] * 1000,
            "answer_p999_ms": q[998] * 1000,
            "answer_max_ms": max(self.latencies, default=float("nan")) * 1000,
            "read_p99_ms": quantile(self.reads, 0.99) * 1000,
        }
        out.update(
            {f"answer_p99_ms {k}": v for k, v in window_p99(self.latencies, self.planned_at, fan_out_end).items()}
        )
        during = [
            (lat, m)
            for lat, m, at in zip(self.latencies, self.missed, self.planned_at, strict=True)
            if 0 <= at < fan_out_end
        ]
        out.update(p99_by_bin(self.latencies, self.planned_at, fan_out_end))
        for name, flag in (("missed", 1), ("cached", 0)):
            picked = [lat for lat, m in during if m == flag]
            out[f"answers during, {name}"] = float(len(picked))
            out[f"answer_p99_ms during, {name}"] = quantile(picked, 0.99) * 1000
        return out


SETTLED = 1.0  # s: answers planned in the last second before 09:00 may still be in flight when the tick starts


def window_p99(latencies: Sequence[float], planned_at: Sequence[float], fan_out_end: float) -> dict[str, float]:
    """Answer p99 (ms) by when the answers were planned: before 09:00 (up to SETTLED s before it, so none is
    still waiting when the tick starts at 09:00:00), during the fan-out, after it."""
    windows = {
        "before 09:00": (-LEAD, -SETTLED),
        "during the fan-out": (0.0, fan_out_end),
        "after it": (fan_out_end, 1e9),
    }
    return {
        name: quantile([lat for lat, at in zip(latencies, planned_at, strict=True) if lo <= at < hi], 0.99) * 1000
        for name, (lo, hi) in windows.items()
    }


BIN = 5.0  # s: the width of the bins of p99_by_bin


def p99_by_bin(latencies: Sequence[float], planned_at: Sequence[float], fan_out_end: float) -> dict[str, float]:
    """Answer p99 (ms) per BIN s from 09:00 to the end of the fan-out ("p99 bin 0": 09:00:00 to 09:00:05, ...), to
    see where in the fan-out its tail comes from."""
    bins: dict[int, list[float]] = collections.defaultdict(list)
    for lat, at in zip(latencies, planned_at, strict=True):
        if 0 <= at < fan_out_end:
            bins[int(at // BIN)].append(lat)
    return {f"p99 bin {k}": quantile(v, 0.99) * 1000 for k, v in sorted(bins.items())}


def split_ratio(figures: dict[str, float]) -> float:
    """Answer p99 during the fan-out over answer p99 before 09:00 (the split works when it stays <= 2)."""
    return figures["answer_p99_ms during the fan-out"] / figures["answer_p99_ms before 09:00"]


def sent_after(sent: dict[tuple[str, str], dt.datetime], refs: list[ChannelRef], kind: str) -> list[float]:
    """Seconds after 09:00 at which each channel's `kind` ("post" or "reveal") went out (those that did)."""
    return [(sent[(kind, r.channel_id)] - INSTANT).total_seconds() for r in refs if (kind, r.channel_id) in sent]


def lane_ends(sent: dict[tuple[str, str], dt.datetime], refs: list[ChannelRef]) -> dict[str, float]:
    """Per platform (a lane of the tick), the seconds after 09:00 of its last post or reveal."""
    ends = {}
    for platform in sorted({r.platform for r in refs}):
        mine = [r for r in refs if r.platform == platform]
        ends[f"{platform}_last_s"] = max(sent_after(sent, mine, "post") + sent_after(sent, mine, "reveal"), default=0.0)
    return ends


async def write_marked_cards(store: Store) -> tuple[int, float]:
    """Write every daily round's card updates still marked (Store.learn_rounds back to back, as the tick does
    with no rests): how many rounds, and this process's CPU seconds for them."""
    written, cpu = 0, time.process_time()
    while done := await store.learn_rounds(LEARN_ROUNDS):
        written += done
    return written, time.process_time() - cpu


async def quiet_day(
    store: Store,
    clock: RealTimeClock,
    platforms: dict[str, FakePlatform],
    sent: dict[tuple[str, str], dt.datetime],
    expected: int,
    day: int,
    batching: Batching = ANSWERING_BATCHES,
    round_cache: int = ROUND_CACHE_SIZE,
) -> tuple[float, float, int]:
    """(CPU s, wall s, sends) of day `day`'s fan-out with nothing else going on, its card updates included (the
    tick's work run back to
    back, no 15 s wait between ticks, in a lane per platform as the scheduler runs it: in one lane, Discord's
    global limit held up the Slack channels' sends, and the waits' retries added to the CPU), cut in batches as
    the process's role cuts them (`batching`), keeping as many rounds in memory as its role does (`round_cache`)."""
    sent.clear()
    at = INSTANT + dt.timedelta(days=day)
    clock.jump(at - dt.timedelta(seconds=1))
    rng = random.Random(2 + day)
    service = bootstrap(
        store, daily_bank(), clock, dict(platforms), rng=rng, batching=batching, round_cache=round_cache
    )
    gc.collect()
    cpu1 = time.process_time()
    t1 = time.perf_counter()
    await asyncio.sleep(1.0)
    lanes = SpaceFilter(platforms=tuple(sorted(platforms)))  # a lane per platform, as the scheduler's tick
    while len(sent) < expected and time.perf_counter() - t1 < 120:
        await service.delivery.run_due_work(lanes)
        await asyncio.sleep(0.01)
    await write_marked_cards(store)  # the reveals' card updates, which the tick writes after them
    cpu = time.process_time() - cpu1
    wall = time.perf_counter() - t1 - 1.0
    await service.close()
    return cpu, wall, len(sent)
