"""The busiest minute: every channel reveals yesterday's round and posts today's at 09:00 while answers
arrive at 10,000/s and the leaderboard is read 50/s.

Run: python -m bench.daily_minute [--channels 10000] [--seconds 60] [--store sqlite|postgres|both]
     [--url postgresql://postgres@127.0.0.1:5432/test] [--discord-share 0.1] [--rate 10000] [--reads 50]

The store is seeded directly (channels due at 09:00 UTC, yesterday's round of each posted with answers
waiting to be scored, its reveal promised for 09:00). Then the bot's own DailyScheduler runs on a clock that
starts 10 s before 09:00 and advances in real time (APScheduler's interval job, the real TICK), against a
fake platform per chat service: every call takes 50 ms and waits, as the client libraries do, to keep to the
documented rate limits (Discord: 5 messages per 5 s per channel, 50 requests/s globally; Slack: 1 message
per second per channel, 300 per minute per workspace). A second, quiet day follows (no answers, no reads)
to measure the core's CPU time per channel (post + reveal; the fake calls sleep, so they cost no CPU); it
reveals the loaded day's rounds, so it also scores their answers and updates the learners' cards. A third
day reveals the second day's rounds, which nobody answered: that is the fan-out's own cost, the "core per
channel" figure.

Targets: answer p99 < 20 ms, p99.9 < 50 ms; every channel posted and revealed within 60 s of 09:00; core
overhead per channel < 0.5 ms; RSS high-water mark < 150 MB. SQLite files live in a temporary folder
and PostgreSQL in a throwaway database; both are removed afterwards.

Measured 2026-12-01 on the shared 2-core machine (8 other sessions busy), main before the batched tick and
after it, back to back with this script (ratios are the figure; single runs, so noisy):
                         core per channel   posted/revealed max (s)   answer p99 (ms)   RSS (MB)
  SQLite   1,000 ch      1.13 -> 0.44 ms    10.7/8.5 -> 8.5/7.2       123 -> 101        100 -> 102
  SQLite  10,000 ch      1.11 -> 0.48 ms    58.3/41.1 -> 47.5/31.0    133 -> 119        121 -> 122
  PostgreSQL  1,000 ch   1.74 -> 0.86 ms    14.0/12.3 -> 21.7/17.9*   355 -> 530*       101 -> 112
  PostgreSQL 10,000 ch   1.75 -> 0.81 ms    86.3/68.2 -> 77.8/63.0    232 -> 94         187 -> 177
(* another benchmark ran beside it; with five reveals a transaction instead of ten, PostgreSQL 1,000 ch in
another pair of runs: 1.63 -> 0.92 ms, 12.0/10.5 -> 12.4/10.6 s, answer p99 120 -> 39 ms.) Trips to SQLite's
thread per channel's post + reveal: 14 -> 0.5. The
answer p99 and the 10,000-channel PostgreSQL deadline are missed on this machine both before and after: the
one event loop is saturated (the loaded run uses ~50 s of CPU in its 60 s), and the Discord lane alone needs
40 s for 1,000 channels' 2,000 calls at 50 requests/s. The second day's figure (reveals scoring the loaded
day's answers and cards) is 22 -> 21 ms per channel at 600 answers a round: the scoring, not the fan-out.

Then (2026-12-01, quiet machine, no other session; main f07187e vs the perf2 branch, back to back, one run
each): PostgreSQL's grouped finishes go in one executemany pipeline instead of a trip per row, and a reveal
batch takes a space's advisory lock once per transaction instead of again for each round. A cProfile of the
bare quiet day (2,000 channels) showed 22.5 asyncpg statements per channel, the socket sends alone a tenth
of the CPU, so trips are the cost on this path.
                         core per channel   posted/revealed max (s)   answer p99 (ms)   RSS (MB)
  PostgreSQL  1,000 ch   0.873 -> 0.777 ms  12.4/10.5 -> 11.9/10.4    46 -> 66          103 -> 102
  PostgreSQL 10,000 ch   0.989 -> 0.878 ms  81.8/65.7 -> 71.2/57.4    216 -> 116        185 -> 192
Ratios: core per channel 0.89 at both sizes; at 10,000 channels the last post 0.87 and the last reveal 0.87
of main's (the reveals are now inside 60 s, the posts still 11 s late: posts start only once every reveal of
the lane is done, the first one 29 s after 09:00). RSS is unchanged within noise and still over 150 MB;
answer p99 is single-run noise (the loop is saturated either way). Still missed: core < 0.5 ms and the 60 s
post deadline on PostgreSQL; the remaining per-round trips of a reveal (claim, answers, previous date,
speed bonus) are the next target.

Then (2026-12-01, busy shared machine; main aad1a00 vs the pgtrips branch, two pairs of single runs, 10,000
channels): a PostgreSQL reveal batch takes its round and space locks in one statement and claims all its
rounds in one more, which also reads their answers, previous dates, streaks, doubts, cards and channels; the
reveal steps answer from those rows and only the writes go to the server. Trips per quiet round: ~5.6 -> ~1.2.
Core per channel (quiet day): 1.292 -> 0.942 ms and 1.294 -> 0.895 ms (ratio 0.73 and 0.69; main is slower
here than the 0.878 ms above because the machine was busier). Still over 0.5 ms; the loaded runs' answer
p99 and deadlines swung with the machine's load (runs with "Busy" refusals on both sides), no ratio there.

Then (2026-12-02, a quiet machine of its own, slower than the one above: main b00bdd8 vs main with the
tick as background work, one run each, 10,000 channels). py-spy showed answer batches queued behind the
tick's reveal and post transactions on SQLite's one connection (an answer batch of 1 ms waited 250 ms behind
a dozen reveals), and on PostgreSQL the fan-out holding every pooled connection. Now the tick runs in
bot.priority.background(): SQLite's TurnLock hands the connection to answer batches and reads first, and
PostgreSQL's background work holds at most 7 of the pool's 10 connections.
                         answer p99 / p99.9 (ms)      posted/revealed max (s)    core per channel   RSS (MB)
  SQLite                 503 / 615 -> 55 / 123        72.0/59.1 -> 81.4/66.7      0.934 -> 0.984     102 -> 98
  PostgreSQL (FG 0 / 3)  520 / 614 -> 127 / 195       118*/104.8 -> 111.4/91.2    n/a -> 1.357       118 -> 143
(* only 5,211 of 10,000 posted when the run stopped waiting.) Ratios: answer p99 0.11 on SQLite and 0.24 on
PostgreSQL (FOREGROUND_CONNECTIONS 0 and 3 back to back); the fan-out ends 1.13x later on SQLite (the
store's thread is saturated: a policy that gave every third turn to the tick let answers pile up, 243,577
refused). Two more PostgreSQL runs of the new main: 73 / 219 ms, 99.2/80.1 s, 149 MB; and one with the server
slow from the start (seeded in 33 s instead of 15) in which answers fell behind and never caught up (570,672
refused, RSS 1.2 GB: the harness keeps starting 10,000 tasks a second). With the database on tmpfs
(TMPDIR=/dev/shm) SQLite gives 40 / 55 ms: the rest of the disk run's tail is the disk (writes stalled while
a checkpoint synced). Larger answer batches (a batch at most every 4 ms) cut the answers-only CPU to 0.85
but did not move the loaded figures (39 / 53 vs 40 / 55 ms on tmpfs), so they are not in. py-spy --gil of
the loaded run: a fifth of the GIL goes to the harness starting a task per answer, as an adapter does.

Then (2026-12-02, the next session, same kind of machine; single runs, and on this machine one build's
runs swing by +-20%): a timed probe of every store transaction showed a loaded-day reveal batch (5 rounds of
20 answers) holding SQLite's connection 9-11 ms of its thread's CPU, so an answer batch can wait that long.
The scores upsert now also writes when each total was reached and returns the totals before (two statements
a board fewer), and migration 072 drops the unread index scores_top (bench/reveal_batch.py: about 0.9 of the
CPU per revealed round on both stores, in alternating runs). SQLite, main at the start of the session ->
after: answer p99 / p99.9 59.9 / 168 -> 58.7 / 182 ms, posted/revealed max 72.5/59.6 -> 74.5/62.7 s, core
per channel 0.769 -> 0.773 ms, RSS 98 -> 104 MB: no change beyond the noise. PostgreSQL after: 77 / 157 ms,
100.4/76.0 s, 1.317 ms, 138 MB. Tried and left out: uvloop (fan-out 0.9 of the time, answer p99 2.3x
worse in one run), REVEAL_BATCH 2 on SQLite (answer p99 91 ms), sys.setswitchinterval(0.001) (within noise).

Then (2026-12-02, a slower machine: about a third of the last one's speed, 20% CPU steal; single runs), with
the idle-priority checkpoint thread and the cheaper answer path. SQLite, main 3779d20 -> after: answer p99 /
p99.9 60.7 / 77.4 -> 60.4 / 90.1 ms, posted/revealed max 104.2/89.2 -> 96.4/82.3 s, core per channel
1.668 -> 1.679 ms, CPU of the loaded run 114.1 -> 103.9 s, RSS 85 -> 100 MB. PostgreSQL cannot carry this
load on this machine: main 3779d20 kept the answers (p99 216 ms) but posted 1,000 of 10,000 channels (the
quiet days then sent nothing); after, two runs posted and revealed every channel (max 99.9/73.6 and
116.9/84.0 s, core per channel 2.02 and 2.13 ms) but the answers fell behind for good (503,000-581,000
refused as Busy, RSS 1.8-2.0 GB as the harness keeps starting 10,000 tasks a second), with the server slow
from the start (seeding 24-40 s against 21.5 s). A second pair, back to back: main 3779d20 p99 210 ms, posted
1,246 of 10,000; after, p99 191 ms, posted 3,922, loaded-run CPU 93.6 -> 87.3 s. So which side gives way on a
saturated loop varies from run to run; no run on this machine, before or after, met the targets.

Then (2026-12-03, a quiet machine of its own, about 2.5x the speed of the one above: a 10M-step Python loop
in 0.20-0.24 s; main ee39248, one run per row, back to back):
                         answer p99 / p99.9 (ms)   posted/revealed max (s)   core per channel   RSS (MB)
  SQLite      1,000 ch   23.2 / 35.5               10.4/9.0                  0.751 ms           80
  SQLite     10,000 ch   34.2 / 47.7               71.6/58.8                 0.823 ms           95
  PostgreSQL  1,000 ch   24.4 / 43.7               16.0/13.4                 1.354 ms           103
  PostgreSQL 10,000 ch   73.9 / 130.0              91.2/72.6                 1.086 ms           152
Every channel was posted and revealed in all four; the loaded runs used 70.7 s (SQLite) and 62.1 s
(PostgreSQL) of CPU at 10,000 channels, so the one event loop is still the limit. Main before ee39248 (the
schedule's resolved instants and the boards' period keys kept for the fan-out) on SQLite at 10,000
channels, the same morning: 31.3 / 52.3 ms, 69.2/57.2 s, 0.783 ms, 95 MB; the same within noise here (a
quiet-day probe without the platform's waits gave about 0.9 of the CPU per channel in 3 alternating pairs).
The answer p99 is now also given by when the answers came: in two more SQLite runs at 1,000 channels,
before 09:00 4.6 and 9.7 ms, during the fan-out 25.8 and 35.6 ms, after it 31.1 and 46.7 ms. So the tail
is not the fan-out alone: once the answers spread over the day's 1,000 new rounds (before 09:00 they go to
20), they stay slow with only the answers and the reads running (the two runs' whole-run p99 were 28.6
and 41.9 ms: on this machine one build's runs differ by half).

Then (2026-12-05, the shared 2-core machine in a quiet spell; r29 d90e8ff with aiosqlite vs the store on its
own connection thread, bot.store.sqlite_thread; SQLite, --channels 1000 --seconds 10, three alternating
pairs): core per channel 0.604, 0.455, 0.510 ms before, 0.484, 0.473, 0.464 ms after (medians 0.510 ->
0.473, ratio 0.93: within this machine's noise); posted/revealed max 8.3/6.8 s on both.
"""

