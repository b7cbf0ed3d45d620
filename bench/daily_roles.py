"""bench.daily_minute --roles interactive,delivery: the busiest minute with the fan-out in its own process.

This process (the interactive role) seeds a throwaway PostgreSQL database, starts a second OS process
(`python -m bench.daily_minute --worker delivery ...`, the delivery role) that runs the DailyScheduler's tick
against the fake platforms on the same database, and fires the answers and leaderboard reads itself. Both
run the same clock (09:00 at one instant of the machine's monotonic clock). The worker tells this process,
a line of JSON each on its stdout, the rounds it posted (the answers go to them too), when the loaded minute's
fan-out is done, and its figures once its quiet days are measured. Each process reports its own figures.

Where the answers' time goes during the fan-out (2026-12-06, a quiet 2-core machine of its own, main 43a5a8e,
10,000 channels). Eight plain runs: the ratio (fan-out p99 / before-09:00 p99) 2.4 to 12.9, median about 4;
the whole minute's p99 10.0-39.2 ms (seven of eight under 20), p99.9 22-143 ms; before 09:00, 2.8-7.8 ms.
One run taken apart in 4 s bins (an instrumented copy of this script, not kept):
- The answer batch's store call (add_answers): p99 0.8-1.7 ms before 09:00, 6.4-9.9 ms in the fan-out's
  first 16 s, about 5 ms after it; this process's event-loop lag p99 1.1, then 3.3-4.3, then about 3 ms.
- pg_stat_activity sampled every 5 ms: the answers' statement waited on WALSync in 36% of its samples before
  09:00 and 70% during the fan-out. The fan-out writes about 19 MB/s of WAL (pg_waldump: per channel about
  170 heap and 130 index records, no full-page images): each revealed round's 30 answers are scored, carded,
  logged and counted, and every answer's commit waits for that WAL to reach the disk too.
- With no leaderboard reads (--reads 0) the p99 after the fan-out is back at its before-09:00 level (3.8 vs
  4.7 ms; add_answers p99 1.2-1.8 ms); with them it stays about twice as high. The reads' statements take
  0.02 ms in the server (EXPLAIN ANALYZE), but after 09:00 a read's three trips take 2-7 ms instead of 0.3-0.7.
  py-spy of this process, 8 s each side: after 09:00 the reads hold 13% of its samples, most in the socket
  send of their statements (a woken server process taking the core from it, it seems), against none before.
Tried, no better within the noise (single runs): two answer batches in flight instead of one (fan-out p99
15.1 and 19.3 vs 13.4 ms); shared_buffers 1 GB instead of 128 MB (a scratch server: 26.7 ms, the tail after
the fan-out unchanged); the delivery process held to one background connection instead of seven (10.8 ms,
ratio 2.8, its quiet days twice as long). What is left is the machine: the fan-out's WAL and the two
processes' CPU on the same two cores and disk as the answers.

Then (2026-12-06, later; the same kind of machine, fresh). Six plain runs at 47f1e08: before 09:00 3.6-15.5
ms, during the fan-out 23.9-63.4 ms, ratio 3.7-6.7. vmstat: before 09:00 the machine is 30-40% busy; during
the fan-out 90-95% (run queue 3-8 on two cores) for about 22 s, then back to about 50%.
- --reads 0 against 50 (3,000 channels, one run each): after the fan-out 11.7 vs 12.7 ms. The effect of the
  reads seen before did not show again.
- py-spy of the delivery process during the fan-out: half its samples in reveal batches; 23% (self) in the
  socket sends of statements, 9% in asyncpg's encoding. By caller: the cards' upsert 8%, the boards' scores
  and bucket statements 11% (two statements a board: fixed since, see bench.reveal_batch), flush 3%.
- The fan-out's WAL by relation (pg_walinspect over the fan-out of a 3,000-channel run, 12 s, 130 MB with
  the answers' own): the answers' inserts about 4 MB/s (two index entries and a speculative-insert confirm
  each, and a LOCK of their round: the batch's FOR SHARE, one per distinct round a batch, so more after 09:00
  when answers spread over the new rounds than over the 20 hot rounds before). The fan-out's share, about
  23 KB a channel: learner cards and the review log about 20 MB each (inserts, confirms, primary keys), the
  answers' points about 17 MB (almost no update is HOT: its page has no room, so each also writes a LOCK and two
  index entries), the scores about 12 MB.
- Tried, no better: the delivery process at nice 19 instead of 10 (fan-out 35.2 ms; it finished no later,
  so its own CPU is not what the answers wait for); one reveal batch and one post group in flight per lane
  instead of two (33.7 ms, the posts no later: Discord's lane is rate-bound).
Then (2026-12-06, evening; main 14ee855, the same kind of machine). CPU per process and its server backends,
sampled from /proc every 0.5 s, and the server's statements (pg_stat_statements, auto_explain) over a run:
- The leaderboard reads ran a full scan of the scores table after 09:00: the benchmark's boards were empty when
  it was analyzed and when the reads were first prepared, and the cached plan kept the scan as the fan-out
  filled the boards (2.2 ms a read in the server during the fan-out, 0.25 ms after it, against 0.01 ms
  before). This process's server backends went from 0.28 of a core before 09:00 to 0.5-0.8 after it, and the
  p99 after the fan-out stayed at 8-16 ms. A running community has boards (and autovacuum's ANALYZE), so the
  seed now writes the spaces' past boards (seed_boards). Since: the backends at 0.30-0.39 of a core all along,
  the p99 after the fan-out 6.9-7.5 ms against 4.7-6.6 ms before 09:00, the reads' p99 16-24 ms (30-51).
- What is left is the two cores: during the fan-out (about 20 s) the delivery process and its backends take
  about one core (0.5 + 0.5), this process and its backends 0.8-0.9 (the answers, the reads and the load that
  fires them), so the machine runs at 1.8-2.0 of 2 cores and the answers queue. Split runs since: ratio 4.2
  and 10.2 (fan-out p99 27.5 and 50.8 ms); one process at 10,000 channels, same code: 7.4 and 8.5.
- Tried, no better (single runs): the delivery process held to one background connection (fan-out 36.1 and
  18.9 ms before the seed fix: it still used 0.9 of a core, its quiet days took 108-146 s instead of 39-52);
  the delivery's store work paced to 40% of its time (a sleep after each batch, not kept: 46.4 ms after the
  seed fix, the fan-out spread over 49 s, so the answers shared the cores for longer, and the day that scores
  60 answers a round took 101-130 s); without the answers' FOR SHARE of their rounds (29.6 ms: the foreign
  key's check locks them too). An answer batch's server time (a probe, 60 answers a batch): about 17 us an
  answer to 20 rounds, 23 us to 10,000; the foreign key's check of the round is 3-5 us of it.
Then (2026-12-06, night; main 0515802 and after). The disk's share, measured apart from the CPU: a reveal
batch of 50 rounds of 30 answers writes about 2 MB of WAL (41 KB a round, half of it the learner cards and
the review log: bench.reveal_batch), and beside 17 MB/s of WAL in such transactions a one-row commit's p99 is
5.4-6.7 ms instead of 1.1-1.6 (1.9-3.2 ms in transactions of 400 KB; bench.commit_beside_wal). That is 4-5 ms
of the answers' 27-51 ms p99 during the fan-out: the rest is the two cores. The answers at fillfactor 80 (so
the points' update could stay on its page) cut the reveal's WAL by only 3%: see bench.reveal_batch.
Then (2026-12-07; main 5ed9d58, a noisy machine: steal time, seeding 14-48 s). Plain split runs: ratio 3.0,
4.5, 5.3, 7.1, 7.2 and 11.9 (before 09:00 5.0-31.5 ms, during the fan-out 22.3-129.8 ms). Two causes ruled out:
- CPU priority of the delivery's server backends: with its PostgreSQL backends also at nice 10 (reniced from
  outside by an ad hoc script; a client cannot do it), ratios 3.8, 3.8 and 8.5, against 5.3 and 7.2 in the
  plain runs between them.
- Checkpoints: at the server's default max_wal_size (1 GB) the seed and the fan-out start one every 20-25 s
  ("checkpoints are occurring too frequently" in the server's log), and each makes the next write of every page
  a full-page image. With max_wal_size 16 GB (set for two runs, then reset) no checkpoint ran during the
  minute: ratios 5.9 and 5.4.
pg_stat_activity sampled every 20 ms in one plain run: the answers' statement waited on WALSync in about 40% of
its samples before 09:00 and 50-60% during the fan-out (the delivery's statements active in about 60% of the
samples then). With one answer batch in flight at a time, an answer that arrives during a slow flush waits for
it and then for its own batch's flush, so the flush can count up to twice in one answer's wait (not measured
apart).
Then (2026-12-07, later; main bed34d7 against the change that writes the learners' card updates after the
fan-out, alternating, three pairs). A revealed round of 30 answers: 41 KB of WAL and 1.06-1.11 ms of the
delivery process's CPU before, 21 KB and 0.50 ms now (its card updates, later: 21 KB and 0.7 ms;
bench.reveal_batch). Split runs, before -> after: the whole minute's answer p99 31.0, 22.3, 16.5 -> 16.1, 14.7,
13.8 ms (p99.9 70.2, 56.3, 27.4 -> 35.4, 32.2, 28.9); during the fan-out 34.1, 23.7, 17.8 -> 18.0, 16.6, 14.9
ms; the ratio 5.75, 0.74 (a run whose before-09:00 p99 was 32 ms) and 4.17 -> 3.57, 3.27 and 2.87; the
delivery process's CPU in the loaded minute 12.7, 13.6, 11.8 -> 9.8, 9.0, 8.8 s and its RSS 133-141 -> 119-120
MB; the last post and reveal no later. Its ticks wrote about 4,000 rounds' card updates within the minute (5 s
of each tick, resting between transactions); the other 6,000 took 2.9-3.0 s of CPU after it (cards_left).
Where in the fan-out the tail is (a fourth run of the change, the answers' p99 by 5 s of it, now printed): 25.8,
19.6, 21.5, 16.4 and 12.6 ms over the first 25 s (the Slack lane's 9,000 reveals and posts, done by 23 s), then
6.5-7.2 ms while only Discord's rate-bound lane was left (before 09:00: 7.5 ms; ratio 2.52). Tried, one run,
not kept: the delivery process resting after each reveal transaction and each post group's question picks as
long as they took: p99 29.5, 17.4, 21.6, 22.7 and 19.7 ms in the same bins, ratio 3.16, the last reveal no
later (28.4 s): the lanes' pace is the platforms' rate limits, so the rests only spread the same work thinner.
Then (2026-12-07, later; a much noisier machine: the p50 before 09:00 2.8-4.7 ms from run to run, single 5 s
bins of 125-188 ms in runs of either build). A reveal writes only the points answers earned (wrong answers' stay
NULL): 13.9 KB of WAL a revealed round instead of 20.6 (bench.reveal_batch). Three alternating pairs, 2e3bb46
-> the change: during the fan-out 39.6, 34.3, 55.2 -> 26.6, 69.8, 30.6 ms; ratio 7.99, 3.12, 3.73 -> 2.83, 8.83,
3.13. No difference these runs can show. Tried, not kept: the delivery's pool at five connections (two
background slots; ratio 4.08 and 3.76 against 4.55 plain: the Slack lane no slower, 22-25 s); that and each
background connection resting as long as its statement took (2.74, then 8.90 with a p50 of 10.6 ms; the Slack
lane's last send 35.0 and 48.6 s after 09:00, and the quiet day that scores 60 answers a round 131 s instead
of 73); the tick's card updates resting three times as long as each transaction (answers' p99 after the
fan-out 8.9-17.5 ms against 14.8-15.4, more updates left for later ticks).
Then (2026-12-07, later; a quieter machine: the Slack lane done by 17-18 s). A reveal batch holds at most 5,000
answers (Batching.answers). --channels 300 (2,000 answers a round on the loaded day): the delivery process's RSS
high-water mark 592 -> 94 MB, its loaded-day reveals 81.8 -> 77.3 ms of CPU per channel. Two alternating pairs at
10,000 channels, d37232a -> the change (no batch reaches 5,000 there): during the fan-out 16.3, 14.8 -> 15.0,
16.8 ms; ratio 2.66, 3.53 -> 3.77, 4.01; quiet-day CPU per channel 0.366, 0.349 -> 0.358, 0.394 ms; RSS 119-121
MB in all. No difference either way.
Then (2026-12-07, later; a noisy machine: plain runs' bins of 5 s up to 130 ms). Where the answers wait during
the fan-out (pg_stat_activity every 5 ms, one run): their statement in WALSync in 30% of its samples before
09:00, 55-65% during the fan-out (and 5-10% more waiting for another's flush), 45% after it; row locks in 8 of
28,670 samples (an answer to a round whose post the delivery process was just finishing), so not the locks.
pg_stat_wal by the second: before 09:00 3.6 MB/s of WAL in about 680 flushes a second; during the fan-out
8-15 MB/s in 230-530 (each flush waits longer: the two cores are full, and a flush's waiter must get one back).
So the fan-out's pace is what the answers feel, and a delivery process now paces itself: STUDYBOT_DELIVERY_RATE,
450 posts and reveals a second by default (bot.daily.pace; the Slack lane's 18,000 sends take 44 s instead of
20-27, the last post 44.4 s after 09:00 instead of 39.3-39.8). Runs one after the other, during the fan-out / ratio:
unpaced 31.4 ms / 6.66, 28.9 / 6.26, 36.4 / 8.04 (and 50.7 / 10.57 with the sampler running); paced 13.6 / 3.10,
16.3 / 3.38 (and one run with a stall of about a second at 40 s, 555 ms in that bin, 11.5-23.2 ms in the others).
A later pair on a busier machine (seeding 41-46 s instead of 13-28): paced 24.7 / 4.76, unpaced 49.1 / 5.11 (its
p99 before 09:00 9.6 ms).
Paced, the bins are even (8-22 ms), and the floor is the p99 after the fan-out (9.2-9.4 ms, against 4.4-4.8
before 09:00), when the answers spread over 10,000 rounds and the ticks write the card updates: the ratio's 2
is still not met on this machine.
Then (2026-12-07, a fresh machine of its own, quiet: seeding 11-19 s, before 09:00 3.1-4.0 ms; main a59fb10, runs
one after the other). Paced at the default 450: during the fan-out 6.6, 8.6, 8.2 and 6.2 ms, ratio 1.97, 2.29,
2.67 and 1.81; p99.9 over the minute 11.7-14.6 ms; the last post 44.4 s after 09:00. At 400: 7.5 and 6.6 ms,
ratio 2.28 and 1.99 (p99.9 27.4 and 13.3 ms), the last post 49.9 s. Unpaced (--delivery-rate 0): 8.0 ms,
ratio 1.99, the last post 39.2 s. One process (no --roles), the same stretch: 15.0 ms, ratio 4.49 (first 5 s bin
25.1 ms). So on a quiet machine
the split holds the answers at about twice their p99 before 09:00, paced or not (the pace matters when the
cores are short: see the runs above); the ratio's 2 was met in four of the seven split runs (1.81-1.99) and
missed in three (2.28-2.67). Tried, not kept:
answers before 09:00 spread over yesterday's round of every channel (cached, as in a process that served them
all day) instead of the 20 hot rounds, to see whether the hot rounds made the baseline cheap: before 09:00 4.9
and 3.2 ms against 3.3-3.7 with the hot rounds, so no; and their answers added ten to score to every revealed
round, which made the fan-out heavier (ratio 7.26 and 2.72). Also not kept: reveal batches of 25 rounds in
the delivery process instead of 50 (smaller transactions beside the answers' commits; two alternating pairs
against d5ed2ec): during the fan-out 10.4 and 9.7 ms against 9.0 and 6.8, ratio 2.94 and 2.61 against 2.40 and
1.88, the last reveal 43.6 s after 09:00 instead of 33.4, and quiet-day CPU per channel 0.42-0.43 ms instead of
0.37-0.38.
Then (2026-12-07, a new session on a slow, noisy machine: the 10-million-step loop in 0.30 s; main a74e6ad, runs
one after the other). Split: answer p99 17.1 and 12.1 ms, p99.9 53.6 and 36.3 ms, during the fan-out / before
09:00 16.3 / 5.2 = 3.14 and 12.9 / 5.3 = 2.41, after it 47.5 and 8.6 ms; core per channel 0.53 ms; RSS 143 + 120
MB; the last post 44.4 s after 09:00. One process (no --roles): p99 22.4 ms, 25.8 / 5.0 = 5.20, the last post
39.4 s, core 0.70 ms, RSS 121 MB. Looked at, none the cause of the tail:
- No daily card updates within the minute (ROUND_CARDS_BUDGET 0, not kept): after the fan-out 6.0 ms, ratio
  2.64; but the second plain run's 8.6 ms showed the first's 47.5 was not the card updates.
- gc.callbacks in this process: two generation-2 collections in the run, none over 17 ms, in a run with one 5 s
  bin at 209 ms.
- Checkpoints: the minute wrote 378 MB of WAL (now printed), and at max_wal_size 1 GB the server starts one
  every 540 MB or so, but its log put every checkpoint of these runs after the loaded minute (the quiet days'
  scoring writes most of the WAL). At 8 GB (ALTER SYSTEM for one run, reset after) none ran at all: p99 13.0 ms,
  p99.9 20.3, ratio 3.28. A CHECKPOINT after the seed (not kept) gave 446 MB in the minute (each page's first
  change after it written whole) and a ratio of 3.18.
- The last run (378 MB, no checkpoint) fell into a backlog from 15 s to 35 s after 09:00 (5 s bins up to 776
  ms, ratio 143): the machine, as in the earlier runs that did.
Then (2026-12-07, evening; a new machine, the 10-million-step loop in 0.26 s; main 1155935 and later, whose
changes touch neither the answers nor the fan-out). Split, three runs: answer p99 52.5, 14.3 and 16.4 ms, p99.9
175.3, 25.0 and 36.1 ms; during the fan-out / before 09:00 56.7 / 15.0 = 3.78 (a checkpoint in the minute, and
a before-09:00 p99 three times the others'), 15.3 / 5.1 = 3.02 and 16.2 / 6.4 = 2.51; core per channel 0.456,
0.494 and 0.487 ms; RSS 144-145 + 119-120 MB; the last post 44.4-44.6 s, the last reveal 33.5-33.7 s after
09:00. One process, two runs between them: p99 37.7 and 67.0 ms, ratios 6.18 and 10.03, core 0.73 and 0.87 ms,
RSS 119-121 MB. The split holds p99 and p99.9 under their targets in the two runs without a checkpoint, and
its ratio is a third to a quarter of one process's; the 2 is still not met on this machine.
Then (2026-12-07, night; a new machine, the loop in 0.27 s; main 490e790, split / one process / split, one after
the other): answer p99 14.5 / 26.2 / 14.2 ms, p99.9 55.2 (a checkpoint after the fan-out) / 62.4 / 23.3 ms;
during the fan-out / before 09:00 13.2 / 4.2 = 3.17, 32.5 / 8.4 = 3.86 and 15.2 / 5.0 = 3.04; core per channel
0.373 / 0.786 / 0.604 ms (the same code: the machine's noise); RSS 145 + 120, 120 and 144 + 120 MB; the last post
44.4 / 39.6 / 44.4 s and the last reveal 33.5 / 33.3 / 33.5 s after 09:00. As before: under the p99 target
split, about half of one process's, and three times its own before-09:00 level.
Then (2026-12-07, late; a new machine, the loop in 0.25 s; split at 794d6db, then split and one process back to
back at 6fbf167, whose changes touch neither the answers nor the fan-out): answer p99 26.5 / 16.2 / 26.4 ms, p99.9
61.9 / 27.8 / 65.3 ms; during the fan-out / before 09:00 29.5 / 6.7 = 4.39, 17.5 / 7.2 = 2.41 and 33.8 / 4.2 =
8.14; core per channel 0.555 / 0.487 / 0.601 ms; RSS 146 + 120, 144 + 120 and 119 MB; the last post 44.5 / 44.4 /
39.6 s and the last reveal 33.7 / 33.5 / 35.2 s after 09:00.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import gc
import json
import random
import sys
import time
from typing import Any

from bench.daily_parts import (
    INSTANT,
    LEAD,
    SETTLED,
    START_LEAD,
    AnswerLoad,
    FakePlatform,
    RealTimeClock,
    channel_refs,
    daily_bank,
    lane_ends,
    quiet_day,
    rss_mb,
    seed,
    sent_after,
    server_wal,
    wal_figures,
    write_marked_cards,
)
from bot.app.bootstrap import bootstrap
from bot.app.config import Settings
from bot.app.roles import batching_of, connection_name, round_cache_of, yield_cpu
from bot.app.scheduler import DailyScheduler

ROLES = ("interactive", "delivery")
START_AFTER = 8.0  # seconds from starting the worker to its scheduler's start (the process's own start-up)


def parse_roles(value: str) -> tuple[str, ...]:
    """The --roles value: "interactive,delivery" (in any order, each once); anything else is refused."""
    roles = tuple(sorted(part.strip() for part in value.split(",") if part.strip()))
    if roles != tuple(sorted(ROLES)):
        raise ValueError(f"--roles {value!r}: only 'interactive,delivery' is supported")
    return roles


def event(line: bytes | str) -> tuple[str, Any] | None:
    """One line of the worker's stdout: ("opened", round id), ("loaded", figures), ("result", figures); None
    for anything else (a stray print)."""
    try:
        data = json.loads(line)
    except ValueError:
        return None
    if not isinstance(data, dict) or len(data) != 1:
        return None
    ((kind, value),) = data.items()
    return (kind, value) if kind in ("opened", "loaded", "result") else None


def _emit(kind: str, value: object) -> None:
    sys.stdout.write(json.dumps({kind: value}) + "\n")
    sys.stdout.flush()


class _Told(list[int]):
    """The worker's posted rounds: each one told to the interactive process as it is posted."""

    def append(self, round_id: int) -> None:
        super().append(round_id)
        _emit("opened", round_id)


