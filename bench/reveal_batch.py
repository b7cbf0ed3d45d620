"""The reveal transaction alone: CPU time per daily round revealed (points, streaks, learner cards and three
leaderboards), REVEAL_BATCH rounds a transaction, as the tick reveals them.

Run: python -m bench.reveal_batch [--rounds 1000] [--answers 20] [--repeat 5] [--batch 10] [--store sqlite|postgres]
     [--url postgresql://postgres@127.0.0.1:5432/test]

Each repeat seeds a fresh database (bench.daily_minute.seed: 10 channels a space, each round answered by the
same `--answers` users) and reveals every round through Store.reveal_due_rounds. The figure is this
process's CPU time per round: on SQLite that includes the connection's thread (the SQL itself); on
PostgreSQL it leaves out the server's. Min and median over the repeats; the machines here are noisy, so
compare two builds by alternating their runs. On SQLite it also counts the virtual machine instructions
per round (SQLite's progress handler), a figure no noise moves: it follows the statements' work, though
not all of it (an index kept up to date costs inside one instruction). On PostgreSQL it counts the WAL bytes
per round (the server's insert position before and after), which no noise moves either: every answer's
commit waits for the WAL before it to reach the disk, so the reveals' WAL is what the answers queue behind.

Measured 2026-12-02 (SQLite, 1,000 rounds of 20 answers), main before and after the scores upsert took over
writing when each total was reached and migration 072 dropped scores_top: SQLite VM instructions per round
12,456 -> 10,927 (0.88). CPU per round, median of alternating runs of the two builds: 1.55 -> 1.49 ms; within
the noise (one build's runs range over +-20% on this machine). Then the upsert also returned the totals
before, so the read of them went: VM instructions 10,927 -> 11,948 (a multi-row VALUES costs instructions;
the three index seeks it saves weigh one each), CPU per round 1.57 -> 1.47 ms (0.93), and on PostgreSQL
(client side, 3 fewer round trips per scored round) 2.49 -> 2.24 ms (0.90).

2026-12-06 (PostgreSQL, quiet 2-core machine, main 47f1e08 vs the change, alternating, 5 repeats each): a
reveal batch writes the boards of all its spaces in two statements (the scores upsert and the buckets' moves)
instead of two a board, three boards a space. --batch 50 (a delivery process's batch: five spaces, 30
statements -> 2): median 0.968 and 0.858 -> 0.728 and 0.723 ms per round (about 0.8). --batch 10 (one
space, 6 -> 2): 1.058 and 1.131 -> 1.018 and 1.005 ms (about 0.93). SQLite: the same VM instructions per
round (5,305), as its statements did not change.

2026-12-06 (PostgreSQL, 1,000 rounds of 30 answers, --batch 50): 41,119 WAL bytes per round. By relation and
record (pg_walinspect over 300 rounds, 40,705 bytes a round): the learner cards' and the review log's inserts,
their primary keys and speculative-insert confirms about 20 KB (half); the answers' points about 9 KB (each
update goes to another page, so it writes the update, a LOCK and an entry in both indexes); the scores and
their buckets about 8 KB (an upsert that updates also writes a LOCK). Tried, not kept: the answers at
fillfactor 80, so the points' update could stay on its page (HOT): 39,864 bytes per round (0.97), as only 22%
of the updates were HOT. A batch updates every answer on a page in one transaction, so the page would need
room for all of them (fillfactor 50: the largest table twice its size).

2026-12-07 (PostgreSQL, 1,000 rounds of 30 answers, --batch 50, one run of each build, 3 repeats): a reveal
writes the points of the answers that earned some, and leaves the others' points NULL (in this benchmark a
quarter of the answers are right, so three quarters of the points' updates went). WAL per revealed round
20,600 -> 13,871 bytes (0.67); CPU per round, median 0.600 -> 0.491 ms. Their card updates, later, unchanged
(20,690 bytes). A community whose answers are right more often saves less: the updates left are one per
right answer.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import sqlite3
import statistics
import time

from bench.daily_minute import DEFAULT_URL, INSTANT, channel_refs, postgres_store, seed, sqlite_store
from bench.daily_parts import write_marked_cards
from bot.daily.delivery import DELIVERY_BATCHES, REVEAL_BATCH
from bot.kernel.context import DEFAULT_SEND_LEASE as SEND_LEASE
from bot.kernel.scoring import score_daily_round
from bot.practice.memory import LEARN_ROUNDS
from bot.store.sqlite import SqliteStore

VM_EVERY = 100  # SQLite calls the progress handler once per this many virtual machine instructions


async def wal_position(store: object) -> int:
    """PostgreSQL's WAL insert position in bytes (0 on SQLite): two readings give the WAL written between."""
    if isinstance(store, SqliteStore):
        return 0
    from bench.postgres import wal_insert_position  # asyncpg is the postgres extra's
    from bot.store.postgres import PostgresStore

    assert isinstance(store, PostgresStore)
    return await wal_insert_position(store.pool)