from __future__ import annotations

import argparse
import array
import asyncio
import collections
import contextlib
import datetime as dt
import gc
import logging
import random
import resource
import shutil
import statistics
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

from bench.common import synthetic_bank
from bot.app.bootstrap import bootstrap
from bot.app.runtime import tune_gc
from bot.app.scheduler import DailyScheduler
from bot.daily.values import PostFinish
from bot.kernel.context import DEFAULT_SEND_LEASE as SEND_LEASE
from bot.kernel.values import ChannelConfig, ChannelRef, NewAnswer, Period
from bot.store.ports import Store
from bot.store.sqlite import SqliteStore

DAY1 = dt.date(2026, 12, 1)  # a Tuesday: "today" of the loaded run
INSTANT = dt.datetime(2026, 12, 1, 9, tzinfo=dt.UTC)
LEAD = 10.0  # seconds of load before 09:00
CALL = 0.05  # every fake platform call takes this long
CHANNELS_PER_SPACE = 10
HOT_ROUNDS = 20  # rounds open all along (answers go to them and to today's rounds as they are posted)
HOT_FOR = dt.timedelta(days=30)  # their promised reveal: after the quiet days (their answers are scored then)
DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/test"


class RealTimeClock:
    """A clock that starts at a chosen instant and advances with the real (monotonic) clock."""

    def __init__(self, start: dt.datetime) -> None:
        self.jump(start)

    def jump(self, to: dt.datetime) -> None:
        self._base = to
        self._t0 = time.monotonic()

    def now(self) -> dt.datetime:
        return self._base + dt.timedelta(seconds=time.monotonic() - self._t0)


