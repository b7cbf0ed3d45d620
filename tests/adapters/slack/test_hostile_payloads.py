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
from adapters.slack.reports import REASON_BLOCK, REASON_ELEMENT, TEXT_BLOCK, TEXT_ELEMENT
from bot.kernel.values import Round
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


# ---- the forms and buttons of reports, suggestions, pack imports and forget-me ---------------------------

SOME_ROUND = '{"round": 1}'
BROKEN_VIEWS: list[tuple[str, dict[str, Any]]] = [
    ("no-state", {}),
    ("state-string", {"state": "values"}),
    ("values-list", {"state": {"values": ["report_reason"]}}),
    ("block-string", {"state": {"values": {"report_reason": "wrong", "suggest_topic": "x", "pack": "x"}}}),
    ("element-list", {"state": {"values": {REASON_BLOCK: {REASON_ELEMENT: ["wrong"]}, "pack": {"name": ["x"]}}}}),
    ("option-string", {"state": {"values": {REASON_BLOCK: {REASON_ELEMENT: {"selected_option": "wrong"}}}}}),
    ("option-value-list", {"state": {"values": {REASON_BLOCK: {REASON_ELEMENT: {"selected_option": {"value": []}}}}}}),
    ("files-string", {"state": {"values": {"pack": {"name": {"value": "p"}}, "file": {"file": {"files": "F1"}}}}}),
    ("files-of-strings", {"state": {"values": {"pack": {"name": {"value": "p"}}, "file": {"file": {"files": [1]}}}}}),
    ("metadata-int", {"private_metadata": 5}),
    ("metadata-list", {"private_metadata": "[1, 2]"}),
    ("metadata-null", {"private_metadata": "null"}),
    ("metadata-huge-round", {"private_metadata": json.dumps({"round": 2**70, "channel": "C" + "9" * 6000})}),
    ("metadata-digit-round", {"private_metadata": '{"round": "²", "channel": 7}'}),
    ("metadata-6000", {"private_metadata": "x" * 6000}),
]
FORMS = ["report_submit", "suggest_form", "studybot.pack_import"]


def report_state(reason: Any, text: Any) -> dict[str, Any]:
    chosen = {REASON_ELEMENT: {"selected_option": {"value": reason}}}
    return {"values": {REASON_BLOCK: chosen, TEXT_BLOCK: {TEXT_ELEMENT: {"value": text}}}}


async def submit_raw(slack: SlackHarness, view: Any, user: Any = None) -> Sent:
    """A signed view_submission whose `view` (and `user`) are given whole, shaped or not as Slack documents."""
    payload = {
        "type": "view_submission",
        "team": {"id": TEAM_ID, "domain": "example"},
        "user": user if user is not None else {"id": ANN, "team_id": TEAM_ID},
        "api_app_id": "A0APP",
        "trigger_id": "1.2.4",
        "view": view,
        "response_urls": [],
    }
    return await slack.post("payload=" + urllib.parse.quote(json.dumps(payload)), FORM)


async def stored(slack: SlackHarness) -> tuple[Any, ...]:
    """What a form or a button could change: reports, suggestions, packs, the presser's answers and reminder."""
    store = slack.store
    return (
        await store.reports("slack", TEAM_ID, open_only=False),
        await store.list_suggestions("slack", TEAM_ID, "pending", 100),
        await store.list_packs("slack", TEAM_ID),
        await store.get_reminder("slack", TEAM_ID, ANN),
        await store.learner_cards("slack", TEAM_ID, ANN),
        await store.streak("slack", TEAM_ID, ANN),
    )


@pytest.mark.parametrize("callback", FORMS)
@pytest.mark.parametrize("shape", [v for _, v in BROKEN_VIEWS], ids=[k for k, _ in BROKEN_VIEWS])
async def test_a_form_of_the_wrong_shape_is_acknowledged_and_changes_nothing(
    slack: SlackHarness, caplog: pytest.LogCaptureFixture, callback: str, shape: dict[str, Any]
) -> None:
    caplog.set_level(logging.INFO)
    await slack.daily_round()
    before = await stored(slack)
    view = {"id": "V0MODAL", "type": "modal", "callback_id": callback, "private_metadata": SOME_ROUND} | shape
    sent = await submit_raw(slack, view)
    assert sent.status == 200, sent.text[:200]
    assert loud(caplog) == []
    assert len(info_lines(caplog, "ignoring")) <= 1
    assert await stored(slack) == before
    assert slack.stub.calls_to("files.info") == []


@pytest.mark.parametrize("callback", FORMS)
@pytest.mark.parametrize(
    "user", [5, ["U0ANN"], {"id": 7}, {"name": "ann"}, "x" * 6000], ids=["int", "list", "id-int", "no-id", "long"]
)
async def test_a_form_from_a_user_that_is_not_a_user_changes_nothing(
    slack: SlackHarness, caplog: pytest.LogCaptureFixture, callback: str, user: Any
) -> None:
    caplog.set_level(logging.INFO)
    round_ = await slack.daily_round()
    before = await stored(slack)
    view = {
        "id": "V0MODAL",
        "type": "modal",
        "callback_id": callback,
        "private_metadata": json.dumps({"round": round_.id, "channel": CHANNEL}),
        "state": report_state("wrong", "@everyone <!channel> " + "x" * 400),
    }
    sent = await submit_raw(slack, view, user)
    assert sent.status == 200
    assert loud(caplog) == []
    assert len(info_lines(caplog, "ignoring")) <= 1
    assert await stored(slack) == before