async def one_repeat(args: argparse.Namespace) -> tuple[float, float, float, float]:
    """(CPU seconds, SQLite VM instructions or PostgreSQL WAL bytes) per round revealed, on a freshly seeded
    database; then the same of their card updates, which the tick writes after the reveals (learn_rounds)."""
    make = sqlite_store() if args.store == "sqlite" else postgres_store(args.url)
    async with make as store:
        await seed(store, channel_refs(args.rounds, 0.1), args.answers)
        ids = [r.id for r in await store.due_reveals(INSTANT, args.rounds + 100, None)]
        at = INSTANT + dt.timedelta(seconds=1)
        steps = 0

        def count() -> int:
            nonlocal steps
            steps += 1
            return 0  # go on

        if isinstance(store, SqliteStore):
            await store.db.call(sqlite3.Connection.set_progress_handler, count, VM_EVERY)
        wal = await wal_position(store)
        cpu = time.process_time()
        revealed = 0
        for k in range(0, len(ids), args.batch):
            done = await store.reveal_due_rounds(ids[k : k + args.batch], at, score_daily_round, at + SEND_LEASE)
            revealed += len(done)
        cpu = time.process_time() - cpu
        wal = await wal_position(store) - wal
        if revealed != args.rounds:
            raise SystemExit(f"revealed {revealed} of {args.rounds} rounds")
        work = steps * VM_EVERY if isinstance(store, SqliteStore) else wal
        steps, wal = 0, await wal_position(store)
        written, cards_cpu = await write_marked_cards(store)
        if written != revealed:
            raise SystemExit("not every revealed round was marked for its card updates")
        cards_work = steps * VM_EVERY if isinstance(store, SqliteStore) else await wal_position(store) - wal
        return cpu / revealed, work / revealed, cards_cpu / revealed, cards_work / revealed


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--answers", type=int, default=20, help="answers scored per round")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--batch",
        type=int,
        default=REVEAL_BATCH,
        help=f"rounds a transaction ({DELIVERY_BATCHES.size} in a delivery process)",
    )
    parser.add_argument("--store", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--url", default=DEFAULT_URL, help="PostgreSQL server (a throwaway database is made)")
    args = parser.parse_args()
    runs = [await one_repeat(args) for _ in range(args.repeat)]
    unit = "SQLite VM instructions" if args.store == "sqlite" else "PostgreSQL WAL bytes"
    for what, cpu, work in (
        (f"{args.batch} a transaction", [r[0] for r in runs], [r[1] for r in runs]),
        (
            f"then their card updates (a space, at most {LEARN_ROUNDS} rounds, a transaction)",
            [r[2] for r in runs],
            [r[3] for r in runs],
        ),
    ):
        print(
            f"{args.store}: {args.rounds:,} rounds of {args.answers} answers, {what}: CPU per round min "
            f"{min(cpu) * 1000:.3f} ms, median {statistics.median(cpu) * 1000:.3f} ms ({args.repeat} repeats); "
            f"{unit} per round {statistics.median(work):,.0f}"
        )


if __name__ == "__main__":
    asyncio.run(main())
