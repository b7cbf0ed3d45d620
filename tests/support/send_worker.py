"""One bot process of the send kill trials (tests/integration/test_send_kill.py): the real service, tick and
store (SQLite or PostgreSQL), and the real Discord and Slack adapters' platforms (discord.py and slack_sdk)
talking to the loopback fakes, on a clock shared with the test and the fakes (SharedClock), with a short
send lease and tick.

argv: store (a SQLite path or a postgresql:// URL), name, Discord API base, Slack API base, the shared clock's
origin (ISO), its wall-clock anchor (epoch seconds) and speed, the send lease and the tick (simulated seconds).
Its tokens name it ("Bot token-<name>", "Bearer xoxb-<name>"), so the fakes can tell which process called.

stdin, one command a line:
  CHANNEL <platform> <space> <channel> <answer window s>   a channel whose post is due now
  PAUSE before|after question|reveal <channel>             stop for good at that point of that send (once)
  DISARM                                                   forget the pauses armed
  ANSWER <platform> <space> <channel> <user> <letter>      an answer in the channel
  QUIT
stdout: READY, CHANNELED <channel>, ARMED <when> <kind> <channel>, SEND/SENT <kind> <platform> <channel>
<round> [<message>] around each platform send, FIND/FOUND around each look-up, PAUSED <when> <kind> <platform>
<channel> <round>, NOTICE, ACK/ERR <platform> <channel> <user> <letter|error>, BYE.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import random
import sys
import time
from typing import Any

import discord

from adapters.discord.platform import DiscordPlatform
from adapters.slack.platform import SlackPlatform, make_client
from bot.app.bootstrap import bootstrap
from bot.app.scheduler import DailyScheduler
from bot.kernel.cards import QuestionCard, RevealCard
from bot.kernel.errors import QuizError
from bot.kernel.parsing import parse_choice
from bot.kernel.platform import ChatPlatform, SendKind
from bot.kernel.values import ChannelConfig, ChannelRef
from bot.store.postgres import PostgresStore
from bot.store.sqlite import SqliteStore
from tests.support.fakes import make_bank


class SharedClock:
    """Simulated time every process of a trial reads alike: origin + (wall clock - anchor) x speed."""

    def __init__(self, origin: dt.datetime, anchor: float, speed: float) -> None:
        self.origin, self.anchor, self.speed = origin, anchor, speed

    def now(self) -> dt.datetime:
        return self.origin + dt.timedelta(seconds=(time.time() - self.anchor) * self.speed)

    def epoch(self) -> float:
        return self.now().timestamp()


def emit(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


class Pausing:
    """A platform's daily sends, told on stdout, with one-shot pauses where a test kills the process."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name: str = inner.name
        self.armed: set[tuple[str, str, str]] = set()  # (before | after, kind, channel)

    async def _gate(self, when: str, kind: SendKind, ref: ChannelRef, round_id: int) -> None:
        key = (when, kind, ref.channel_id)
        if key in self.armed:
            self.armed.discard(key)
            emit(f"PAUSED {when} {kind} {self.name} {ref.channel_id} {round_id}")
            await asyncio.Event().wait()  # until the kill

    async def post_question(self, ref: ChannelRef, card: QuestionCard) -> str:
        await self._gate("before", "question", ref, card.round_id)
        emit(f"SEND question {self.name} {ref.channel_id} {card.round_id}")
        message_id: str = await self.inner.post_question(ref, card)
        emit(f"SENT question {self.name} {ref.channel_id} {card.round_id} {message_id}")
        await self._gate("after", "question", ref, card.round_id)
        return message_id

    async def post_reveal(self, ref: ChannelRef, card: RevealCard) -> str | None:
        await self._gate("before", "reveal", ref, card.round_id)
        emit(f"SEND reveal {self.name} {ref.channel_id} {card.round_id}")
        message_id: str | None = await self.inner.post_reveal(ref, card)
        emit(f"SENT reveal {self.name} {ref.channel_id} {card.round_id} {message_id}")
        await self._gate("after", "reveal", ref, card.round_id)
        return message_id

    async def find_sent(self, ref: ChannelRef, round_id: int, kind: SendKind, since: dt.datetime) -> str | None:
        emit(f"FIND {kind} {self.name} {ref.channel_id} {round_id}")
        found: str | None = await self.inner.find_sent(ref, round_id, kind, since)
        emit(f"FOUND {kind} {self.name} {ref.channel_id} {round_id} {found or '-'}")
        return found

    async def post_notice(self, ref: ChannelRef, text: str) -> None:
        emit(f"NOTICE {self.name} {ref.channel_id}")
        await self.inner.post_notice(ref, text)

    async def send_private(self, ref: ChannelRef, user_id: str, text: str) -> None:
        await self.inner.send_private(ref, user_id, text)


