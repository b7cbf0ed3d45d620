"""Kill -9 trials of the daily sends (issue 30), run by tests/integration/test_send_kill.py.

Bot processes (tests/support/send_worker.py: the real tick, store and Discord and Slack adapters) run on one
store against the loopback fakes of Discord and Slack, which record every message they accept; all share one
simulated clock (SharedClock) with a 10 s send lease and a 2 s tick: on SQLite it runs 5 times as fast as
the wall clock; on PostgreSQL it is the wall clock (the database's clock may decide what is due there).
Each trial gives a new channel (Discord or Slack, in turn) a post due now, kills the process doing one step
of its post or its reveal with SIGKILL, restarts it, answers the question through the processes, ends the
answer window (the round's reveal is due now: the processes' tick reveals it) and waits for the reveal.
At the end every trial's round must have exactly one question and one reveal at the platform, the store must
hold that question's message id and both sends settled, and every acknowledged answer must be stored.

Where a kill lands (one scenario a trial):
  before-post / before-reveal      the send is claimed, the platform not called yet (the worker pauses there)
  held-post / held-reveal          the request is at the platform, which made the message and holds the reply
  unstored-post / unstored-reveal  the platform answered, the outcome is not stored yet (the worker pauses)
  twice-post / twice-reveal        held at the platform, then the next process's look-up held and killed too
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg

from bot.store.rows import to_ts
from tests.adapters.discord.fake_discord import FakeDiscord, custom_ids
from tests.adapters.slack.stub import SlackApiStub
from tests.support.send_worker import SharedClock

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = (
    "before-post",
    "held-post",
    "unstored-post",
    "before-reveal",
    "held-reveal",
    "unstored-reveal",
    "twice-post",
    "twice-reveal",
)
SPEED = 5.0  # simulated seconds per real second on SQLite (PostgreSQL: 1, see Trials)
LEASE = 10.0  # the send lease, simulated seconds
TICK = 2.0  # the tick, simulated seconds
WINDOW = 3600  # the channels' answer window (simulated s); a trial ends it once its answers are in (close)
USERS = (("u1", "A"), ("u2", "B"), ("u3", "C"))
WAIT = 90.0  # real seconds any one step may take at most
SLACK_TEAM = "T0TEAM1"


class Worker:
    """One bot process: its lines (read by a thread), commands on stdin, SIGKILL."""

    def __init__(self, name: str, argv: list[str]) -> None:
        self.name = name
        self.proc = subprocess.Popen(
            argv, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        self.lines: list[str] = []
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.strip())

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        with contextlib.suppress(BrokenPipeError, OSError):
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)
        assert self.proc.returncode == -signal.SIGKILL


@dataclass
class Trial:
    n: int
    platform: str
    scenario: str
    space: str
    channel: str
    round_id: int = 0
    kills: list[str] = field(default_factory=list)  # where each kill landed
    armed: asyncio.Event = field(default_factory=asyncio.Event)  # the reveal's kill point is set


async def until(what: str, predicate: Callable[[], Any], within: float = WAIT) -> Any:
    deadline = time.monotonic() + within
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


class Trials:
    """The fakes, the bot processes (`names`) on one store, and the trials run so far."""

    def __init__(self, where: str, names: tuple[str, ...], speed: float | None = None) -> None:
        """`speed`: of the shared clock (default: SPEED on SQLite; on PostgreSQL 1, from now, so the bot's
        clock is the database's, which may decide what is due)."""
        self.where = where
        self.names = names
        if speed is None:
            speed = 1.0 if where.startswith("postgresql") else SPEED
        self.speed = speed
        origin = dt.datetime.now(dt.UTC) if speed == 1 else dt.datetime(2026, 12, 1, 8, 0, tzinfo=dt.UTC)
        self.clock = SharedClock(origin, time.time(), speed)
        self.discord = FakeDiscord(clock=self.clock.epoch)
        self.slack = SlackApiStub()
        self.slack.clock = self.clock.epoch
        self.workers: dict[str, Worker] = {}
        self.retired: list[Worker] = []
        self.trials: list[Trial] = []
        self._turn = 0

    # ---- processes -------------------------------------------------------------------------------

    async def start(self) -> None:
        await self.discord.start()
        await self.slack.start()
        await asyncio.gather(*(self._spawn(name) for name in self.names))

    async def _spawn(self, name: str) -> None:
        argv = [
            sys.executable,
            "-m",
            "tests.support.send_worker",
            self.where,
            name,
            self.discord.api_base,
            self.slack.api_url,
            self.clock.origin.isoformat(),
            repr(self.clock.anchor),
            str(self.speed),
            str(LEASE),
            str(TICK),
        ]
        worker = self.workers[name] = Worker(name, argv)
        await until(f"worker {name} to start", lambda: "READY" in worker.lines or worker.proc.poll() is not None)
        assert worker.proc.poll() is None, f"worker {name} exited: {worker.lines[-5:]}"

    async def kill(self, name: str, trial: Trial, where: str) -> None:
        """SIGKILL the process `name` (it is at `where` of the trial's send), then start it again."""
        worker = self.workers.pop(name)
        worker.kill()
        self.retired.append(worker)
        trial.kills.append(where)
        for other in self.workers.values():
            other.send("DISARM")
        await self._spawn(name)

    def one(self) -> Worker:
        """A live process to give a command to (each in turn)."""
        self._turn += 1
        live = sorted(self.workers)
        return self.workers[live[self._turn % len(live)]]

    def tell_all(self, line: str) -> None:
        for worker in self.workers.values():
            worker.send(line)

    async def stop(self) -> None:
        for worker in self.workers.values():
            worker.send("QUIT")
        for worker in self.workers.values():
            await until(f"worker {worker.name} to stop", lambda w=worker: w.proc.poll() is not None)  # type: ignore[misc]
            assert worker.proc.returncode == 0 and worker.lines[-1] == "BYE", worker.lines[-5:]
        await self.discord.stop()
        await self.slack.close()

    def all_lines(self) -> list[str]:
        return [line for w in [*self.retired, *self.workers.values()] for line in w.lines]

    # ---- what the platforms hold -------------------------------------------------------------------

    def messages(self, trial: Trial, kind: str) -> list[str]:
        """The ids of the bot's messages of the trial's round and kind that the platform accepted."""
        if trial.platform == "discord":
            round_id = trial.round_id
            wanted = f"studybot:answer:{round_id}:A" if kind == "question" else f"studybot:report:{round_id}"
            return [
                m["id"]
                for m in self.discord.messages.values()
                if m["channel_id"] == trial.channel and wanted in custom_ids(m["components"])
            ]
        return [f"{trial.channel}:{m['ts']}" for m in self.slack.round_messages(trial.channel, trial.round_id, kind)]

    def channel_messages(self, trial: Trial) -> int:
        if trial.platform == "discord":
            return sum(m["channel_id"] == trial.channel for m in self.discord.messages.values())
        return len(self.slack.messages[trial.channel])

    def _question_round(self, trial: Trial) -> int:
        if trial.platform == "discord":
            for m in self.discord.messages.values():
                for custom_id in custom_ids(m["components"]) if m["channel_id"] == trial.channel else []:
                    if custom_id.startswith("studybot:answer:"):
                        return int(custom_id.split(":")[2])
            return 0
        for m in self.slack.messages[trial.channel]:
            payload = (m.get("metadata") or {}).get("event_payload") or {}
            if payload.get("kind") == "question":
                return int(payload["round_id"])
        return 0

    # ---- kill points -------------------------------------------------------------------------------

    def _hold(self, trial: Trial, kind: str | None) -> Any:
        """Hold the next request of the trial's channel at its platform: its `kind` of post, or (None) any."""
        channel = trial.channel
        if trial.platform == "discord":
            if kind is None:
                return self.discord.hold_next("*", rf"/channels/{channel}/")
            letter = kind[0]
            return self.discord.hold_next(
                "POST",
                rf"^/api/v10/channels/{channel}/messages$",
                when=lambda r: str((r.body or {}).get("nonce", "")).startswith(f"sb-{letter}-"),
            )

        def slack_call(args: dict[str, Any]) -> bool:
            meta = args.get("metadata") or {}
            ours = kind is None or meta.get("event_payload", {}).get("kind") == kind
            return args.get("channel") == channel and ours

        return self.slack.hold_next("*" if kind is None else "chat.postMessage", when=slack_call)

    async def _kill_held(self, trial: Trial, hold: Any, where: str, then: Callable[[], Any] | None = None) -> Any:
        """Kill the process whose request `hold` holds (its token names it); `then`, called before the kill,
        arms the next kill point (the next process may reach it as soon as it is up). Returns what it made."""
        await until(f"trial {trial.n}: {where}", hold.arrived.is_set)
        following = then() if then is not None else None
        request = hold.request if trial.platform == "discord" else hold.call
        auth = request.headers["Authorization"]
        name = auth.removeprefix("Bot token-").removeprefix("Bearer xoxb-")
        try:
            await self.kill(name, trial, where)
        finally:
            hold.release()
        return following

    async def _kill_paused(self, trial: Trial, when: str, kind: str) -> None:
        mark = f"PAUSED {when} {kind} {trial.platform} {trial.channel} "

        def paused() -> str | None:
            return next((n for n, w in self.workers.items() if any(x.startswith(mark) for x in w.lines)), None)

        name = await until(f"trial {trial.n}: a pause {when} the {kind}", paused)
        await self.kill(name, trial, f"{when}-{kind}")

    async def _kill_at(self, trial: Trial, kind: str) -> None:
        """The trial's kill(s) in the `kind` send, if its scenario has one there."""
        scenario = trial.scenario
        if not scenario.endswith(kind if kind == "reveal" else "post"):
            return
        if scenario.startswith(("before", "unstored")):
            when = "before" if scenario.startswith("before") else "after"
            armed = f"ARMED {when} {kind} {trial.channel}"
            starts = {name: len(w.lines) for name, w in self.workers.items()}
            self.tell_all(f"PAUSE {when} {kind} {trial.channel}")
            await until(
                f"trial {trial.n}: the pause armed",
                lambda: all(armed in w.lines[starts[n] :] for n, w in self.workers.items()),
            )
            trial.armed.set()
            if kind == "question":
                self.one().send(f"CHANNEL {trial.platform} {trial.space} {trial.channel} {WINDOW}")
            await self._kill_paused(trial, when, kind)
            return
        hold = self._hold(trial, kind)
        trial.armed.set()
        if kind == "question":
            self.one().send(f"CHANNEL {trial.platform} {trial.space} {trial.channel} {WINDOW}")
        twice = scenario.startswith("twice")
        look_up = await self._kill_held(
            trial, hold, f"held-{kind}", (lambda: self._hold(trial, None)) if twice else None
        )
        if look_up is not None:
            await self._kill_held(trial, look_up, f"held-look-up-{kind}")

    # ---- a trial -----------------------------------------------------------------------------------

    async def run(self, platform: str, scenario: str) -> Trial:
        n = len(self.trials) + 1
        if platform == "discord":
            trial = Trial(n, platform, scenario, self.discord.guild_id, self.discord.snowflake())
        else:
            trial = Trial(n, platform, scenario, SLACK_TEAM, f"C0TRIAL{n:03d}")
        self.trials.append(trial)
        if scenario.endswith("post"):
            await self._kill_at(trial, "question")
        else:
            self.one().send(f"CHANNEL {platform} {trial.space} {trial.channel} {WINDOW}")
        trial.round_id = await until(f"trial {n}: its question", lambda: self._question_round(trial))
        await self._answer(trial)
        reveal = asyncio.ensure_future(self._kill_at(trial, "reveal"))
        if scenario.endswith("reveal"):
            await until(f"trial {n}: the reveal's kill point set", trial.armed.is_set)
        await self._close(trial)
        await reveal
        await until(f"trial {n}: its reveal", lambda: self.messages(trial, "reveal"))
        return trial

    async def _answer(self, trial: Trial) -> None:
        """Each user answers through a live process until it is acknowledged (the question's post may be
        recorded a while after the platform has it: after a kill, when the lease has run out)."""
        deadline = time.monotonic() + WAIT
        for user, letter in USERS:
            while True:
                worker = self.one()
                start = len(worker.lines)
                worker.send(f"ANSWER {trial.platform} {trial.space} {trial.channel} {user} {letter}")
                mark = f" {trial.platform} {trial.channel} {user} "
                line = await until(
                    f"trial {trial.n}: an answer of {user}",
                    lambda w=worker, s=start, m=mark: next(  # type: ignore[misc]
                        (x for x in w.lines[s:] if x.startswith(("ACK", "ERR")) and m in x),
                        None if w.proc.poll() is None else "ERR gone",
                    ),
                )
                if line.startswith("ACK"):
                    break
                assert time.monotonic() < deadline, f"trial {trial.n}: {user} never got an answer in: {line}"
                await asyncio.sleep(0.1)

    async def _close(self, trial: Trial) -> None:
        """The round's answer window ends now: its reveal is due at the processes' next tick."""
        now = self.clock.now()
        if self.where.startswith("postgresql"):
            conn = await asyncpg.connect(self.where)
            try:
                await conn.execute("UPDATE rounds SET closes_at = $1 WHERE id = $2", now, trial.round_id)
            finally:
                await conn.close()
        else:
            with contextlib.closing(sqlite3.connect(self.where, timeout=30)) as con, con:
                con.execute("UPDATE rounds SET closes_at = ? WHERE id = ?", (to_ts(now), trial.round_id))

    # ---- the verdict -------------------------------------------------------------------------------

    async def rows(self) -> dict[int, tuple[str, str, str | None]]:
        """round id -> (post state, reveal state, message id), as the store holds them."""
        sql = "SELECT id, post_state, reveal_state, message_id FROM rounds WHERE kind = 'daily'"
        if self.where.startswith("postgresql"):
            conn = await asyncpg.connect(self.where)
            try:
                found = await conn.fetch(sql)
            finally:
                await conn.close()
        else:
            with contextlib.closing(sqlite3.connect(self.where)) as con:
                found = con.execute(sql).fetchall()
        return {int(r[0]): (r[1], r[2], r[3]) for r in found}

    async def _settled(self) -> bool:
        rows = await self.rows()
        return all(rows.get(t.round_id, ("", "", None))[:2] == ("sent", "sent") for t in self.trials)

    async def answers(self) -> set[tuple[int, str, int]]:
        sql = "SELECT round_id, user_id, choice FROM answers"
        if self.where.startswith("postgresql"):
            conn = await asyncpg.connect(self.where)
            try:
                found = await conn.fetch(sql)
            finally:
                await conn.close()
        else:
            with contextlib.closing(sqlite3.connect(self.where)) as con:
                found = con.execute(sql).fetchall()
        return {(int(r[0]), str(r[1]), int(r[2])) for r in found}

    async def verdict(self) -> dict[str, Any]:
        """Settle, stop every process, and check every trial; returns the counts."""
        # every send settled in the store (nothing left to claim), then two ticks for anything late
        deadline = time.monotonic() + WAIT
        while not await self._settled():
            assert time.monotonic() < deadline, "the trials' sends never all settled in the store"
            await asyncio.sleep(0.2)
        await asyncio.sleep(2 * TICK / self.speed)
        posted = [self.messages(t, "question") for t in self.trials]
        revealed = [self.messages(t, "reveal") for t in self.trials]
        await self.stop()
        rows = await self.rows()
        stored = await self.answers()
        lines = self.all_lines()
        by_round = {(t.platform, t.channel): t.round_id for t in self.trials}
        acked = {
            (by_round[(p, c)], user, "ABCD".index(letter))
            for p, c, user, letter in (line.split()[1:5] for line in lines if line.startswith("ACK "))
        }
        problems = []
        for t, questions, reveals in zip(self.trials, posted, revealed, strict=True):
            post_state, reveal_state, message_id = rows.get(t.round_id, ("missing", "missing", None))
            if len(questions) != 1 or len(reveals) != 1 or self.channel_messages(t) != 2:
                problems.append(
                    f"trial {t.n} ({t.platform} {t.scenario}): {len(questions)} posts, {len(reveals)} reveals"
                )
            if post_state != "sent" or reveal_state != "sent" or [message_id] != questions:
                problems.append(f"trial {t.n}: stored {post_state}/{reveal_state} {message_id}, platform {questions}")
        lost = sorted(acked - stored)
        if lost:
            problems.append(f"acknowledged answers lost: {lost}")
        kills = [k for t in self.trials for k in t.kills]
        return {
            "trials": len(self.trials),
            "kills": len(kills),
            "kills_by_point": dict(Counter(kills)),
            "by_platform": dict(Counter(t.platform for t in self.trials)),
            "posted_exactly_once": sum(len(q) == 1 for q in posted),
            "revealed_exactly_once": sum(len(r) == 1 for r in revealed),
            "acknowledged_answers": len(acked),
            "acknowledged_answers_stored": len(acked & stored),
            "problems": problems,
        }