async def worker(args: argparse.Namespace) -> None:
    """The delivery process: the tick against the fake platforms, then the quiet days (core per channel)."""
    from bot.store.postgres import PostgresStore

    settings = Settings(
        role="delivery", database_url=args.url, delivery_nice=args.delivery_nice, delivery_rate=args.delivery_rate
    )
    yield_cpu(settings)  # as `studybot` does, and its batches as `studybot` cuts them
    batching = batching_of(settings)
    store = PostgresStore(args.url, application_name=connection_name(settings))  # as `studybot` names it
    await store.open()
    refs = channel_refs(args.channels, args.discord_share)
    clock = RealTimeClock(INSTANT - dt.timedelta(seconds=LEAD), args.t0)
    sent: dict[tuple[str, str], dt.datetime] = {}
    platforms = {name: FakePlatform(name, clock, sent, _Told()) for name in ("discord", "slack")}
    kept = round_cache_of(settings)
    service = bootstrap(
        store, daily_bank(), clock, dict(platforms), rng=random.Random(1), batching=batching, round_cache=kept
    )
    scheduler = DailyScheduler(service, clock)
    expected = 2 * len(refs)
    gc.collect()
    # the scheduler's start (its catch-up over every channel) START_LEAD s before the answers begin, as in one
    # process: started with them, it ran inside the "before 09:00" window and set that window's p99
    await asyncio.sleep(max(0.0, args.t0 - START_LEAD - time.monotonic()))
    cpu0 = time.process_time()
    await scheduler.start()
    late = time.monotonic() - args.t0
    if late > 0:
        print(f"(the delivery process's start ran {late:.1f} s into the answers' lead)", file=sys.stderr)
    while True:  # until every channel is posted and revealed, or the run stops waiting
        if len(sent) >= expected or time.monotonic() >= args.t0 + args.seconds + 60:
            break
        await asyncio.sleep(0.05)
    loaded_cpu = time.process_time() - cpu0
    posts, reveals = sent_after(sent, refs, "post"), sent_after(sent, refs, "reveal")
    lanes = lane_ends(sent, refs)  # before the quiet days reuse `sent`
    _emit("loaded", {"fan_out_end": max(posts + reveals, default=0.0)})
    # the quiet days reveal the loaded day's rounds: not while the other process still answers them (a fan-out
    # done before the answers stop would otherwise lock their rounds and close them under the answers)
    await asyncio.sleep(max(0.0, args.t0 + args.seconds + SETTLED - time.monotonic()))
    for _ in range(300):  # a tick still running finishes first
        if not scheduler._lock.locked():
            break
        await asyncio.sleep(0.1)
    await scheduler.stop()
    await service.close()
    del service, scheduler
    rss_loaded = rss_mb()
    loaded_ok = len(posts) == len(refs)
    todo = expected if loaded_ok else 0
    # the loaded day's reveals' card updates the ticks had not written yet (they rest between transactions)
    cards_left, cards_cpu = await write_marked_cards(store)
    scored = await store.count_rows(["answers"])  # the loaded day's answers, which day 1 reveals (as one process)
    quiet_cpu, quiet_wall, quiet_done = await quiet_day(store, clock, platforms, sent, todo, 1, batching, kept)
    bare_cpu, bare_wall, bare_done = await quiet_day(store, clock, platforms, sent, todo, 2, batching, kept)
    await store.close()
    from bench.daily_minute import fan_out_figures

    result = (
        fan_out_figures(posts, reveals, len(refs))
        | lanes
        | {
            "core_ms_per_channel": bare_cpu / len(refs) * 1000 if bare_done else float("nan"),
            "scoring_day_ms_per_channel": quiet_cpu / len(refs) * 1000 if quiet_done else float("nan"),
            "answers_per_loaded_round": (scored["answers"] - args.answers_per_round * len(refs)) / len(refs),
            "quiet_wall_s": quiet_wall,
            "bare_wall_s": bare_wall,
            "quiet_done": quiet_done,
            "bare_done": bare_done,
            "loaded_cpu_s": loaded_cpu,
            "cards_left_rounds": cards_left,
            "cards_left_cpu_s": cards_cpu,
            "rss_mb": rss_mb(),
            "rss_loaded_mb": rss_loaded,
        }
    )
    _emit("result", result)


