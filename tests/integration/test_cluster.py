"""Two real bot processes on one PostgreSQL: 200 channels due in the same minute are each posted
exactly once, and every answer sent to either process reaches the leaderboard once."""

from __future__ import annotations

import asyncio
import datetime as dt
import subprocess
import sys
import threading
from collections import Counter, defaultdict
from pathlib import Path
from queue import Empty, Queue

import pytest

from bot.kernel.values import ChannelConfig, ChannelRef, Period
from bot.store.postgres import PostgresStore
from tests.integration.test_postgres_store import throwaway_database

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
PLATFORM = "cluster"
DAY = dt.date(2026, 12, 1)  # winter: Berlin UTC+1, New York UTC-5, Tokyo UTC+9
# (timezone, local time) pairs that all mean 09:00 UTC on DAY
ZONES = [
    ("UTC", dt.time(9, 0)),
    ("Europe/Berlin", dt.time(10, 0)),
    ("America/New_York", dt.time(4, 0)),
    ("Asia/Tokyo", dt.time(18, 0)),
]
CHANNELS = 200
SPACES = 20


class Worker:
    def __init__(self, name: str, url: str, start: dt.datetime, factor: float = 10) -> None:
        self.name = name
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.support.cluster_worker", url, start.isoformat(), str(factor)],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.lines: Queue[str] = Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.strip())

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def drain(self) -> list[str]:
        out = []
        while True:
            try:
                out.append(self.lines.get_nowait())
            except Empty:
                break
        self.seen += out
        return out

    def wait_for(self, prefix: str, timeout: float = 60) -> str:
        import time

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


def lines_of(workers: list[Worker], kind: str) -> list[tuple[str, list[str]]]:
    return [(w.name, line.split()[1:]) for w in workers for line in w.seen if line.split()[0] == kind]


async def test_two_processes_post_each_round_once_and_count_every_answer():
    async with throwaway_database("studybot_cluster") as url:
        store = PostgresStore(url)
        await store.open()
        refs = []
        for i in range(CHANNELS):
            tz, at = ZONES[i % len(ZONES)]
            ref = ChannelRef(PLATFORM, f"space{i % SPACES:02d}", f"chan{i:03d}")
            await store.save_channel(ChannelConfig(ref=ref, post_time=at, timezone=tz))
            refs.append(ref)
        await store.close()

        start = dt.datetime.combine(DAY, dt.time(8, 59, 50), tzinfo=dt.UTC)  # 10 s before, at 10x speed
        workers = [Worker("a", url, start), Worker("b", url, start)]
        try:
            for w in workers:
                assert w.wait_for("READY", 30) == f"READY {CHANNELS}"
            loop = asyncio.get_running_loop()
            for _ in range(600):
                for w in workers:
                    w.drain()
                if len(lines_of(workers, "POST")) >= CHANNELS:
                    break
                await loop.run_in_executor(None, lambda: __import__("time").sleep(0.1))
            await loop.run_in_executor(None, lambda: __import__("time").sleep(1.0))  # any late double post
            for w in workers:
                w.drain()
            posts = lines_of(workers, "POST")
            per_channel = Counter(channel for _, (channel, _round, _at) in posts)
            assert len(per_channel) == CHANNELS and set(per_channel.values()) == {1}, per_channel.most_common(3)
            by_process = Counter(name for name, _ in posts)
            assert sum(by_process.values()) == CHANNELS

            # answers: five people per channel, alternating processes; each person's answer is also sent
            # a second time to the other process (a retry) and must count once
            sent = 0
            for i, ref in enumerate(refs):
                for u in range(5):
                    user = f"{ref.space_id}-user{u}"
                    first, second = (workers[0], workers[1]) if (i + u) % 2 else (workers[1], workers[0])
                    first.send(f"ANSWER {ref.channel_id} {user} {'ABCD'[u % 4]}")
                    second.send(f"ANSWER {ref.channel_id} {user} {'ABCD'[(u + 1) % 4]}")
                    sent += 1
            for _ in range(600):
                for w in workers:
                    w.drain()
                if len(lines_of(workers, "ACK")) + len(lines_of(workers, "ERR")) >= 2 * sent:
                    break
                await loop.run_in_executor(None, lambda: __import__("time").sleep(0.1))
            acks = lines_of(workers, "ACK")
            errs = lines_of(workers, "ERR")
            assert len(acks) == sent, (len(acks), errs[:3])
            assert len(errs) == sent and {e[1][2] for e in errs} == {"AlreadyAnswered"}
            workers[0].send("REVEALALL")
            assert workers[0].wait_for("REVEALED", 60) == f"REVEALED {CHANNELS}"
        finally:
            for w in workers:
                if w.proc.poll() is None:
                    w.send("QUIT")
            for w in workers:
                try:
                    w.proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    w.proc.kill()
        assert [w.proc.returncode for w in workers] == [0, 0]

        store = PostgresStore(url)
        await store.open()
        try:
            acked: dict[tuple[str, str], str] = {(c, u): letter for _, (c, u, letter) in acks}
            rounds = {r.ref.channel_id: r for r in [await store.latest_daily_round(ref) for ref in refs]}
            assert all(
                r.local_date
                == dt.datetime.combine(DAY, dt.time(9), tzinfo=dt.UTC)
                .astimezone(__import__("zoneinfo").ZoneInfo(ZONES[i % len(ZONES)][0]))
                .date()
                for i, r in enumerate(rounds[ref.channel_id] for ref in refs)
            )
            answered_per_space: dict[str, int] = defaultdict(int)
            for (channel, user), letter in acked.items():
                answer = await store.get_answer(rounds[channel].id, user)
                assert answer is not None and "ABCD"[answer.choice] == letter
                answered_per_space[rounds[channel].ref.space_id] += 1
            for space, count in answered_per_space.items():
                board = await store.leaderboard(PLATFORM, space, Period.ALL, "all", 1000)
                assert sum(row.answered for row in board) == count
        finally:
            await store.close()