async def main(
    where: str, name: str, discord_api: str, slack_api: str, origin: str, anchor: str, speed: str, lease: str, tick: str
) -> None:
    clock = SharedClock(dt.datetime.fromisoformat(origin), float(anchor), float(speed))
    store = PostgresStore(where) if where.startswith("postgresql") else SqliteStore(where)
    await store.open()
    discord.http.Route.BASE = discord_api
    client = discord.Client(intents=discord.Intents.none())
    await client.login(f"token-{name}")
    slack_client = make_client(f"xoxb-{name}", base_url=slack_api)
    platforms: dict[str, ChatPlatform] = {
        "discord": Pausing(DiscordPlatform(client)),
        "slack": Pausing(SlackPlatform(slack_client)),
    }
    service = bootstrap(
        store,
        make_bank(per_topic=4),
        clock,
        platforms,
        rng=random.Random(),
        send_lease=dt.timedelta(seconds=float(lease)),
    )
    scheduler = DailyScheduler(service, clock, tick=dt.timedelta(seconds=float(tick)))
    await service.posting.schedule_unscheduled(scheduler.spaces)
    emit("READY")
    pending: set[asyncio.Task[None]] = set()

    async def ticks() -> None:
        while True:
            await scheduler.tick()
            await asyncio.sleep(float(tick) / float(speed))

    async def answer(ref: ChannelRef, user: str, letter: str) -> None:
        try:
            outcome = await service.answers.answer_in_channel(ref, user, parse_choice(letter))
            emit(f"ACK {ref.platform} {ref.channel_id} {user} {outcome.chosen_letter}")
        except QuizError as exc:
            emit(f"ERR {ref.platform} {ref.channel_id} {user} {type(exc).__name__}")

    ticking = asyncio.create_task(ticks())
    while True:
        words = (await asyncio.to_thread(sys.stdin.readline)).split()
        if not words or words[0] == "QUIT":
            break
        if words[0] == "CHANNEL":
            platform, space, channel, window = words[1:5]
            ref = ChannelRef(platform, space, channel)
            await store.save_channel(ChannelConfig(ref=ref, answer_window=dt.timedelta(seconds=float(window))))
            await store.set_next_post(ref, clock.now())
            emit(f"CHANNELED {channel}")
        elif words[0] == "PAUSE":
            when, kind, channel = words[1:4]
            for p in platforms.values():
                assert isinstance(p, Pausing)
                p.armed.add((when, kind, channel))
            emit(f"ARMED {when} {kind} {channel}")
        elif words[0] == "DISARM":
            for p in platforms.values():
                assert isinstance(p, Pausing)
                p.armed.clear()
        elif words[0] == "ANSWER":
            platform, space, channel, user, letter = words[1:6]
            task = asyncio.create_task(answer(ChannelRef(platform, space, channel), user, letter))
            pending.add(task)
            task.add_done_callback(pending.discard)
    ticking.cancel()
    await asyncio.gather(ticking, *pending, return_exceptions=True)
    await service.close()
    await store.close()
    await client.close()
    emit("BYE")


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:10]))