async def interactive(args: argparse.Namespace) -> dict[str, dict[str, float]]:
    """This process: seed, start the delivery process, fire answers and reads; the figures of both."""
    from bench.postgres import throwaway_database
    from bot.store.postgres import PostgresStore

    if args.store != "postgres":
        raise SystemExit("--roles needs --store postgres (SQLite keeps one process)")
    async with throwaway_database(args.url) as url:
        named = connection_name(Settings(role="interactive", database_url=url))
        store = PostgresStore(url, application_name=named)
        await store.open()
        refs = channel_refs(args.channels, args.discord_share)
        t_seed = time.perf_counter()
        opened = await seed(store, refs, args.answers_per_round)
        seeded = time.perf_counter() - t_seed
        rss_seed = rss_mb()  # the seed's own high-water mark: this process seeds before it answers
        t0 = time.monotonic() + START_AFTER + START_LEAD  # the answers' start (LEAD s before 09:00)
        argv = [sys.executable, "-m", "bench.daily_minute", "--worker", "delivery", "--url", url, "--t0", repr(t0)]
        argv += ["--store", "postgres", "--channels", str(args.channels), "--seconds", str(args.seconds)]
        argv += ["--discord-share", str(args.discord_share), "--delivery-nice", str(args.delivery_nice)]
        argv += ["--delivery-rate", str(args.delivery_rate)]
        argv += ["--answers-per-round", str(args.answers_per_round)]
        proc = await asyncio.create_subprocess_exec(*argv, stdout=asyncio.subprocess.PIPE)
        told: dict[str, Any] = {}

        async def listen() -> None:
            assert proc.stdout is not None
            async for line in proc.stdout:
                got = event(line)
                if got is None:
                    continue
                kind, value = got
                if kind == "opened":
                    opened.append(int(value))
                else:
                    told[kind] = value

        listening = asyncio.ensure_future(listen())
        clock = RealTimeClock(INSTANT - dt.timedelta(seconds=LEAD), t0)
        platforms = {name: FakePlatform(name, clock, {}, []) for name in ("discord", "slack")}
        service = bootstrap(store, daily_bank(), clock, dict(platforms), rng=random.Random(1))
        spaces = sorted({(r.platform, r.space_id) for r in refs})
        load = AnswerLoad(service, opened, spaces, args.rate, args.reads)
        gc.collect()
        await asyncio.sleep(max(0.0, t0 - time.monotonic()))
        cpu0 = time.process_time()
        wal0 = await server_wal(store)
        await load.run(args.seconds, lambda: "loaded" in told, args.seconds + 60)
        wal = wal_figures(wal0, await server_wal(store), len(refs))
        cpu = time.process_time() - cpu0
        fan_out_end = float(told.get("loaded", {}).get("fan_out_end", 0.0))
        mine = (
            load.figures(fan_out_end)
            | wal
            | {
                "loaded_cpu_s": cpu,
                "rss_mb": rss_mb(),
                "rss_seed_mb": rss_seed,
                "seed_s": seeded,
            }
        )
        mine["errors"] = sum(load.errors.values())
        await service.close()
        await proc.wait()
        await listening
        await store.close()
    return {"interactive": mine, "delivery": dict(told.get("result", {}))}


