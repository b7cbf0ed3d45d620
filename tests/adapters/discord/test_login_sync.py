"""Login, command sync and the gateway handshake of the real discord.py client against the fake."""

from __future__ import annotations

import asyncio
import contextlib
import logging

import pytest

from adapters.discord.app import start_discord
from bot.config import Settings
from tests.adapters.discord.conftest import TOKEN, Core
from tests.adapters.discord.fake_discord import FakeDiscord

PRIVILEGED = (1 << 1) | (1 << 8) | (1 << 15)  # GUILD_MEMBERS, GUILD_PRESENCES, MESSAGE_CONTENT


async def test_start_discord_logs_in_syncs_to_the_test_guild_and_connects(
    fake: FakeDiscord, core: Core, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("DISCORD_GUILD_ID", fake.guild_id)
    task = await start_discord(core.service, Settings(discord_token=TOKEN), guild_ready_timeout=0.1)
    client = core.service.platforms["discord"].client  # type: ignore[attr-defined]
    try:
        await asyncio.wait_for(client.wait_until_ready(), 5)
        login = fake.requests_to("GET", r"/users/@me$")
        assert login and login[0].headers["Authorization"] == f"Bot {TOKEN}"
        synced = fake.requests_to("PUT", rf"/applications/{fake.app_id}/guilds/{fake.guild_id}/commands$")
        assert len(synced) == 1 and not fake.requests_to("PUT", rf"/applications/{fake.app_id}/commands$")
        names = {c["name"] for c in synced[0].body}
        assert names == {"quiz", "answer", "leaderboard", "stats", "packs", "quizconfig", "quizadmin"}
        config = fake.command("quizconfig")
        assert {o["name"] for o in config["options"]} == {
            "schedule", "pause", "resume", "show", "post-now", "reveal", "filters", "reactions", "rules"}
        assert int(config["default_member_permissions"]) == 1 << 5  # Manage Server
        schedule = next(o for o in config["options"] if o["name"] == "schedule")
        tz = next(o for o in schedule["options"] if o["name"] == "timezone")
        assert tz["autocomplete"] is True
        assert fake.identifies and fake.identifies[0]["intents"] & PRIVILEGED == 0
        assert client.user is not None and str(client.user.id) == fake.bot.id
        assert not task.done()
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    assert client.is_closed()
    assert TOKEN not in caplog.text  # the token is never logged


async def test_without_a_guild_id_commands_are_synced_globally(
    fake: FakeDiscord, core: Core, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DISCORD_GUILD_ID", raising=False)
    task = await start_discord(core.service, Settings(discord_token=TOKEN), guild_ready_timeout=0.1)
    try:
        synced = fake.requests_to("PUT", rf"/applications/{fake.app_id}/commands$")
        assert len(synced) == 1 and len(synced[0].body) == 7
        assert not fake.requests_to("PUT", r"/guilds/.*/commands$")
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def test_a_rejected_token_stops_with_a_clear_message(fake: FakeDiscord, core: Core) -> None:
    fake.accept_token = "the-real-one"
    with pytest.raises(SystemExit, match="Discord rejected DISCORD_TOKEN") as raised:
        await start_discord(core.service, Settings(discord_token=TOKEN), guild_id=int(fake.guild_id))
    assert TOKEN not in str(raised.value)
    assert not fake.requests_to("PUT", r"/commands$")


async def test_a_bad_guild_id_is_refused_before_connecting(fake: FakeDiscord, core: Core,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_GUILD_ID", "my-server")
    with pytest.raises(SystemExit, match="DISCORD_GUILD_ID must be a server id"):
        await start_discord(core.service, Settings(discord_token=TOKEN))
    assert fake.requests == []


async def test_studybot_run_starts_the_discord_adapter_when_a_token_is_set(fake: FakeDiscord, tmp_path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.cli import run_bot

    monkeypatch.delenv("DISCORD_GUILD_ID", raising=False)
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'cli.db'}", discord_token=TOKEN)
    running = asyncio.create_task(run_bot(settings))
    try:
        await fake.wait_for(lambda: fake.connected == 1 or running.done(), "the gateway connection")
        assert not running.done()
        assert fake.requests_to("PUT", rf"/applications/{fake.app_id}/commands$")
    finally:
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running
        # run_bot only cancels the adapter task once it is inside gather(); stop it here in any case
        for task in [t for t in asyncio.all_tasks() if t.get_name() == "discord-gateway"]:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
    await fake.wait_for(lambda: fake.connected == 0, "the client to disconnect")