@pytest.mark.parametrize(
    "reason, text",
    [("wrong", "x" * 6000), ("wrong", 12), ("wrong", ["x"]), ("²", "t"), ("x" * 6000, "t"), (None, None)]
    + [("wrong", "a lone \udfc3 surrogate\x00")],
    ids=["text-6000", "text-int", "text-list", "reason-digit", "reason-6000", "nothing", "text-surrogate"],
)
async def test_a_report_form_with_unreadable_values_is_answered_and_stores_nothing_unreadable(
    slack: SlackHarness, caplog: pytest.LogCaptureFixture, reason: Any, text: Any
) -> None:
    caplog.set_level(logging.INFO)
    round_ = await slack.daily_round()
    view = {
        "id": "V0MODAL",
        "type": "modal",
        "callback_id": "report_submit",
        "private_metadata": json.dumps({"round": round_.id}),
        "state": report_state(reason, text),
    }
    sent = await submit_raw(slack, view)
    assert sent.status == 200 and loud(caplog) == []
    answer = json.loads(sent.text)
    assert answer["response_action"] in {"update", "errors"}
    stored = await slack.store.reports("slack", TEAM_ID, open_only=False)
    if isinstance(text, str) and "surrogate" in text:  # kept, without what no store can encode
        assert [r.text for r in stored] == ["a lone   surrogate"]
    elif reason == "wrong" and not isinstance(text, str):  # the optional text, unreadable, reads as none
        assert [(r.reason.value, r.text) for r in stored] == [("wrong", "")]
    else:
        assert stored == []


async def press(slack: SlackHarness, action: Any, user: Any = None, **over: Any) -> Sent:
    """A signed block_actions payload whose one action (or `actions` list) is given whole."""
    payload = {
        "type": "block_actions",
        "team": {"id": TEAM_ID, "domain": "example"},
        "user": user if user is not None else {"id": ANN, "team_id": TEAM_ID},
        "api_app_id": "A0APP",
        "container": {"type": "message", "message_ts": "1700000000.000001", "channel_id": CHANNEL},
        "channel": {"id": CHANNEL, "name": "quiz"},
        "response_url": slack.stub.response_url("hostile"),
        "trigger_id": "1.2.3",
        "actions": [action],
    } | over
    return await slack.post("payload=" + urllib.parse.quote(json.dumps(payload)), FORM, reply_to="hostile")


async def answered_by_ann(slack: SlackHarness, caplog: pytest.LogCaptureFixture) -> Round:
    """Today's round with ann's answer in it (something a press could wrongly change), INFO logs captured."""
    caplog.set_level(logging.INFO)
    round_ = await slack.daily_round()
    await slack.reply(await slack.click(round_.id, 1, user=ANN))
    return round_


def button(action_id: str, value: Any = "v") -> dict[str, Any]:
    return {"type": "button", "action_id": action_id, "block_id": "b", "value": value, "action_ts": "1700000002.1"}


@pytest.mark.parametrize(
    "action_id",
    [
        "report_open.²",
        "report_open." + "9" * 26,
        f"report_open.{2**63}",
        "report_open.0",
        "report_open.-1",
        "report_open.",
        "report_open.1.2",
        "report_" + "x" * 240,
        "suggest_open",
        "suggest_topic",
        "packs_import",
        "studybot.forget_me.1",
        "studybot.forget_me_now",
    ],
)
async def test_a_button_of_ours_that_is_not_ours_is_acknowledged_and_changes_nothing(
    slack: SlackHarness, caplog: pytest.LogCaptureFixture, action_id: str
) -> None:
    round_ = await answered_by_ann(slack, caplog)
    before = await stored(slack)
    sent = await press(slack, button(action_id))
    assert sent.status == 200
    await sentinel(slack, round_.id)
    assert slack.stub.calls_to("views.open") == [] and slack.stub.calls_to("respond:hostile") == []
    assert loud(caplog) == [] and len(info_lines(caplog, "ignoring")) <= 1
    assert await stored(slack) == before
    assert [a.user_id for a in await slack.store.round_answers(round_.id)] == [ANN, BOB]


@pytest.mark.parametrize("user", [5, ["U0ANN"], {"id": 7}, {"name": "ann"}, "<@U0ANN>", "x" * 6000])
async def test_a_forget_me_press_by_a_user_that_is_not_a_user_deletes_nothing(
    slack: SlackHarness, caplog: pytest.LogCaptureFixture, user: Any
) -> None:
    round_ = await answered_by_ann(slack, caplog)
    sent = await press(slack, button("studybot.forget_me", "forget-me"), user)
    assert sent.status == 200
    await sentinel(slack, round_.id)
    assert [a.user_id for a in await slack.store.round_answers(round_.id)] == [ANN, BOB]
    assert slack.stub.calls_to("respond:hostile") == []
    assert len(info_lines(caplog, "forget-me press")) == 1
    assert loud(caplog) == []


UNROUTABLE = [
    *(("actions", a) for a in ([], ["report_open.1"], [{"action_id": 5}], [{"action_id": ["report_open.1"]}], "x")),
    *(("view", v) for v in ("report_submit", ["suggest_form"], {"callback_id": 5}, {"callback_id": [1]}, None)),
]


@pytest.mark.parametrize("field, value", UNROUTABLE)
async def test_actions_or_a_view_bolt_cannot_route_are_acknowledged_and_logged_once(
    slack: SlackHarness, caplog: pytest.LogCaptureFixture, field: str, value: Any
) -> None:
    caplog.set_level(logging.INFO)
    round_ = await slack.daily_round()
    before = await stored(slack)
    sent = await (press(slack, {}, actions=value) if field == "actions" else submit_raw(slack, value))
    assert sent.status == 200
    await sentinel(slack, round_.id)
    assert slack.stub.calls_to("views.open") == [] and loud(caplog) == []
    assert len(info_lines(caplog, "without a readable")) == 1  # actions []: the edge's line (bolt cannot build it)
    assert await stored(slack) == before
