"""Issue 28 item 10 on Slack: without a network, one log line per retry with the next wait, as `studybot` prints
it at INFO (every logger: ours, slack-sdk's, slack-bolt's), against a refused connection on loopback."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import socket
from typing import Any

import pytest
from slack_bolt.async_app import AsyncApp
from slack_sdk.http_retry.builtin_interval_calculators import FixedValueRetryIntervalCalculator
from slack_sdk.web.async_client import AsyncWebClient

import adapters.slack.app as slack_app
from adapters.slack.app import GuardedSocketModeHandler, socket_mode_handler, start_slack
from adapters.slack.platform import make_client
from bot.app import retry_logs
from bot.app.config import Settings
from tests.adapters.slack.harness import SECRET, SlackHarness
from tests.support.loglines import printed_log


def closed_port() -> int:
    """A loopback port nothing listens on (bound for a moment, then released): connections are refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def quick_client(base_url: str) -> AsyncWebClient:
    """The adapter's client, its connection-error retry waiting 10 ms instead of half a second."""
    client = make_client("xoxb-test", base_url=base_url)
    for handler in client.retry_handlers:
        handler.interval_calculator = FixedValueRetryIntervalCalculator(0.01)
    return client


def failed_check(record: logging.LogRecord) -> bool:
    return record.name == "adapters.slack.app" and record.levelno >= logging.WARNING


def failed_socket(record: logging.LogRecord) -> bool:
    """slack-bolt's Socket Mode record of a failed reconnect (before the filter: an ERROR)."""
    return record.name == "slack_bolt.AsyncApp" and record.levelno >= logging.WARNING


async def test_the_token_check_without_a_network_prints_one_line_per_retry(slack: SlackHarness) -> None:
    retry_logs.install()  # as the CLI does
    port = closed_port()
    settings = Settings(
        slack_bot_token="xoxb-test", slack_signing_secret=SECRET, http_host="127.0.0.1", http_port=closed_port()
    )
    with printed_log() as log:
        starting = asyncio.create_task(
            start_slack(
                slack.service, settings, client=quick_client(f"http://127.0.0.1:{port}/api/"), retry_delays=(0.01,)
            )
        )
        try:
            await log.wait_for_retries(failed_check, 4)
        finally:
            starting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await starting
    per_retry = log.lines_per_retry(failed_check)
    assert len(per_retry) >= 3 and all(len(lines) == 1 for lines in per_retry), per_retry
    for [line] in per_retry:
        assert f"WARNING adapters.slack.app: cannot reach Slack (Cannot connect to host 127.0.0.1:{port}" in line
        assert re.search(r"attempt \d+ failed, retrying in 0\.01 s$", line), line


async def test_a_lost_socket_mode_connection_prints_one_line_per_reconnect(
    slack: SlackHarness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Connected in Socket Mode, then Slack's port refuses: slack-bolt's own reconnect loop, one warning line
    each (it printed "... seems to be already closed. Reconnecting...", "A retry handler found: ..." and an
    ERROR "Failed to check the current session ..." per attempt)."""
    retry_logs.install()  # as the CLI does
    wait = 0.05  # Socket Mode's check interval, shortened, and the wait the line names with it

    def quick_handler(app: AsyncApp, app_token: str) -> GuardedSocketModeHandler:
        return GuardedSocketModeHandler(app, app_token, ping_interval=wait)

    monkeypatch.setattr(slack_app, "socket_mode_handler", quick_handler)
    monkeypatch.setattr(retry_logs, "SOCKET_MODE_WAIT", wait)
    settings = Settings(slack_bot_token="xoxb-test", slack_app_token="xapp-1-test")
    task = await start_slack(slack.service, settings, client=quick_client(slack.stub.api_url))
    try:
        with printed_log() as log:
            await slack.stub.close()  # nothing listens on its port any more
            await log.wait_for_retries(failed_socket, 5)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    per_retry = log.lines_per_retry(failed_socket)
    assert len(per_retry) >= 4 and all(len(lines) == 1 for lines in per_retry), per_retry
    for [line] in per_retry:
        assert re.search(
            rf"WARNING slack_bolt\.AsyncApp: cannot reach Slack for Socket Mode \(ClientConnectorError: Cannot "
            rf"connect to host 127\.0\.0\.1:{slack.stub.port} .*\); retrying in 0\.05 s$",
            line,
        ), line
    assert not [r for r, _ in log.printed if r.levelno >= logging.ERROR or r.exc_info]


async def test_the_socket_mode_wait_in_the_line_is_the_handler_s_check_interval(slack: SlackHarness) -> None:
    handler: Any = socket_mode_handler(slack.bot.app, "xapp-1-test")
    try:
        assert handler.client.ping_interval == retry_logs.SOCKET_MODE_WAIT
    finally:
        await handler.client.close()
