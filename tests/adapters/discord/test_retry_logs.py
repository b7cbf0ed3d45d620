"""Issue 28 item 10: without a network, one log line per retry with the next wait, as `studybot` prints it at
INFO (every logger: ours, discord.py's, aiohttp's), against a refused connection on loopback."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import socket
from pathlib import Path

import discord
import pytest

from adapters.discord.app import start_discord
from bot.app import retry_logs
from bot.app.config import Settings
from tests.adapters.discord.conftest import TOKEN, Core
from tests.adapters.discord.conftest import run_bot as run_client
from tests.adapters.discord.fake_discord import FakeDiscord
from tests.support.fakes import make_bank, write_bank_files
from tests.support.loglines import printed_log


def closed_port() -> int:
    """A loopback port nothing listens on (bound for a moment, then released): connections are refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def failed_login(record: logging.LogRecord) -> bool:
    """Our login loop's record of a failed attempt."""
    return record.name == "adapters.discord.app" and record.levelno >= logging.WARNING


def failed_reconnect(record: logging.LogRecord) -> bool:
    """discord.py's record of a failed gateway reconnect (before the filter: an ERROR with a traceback)."""
    return record.name == "discord.client" and "reconnect" in record.getMessage()


async def test_a_login_without_a_network_prints_one_line_per_retry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`studybot` (run_bot, which installs the log filters) with DISCORD_TOKEN while Discord is unreachable."""
    from bot.app.cli import run_bot

    port = closed_port()
    monkeypatch.setattr(discord.http.Route, "BASE", f"http://127.0.0.1:{port}/api/v10")
    assert start_discord.__kwdefaults__ is not None
    monkeypatch.setitem(start_discord.__kwdefaults__, "retry_delays", (0.01, 0.02))  # the waits, shortened
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'cli.db'}",
        bank_dir=write_bank_files(tmp_path / "bank", make_bank()),
        discord_token=TOKEN,
    )
    with printed_log() as log:
        running = asyncio.create_task(run_bot(settings))
        try:
            await log.wait_for_retries(failed_login, 5)
        finally:
            running.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await running
    per_retry = log.lines_per_retry(failed_login)
    assert len(per_retry) >= 4 and all(len(lines) == 1 for lines in per_retry), per_retry
    first = per_retry[0][0]
    assert f"WARNING adapters.discord.app: cannot reach Discord (Cannot connect to host 127.0.0.1:{port}" in first
    assert first.endswith("login attempt 1 failed, retrying in 0.01 s")
    assert per_retry[1][0].endswith("login attempt 2 failed, retrying in 0.02 s")
    assert not [r for r, _ in log.printed if r.getMessage() == "logging in using static token"]


async def test_a_lost_gateway_prints_one_line_per_reconnect(
    fake: FakeDiscord, core: Core, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Connected, then the gateway's port refuses: discord.py's own reconnect loop, one warning line each (it
    logged an ERROR with a traceback of some 60 lines per attempt)."""
    retry_logs.install()  # as the CLI does
    monkeypatch.setattr(discord.backoff.ExponentialBackoff, "delay", lambda self: 0.05)  # the waits, shortened
    running = await run_client(core.service)
    try:
        with printed_log() as log:
            await fake.stop()  # nothing listens on its port any more
            await log.wait_for_retries(failed_reconnect, 4)
    finally:
        await running.stop()
    per_retry = log.lines_per_retry(failed_reconnect)
    assert len(per_retry) >= 3 and all(len(lines) == 1 for lines in per_retry), per_retry
    for [line] in per_retry:
        assert re.search(
            rf"WARNING discord\.client: cannot reach the Discord gateway \(ClientConnectorError: Cannot connect to "
            rf"host 127\.0\.0\.1:{fake.port} .*\); reconnecting in 0\.05 s$",
            line,
        ), line
    assert not [r for r, _ in log.printed if r.levelno >= logging.ERROR or r.exc_info]


