"""Issue 34, "Done when": a real three-process cluster on PostgreSQL: two `interactive` studybot processes (Discord
shards 0 and 1 of STUDYBOT_SHARD_COUNT=auto, which the fake Discord recommends as 2) and one `delivery` process,
each the real `studybot run` (tests/support/role_worker.py) against the loopback fake Discord.

The delivery process is killed (kill -9) mid fan-out, while one channel's question is at Discord; members
answer through the interactive processes meanwhile. A second delivery process then finishes the day. Each
channel gets its question and its reveal exactly once, every acknowledged answer is in the store, every post
came from a delivery process over REST (neither delivery process opened the gateway), and the interactive
processes, which posted nothing, served the clicks on their own shards. One interactive process is killed
too, after its answers were acknowledged: they count.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.kernel.values import ChannelConfig, ChannelRef
from bot.store.postgres import PostgresStore
from tests.adapters.discord.fake_discord import FakeDiscord, FakeGuild, FakeUser, custom_ids, shard_of
from tests.integration.test_postgres_store import throwaway_database
from tests.support.fakes import make_bank, write_bank_files

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
WINDOW = dt.timedelta(seconds=24)  # each round's answer window: its reveal comes this long after its post
LEASE = 2  # STUDYBOT_SEND_LEASE_SECONDS: how soon the second delivery process takes up the dead one's claims
WAIT = 25.0  # seconds any one step may take at most


def posts_in(fake: FakeDiscord, channel: str) -> list[Any]:
    return fake.requests_to("POST", rf"/channels/{channel}/messages$")


class Bot:
    """One `studybot run` process; its log goes to a file, shown when the test fails."""

    def __init__(self, name: str, role: str, url: str, fake: FakeDiscord, bank: Path, log_dir: Path, **env: str):
        self.name, self.role = name, role
        self.log = log_dir / f"{name}.log"
        base = {k: v for k, v in os.environ.items() if not k.startswith(("STUDYBOT_", "DISCORD_", "SLACK_"))}
        base.update(
            STUDYBOT_ROLE=role,
            STUDYBOT_DATABASE_URL=url,
            DISCORD_TOKEN=f"token-{name}",  # the same bot for the fake; the token tells it which process called
            STUDYBOT_BANK_DIR=str(bank),
            STUDYBOT_TICK_SECONDS="1",
            STUDYBOT_SEND_LEASE_SECONDS=str(LEASE),
            STUDYBOT_WEB_PORT="0",
            STUDYBOT_LOG_LEVEL="INFO",
            **env,
        )
        with self.log.open("w") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "tests.support.role_worker", fake.api_base, fake.gateway_url],
                cwd=ROOT,
                env=base,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
            )

    @property
    def authorization(self) -> str:
        return f"Bot token-{self.name}"

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> int | None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                return self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        return self.proc.poll()

    def tail(self) -> str:
        return f"--- {self.name} ({self.role}) ---\n" + "\n".join(self.log.read_text().splitlines()[-40:])


def priority_below_mine(bot: Bot) -> int:
    """How far below this test's CPU priority the bot's process runs (its nice value, relative)."""
    return os.getpriority(os.PRIO_PROCESS, bot.proc.pid) - os.getpriority(os.PRIO_PROCESS, 0)


async def until(check: Any, what: str, bots: list[Bot], within: float = WAIT) -> Any:
    """Poll `check` (sync or async) until it is truthy; a bot that ended is a failure at once."""
    deadline = time.monotonic() + within
    while True:
        value = check()
        if asyncio.iscoroutine(value):
            value = await value
        if value:
            return value
        ended = [b for b in bots if b.proc.poll() is not None and b.proc.returncode != -signal.SIGKILL]
        assert not ended, "\n".join(b.tail() for b in ended)
        assert time.monotonic() < deadline, f"timed out waiting for {what}\n" + "\n".join(b.tail() for b in bots)
        await asyncio.sleep(0.1)


class Cluster:
    """The fake Discord with five guilds over two shards (ten channels), the store and the bots."""

    def __init__(self, url: str, tmp: Path) -> None:
        self.url, self.tmp = url, tmp
        self.fake = FakeDiscord()
        self.fake.recommended_shards = 2  # STUDYBOT_SHARD_COUNT=auto resolves to this
        for n in range(4):
            self.fake.add_guild(f"guild {n}", shard=(n % 2, 2))
        self.bank = write_bank_files(tmp / "bank", make_bank(per_topic=4))
        self.bots: list[Bot] = []
        self.rounds: dict[str, int] = {}  # channel -> its round today
        self.acked: set[tuple[int, str, int]] = set()  # (round, user, choice) acknowledged to the member
        self.clicked: set[str] = set()  # question messages answered

    @property
    def guilds(self) -> list[FakeGuild]:
        return list(self.fake.guilds.values())

    @property
    def channels(self) -> list[str]:
        return [c for g in self.guilds for c in (g.channel_id, g.other_channel_id)]

    def start(self, name: str, role: str, **env: str) -> Bot:
        bot = Bot(name, role, self.url, self.fake, self.bank, self.tmp, **env)
        self.bots.append(bot)
        return bot

    async def due_now(self) -> None:
        """Every channel saved with its post due now (before any bot starts: the store's schema comes first)."""
        store = PostgresStore(self.url)
        await store.open()
        try:
            now = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1)
            for guild in self.guilds:
                for channel in (guild.channel_id, guild.other_channel_id):
                    ref = ChannelRef("discord", guild.id, channel)
                    await store.save_channel(ChannelConfig(ref=ref, answer_window=WINDOW))
                    await store.set_next_post(ref, now)
        finally:
            await store.close()

    def questions(self, channel: str) -> list[dict[str, Any]]:
        """The bot's question messages in the channel (its answer buttons name the round)."""
        return [
            m
            for m in self.fake.messages.values()
            if m["channel_id"] == channel and any(c.startswith("studybot:answer:") for c in custom_ids(m["components"]))
        ]

    def reveals(self, channel: str) -> list[dict[str, Any]]:
        return [
            m
            for m in self.fake.messages.values()
            if m["channel_id"] == channel and any(c.startswith("studybot:report:") for c in custom_ids(m["components"]))
        ]

    async def answer_all(self, users: tuple[FakeUser, ...]) -> int:
        """Each user clicks a choice on every question posted and not yet answered; returns how many messages."""
        todo = [m for c in self.channels for m in self.questions(c) if m["id"] not in self.clicked]
        for message in todo:
            self.clicked.add(message["id"])
        await asyncio.gather(*(self._click(m, u, i) for m in todo for i, u in enumerate(users)))
        return len(todo)

    async def _click(self, message: dict[str, Any], user: FakeUser, n: int) -> None:
        round_id = int(
            next(c for c in custom_ids(message["components"]) if c.startswith("studybot:answer:")).split(":")[2]
        )
        letter = "ABCD"[n % 4]
        reply = await self.fake.reply(
            await self.fake.click(user, message, f"studybot:answer:{round_id}:{letter}"), WAIT
        )
        if f"Your answer {letter} is locked in" in reply.text:
            self.acked.add((round_id, user.id, n % 4))

    async def rows(self) -> dict[int, tuple[str, str, str | None, str]]:
        """round id -> (post state, reveal state, message id, channel), as the store holds them."""
        conn = await asyncpg.connect(self.url)
        try:
            found = await conn.fetch(
                "SELECT id, post_state, reveal_state, message_id, channel_id FROM rounds WHERE kind = 'daily'"
            )
        finally:
            await conn.close()
        return {int(r[0]): (r[1], r[2], r[3], r[4]) for r in found}

    async def beats(self) -> tuple[Any, ...]:
        """Each running span's latest tick (bot.daily.uptime: a tick records it as it begins)."""
        conn = await asyncpg.connect(self.url)
        try:
            found = await conn.fetch("SELECT span, MAX(seen_at) FROM running_spans GROUP BY span ORDER BY span")
        finally:
            await conn.close()
        return tuple(tuple(r) for r in found)

    async def whole_ticks(self, bot: Bot, bots: list[Bot]) -> None:
        """Wait until `bot` (the one delivery process running) has begun two more ticks: the first of them has
        run whole since this call (a process begins a tick once its last one is done)."""
        changes: dict[str, int] = {}
        last = {span: seen for span, seen in await self.beats()}

        async def twice() -> bool:
            for span, seen in await self.beats():
                if span in last and seen != last[span]:
                    changes[span] = changes.get(span, 0) + 1
                last[span] = seen
            return max(changes.values(), default=0) >= 2

        await until(twice, f"two more ticks of {bot.name}", bots)

    async def answers(self) -> set[tuple[int, str, int]]:
        conn = await asyncpg.connect(self.url)
        try:
            found = await conn.fetch("SELECT round_id, user_id, choice FROM answers")
        finally:
            await conn.close()
        return {(int(r[0]), str(r[1]), int(r[2])) for r in found}


