"""Start-up with many channels in the database: from process start to the console's first prompt.

Run: python -m bench.startup [--channels 10000] [--runs 3] [--unscheduled] [--store sqlite|postgres]
     [--url postgresql://postgres@127.0.0.1:5432/test]

A SQLite file is seeded with --channels Slack and Discord channels, each with yesterday's round posted and
its reveal promised for 09:00 today (as a running bot leaves them), then `python -m bot` is started with no
tokens (the console channel) and timed until it prints its prompt ("You are ..."), after the scheduler's
start: scheduling channels saved without a next post, and the first tick (the start-up catch-up). The same
is timed on a fresh database for comparison. --unscheduled seeds the channels without a stored next post
(a database just migrated to the durable schedule), the start-up's worst case.
--store postgres does the same on PostgreSQL: the channels go into a throwaway database on the server of
--url, and each fresh run gets a throwaway database of its own (all dropped afterwards).
Target: ready in < 1 s with 10,000 channels. The temporary folder is removed afterwards.

The bot runs from compiled bytecode, as an installed bot does (pip compiles a package's modules when it
installs it): an untimed first start writes the bytecode into the temporary folder (PYTHONPYCACHEPREFIX),
with PYTHONDONTWRITEBYTECODE removed from the bot's environment. --no-bytecode keeps the caller's
environment instead; on a machine that sets PYTHONDONTWRITEBYTECODE with an editable install, every start
then compiles the bot's ~60 modules from source (0.23 s on the machine of 2026-12-02).

Measured 2026-12-03 (a quiet machine of its own; main ee39248, 5 runs each, min / median / max):
  SQLite       fresh database 0.84 / 0.91 / 0.95 s    10,000 channels 0.73 / 0.80 / 0.82 s
  PostgreSQL   fresh database 0.97 / 1.00 / 1.10 s    10,000 channels 0.75 / 0.78 / 0.82 s
The target holds on both stores with 10,000 channels. A fresh database is the slower start: it migrates
first (about 0.12 s on SQLite; on PostgreSQL every fresh run also creates its throwaway database).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.daily_minute import DEFAULT_URL, channel_refs, seed
from bot.store.urls import store_for_url

ROOT = Path(__file__).resolve().parents[1]
PROMPT = "You are '"


async def make_database(url: str, channels: int, unscheduled: bool) -> None:
    store = store_for_url(url)
    await store.open()
    try:
        refs = channel_refs(channels, 0.5)
        await seed(store, refs, 0)
        if unscheduled:
            for ref in refs:
                await store.set_next_post(ref, None)
    finally:
        await store.close()


def time_to_prompt(url: str, folder: Path, bytecode: bool = True) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "SLACK_", "STUDYBOT_"))}
    env["STUDYBOT_DATABASE_URL"] = url
    env["PYTHONPATH"] = str(ROOT)
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=folder,
        env=env,
    )
    assert proc.stdout is not None and proc.stdin is not None
    try:
        for line in proc.stdout:
            if line.startswith(PROMPT):
                return time.perf_counter() - start
        raise RuntimeError("the bot ended without a prompt")
    finally:
        proc.stdin.write("/quit\n")
        proc.stdin.close()
        proc.wait(timeout=60)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--channels", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--unscheduled", action="store_true")
    parser.add_argument("--store", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--url", default=DEFAULT_URL, help="PostgreSQL server (throwaway databases are made)")
    parser.add_argument("--no-bytecode", action="store_true", help="keep the environment's bytecode settings")
    args = parser.parse_args()
    bytecode = not args.no_bytecode
    folder = Path(tempfile.mkdtemp(prefix="studybot-bench-startup-"))
    try:
        async with contextlib.AsyncExitStack() as stack:

            async def database(name: str) -> str:
                if args.store == "sqlite":
                    return f"sqlite:///{folder / name}.db"
                from bench.postgres import throwaway_database

                return await stack.enter_async_context(throwaway_database(args.url))

            full = await database("full")
            t = time.perf_counter()
            await make_database(full, args.channels, args.unscheduled)
            print(
                f"{args.store}: seeded {args.channels:,} channels in {time.perf_counter() - t:.1f} s"
                f"{' (no stored next post)' if args.unscheduled else ''}"
            )
            if bytecode:  # untimed: writes the bytecode every timed start then reads
                time_to_prompt(await database("warm-up"), folder)
            for label in ("fresh database", f"{args.channels:,} channels"):
                times = []
                for i in range(args.runs):
                    url = full if label != "fresh database" else await database(f"fresh{i}")
                    times.append(time_to_prompt(url, folder, bytecode))  # blocks this loop: nothing else runs on it
                how = "from bytecode" if bytecode else "as the environment says"
                print(
                    f"{label}: start to prompt min {min(times):.2f} s, median {statistics.median(times):.2f} s, "
                    f"max {max(times):.2f} s   (target < 1 s; {how})"
                )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main())