async def main(args: argparse.Namespace) -> None:
    if args.worker:
        await worker(args)
        return
    parse_roles(args.roles)
    from bench.daily_minute import print_answers, print_fan_out, print_wal

    figures = await interactive(args)
    mine, theirs = figures["interactive"], figures["delivery"]
    print(
        f"--- postgres, roles interactive + delivery in two processes: {args.channels:,} channels "
        f"({args.discord_share:.0%} Discord), {args.seconds:g} s at {args.rate:,} answers/s + {args.reads} reads/s "
        f"(seeded in {mine['seed_s']:.1f} s), STUDYBOT_DELIVERY_NICE={args.delivery_nice}, "
        f"STUDYBOT_DELIVERY_RATE={args.delivery_rate}"
    )
    print(
        f"interactive process: CPU {mine['loaded_cpu_s']:.1f} s, RSS high-water mark {mine['rss_mb']:.0f} MB "
        f"({mine['rss_seed_mb']:.0f} MB at the end of the seed, which this process runs first)"
    )
    print_answers(mine, f"{mine['errors']:,.0f}")
    print_wal(mine)
    if not theirs:
        print("delivery process: no figures (it failed; see its output above)")
        return
    print(
        f"delivery process: CPU of the loaded minute {theirs['loaded_cpu_s']:.1f} s, RSS high-water mark "
        f"{theirs['rss_mb']:.0f} MB ({theirs['rss_loaded_mb']:.0f} MB after the loaded minute); then the card "
        f"updates of {theirs['cards_left_rounds']:,} rounds its ticks had not written, "
        f"{theirs['cards_left_cpu_s']:.1f} s"
    )
    print_fan_out(theirs, 2 * args.channels)