async def test_two_interactive_and_one_delivery_process_post_and_reveal_each_channel_once(tmp_path: Path) -> None:
    async with throwaway_database("studybot_roles") as url:
        cluster = Cluster(url, tmp_path)
        fake = cluster.fake
        await fake.start()
        try:
            await run(cluster)
        finally:
            for bot in cluster.bots:
                bot.stop()
            for hold in fake._holds:
                hold.release()
            await fake.stop()


async def run(cluster: Cluster) -> None:
    fake = cluster.fake
    await cluster.due_now()
    assert len(cluster.channels) == 10 and {shard_of(g.id, 2) for g in cluster.guilds} == {0, 1}
    # mid fan-out: the first delivery process's questions in two channels are at Discord (made, the answers
    # held), in two more they wait out a 429 (nothing made), when it is killed
    held, limited = cluster.channels[1:3], cluster.channels[6:8]
    holds = [fake.hold_next("POST", rf"/channels/{c}/messages$") for c in held]
    for channel in limited:
        fake.rate_limit_next("POST", rf"/channels/{channel}/messages$", retry_after=60)
    left = cluster.start("left", "interactive", STUDYBOT_SHARD_COUNT="auto", STUDYBOT_SHARD_IDS="0")
    right = cluster.start("right", "interactive", STUDYBOT_SHARD_COUNT="auto", STUDYBOT_SHARD_IDS="1")
    first = cluster.start("delivery-1", "delivery", STUDYBOT_SHARD_COUNT="auto")
    bots = cluster.bots
    await until(lambda: all(h.arrived.is_set() for h in holds), "the first delivery process's held posts", bots)
    await until(lambda: not fake._faults, "the first delivery process's rate-limited posts", bots)
    await until(lambda: fake.connected == 2, "both interactive processes on the gateway", bots)
    assert sorted(tuple(i["shard"]) for i in fake.identifies) == [(0, 2), (1, 2)]  # auto: Discord's 2
    # the delivery process runs below the interactive ones' CPU priority (STUDYBOT_DELIVERY_NICE, default 10)
    lowered = min(10, 19 - os.getpriority(os.PRIO_PROCESS, 0))  # (nice stops at 19)
    assert [priority_below_mine(bot) for bot in (left, right, first)] == [0, 0, lowered]

    # members answer through the interactive processes while the delivery process is held mid fan-out
    users = (fake.alice, fake.bob, fake.ada)
    assert await cluster.answer_all(users) >= 1
    first.kill()  # kill -9 with a question at Discord and the rest of its claims leased
    second = cluster.start("delivery-2", "delivery")  # STUDYBOT_SHARD_COUNT unset: it delivers for every guild
    await until(lambda: all(cluster.questions(c) for c in cluster.channels), "every channel's question", cluster.bots)
    await cluster.answer_all(users)
    right.kill()  # an interactive process dies after acknowledging its answers: they count

    async def all_revealed() -> bool:
        rows = await cluster.rows()
        return len(rows) == 10 and all(r[1] == "sent" for r in rows.values())

    await until(all_revealed, "every round revealed", [left, second], within=WINDOW.total_seconds() + WAIT)
    await cluster.whole_ticks(second, [left, second])  # a whole tick more: nothing is posted again
    rows = await cluster.rows()
    for channel in cluster.channels:
        questions, reveals = cluster.questions(channel), cluster.reveals(channel)
        assert len(questions) == 1 and len(reveals) == 1, (channel, len(questions), len(reveals))
        [(round_id, row)] = [(r, row) for r, row in rows.items() if row[3] == channel]
        assert row[:3] == ("sent", "sent", questions[0]["id"]), (channel, row)
    # the second process found the held questions at Discord and posted the rate-limited ones, once each
    for channel in held:
        # the question by the first process, the reveal by the second
        assert [r.headers["Authorization"] for r in posts_in(fake, channel)] == [
            first.authorization,
            second.authorization,
        ]
    for channel in limited:
        assert [r.headers["Authorization"] for r in posts_in(fake, channel) if r.status == 200] == [
            second.authorization
        ] * 2
    assert cluster.acked and len(cluster.acked) == 3 * 10  # every member answered every channel
    assert cluster.acked <= await cluster.answers()
    # every post came from a delivery process; neither opened the gateway; the interactive ones posted nothing
    posts = fake.requests_to("POST", r"/channels/\d+/messages$")
    senders = {r.headers.get("Authorization") for r in posts}
    assert senders <= {first.authorization, second.authorization} and second.authorization in senders
    identified = {i["token"] for i in fake.identifies}
    assert identified == {"token-left", "token-right"}
