"""Two real bot processes on one PostgreSQL run a live game: the process that started it is killed (-9) while
a question is open, and the other closes that question and finishes the game. Counted: every question posted
once and closed once, one final table, and every acknowledged answer stored and scored in it."""

from __future__ import annotations

import asyncio
import datetime as dt
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path
from queue import Empty, Queue

import pytest

from bot.kernel.values import ChannelRef
from bot.store.postgres import PostgresStore
from tests.integration.test_postgres_store import throwaway_database
from tests.support.live_worker import PLATFORM, SPACE

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
START = dt.datetime(2026, 12, 1, 18, 0, tzinfo=dt.UTC)
FACTOR = 5.0  # five simulated seconds a second: a 20 s question is open 4 s
QUESTIONS, SECONDS = 3, 20  # the fewest a game takes; the third is posted after the kill
KILLED_AT = 1  # the second question: the starter dies while it is open
PLAYERS = ("alice", "bob", "carol")


class Worker:
    def __init__(self, name: str, url: str, epoch: float) -> None:
        self.name = name
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.support.live_worker", url, START.isoformat(), str(epoch), str(FACTOR)],
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

    def drain(self) -> None:
        while True:
            try:
                self.seen.append(self.lines.get_nowait())
            except Empty:
                return

    def of(self, kind: str) -> list[list[str]]:
        return [line.split()[1:] for line in self.seen if line.split()[0] == kind]


async def wait_until(workers: list[Worker], done, what: str, within: float = 60) -> None:  # noqa: ANN001
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        for w in workers:
            w.drain()
        if done():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"no {what} within {within} s; saw {[w.seen[-6:] for w in workers]}")


def lines(workers: list[Worker], kind: str) -> list[tuple[str, list[str]]]:
    return [(w.name, words) for w in workers for words in w.of(kind)]


async def test_killing_the_starter_mid_question_leaves_the_other_process_to_finish_the_game():
    async with throwaway_database("studybot_live") as url:
        store = PostgresStore(url)
        await store.open()  # migrated once, before the processes start
        await store.close()
        epoch = time.time() + 3  # the game's clock starts when both processes are up
        a, b = Worker("a", url, epoch), Worker("b", url, epoch)
        workers = [a, b]
        try:
            await wait_until(workers, lambda: all(w.of("READY") == [[]] for w in workers), "READY", 30)
            await asyncio.sleep(max(0.0, epoch - time.time()))
            a.send(f"START chan alice {QUESTIONS} {SECONDS}")
            await wait_until(workers, lambda: a.of("STARTED") or a.of("ERR"), "start")
            assert a.of("STARTED") == [[]], a.seen
            b.send("START chan bob 3 10")  # one game per channel, whichever process is asked
            await wait_until(workers, lambda: b.of("ERR"), "a refusal")
            assert b.of("ERR") == [["start", "GameRunning"]]

            acked_before_kill = 0
            for position in range(QUESTIONS):
                await wait_until(
                    workers,
                    lambda p=position: any(int(w[1]) == p for _, w in lines(workers, "POSTQ")),
                    f"question {position + 1}",
                )
                [(_, (round_id, _, right))] = [x for x in lines(workers, "POSTQ") if int(x[1][1]) == position]
                wrong = "ABCD"[("ABCD".index(right) + 1) % 4]
                alive = [w for w in workers if w.proc.poll() is None]
                for i, (user, letter) in enumerate(zip(PLAYERS, (right, right, wrong), strict=True)):
                    alive[i % len(alive)].send(f"ANSWER {round_id} {user} {letter}")  # alternating processes
                    await asyncio.sleep(0.3)  # alice first, then bob: the faster right answer
                await wait_until(
                    workers,
                    lambda r=round_id: len([1 for _, x in lines(workers, "ACK") if x[0] == r]) == 3,
                    f"3 acks of {round_id}",
                )
                if position == KILLED_AT:  # the question is open; its starter dies
                    acked_before_kill = len([1 for name, _ in lines(workers, "ACK") if name == "a"])
                    a.proc.kill()
                    a.proc.wait(timeout=10)
            await wait_until(workers, lambda: lines(workers, "FINAL"), "the final table", 60)
            await asyncio.sleep(1.0)  # any late double post or close
            for w in workers:
                w.drain()
        finally:
            if b.proc.poll() is None:
                b.send("QUIT")
                try:
                    b.proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    b.proc.kill()
            if a.proc.poll() is None:
                a.proc.kill()
        assert b.proc.returncode == 0 and a.proc.returncode == -9

        posts = lines(workers, "POSTQ")
        assert sorted(int(w[1]) for _, w in posts) == list(range(QUESTIONS)), posts  # each posted once
        rounds = {int(w[1]): w[0] for _, w in posts}
        closes = lines(workers, "CLOSEQ")
        assert Counter(w[0] for _, w in closes) == Counter(rounds.values()), closes  # each closed once
        killed_round = rounds[KILLED_AT]
        assert [name for name, w in closes if w[0] == killed_round] == ["b"]  # the survivor closed it
        assert all(int(w[1]) == 3 for _, w in closes)  # every close counted the three answers
        assert acked_before_kill > 0
        [(_, [table])] = lines(workers, "FINAL")
        final = {user: int(points) for user, points in (item.split(":") for item in table.split(","))}

        acks = lines(workers, "ACK")
        assert len(acks) == 3 * QUESTIONS
        store = PostgresStore(url)
        await store.open()
        try:
            totals: dict[str, int] = defaultdict(int)
            for _, (round_id, user, letter) in acks:  # no acknowledged answer lost, each one scored
                answer = await store.get_answer(int(round_id), user)
                assert answer is not None and "ABCD"[answer.choice] == letter and answer.points is not None
                totals[user] += answer.points
            assert final == dict(totals)
            assert final["alice"] > final["bob"] > final["carol"] == 0
            board = await store.live_board(PLATFORM, SPACE, 10)
            assert [(s.user_id, s.points, s.games, s.wins) for s in board] == [
                ("alice", final["alice"], 1, 1),
                ("bob", final["bob"], 1, 0),
                ("carol", 0, 1, 0),
            ]
            assert await store.running_live_game(ChannelRef(PLATFORM, SPACE, "chan")) is None
        finally:
            await store.close()
