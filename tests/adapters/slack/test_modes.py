"""Both connection modes: the Socket Mode handler wired to the same app, `start_slack` in Socket Mode (over
a loopback WebSocket) and in HTTP mode, and the Slack options read from the environment."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from slack_sdk.socket_mode.request import SocketModeRequest
from slack_sdk.socket_mode.response import SocketModeResponse

from adapters.slack.app import socket_mode_handler, start_slack
from adapters.slack.options import SlackOptions
from adapters.slack.platform import make_client
from bot.app.config import Settings
from bot.kernel.errors import StartupError
from tests.adapters.slack.harness import ANN, CHANNEL, SECRET, SlackHarness, texts
from tests.adapters.slack.stub import TEAM_ID
from tests.support.fakes import make_bank, write_bank_files


class RecordingSocketClient:
    """Stands in for the SocketModeClient when a request is handed to the handler directly."""

    def __init__(self, logger: Any) -> None:
        self.logger = logger
        self.sent: list[SocketModeResponse] = []

    async def send_socket_mode_response(self, response: SocketModeResponse) -> None:
        self.sent.append(response)


def _command_payload(slack: SlackHarness, text: str, name: str) -> dict[str, str]:
    return {
        "team_id": TEAM_ID,
        "channel_id": CHANNEL,
        "user_id": ANN,
        "command": "/quiz",
        "text": text,
        "api_app_id": "A0APP",
        "response_url": slack.stub.response_url(name),
        "trigger_id": "1.2.3",
    }


async def test_socket_mode_handler_is_built_and_wired_to_the_same_app(slack: SlackHarness) -> None:
    handler = socket_mode_handler(slack.bot.app, "xapp-1-test")
    try:
        assert handler.app is slack.bot.app
        assert handler.client.web_client is slack.bot.app.client
        assert handler.client.app_token == "xapp-1-test"
        assert handler.handle in handler.client.socket_mode_request_listeners
        assert handler.client.current_session is None, "building the handler does not connect"

        # a Socket Mode request (unsigned: the WebSocket is the authentication) reaches the same listeners
        fake = RecordingSocketClient(handler.client.logger)
        request = SocketModeRequest(
            type="slash_commands", envelope_id="env-1", payload=_command_payload(slack, "help", "sock")
        )
        await handler.handle(fake, request)  # type: ignore[arg-type]
        assert [r.envelope_id for r in fake.sent] == ["env-1"]
        [reply] = await slack.stub.wait_for("respond:sock")
        assert "/quiz leaderboard" in texts(reply)
    finally:
        await handler.client.close()


async def test_start_slack_socket_mode_serves_over_a_websocket(slack: SlackHarness) -> None:
    round_ = await slack.daily_round()
    settings = Settings(slack_bot_token="xoxb-test", slack_app_token="xapp-1-test")
    client = make_client("xoxb-test", base_url=slack.stub.api_url)
    task = await start_slack(slack.service, settings, client=client)
    try:
        [opened] = slack.stub.calls_to("apps.connections.open")
        assert opened.headers["Authorization"] == "Bearer xapp-1-test"
        channel, ts = round_.message_id.split(":", 1)  # type: ignore[union-attr]
        event = {
            "type": "reaction_added",
            "user": ANN,
            "reaction": "two",
            "item": {"type": "message", "channel": channel, "ts": ts},
        }
        body = {
            "team_id": TEAM_ID,
            "api_app_id": "A0APP",
            "type": "event_callback",
            "event_id": "Ev0SOCK",
            "event_time": 1,
            "event": event,
        }
        await slack.stub.socket_send(
            {
                "envelope_id": "env-2",
                "type": "events_api",
                "payload": body,
                "accepts_response_payload": False,
                "retry_attempt": 0,
            }
        )
        [ack] = await slack.stub.wait_for("socket:ack")
        assert ack.args["envelope_id"] == "env-2"
        await slack.stub.wait_for("chat.postEphemeral")
        [answer] = await slack.store.round_answers(round_.id)
        assert (answer.user_id, answer.choice) == (ANN, 1)
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_start_slack_http_mode_serves_until_cancelled(slack: SlackHarness) -> None:
    port = _free_port()
    settings = Settings(slack_bot_token="xoxb-test", slack_signing_secret=SECRET, http_host="127.0.0.1", http_port=port)
    client = make_client("xoxb-test", base_url=slack.stub.api_url)
    task = await start_slack(slack.service, settings, client=client)
    assert slack.stub.calls_to("auth.test"), "the token is checked at start"
    url = f"http://127.0.0.1:{port}/slack/events"
    body = json.dumps({"type": "url_verification", "challenge": "c-1", "token": "t"})
    from tests.adapters.slack.signing import signed_headers

    async with aiohttp.ClientSession() as session:
        async with session.post(url, data=body, headers=signed_headers(SECRET, body, "application/json")) as resp:
            assert resp.status == 200 and json.loads(await resp.text()) == {"challenge": "c-1"}
        async with session.post(url, data=body, headers=signed_headers("wrong", body, "application/json")) as resp:
            assert resp.status == 401
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        with pytest.raises(aiohttp.ClientConnectionError):
            async with session.post(url, data=body, headers=signed_headers(SECRET, body, "application/json")):
                pass


async def test_http_mode_needs_a_signing_secret(slack: SlackHarness) -> None:
    settings = Settings(slack_bot_token="xoxb-test")
    client = make_client("xoxb-test", base_url=slack.stub.api_url)
    with pytest.raises(StartupError, match="SLACK_SIGNING_SECRET"):
        await start_slack(slack.service, settings, client=client)


async def test_a_rejected_token_stops_the_start_without_showing_it(slack: SlackHarness) -> None:
    slack.stub.fail_next("auth.test", status=200, error="invalid_auth", retry_after=None)
    settings = Settings(slack_bot_token="xoxb-secret-value", slack_signing_secret=SECRET, http_port=_free_port())
    client = make_client("xoxb-secret-value", base_url=slack.stub.api_url)
    with pytest.raises(StartupError) as exc:
        await start_slack(slack.service, settings, client=client)
    assert "invalid_auth" in str(exc.value) and "xoxb-secret-value" not in str(exc.value)


def test_slack_options_from_the_environment() -> None:
    assert SlackOptions.from_settings(Settings.from_env({})) == SlackOptions("0.0.0.0", 3000, frozenset())
    opts = SlackOptions.from_settings(
        Settings.from_env(
            {"STUDYBOT_HTTP_HOST": "127.0.0.1", "STUDYBOT_HTTP_PORT": "8080", "STUDYBOT_SLACK_ADMINS": "U1, T2:U3,,"}
        )
    )
    assert opts == SlackOptions("127.0.0.1", 8080, frozenset({"U1", "T2:U3"}))
    with pytest.raises(StartupError, match="STUDYBOT_HTTP_PORT=http is not accepted"):
        Settings.from_env({"STUDYBOT_HTTP_PORT": "http"})


async def test_socket_mode_ignores_a_payload_bolt_cannot_read(
    slack: SlackHarness, caplog: pytest.LogCaptureFixture
) -> None:
    import logging

    caplog.set_level(logging.INFO)
    handler = socket_mode_handler(slack.bot.app, "xapp-1-test")
    try:
        fake = RecordingSocketClient(handler.client.logger)
        event = {"type": "reaction_added", "user": 5, "reaction": "one", "item": "C0QUIZ:1.2"}
        body = {
            "team_id": TEAM_ID,
            "api_app_id": "A0APP",
            "type": "event_callback",
            "event_id": "Ev0BAD",
            "event_time": 1,
            "event": event,
        }
        await handler.handle(fake, SocketModeRequest(type="events_api", envelope_id="env-bad", payload=body))
        assert [r.envelope_id for r in fake.sent] == ["env-bad"]
        assert [r.levelname for r in caplog.records if "not what Slack documents" in r.getMessage()] == ["INFO"]
        assert not [r for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info]
    finally:
        await handler.client.close()


async def test_sigterm_stops_studybot_run_and_closes_the_socket(slack: SlackHarness, tmp_path, monkeypatch) -> None:
    import os
    import signal

    import adapters.slack.app
    from bot.app.cli import run_bot

    def stub_client(token: str | None) -> Any:
        return make_client(token, base_url=slack.stub.api_url)

    monkeypatch.setattr(adapters.slack.app, "make_client", stub_client)
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'cli.db'}",
        bank_dir=small_bank(tmp_path),
        slack_bot_token="xoxb-test",
        slack_app_token="xapp-1-test",
    )
    running = asyncio.create_task(run_bot(settings))
    try:
        await slack.stub.wait_for("apps.connections.open")
        for _ in range(100):
            if slack.stub.sockets:
                break
            await asyncio.sleep(0.05)
        assert slack.stub.sockets and not running.done()
        assert signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, signal.SIG_IGN, signal.default_int_handler)
        os.kill(os.getpid(), signal.SIGTERM)
        assert await asyncio.wait_for(running, 10) == 0
    finally:
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running
    for _ in range(100):
        if all(ws.closed for ws in slack.stub.sockets):
            break
        await asyncio.sleep(0.05)
    assert all(ws.closed for ws in slack.stub.sockets)  # the Socket Mode connection was closed


def small_bank(tmp_path) -> Path:  # type: ignore[no-untyped-def]
    """A few questions: run_bot starts in a moment (the shipped bank takes a second or more to load)."""
    return write_bank_files(tmp_path / "bank", make_bank())


async def test_without_a_network_the_token_check_is_retried_one_line_each(slack: SlackHarness, caplog) -> None:
    import logging

    settings = Settings(
        slack_bot_token="xoxb-test", slack_signing_secret=SECRET, http_host="127.0.0.1", http_port=_free_port()
    )
    client = make_client("xoxb-test", base_url="http://127.0.0.1:1/api/")  # nobody listens: refused
    real_auth_test = client.auth_test
    attempts = 0

    async def auth_test() -> Any:
        nonlocal attempts
        attempts += 1
        if attempts == 3:
            client.base_url = slack.stub.api_url  # the network is back
        return await real_auth_test()

    client.auth_test = auth_test  # type: ignore[method-assign]
    caplog.set_level(logging.WARNING, logger="adapters.slack.app")
    task = await start_slack(slack.service, settings, client=client, retry_delays=(0.01, 0.02))
    try:
        assert attempts == 3 and slack.stub.calls_to("auth.test") and not task.done()
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    ours = [r for r in caplog.records if r.name == "adapters.slack.app"]
    messages = [r.getMessage() for r in ours if r.levelno == logging.WARNING]
    assert len(messages) == 2, messages
    assert messages[0].startswith("cannot reach Slack (")
    assert messages[0].endswith("attempt 1 failed, retrying in 0.01 s")
    assert messages[1].endswith("attempt 2 failed, retrying in 0.02 s")
    assert all(r.exc_info is None for r in ours)