class Limits:
    """Sliding windows of call times per key; `wait` returns once a call fits every window of its keys."""

    def __init__(self) -> None:
        self._calls: dict[tuple[str, str], collections.deque[float]] = collections.defaultdict(collections.deque)
        self.waited = 0.0

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
                for kind, key, _limit, _period in windows:
                    self._calls[(kind, key)].append(now)
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
    HOT_ROUNDS open rounds that stay open. Returns the hot rounds' ids."""
    bank = synthetic_bank()
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
    return hot


def quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def run(store: Store, label: str, args: argparse.Namespace) -> dict[str, float]:
    refs = channel_refs(args.channels, args.discord_share)
    t_seed = time.perf_counter()
    hot = await seed(store, refs, args.answers_per_round)
    seeded = time.perf_counter() - t_seed
    gc.collect()
    rss_seeded = rss_mb()
    clock = RealTimeClock(INSTANT - dt.timedelta(seconds=LEAD))
    sent: dict[tuple[str, str], dt.datetime] = {}
    opened: list[int] = list(hot)
    platforms = {name: FakePlatform(name, clock, sent, opened) for name in ("discord", "slack")}
    service = bootstrap(store, synthetic_bank(), clock, dict(platforms), rng=random.Random(1))
    scheduler = DailyScheduler(service, clock)
    live = [service]  # the loaded run's service, for the answers and reads (let go before the quiet days)
    rng = random.Random(2)
    latencies = array.array("d")  # 8 bytes an answer, not a float object each: the harness's memory is not the bot's
    planned_at = array.array("d")  # each answer's planned start, in seconds after 09:00 (the same order)
    errors: collections.Counter[str] = collections.Counter()
    reads: list[float] = []
    loop = asyncio.get_running_loop()
    tasks: set[asyncio.Task[None]] = set()
    spaces = sorted({(r.platform, r.space_id) for r in refs})

    async def answer(user: int, planned: float) -> None:
        try:
            await live[0].answers.submit_answer(rng.choice(opened), f"p{user}", user % 4)
        except Exception as exc:  # closed rounds, duplicates: still a full trip through the core
            errors[type(exc).__name__] += 1
        latencies.append(loop.time() - planned)
        planned_at.append(planned - start - LEAD)

    async def read(planned: float) -> None:
        platform, space = rng.choice(spaces)
        await live[0].boards.leaderboard(platform, space, Period.WEEK, "p1")
        reads.append(loop.time() - planned)

    def spawn(coro) -> None:  # type: ignore[no-untyped-def]
        task = asyncio.ensure_future(coro)
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    cpu0 = time.process_time()
    await scheduler.start()
    start = loop.time()
    n_answers = n_reads = 0
    expected = 2 * len(refs)
    deadline = args.seconds + 60  # stop waiting for the fan-out after this
    while True:
        elapsed = loop.time() - start
        if elapsed >= args.seconds and (len(sent) >= expected or elapsed >= deadline):
            break
        if elapsed < args.seconds:
            while n_answers < elapsed * args.rate:
                spawn(answer(n_answers, start + n_answers / args.rate))
                n_answers += 1
            while n_reads < elapsed * args.reads:
                spawn(read(start + n_reads / args.reads))
                n_reads += 1
        await asyncio.sleep(0.001)
    await asyncio.gather(*tasks)
    loaded_cpu = time.process_time() - cpu0
    rss_loaded = rss_mb()
    posts = [(sent[("post", r.channel_id)] - INSTANT).total_seconds() for r in refs if ("post", r.channel_id) in sent]
    reveals = [
        (sent[("reveal", r.channel_id)] - INSTANT).total_seconds() for r in refs if ("reveal", r.channel_id) in sent
    ]

    # the quiet day: no answers, no reads; CPU time of the fan-out per channel
    for _ in range(300):  # a tick still running finishes first (shutting down would cancel it)
        if not scheduler._lock.locked():
            break
        await asyncio.sleep(0.1)
    await scheduler.stop()  # a tick still running after the wait is cancelled cleanly (not an error)
    sent.clear()
    await service.close()
    live.clear()  # a bot has one service: the quiet days' own services reuse this one's memory
    del service, scheduler
    scored = await store.count_rows(["answers"])

    async def quiet_day(day: int) -> tuple[float, float, int]:
        """(CPU s, wall s, sends) of one day's fan-out with nothing else going on."""
        sent.clear()
        at = INSTANT + dt.timedelta(days=day)
        clock.jump(at - dt.timedelta(seconds=1))
        service2 = bootstrap(store, synthetic_bank(), clock, dict(platforms), rng=random.Random(2 + day))
        gc.collect()
        cpu1 = time.process_time()
        t1 = time.perf_counter()
        await asyncio.sleep(1.0)
        while len(posts) == len(refs) and len(sent) < expected and time.perf_counter() - t1 < 120:
            await service2.delivery.run_due_work()  # the tick's work, run back to back (no 15 s wait between ticks)
            await asyncio.sleep(0.01)
        cpu = time.process_time() - cpu1
        wall = time.perf_counter() - t1 - 1.0
        await service2.close()
        return cpu, wall, len(sent) if len(posts) == len(refs) else 0  # not measured when the loaded day did not finish

    # day 2 reveals the loaded day's rounds (scoring their answers and updating the learners' cards);
    # day 3 reveals day 2's rounds, which nobody answered: the fan-out's own cost (post + reveal)
    quiet_cpu, quiet_wall, quiet_done = await quiet_day(1)
    per_round = (scored["answers"] - args.answers_per_round * len(refs)) / len(refs)
    bare_cpu, bare_wall, bare_done = await quiet_day(2)

    rss_end = rss_mb()  # before the statistics below copy the latencies
    q = statistics.quantiles(latencies, n=1000) if len(latencies) > 1000 else [float("nan")] * 999
    fan_out_end = max(posts + reveals, default=0.0)
    windows = {"before 09:00": (-LEAD, 0.0), "during the fan-out": (0.0, fan_out_end), "after it": (fan_out_end, 1e9)}
    window_p99 = {
        name: quantile([lat for lat, at in zip(latencies, planned_at, strict=True) if lo <= at < hi], 0.99) * 1000
        for name, (lo, hi) in windows.items()
    }
    result = {
        "answers": len(latencies),
        "answer_p50_ms": q[499] * 1000,
        "answer_p99_ms": q[989] * 1000,
        "answer_p999_ms": q[998] * 1000,
        "answer_max_ms": max(latencies, default=float("nan")) * 1000,
        "read_p99_ms": quantile(reads, 0.99) * 1000,
        "posted": len(posts),
        "revealed": len(reveals),
        "channels": len(refs),
        "post_max_s": max(posts, default=float("nan")),
        "post_p99_s": quantile(posts, 0.99),
        "reveal_max_s": max(reveals, default=float("nan")),
        "reveal_p99_s": quantile(reveals, 0.99),
        "first_post_s": min(posts, default=float("nan")),
        "core_ms_per_channel": bare_cpu / len(refs) * 1000 if bare_done else float("nan"),
        "scoring_day_ms_per_channel": quiet_cpu / len(refs) * 1000 if quiet_done else float("nan"),
        "answers_per_loaded_round": per_round,
        "loaded_cpu_ms_per_channel": loaded_cpu / len(refs) * 1000,
        "quiet_wall_s": quiet_wall,
        "quiet_done": quiet_done,
        "loaded_cpu_s": loaded_cpu,
        "rss_mb": rss_end,
        "rss_seeded_mb": rss_seeded,
        "rss_loaded_mb": rss_loaded,
        "seed_s": seeded,
        "max_in_flight": max(p.max_in_flight for p in platforms.values()),
        "rate_waited_s": sum(p.limits.waited for p in platforms.values()),
    }
    result.update({f"answer_p99_ms {k}": v for k, v in window_p99.items()})
    errs = ", ".join(f"{k} {v:,}" for k, v in errors.most_common()) or "none"
    print(
        f"--- {label}: {len(refs):,} channels ({args.discord_share:.0%} Discord), "
        f"{args.answers_per_round} answers to score per round, {args.seconds:g} s at {args.rate:,} answers/s + "
        f"{args.reads} reads/s (seeded in {seeded:.1f} s)"
    )
    print(
        f"answers: {result['answers']:,}  p50 {result['answer_p50_ms']:.1f} ms  p99 {result['answer_p99_ms']:.1f} ms "
        f"(target < 20)  p99.9 {result['answer_p999_ms']:.1f} ms (target < 50)  max {result['answer_max_ms']:.0f} ms"
        f"  refused/closed: {errs}"
    )
    print("answer p99 by when they came: " + ", ".join(f"{k} {v:.1f} ms" for k, v in window_p99.items()))
    print(f"leaderboard reads: {len(reads):,}  p99 {result['read_p99_ms']:.1f} ms")
    print(
        f"posted {result['posted']:,}/{len(refs):,}: first {result['first_post_s']:.1f} s, p99 "
        f"{result['post_p99_s']:.1f} s, max {result['post_max_s']:.1f} s after 09:00 (target <= 60 s)"
    )
    print(
        f"revealed {result['revealed']:,}/{len(refs):,}: p99 {result['reveal_p99_s']:.1f} s, max "
        f"{result['reveal_max_s']:.1f} s after 09:00 (target <= 60 s)"
    )
    print(
        f"core per channel (quiet day, post + reveal, CPU): {result['core_ms_per_channel']:.3f} ms (target < 0.5)"
        f"  [{bare_done:,}/{expected:,} sends in {bare_wall:.1f} s; rounds without answers]"
    )
    print(
        f"the same, revealing the loaded day's rounds ({per_round:,.0f} answers each, scored with their cards): "
        f"{result['scoring_day_ms_per_channel']:.3f} ms  [{quiet_done:,}/{expected:,} sends in {quiet_wall:.1f} s]"
    )
    print(
        f"CPU of the whole loaded run (answers, reads, fan-out) per channel: "
        f"{result['loaded_cpu_ms_per_channel']:.2f} ms; {loaded_cpu:.1f} s in all"
    )
    print(
        f"RSS high-water mark: {result['rss_mb']:.0f} MB (target < 150; {rss_seeded:.0f} MB once seeded, "
        f"{rss_loaded:.0f} MB after the loaded run)  max platform calls in flight: "
        f"{result['max_in_flight']}  lease {SEND_LEASE}"
    )
    return result


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


async def main() -> None:
    tune_gc()  # as the bot does at start (bot/app/cli.py)
    logging.basicConfig(level=logging.ERROR)
    parser = argparse.ArgumentParser()
    parser.add_argument("--channels", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--rate", type=int, default=10_000)
    parser.add_argument("--reads", type=int, default=50)
    parser.add_argument("--discord-share", type=float, default=0.1)
    parser.add_argument("--answers-per-round", type=int, default=20, help="answers scored per round")
    parser.add_argument("--store", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--url", default=DEFAULT_URL, help="PostgreSQL server (a throwaway database is made)")
    args = parser.parse_args()
    make = sqlite_store() if args.store == "sqlite" else postgres_store(args.url)
    async with make as store:
        await run(store, args.store, args)


if __name__ == "__main__":
    asyncio.run(main())
