"""Fixtures for the Discord end-to-end tests: a fake Discord on loopback, a real core (SqliteStore on a tmp
file, a small bank, a fixed clock) and the real discord.py client of the adapter, connected and ready."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import discord
import pytest
import yarl

from adapters.discord.app import StudyBotClient, launch
from bot.app.bootstrap import bootstrap
from bot.features import Features
from bot.kernel.values import Actor, ChannelRef
from bot.settings import ConfigChange
from bot.store.sqlite import SqliteStore
from tests.adapters.discord.fake_discord import FakeDiscord
from tests.support.fakes import FixedClock, make_bank

TOKEN = "fake-bot-token.not-a-secret.really"
START = dt.datetime(2026, 6, 1, 8, 0, tzinfo=dt.UTC)  # a Monday


@pytest.fixture
async def fake(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeDiscord]:
    server = FakeDiscord()
    await server.start()
    # monkeypatch restores both class attributes after the test
    monkeypatch.setattr(discord.http.Route, "BASE", server.api_base)
    monkeypatch.setattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", yarl.URL(server.gateway_url))
    yield server
    await server.stop()


@dataclass
class Core:
    store: SqliteStore
    service: Features
    clock: FixedClock

    async def close(self) -> None:
        await self.service.close()
        await self.store.close()


async def open_core(path: Path, clock: FixedClock | None = None) -> Core:
    store = SqliteStore(path)
    await store.open()
    clock = clock or FixedClock(START)
    return Core(store, bootstrap(store, make_bank(), clock, rng=random.Random(4)), clock)


@pytest.fixture
async def core(tmp_path: Path) -> AsyncIterator[Core]:
    c = await open_core(tmp_path / "studybot.db")
    yield c
    await c.close()


@dataclass
class Running:
    client: StudyBotClient
    task: asyncio.Task[None]

    async def stop(self) -> None:
        await self.client.close()
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task


async def run_bot(service: Features, **options: object) -> Running:
    options.setdefault("guild_ready_timeout", 0.1)
    client = StudyBotClient(service, **options)  # type: ignore[arg-type]
    task = await launch(client, TOKEN)
    await asyncio.wait_for(client.wait_until_ready(), 5)
    return Running(client, task)


@pytest.fixture
async def bot(fake: FakeDiscord, core: Core) -> AsyncIterator[StudyBotClient]:
    running = await run_bot(core.service)
    yield running.client
    await running.stop()


def channel_ref(fake: FakeDiscord, channel_id: str | None = None) -> ChannelRef:
    return ChannelRef("discord", fake.guild_id, channel_id or fake.channel_id)


ADMIN = Actor("setup-admin", is_admin=True)


async def configure_channel(core: Core, fake: FakeDiscord, **changes: object) -> ChannelRef:
    ref = channel_ref(fake)
    await core.service.channels.configure(
        ADMIN, ref, ConfigChange.of(post_time=dt.time(9, 0), timezone="UTC", **changes)
    )
    return ref
