"""Suggested questions on Slack (issue 12), end to end: `/quiz suggest` opens a modal (views.open), a real
signed view_submission stores the suggestion (or puts a broken rule on its field), admins review with
`/quiz admin ...`, and the author gets a direct message with the decision."""

from __future__ import annotations

import itertools
import json
import urllib.parse
from typing import Any

from tests.adapters.slack.harness import ADMIN, ANN, BOB, CHANNEL, FORM, SlackHarness, texts
from tests.adapters.slack.stub import TEAM_ID

FIELDS = {
    "suggest_topic": "team-lore",
    "suggest_difficulty": "hard",
    "suggest_prompt": "What does `x.grad` hold after *two* backward() calls?",
    "suggest_code": "",
    "suggest_choice_a": "the sum of both gradients",
    "suggest_choice_b": "the last gradient",
    "suggest_choice_c": "None",
    "suggest_choice_d": "<!channel> zeros",
    "suggest_answer": "A",
    "suggest_explanation": "Gradients accumulate in .grad until they are zeroed, so both are summed.",
    "suggest_reference": "",
}
SELECTS = {"suggest_difficulty", "suggest_answer"}
TRIGGERS = itertools.count(1)  # each submission differs (an identical signed body is refused as a replay)


async def submit(slack: SlackHarness, user: str = ANN, **changes: str) -> tuple[int, dict[str, Any]]:
    """A signed view_submission of the suggestion modal, as Slack sends it; (status, the ack's JSON)."""
    values: dict[str, Any] = {}
    for block, value in (FIELDS | changes).items():
        if block in SELECTS:
            values[block] = {"value": {"type": "static_select", "selected_option": {"value": value}}}
        else:
            values[block] = {"value": {"type": "plain_text_input", "value": value or None}}
    payload = {
        "type": "view_submission",
        "team": {"id": TEAM_ID, "domain": "example"},
        "user": {"id": user, "username": user.lower(), "team_id": TEAM_ID},
        "api_app_id": "A0APP",
        "token": "legacy-verification-token",
        "trigger_id": f"2.{next(TRIGGERS)}",
        "view": {
            "id": "V0MODAL",
            "team_id": TEAM_ID,
            "type": "modal",
            "callback_id": "suggest_form",
            "private_metadata": CHANNEL,
            "hash": "1.abc",
            "state": {"values": values},
        },
    }
    sent = await slack.post("payload=" + urllib.parse.quote(json.dumps(payload)), FORM)
    assert sent.status == 200, sent
    return sent.status, (json.loads(sent.text) if sent.text.strip() else {})


async def test_the_modal_a_submission_an_approval_and_the_author_s_dm(slack: SlackHarness) -> None:
    opened = await slack.reply(await slack.command("suggest", user=ANN))
    assert "The suggestion form is open" in texts(opened)
    [call] = await slack.stub.wait_for("views.open")
    view = call.args["view"]
    view = json.loads(view) if isinstance(view, str) else view
    assert call.args["trigger_id"] == "1.2.3" and view["callback_id"] == "suggest_form"
    assert view["private_metadata"] == CHANNEL
    assert [b["block_id"] for b in view["blocks"]] == list(FIELDS)

    status, ack = await submit(slack)
    assert status == 200 and ack == {}
    [confirm] = await slack.stub.wait_for("chat.postEphemeral")
    assert confirm.args["user"] == ANN and "Your question is suggestion #1" in confirm.args["text"]
    [saved] = await slack.store.list_suggestions("slack", TEAM_ID, "pending", 10)
    assert json.loads(saved.body)["choices"][3] == "<!channel> zeros"  # stored as typed

    listing = await slack.reply(await slack.command("admin suggestions", user=ADMIN))
    shown = texts(listing)
    assert "#1 [team-lore, hard]" in shown and f"by <@{ANN}>" in shown
    assert "&lt;!channel&gt; zeros" in shown and "<!channel>" not in shown  # plain text, no ping

    refused = await slack.reply(await slack.command("admin approve 1", user=BOB))
    assert "Only members who can manage" in texts(refused)
    approved = await slack.reply(await slack.command("admin approve 1", user=ADMIN))
    assert "Approved suggestion #1: it is question suggestion-1 of the pack suggestions" in texts(approved)
    [dm] = await slack.stub.wait_for("chat.postMessage")
    assert dm.args["channel"] == "D" + ANN[1:] and "was approved" in dm.args["text"]
    assert [q for q, _ in await slack.store.pack_questions("slack", TEAM_ID, "suggestions")] == ["suggestion-1"]


async def test_a_broken_rule_is_shown_on_its_field_and_the_fourth_a_day_is_refused(slack: SlackHarness) -> None:
    status, ack = await submit(slack, suggest_prompt="Why?")
    assert status == 200 and ack["response_action"] == "errors"
    assert list(ack["errors"]) == ["suggest_prompt"] and "at least 10 characters" in ack["errors"]["suggest_prompt"]
    _, ack = await submit(slack, suggest_choice_b="the sum of both gradients")
    assert (
        list(ack["errors"]) == ["suggest_choice_a"] and "two choices are the same" in ack["errors"]["suggest_choice_a"]
    )
    _, ack = await submit(slack, suggest_topic="team lore")
    assert list(ack["errors"]) == ["suggest_topic"]
    assert await slack.store.list_suggestions("slack", TEAM_ID, "pending", 10) == []

    for _ in range(3):
        assert (await submit(slack))[1] == {}
    assert len(await slack.stub.wait_for("chat.postEphemeral", 3)) == 3
    _, ack = await submit(slack)
    assert "3 suggestions today" in ack["errors"]["suggest_topic"]
    assert len(await slack.store.list_suggestions("slack", TEAM_ID, "pending", 10)) == 3

    needs = await slack.reply(await slack.command("admin reject 2", user=ADMIN))
    assert "Give a reason" in texts(needs)
    rejected = await slack.reply(await slack.command("admin reject 2 Two choices are right.", user=ADMIN))
    assert "Rejected suggestion #2" in texts(rejected)
    [dm] = await slack.stub.wait_for("chat.postMessage")
    assert dm.args["channel"] == "D" + ANN[1:]
    assert "not accepted" in dm.args["text"] and "Two choices are right." in dm.args["text"]
    gone = await slack.reply(await slack.command("admin approve 2", user=ADMIN))
    assert "already rejected" in texts(gone)


async def test_the_one_line_form_works_in_slack_too(slack: SlackHarness) -> None:
    line = (
        "suggest lore | easy | What is our mascot called? | Ada | Bob | Cy | Dee | A | The team named it Ada in 2020."
    )
    done = await slack.reply(await slack.command(line, user=BOB))
    assert "Your question is suggestion #1" in texts(done)
    assert slack.stub.calls_to("views.open") == []


async def test_an_unreadable_submission_is_refused_on_its_fields(slack: SlackHarness) -> None:
    status, ack = await submit(slack, suggest_topic=["not", "text"], suggest_answer={"x": 1})  # type: ignore[arg-type]
    assert status == 200 and list(ack["errors"]) == ["suggest_topic"]
    assert await slack.store.list_suggestions("slack", TEAM_ID, "pending", 10) == []
