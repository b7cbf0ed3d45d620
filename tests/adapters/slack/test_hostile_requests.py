"""Requests that are not Slack's, or are Slack's twice: checked before bolt parses anything."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
import urllib.parse

import pytest

from adapters.slack.app import build_slack_app, serve_http
from adapters.slack.platform import make_client
from bot.app.bootstrap import bootstrap
from bot.store.sqlite import SqliteStore
from tests.adapters.slack.harness import FORM, SECRET, SlackHarness
from tests.adapters.slack.signing import signed_headers
from tests.support.fakes import make_bank

SETTLE = 0.3


async def raw(slack: SlackHarness, body: str, headers: dict[str, str]) -> int:
    async with slack.session.post(slack.url, data=body.encode(), headers=headers) as resp:
        return resp.status


@pytest.mark.parametrize(
    "body",
    [
        "payload=" + urllib.parse.quote("{not json"),
        "[" * 100_000 + "]" * 100_000,
        "payload=" + urllib.parse.quote("[" * 100_000),
    ],
    ids=["malformed-payload", "deep-json", "deep-payload"],
)
async def test_unsigned_garbage_gets_401_and_one_info_line(
    slack: SlackHarness, caplog: pytest.LogCaptureFixture, body: str
) -> None:
    caplog.set_level(logging.DEBUG)
    calls = len(slack.stub.calls)
    headers = {"Content-Type": FORM, "X-Slack-Request-Timestamp": str(int(time.time())), "X-Slack-Signature": "v0=00"}
    assert await raw(slack, body, headers) == 401
    assert await raw(slack, body, {"Content-Type": FORM}) == 401  # no signature headers at all
    await asyncio.sleep(SETTLE)
    assert slack.stub.calls[calls:] == []
    rejected = [r for r in caplog.records if "invalid signature" in r.getMessage()]
    assert len(rejected) == 2 and all(r.levelno == logging.INFO for r in rejected)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


@pytest.mark.parametrize("timestamp", ["abc", "", "1e9", "١٢٣", "9" * 40, "-5"])
async def test_a_non_numeric_or_absurd_timestamp_is_a_bad_signature(
    slack: SlackHarness, caplog: pytest.LogCaptureFixture, timestamp: str
) -> None:
    body = urllib.parse.urlencode({"command": "/quiz", "text": "help"})
    headers = {"Content-Type": FORM, "X-Slack-Request-Timestamp": timestamp, "X-Slack-Signature": "v0=1"}
    assert await raw(slack, body, headers) == 401
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_signed_request_replayed_within_the_window_does_not_run_again(
    slack: SlackHarness, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    await slack.daily_round()
    form = urllib.parse.urlencode(
        {
            "team_id": "T0TEAM1",
            "channel_id": "C0QUIZ",
            "user_id": "U0ADMIN",
            "command": "/quiz",
            "text": "config pause",
            "response_url": slack.stub.response_url("pause"),
            "trigger_id": "1.2.3",
        }
    )
    headers = signed_headers(SECRET, form, FORM)
    assert await raw(slack, form, headers) == 200
    await slack.stub.wait_for("respond:pause")
    assert await raw(slack, form, headers) == 401
    assert await raw(slack, form, headers | {"X-Slack-Retry-Num": "1"}) == 200  # acknowledged, not run
    await asyncio.sleep(SETTLE)
    assert len(slack.stub.calls_to("respond:pause")) == 1
    assert any("replayed" in r.getMessage() and r.levelno == logging.INFO for r in caplog.records)


async def test_two_processes_on_one_database_handle_an_event_once(slack: SlackHarness) -> None:
    round_ = await slack.daily_round()
    store_b = SqliteStore(slack.store.path)
    await store_b.open()
    service_b = bootstrap(store_b, make_bank(), slack.clock, rng=random.Random(1))
    bot_b = build_slack_app(service_b, signing_secret=SECRET, client=make_client("xoxb-b", base_url=slack.stub.api_url))
    runner_b = await serve_http(bot_b, "127.0.0.1", 0)
    try:
        url_a = slack.url
        url_b = f"http://127.0.0.1:{runner_b.addresses[0][1]}/slack/events"
        first = await slack.react(round_, "one", event_id="Ev0TWICE")
        slack.url = url_b
        second = await slack.react(round_, "one", event_id="Ev0TWICE", timestamp=int(time.time()) - 1)
        slack.url = url_a
        assert (first.status, second.status) == (200, 200)
        await slack.stub.wait_for("chat.postEphemeral")
        await asyncio.sleep(SETTLE)
        assert len(slack.stub.calls_to("chat.postEphemeral")) == 1
        assert len(await slack.store.round_answers(round_.id)) == 1
    finally:
        await runner_b.cleanup()
        await service_b.close()
        await store_b.close()


def test_the_guard_refuses_a_wrong_signature_and_everything_when_no_secret_is_set() -> None:
    from adapters.slack.signature import RequestGuard

    guard = RequestGuard(SECRET, None, "/slack/events")  # type: ignore[arg-type]
    assert guard.valid(json.dumps({"x": 1}).encode(), str(int(time.time())), "v0=bad") is False
    assert RequestGuard("", None, "/slack/events").valid(b"", "1", "v0=1") is False  # type: ignore[arg-type]
