"""The HTTP edge: url_verification, request signatures, acknowledgement before work, unhandled payloads and
Web API rate limits."""

from __future__ import annotations

import asyncio
import json
import logging
import time
import urllib.parse

import pytest

from adapters.slack.logsafe import BOLT_VERIFICATION_LOGGERS
from bot.kernel.values import Actor
from tests.adapters.slack.harness import ADMIN, ANN, FORM, SlackHarness

SETTLE = 0.3


async def test_url_verification_echoes_the_challenge(slack: SlackHarness) -> None:
    body = json.dumps(
        {
            "token": "legacy",
            "challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
            "type": "url_verification",
        }
    )
    sent = await slack.post(body, "application/json")
    assert sent.status == 200
    assert json.loads(sent.text) == {"challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"}


async def test_bad_signature_gets_401_and_touches_nothing(
    slack: SlackHarness, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    for name in BOLT_VERIFICATION_LOGGERS:  # bolt copies the root level when the app is built
        caplog.set_level(logging.DEBUG, logger=name)
    round_ = await slack.daily_round()
    calls_before = len(slack.stub.calls)
    react = await slack.react(round_, "one", secret="not-the-secret")
    click = await slack.click(round_.id, 0, secret="not-the-secret")
    command = await slack.command("answer A", secret="not-the-secret")
    assert [react.status, click.status, command.status] == [401, 401, 401]
    await asyncio.sleep(SETTLE)
    assert slack.stub.calls[calls_before:] == []
    assert await slack.store.round_answers(round_.id) == []
    assert "Rejected a request with an invalid signature" in caplog.text
    assert "legacy-verification-token" not in caplog.text and "/respond/" not in caplog.text, "bodies stay out"
    # a correctly signed copy of the same event is not blocked by the rejected one
    ok = await slack.react(round_, "one")
    assert ok.status == 200
    await slack.stub.wait_for("chat.postEphemeral")
    assert len(await slack.store.round_answers(round_.id)) == 1


async def test_stale_timestamp_gets_401_and_touches_nothing(slack: SlackHarness) -> None:
    round_ = await slack.daily_round()
    calls_before = len(slack.stub.calls)
    stale = int(time.time()) - 6 * 60
    sent = await slack.react(round_, "one", timestamp=stale)
    click = await slack.click(round_.id, 0, timestamp=stale)
    assert (sent.status, click.status) == (401, 401)
    await asyncio.sleep(SETTLE)
    assert slack.stub.calls[calls_before:] == []
    assert await slack.store.round_answers(round_.id) == []


async def test_listeners_ack_before_doing_slow_work(slack: SlackHarness) -> None:
    slack.stub.delays["users.info"] = 1.5
    sent = await slack.command("config time 10:00", user=ADMIN)
    assert sent.status == 200 and sent.text == ""
    assert sent.seconds < 1.0, f"the ack waited for the work ({sent.seconds:.2f}s)"
    reply = await slack.reply(sent)
    assert "time 10:00" in reply.args["text"]


async def test_unhandled_payloads_are_acknowledged_and_record_nothing(slack: SlackHarness) -> None:
    round_ = await slack.daily_round()
    calls_before = len(slack.stub.calls)
    message = {"type": "message", "user": ANN, "text": "A", "channel": "C0QUIZ", "ts": "1700000009.000001"}
    event = await slack.event(message, "Ev0MSG")
    foreign_button = await slack.click(round_.id, 0, action_id="someone.elses.button")
    forged_button = await slack.click(round_.id, 0, action_id=f"studybot.answer.{round_.id}.7")
    view = {
        "type": "view_submission",
        "team": {"id": "T0TEAM1"},
        "user": {"id": ANN},
        "view": {"id": "V1", "type": "modal", "callback_id": "unknown", "state": {"values": {}}},
    }
    submission = await slack.post("payload=" + urllib.parse.quote(json.dumps(view)), FORM)
    shortcut = {
        "type": "shortcut",
        "callback_id": "nope",
        "team": {"id": "T0TEAM1"},
        "user": {"id": ANN},
        "trigger_id": "1.2",
    }
    short = await slack.post("payload=" + urllib.parse.quote(json.dumps(shortcut)), FORM)
    assert [s.status for s in (event, foreign_button, forged_button, submission, short)] == [200] * 5
    await asyncio.sleep(SETTLE)
    # bolt's lazy auth.test on the first request is the only call
    assert [c.method for c in slack.stub.calls[calls_before:]] == ["auth.test"]
    assert await slack.store.round_answers(round_.id) == []


async def test_ratelimited_post_is_retried_after_retry_after_and_loses_nothing(slack: SlackHarness) -> None:
    slack.stub.fail_next("chat.postMessage", status=429, error="ratelimited", retry_after=1)
    round_ = await slack.daily_round()
    first, second = slack.stub.calls_to("chat.postMessage")
    assert second.at - first.at >= 1.0, "the retry waited for Retry-After"
    assert first.args == second.args
    assert round_.message_id == f"{second.args['channel']}:1700000000.000001"
    stored = await slack.store.get_round(round_.id)
    assert stored is not None and stored.message_id == round_.message_id
    # the round is fully usable: a reaction on the posted message answers it
    await slack.react(round_, "four")
    await slack.stub.wait_for("chat.postEphemeral")
    [answer] = await slack.store.round_answers(round_.id)
    assert answer.choice == 3


async def test_removed_from_a_public_channel_the_bot_joins_again_and_posts(slack: SlackHarness) -> None:
    slack.stub.fail_next("chat.postMessage", status=200, error="not_in_channel", retry_after=None)
    round_ = await slack.daily_round()
    assert [c.method for c in slack.stub.calls if c.method != "auth.test"] == [
        "chat.postMessage",
        "conversations.join",
        "chat.postMessage",
    ]
    assert round_.message_id == f"{slack.ref.channel_id}:1700000000.000001"


async def test_a_channel_the_bot_cannot_join_gets_an_invite_hint(slack: SlackHarness) -> None:
    await slack.service.channels.configure(Actor(ADMIN, True), slack.ref)
    slack.stub.fail_next("chat.postMessage", status=200, error="not_in_channel", retry_after=None)
    slack.stub.fail_next(
        "conversations.join", status=200, error="method_not_supported_for_channel_type", retry_after=None
    )
    reply = await slack.reply(await slack.command("config post-now", user=ADMIN))
    assert "invite me with `/invite @studybot`" in reply.args["text"]
