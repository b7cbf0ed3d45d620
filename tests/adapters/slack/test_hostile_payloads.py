"""Signed Slack payloads whose fields are not what Slack documents (a `user` or reaction `item` of the wrong
shape, a round id no store can hold): parsed at the boundary, one INFO line each, no ERROR, nothing recorded,
and the app goes on answering."""

from __future__ import annotations

import json
import logging
import urllib.parse
from typing import Any

import pytest

from adapters.slack.ids import parse_action_id
from tests.adapters.slack.harness import ANN, BOB, CHANNEL, FORM, Sent, SlackHarness
from tests.adapters.slack.stub import BOT_USER_ID, TEAM_ID


def loud(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [f"{r.levelname} {r.getMessage()}" for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info]


def info_lines(caplog: pytest.LogCaptureFixture, words: str) -> list[logging.LogRecord]:
    """INFO lines with these words, or the edge's own line for a payload bolt could not read at all."""
    return [
        r
        for r in caplog.records
        if r.levelno == logging.INFO and (words in r.getMessage() or "not what Slack documents" in r.getMessage())
    ]


async def click(slack: SlackHarness, action_id: str, user: Any) -> Sent:
    """A block_actions payload as Slack sends it, with the action id and `user` field given."""
    payload = {
        "type": "block_actions",
        "team": {"id": TEAM_ID, "domain": "example"},
        "user": user,
        "api_app_id": "A0APP",
        "container": {"type": "message", "message_ts": "1700000000.000001", "channel_id": CHANNEL},
        "channel": {"id": CHANNEL, "name": "quiz"},
        "response_url": slack.stub.response_url("hostile"),
        "trigger_id": "1.2.3",
        "actions": [
            {
                "type": "button",
                "action_id": action_id,
                "block_id": "b",
                "value": "v",
                "text": {"type": "plain_text", "text": "A"},
                "action_ts": "1700000002.000001",
            }
        ],
    }
    return await slack.post("payload=" + urllib.parse.quote(json.dumps(payload)), FORM, reply_to="hostile")


async def sentinel(slack: SlackHarness, round_id: int) -> None:
    """A valid click by bob, answered after everything sent before it."""
    await slack.reply(await slack.click(round_id, 1, user=BOB))


def test_action_ids_parse_only_round_ids_a_store_can_hold() -> None:
    assert parse_action_id("studybot.answer.12.3") == (12, 3)
    for bad in [
        "studybot.answer." + "9" * 26 + ".0",
        "studybot.answer.².0",
        "studybot.answer.٣.0",
        f"studybot.answer.{2**63}.0",
        "studybot.answer.0.0",
        "studybot.answer.1.4",
        "studybot.answer.1.0 ",
        None,
        12,
    ]:
        assert parse_action_id(bad) is None, bad  # type: ignore[arg-type]


@pytest.mark.parametrize("round_raw", ["9" * 26, "²", "٣", str(2**63)])
async def test_a_button_with_an_unreadable_round_id_is_ignored(
    slack: SlackHarness, caplog: pytest.LogCaptureFixture, round_raw: str
) -> None:
    caplog.set_level(logging.INFO)
    round_ = await slack.daily_round()
    sent = await click(slack, f"studybot.answer.{round_raw}.0", {"id": ANN, "team_id": TEAM_ID})
    assert sent.status == 200
    await sentinel(slack, round_.id)
    assert slack.stub.calls_to("respond:hostile") == []
    assert [a.user_id for a in await slack.store.round_answers(round_.id)] == [BOB]
    assert len(info_lines(caplog, "unreadable round, choice or user")) == 1
    assert loud(caplog) == []


@pytest.mark.parametrize("user", [12345, ["U0ANN"], {"name": "ann"}, {"id": {"id": "U0ANN"}}, "<@U0ANN>", ""])
async def test_a_button_whose_user_is_not_a_user_is_ignored(
    slack: SlackHarness, caplog: pytest.LogCaptureFixture, user: Any
) -> None:
    caplog.set_level(logging.INFO)
    round_ = await slack.daily_round()
    sent = await click(slack, f"studybot.answer.{round_.id}.0", user)
    assert sent.status == 200
    await sentinel(slack, round_.id)
    assert [a.user_id for a in await slack.store.round_answers(round_.id)] == [BOB]
    assert len(info_lines(caplog, "unreadable round, choice or user")) == 1
    assert loud(caplog) == []


async def test_a_button_whose_user_is_given_as_a_plain_id_still_answers(slack: SlackHarness) -> None:
    round_ = await slack.daily_round()
    await click(slack, f"studybot.answer.{round_.id}.2", ANN)
    reply = await slack.reply(Sent(200, "", 0.0, "hostile"))
    assert "locked in" in reply.args["text"]
    [answer] = await slack.store.round_answers(round_.id)
    assert (answer.user_id, answer.choice) == (ANN, 2)


def reaction(round_message_ts: str, **overrides: Any) -> dict[str, Any]:
    event = {
        "type": "reaction_added",
        "user": ANN,
        "reaction": "one",
        "item": {"type": "message", "channel": CHANNEL, "ts": round_message_ts},
        "item_user": BOT_USER_ID,
        "event_ts": "1700000003.000001",
    }
    return {**event, **overrides}


@pytest.mark.parametrize(
    "overrides",
    [
        {"item": f"{CHANNEL}:1700000000.000001"},
        {"item": ["message"]},
        {"item": {"type": "message", "ts": "1.2"}},
        {"item": {"type": "message", "channel": CHANNEL, "ts": "²"}},
        {"user": 5},
        {"user": ["U0ANN"]},
        {"user": {"name": "ann"}},
        {"reaction": {"name": "one"}},
    ],
    ids=[
        "item-string",
        "item-list",
        "item-no-channel",
        "item-bad-ts",
        "user-int",
        "user-list",
        "user-nameless",
        "reaction-object",
    ],
)
async def test_a_reaction_event_of_the_wrong_shape_is_ignored(
    slack: SlackHarness, caplog: pytest.LogCaptureFixture, overrides: dict[str, Any]
) -> None:
    caplog.set_level(logging.INFO)
    round_ = await slack.daily_round()
    assert round_.message_id is not None
    ts = round_.message_id.split(":", 1)[1]
    sent = await slack.event(reaction(ts, **overrides), "Ev0HOSTILE")
    assert sent.status == 200
    await sentinel(slack, round_.id)
    assert slack.stub.calls_to("chat.postEphemeral") == []
    assert [a.user_id for a in await slack.store.round_answers(round_.id)] == [BOB]
    if "reaction" not in overrides:  # a reaction name that is no name is just not an answer (debug)
        assert len(info_lines(caplog, "not what Slack documents")) == 1
    assert loud(caplog) == []


@pytest.mark.parametrize("user", [{"id": "U0ANN"}, 7, ["U0ANN"], "not a user"])
async def test_app_home_opened_with_a_user_of_the_wrong_shape(
    slack: SlackHarness, caplog: pytest.LogCaptureFixture, user: Any
) -> None:
    caplog.set_level(logging.INFO)
    event = {
        "type": "app_home_opened",
        "user": user,
        "channel": "D0HOME",
        "tab": "home",
        "event_ts": "1700000004.000001",
    }
    assert (await slack.event(event, "Ev0HOME")).status == 200
    if isinstance(user, dict):  # the documented id inside an object is still that user
        [published] = await slack.stub.wait_for("views.publish")
        assert published.args["user_id"] == ANN
    else:
        round_ = await slack.daily_round()
        await sentinel(slack, round_.id)
        assert slack.stub.calls_to("views.publish") == []
        assert len(info_lines(caplog, "not what Slack documents")) == 1
    assert loud(caplog) == []