async def test_config_changes_through_one_process_are_obeyed_by_the_other_and_a_kill_loses_nothing():
    """Issue 10, observation 4: pause and a time change through A are obeyed by B; a channel set up
    through A after B started is posted; after A is killed (-9), B posts the rest, each once."""
    async with throwaway_database("studybot_cluster2") as url:
        store = PostgresStore(url)
        await store.open()
        for name, at in (
            ("paused", dt.time(9, 0)),
            ("moved", dt.time(9, 0)),
            ("kept", dt.time(9, 0)),
            ("later", dt.time(9, 10)),
        ):
            await store.save_channel(ChannelConfig(ref=ChannelRef(PLATFORM, "space1", name), post_time=at))
        await store.close()
        # 60x: one real second is a minute; the tick runs every 0.05 s real (3 s simulated)
        start = dt.datetime.combine(DAY, dt.time(8, 50), tzinfo=dt.UTC)
        a, b = Worker("a", url, start, 60), Worker("b", url, start, 60)
        loop = asyncio.get_running_loop()

        async def wait(seconds: float) -> None:
            await loop.run_in_executor(None, lambda: __import__("time").sleep(seconds))

        try:
            for w in (a, b):
                assert w.wait_for("READY", 30) == "READY 4"
            a.send("CONFIG paused space1 pause")
            a.send("CONFIG moved space1 time 09:15")
            a.send("CONFIG fresh space1 time 09:00")  # set up after B started
            for channel in ("paused", "moved", "fresh"):
                assert a.wait_for("CONFIGURED", 20).split()[1] == channel
            for _ in range(300):  # until both 09:00 posts are seen (before 09:10, the next post)
                a.drain()
                b.drain()
                if {c for _, (c, *_rest) in lines_of([a, b], "POST")} >= {"kept", "fresh"}:
                    break
                await wait(0.1)
            await wait(3)  # any double post
            a.drain()
            b.drain()
            early = lines_of([a, b], "POST")
            assert sorted(c for _, (c, *_rest) in early) == ["fresh", "kept"], early
            a.proc.kill()  # kill -9 while B runs on
            a.proc.wait(timeout=10)
            for _ in range(600):
                b.drain()
                if {c for _, (c, *_rest) in lines_of([a, b], "POST")} >= {"kept", "fresh", "later", "moved"}:
                    break
                await wait(0.1)
            await wait(3)
            b.drain()
        finally:
            if b.proc.poll() is None:
                b.send("QUIT")
                try:
                    b.proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    b.proc.kill()
            if a.proc.poll() is None:
                a.proc.kill()
        posts = lines_of([a, b], "POST")
        per_channel = Counter(c for _, (c, *_rest) in posts)
        assert per_channel == {"kept": 1, "fresh": 1, "later": 1, "moved": 1}, posts
        at = {c: dt.datetime.fromisoformat(when) for _, (c, _r, when) in posts}
        assert at["moved"] >= dt.datetime.combine(DAY, dt.time(9, 15), tzinfo=dt.UTC)  # the new time, not 09:00
        assert at["later"] >= dt.datetime.combine(DAY, dt.time(9, 10), tzinfo=dt.UTC)
        assert {name for name, (c, *_rest) in posts if c in ("later", "moved")} == {"b"}