def test_other_records_of_those_loggers_pass_unchanged() -> None:
    retry_logs.install()
    log = logging.getLogger("discord.client")
    with printed_log() as printed:
        log.warning("Application has an interaction endpoint URL set")
        log.info("logging in using static token")  # a duplicate of our own line: DEBUG, not printed at INFO
        try:
            raise OSError("boom")
        except OSError:
            log.exception("Ignoring exception in %s", "on_ready")
    assert [(r.levelname, r.getMessage()) for r, _ in printed.printed] == [
        ("WARNING", "Application has an interaction endpoint URL set"),
        ("ERROR", "Ignoring exception in on_ready"),
    ]
    assert printed.printed[1][0].exc_info is not None and len(printed.printed[1][1]) > 1  # its traceback stays


async def test_a_stop_signal_while_the_login_retries_ends_studybot_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGTERM between two login attempts: run_bot stops at once with 0 (it went on retrying for good)."""
    import os
    import signal

    from bot.app.cli import run_bot

    monkeypatch.setattr(discord.http.Route, "BASE", f"http://127.0.0.1:{closed_port()}/api/v10")
    assert start_discord.__kwdefaults__ is not None
    monkeypatch.setitem(start_discord.__kwdefaults__, "retry_delays", (30.0,))  # a stop comes mid-wait
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'cli.db'}",
        bank_dir=write_bank_files(tmp_path / "bank", make_bank()),
        discord_token=TOKEN,
    )
    with printed_log() as log:
        running = asyncio.create_task(run_bot(settings))
        try:
            await log.wait_for_retries(failed_login, 1)
            assert signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, signal.SIG_IGN, signal.default_int_handler)
            os.kill(os.getpid(), signal.SIGTERM)
            assert await asyncio.wait_for(asyncio.shield(running), 5) == 0
        finally:
            running.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await running
    assert not [t for t in asyncio.all_tasks() if t.get_name() == "discord-gateway"]


def test_the_shard_reconnect_records_become_one_line_too() -> None:
    """AutoShardedClient's own reconnect records (discord.shard), as discord.py logs them, with a traceback."""
    retry_logs.install()
    log = logging.getLogger("discord.shard")
    refused = ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 9)")
    with printed_log() as printed:
        log.error("Attempting a reconnect for shard ID %s in %.2fs", 1, 2.5, exc_info=refused)
        try:
            raise refused
        except OSError:
            log.exception("Failed to connect for shard_id: %s. Retrying...", 0)
    assert [len(lines) for _, lines in printed.printed] == [1, 1]  # one line each, no traceback
    messages = [(r.levelname, r.getMessage()) for r, _ in printed.printed]
    assert messages == [
        (
            "WARNING",
            "cannot reach the Discord gateway for shard 1 (ConnectionRefusedError: [Errno 111] Connect call failed "
            "('127.0.0.1', 9)); reconnecting in 2.50 s",
        ),
        (
            "WARNING",
            "cannot connect shard 0 to the Discord gateway (ConnectionRefusedError: [Errno 111] Connect call failed "
            "('127.0.0.1', 9)); retrying in 5 s",
        ),
    ]


def test_the_library_templates_the_filter_matches_are_the_installed_libraries() -> None:
    """A discord.py or slack-sdk upgrade that rewords these records would silently bring the noise back."""
    import inspect

    import discord.client
    import discord.shard
    import slack_sdk.socket_mode.aiohttp
    import slack_sdk.web.async_internal_utils

    sources = {
        discord.client: ("'logging in using static token'", "'Attempting a reconnect in %.2fs'"),
        discord.shard: (
            "'Attempting a reconnect for shard ID %s in %.2fs'",
            "'Failed to connect for shard_id: %s. Retrying...'",
            "await asyncio.sleep(5.0)",
        ),
        slack_sdk.web.async_internal_utils: ('f"A retry handler found: ',),
        slack_sdk.socket_mode.aiohttp: (
            'f"The session ({session_id}) seems to be already closed. Reconnecting..."',
            'f"Failed to check the current session ({session_id}) or reconnect to the server "',
            'f"(error: {type(e).__name__}, message: {e})"',
            'f"Failed to receive or enqueue a message: {type(e).__name__}, {e} ({session_id})"',
            'f"Failed to connect (error: {e}); Retrying..."',
            "await asyncio.sleep(self.ping_interval)",
        ),
    }
    for module, texts in sources.items():
        source = inspect.getsource(module)
        for text in texts:
            assert text in source, (module.__name__, text)
    assert retry_logs.SHARD_CONNECT_WAIT == 5.0
