"""Login, command sync and the gateway handshake of the real discord.py client against the fake."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path

import pytest

from adapters.discord.app import start_discord
from bot.app.config import Settings
from bot.kernel.errors import StartupError
from tests.adapters.discord.conftest import TOKEN, Core
from tests.adapters.discord.fake_discord import FakeDiscord
from tests.support.fakes import make_bank, write_bank_files

PRIVILEGED = (1 << 1) | (1 << 8) | (1 << 15)  # GUILD_MEMBERS, GUILD_PRESENCES, MESSAGE_CONTENT


async def test_start_discord_logs_in_syncs_to_the_test_guild_and_connects(
    fake: FakeDiscord, core: Core, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    settings = Settings.from_env({"DISCORD_TOKEN": TOKEN, "DISCORD_GUILD_ID": fake.guild_id})
    task = await start_discord(core.service, settings, guild_ready_timeout=0.1)
    client = core.service.context.platforms["discord"].client  # type: ignore[attr-defined]
    try:
        await asyncio.wait_for(client.wait_until_ready(), 5)
        login = fake.requests_to("GET", r"/users/@me$")
        assert login and login[0].headers["Authorization"] == f"Bot {TOKEN}"
        synced = fake.requests_to("PUT", rf"/applications/{fake.app_id}/guilds/{fake.guild_id}/commands$")
        assert len(synced) == 1 and not fake.requests_to("PUT", rf"/applications/{fake.app_id}/commands$")
        names = {c["name"] for c in synced[0].body}
        assert names == {
            *("quiz", "review", "plan", "remind", "answer", "leaderboard", "stats", "packs", "export", "forget-me"),
            *("suggest", "team", "quizconfig", "quizadmin", "live", "progress", "dashboard", "past"),
        }
        config = fake.command("quizconfig")
        assert {o["name"] for o in config["options"]} == {
            "schedule",
            "pause",
            "resume",
            "show",
            "post-now",
            "reveal",
            "filters",
            "reactions",
            "rules",
            "recap",
            "roles",
        }
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
        assert len(synced) == 1 and len(synced[0].body) == 18
        assert not fake.requests_to("PUT", r"/guilds/.*/commands$")
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def test_a_rejected_token_stops_with_a_clear_message(fake: FakeDiscord, core: Core) -> None:
    fake.accept_token = "the-real-one"
    with pytest.raises(StartupError, match="Discord rejected DISCORD_TOKEN") as raised:
        await start_discord(core.service, Settings(discord_token=TOKEN), guild_id=int(fake.guild_id))
    assert TOKEN not in str(raised.value)
    assert not fake.requests_to("PUT", r"/commands$")


async def test_a_bad_guild_id_is_refused_before_connecting(fake: FakeDiscord, core: Core) -> None:
    with pytest.raises(StartupError, match="DISCORD_GUILD_ID=my-server is not accepted: use a server id"):
        await start_discord(core.service, Settings.from_env({"DISCORD_TOKEN": TOKEN, "DISCORD_GUILD_ID": "my-server"}))
    assert fake.requests == []


async def test_studybot_run_starts_the_discord_adapter_when_a_token_is_set(
    fake: FakeDiscord, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.app.cli import run_bot

    monkeypatch.delenv("DISCORD_GUILD_ID", raising=False)
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'cli.db'}", bank_dir=small_bank(tmp_path), discord_token=TOKEN
    )
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


async def test_sigterm_stops_studybot_run_and_disconnects_the_gateway(fake: FakeDiscord, tmp_path) -> None:
    import os
    import signal

    from bot.app.cli import run_bot

    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'cli.db'}", bank_dir=small_bank(tmp_path), discord_token=TOKEN
    )
    running = asyncio.create_task(run_bot(settings))
    try:
        await fake.wait_for(lambda: fake.connected == 1 or running.done(), "the gateway connection")
        assert not running.done()
        # run_bot's handler is installed (without it the signal below would end the test run)
        assert signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, signal.SIG_IGN, signal.default_int_handler)
        os.kill(os.getpid(), signal.SIGTERM)
        assert await asyncio.wait_for(running, 10) == 0
    finally:
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running
    await fake.wait_for(lambda: fake.connected == 0, "the client to disconnect")
    assert not [t for t in asyncio.all_tasks() if t.get_name() == "discord-gateway"]


def small_bank(tmp_path) -> Path:  # type: ignore[no-untyped-def]
    """A few questions: run_bot starts in a moment (the shipped bank takes a second or more to load)."""
    return write_bank_files(tmp_path / "bank", make_bank())


async def test_without_a_network_the_login_is_retried_one_line_each(
    fake: FakeDiscord, core: Core, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import discord

    real_login = discord.http.HTTPClient.static_login
    attempts = 0

    async def flaky_login(self: discord.http.HTTPClient, token: str) -> object:
        """The first two attempts go to a port nobody listens on: a real refused connection."""
        nonlocal attempts
        attempts += 1
        base = discord.http.Route.BASE
        discord.http.Route.BASE = "http://127.0.0.1:1/api/v10" if attempts <= 2 else fake.api_base
        try:
            return await real_login(self, token)
        finally:
            discord.http.Route.BASE = base

    monkeypatch.setattr(discord.http.HTTPClient, "static_login", flaky_login)
    caplog.set_level(logging.WARNING, logger="adapters.discord.app")
    task = await start_discord(
        core.service, Settings(discord_token=TOKEN), retry_delays=(0.01, 0.02), guild_ready_timeout=0.1
    )
    try:
        await fake.wait_for(lambda: fake.connected == 1, "the gateway connection after two failed attempts")
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    retries = [r for r in caplog.records if r.name == "adapters.discord.app"]
    messages = [r.getMessage() for r in retries]
    assert len(messages) == 2 and attempts == 3, messages
    assert messages[0].startswith("cannot reach Discord (Cannot connect to host 127.0.0.1:1")
    assert messages[0].endswith("login attempt 1 failed, retrying in 0.01 s")
    assert messages[1].endswith("login attempt 2 failed, retrying in 0.02 s")
    assert all(r.exc_info is None for r in retries)  # one line each, no traceback
