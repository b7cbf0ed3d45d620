"""Issue 30, "Done when": two processes whose clocks differ by 3 h (libfaketime on one) post each channel once,
at its time by the database.

Two real bot processes (tests/support/clock_worker.py: the composition root's clock, the real scheduler and
PostgreSQL store) share one database; one runs under libfaketime with its host's clock 3 h ahead. Channels
due a few seconds from now by the database are posted once each, at their time by the database, whichever
process posts them: those only the fast-clock process runs, those only the other runs, and those both
run. A channel due 2 h from now is posted by neither (a host clock 3 h ahead would post it at once), and no
day is skipped as "the bot was offline" (one 3 h ahead would have skipped every one of them).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import glob
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from queue import Empty, Queue

import asyncpg
import pytest

from bot.kernel.values import ChannelConfig, ChannelRef
from bot.store.postgres import PostgresStore
from tests.integration.test_postgres_store import throwaway_database

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
AHEAD = dt.timedelta(hours=3)
FIRST_DUE = dt.timedelta(seconds=1)
STEP = dt.timedelta(seconds=0.25)  # channels fall due one after another, this far apart
PER_PLATFORM = 4  # channels on each platform
PLATFORMS = {"a": "left,both", "b": "right,both"}  # b runs under libfaketime
SLACK = dt.timedelta(seconds=5)  # a post goes out at most this long after its due instant (ticks of 0.2 s)


def _order(ref: ChannelRef) -> tuple[str, str]:
    """Channels fall due by index first, so the three platforms' due instants interleave."""
    return ref.channel_id.rsplit("-", 1)[1], ref.platform


def libfaketime() -> str:
    """The path of libfaketime (the multi-threaded build where there is one); the test fails if it is missing."""
    for name in ("libfaketimeMT.so.1", "libfaketime.so.1"):
        for pattern in (f"/usr/lib/*/faketime/{name}", f"/usr/lib/faketime/{name}", f"/usr/local/lib/faketime/{name}"):
            found = sorted(glob.glob(pattern))
            if found:
                return found[0]
    pytest.fail(
        "libfaketime is not installed: this test runs one bot process with its clock 3 h ahead under it "
        "(apt-get install -y faketime; .ci/run installs it)",
        pytrace=False,
    )


class Worker:
    def __init__(self, name: str, url: str, platforms: str, env: dict[str, str] | None = None) -> None:
        self.name = name
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.support.clock_worker", url, platforms],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
            env={**os.environ, **(env or {})},
        )
        self.lines: Queue[str] = Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.strip())

    def drain(self) -> None:
        while True:
            try:
                self.seen.append(self.lines.get_nowait())
            except Empty:
                return

    def wait_for(self, prefix: str, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.1)
            except Empty:
                continue
            self.seen.append(line)
            if line.startswith(prefix):
                return line
        raise AssertionError(f"{self.name}: no {prefix!r} within {timeout} s; saw {self.seen[-5:]}")

    def quit(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.write("QUIT\n")
            self.proc.stdin.flush()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


async def database_now(url: str) -> dt.datetime:
    conn = await asyncpg.connect(url)
    try:
        return await conn.fetchval("SELECT now()")
    finally:
        await conn.close()


async def test_two_processes_whose_clocks_differ_by_3_h_post_each_channel_once_at_its_time_by_the_database():
    preload = libfaketime()
    async with throwaway_database("studybot_clocks") as url:
        store = PostgresStore(url)
        await store.open()
        refs = [
            ChannelRef(platform, f"space-{platform}", f"{platform}-{i}")
            for platform in ("left", "right", "both")
            for i in range(PER_PLATFORM)
        ]
        later = ChannelRef("both", "space-both", "in-2-hours")  # what a host 3 h ahead posted 2 h early
        for ref in [*refs, later]:
            await store.save_channel(ChannelConfig(ref=ref))
            await store.set_next_post(ref, await database_now(url) + dt.timedelta(days=1))  # not yet

        ahead = {"LD_PRELOAD": preload, "FAKETIME": f"+{int(AHEAD.total_seconds())}s", "FAKETIME_NO_CACHE": "1"}
        workers = [Worker("a", url, PLATFORMS["a"]), Worker("b", url, PLATFORMS["b"], ahead)]
        try:
            ready = {w.name: w.wait_for("READY", 60).split()[1:] for w in workers}
            host_a, host_b = (dt.datetime.fromisoformat(ready[n][0]) for n in ("a", "b"))
            clock_a, clock_b = (dt.datetime.fromisoformat(ready[n][1]) for n in ("a", "b"))
            assert abs(host_b - host_a - AHEAD) < dt.timedelta(seconds=30), (host_a, host_b)  # faketime took hold
            # both processes run: the channels fall due a few seconds from now, by the database's clock
            start = await database_now(url)
            due = {ref.channel_id: start + FIRST_DUE + i * STEP for i, ref in enumerate(sorted(refs, key=_order))}
            for ref in refs:
                await store.set_next_post(ref, due[ref.channel_id])
            await store.set_next_post(later, start + dt.timedelta(hours=2))
            last, give_up = max(due.values()) + dt.timedelta(seconds=1), max(due.values()) + 2 * SLACK
            while (now := await database_now(url)) < give_up:  # all posted, and a second more for any double
                for w in workers:
                    w.drain()
                if now >= last and sum(line.startswith("POST ") for w in workers for line in w.seen) >= len(refs):
                    break
                await asyncio.sleep(0.2)
            rounds = {ref.channel_id: await store.latest_daily_round(ref) for ref in [*refs, later]}
        finally:
            for w in workers:
                w.quit()
            await store.close()
        assert [w.proc.returncode for w in workers] == [0, 0], [w.seen[-5:] for w in workers]

    posts = [(w.name, line.split()[1:]) for w in workers for line in w.seen if line.startswith("POST ")]
    notices = [line for w in workers for line in w.seen if line.startswith("NOTICE ")]
    assert notices == []  # no day was called missed
    per_channel = Counter(channel for _, (_platform, channel, _round, _at) in posts)
    assert set(per_channel) == set(due) and set(per_channel.values()) == {1}, per_channel  # "in-2-hours": never
    for name, (platform, channel, _round, at) in posts:
        posted = dt.datetime.fromisoformat(at)
        assert due[channel] <= posted <= due[channel] + SLACK, (name, channel, due[channel], posted)
        assert platform in PLATFORMS[name].split(",")
    assert rounds["in-2-hours"] is None
    for channel, at in due.items():  # the store's record: one round each, opened at its time by the database
        assert due[channel] <= rounds[channel].opened_at <= at + SLACK, (channel, at, rounds[channel].opened_at)
    by = Counter(name for name, _ in posts)
    assert by["a"] >= PER_PLATFORM and by["b"] >= PER_PLATFORM, by  # left by a, right by b, both by either
    assert abs(clock_b - clock_a) < dt.timedelta(seconds=30), (clock_a, clock_b)  # both on the database's
    print(f"two clocks 3 h apart: posts by process {dict(by)}; all at their due time by the database")
