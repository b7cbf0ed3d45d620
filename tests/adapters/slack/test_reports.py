"""Reports on Slack (issue 12): the "Report a problem" button under a reveal and a practice verdict opens a
real modal (views.open), whose signed view_submission reaches the core; the admins' queue in text."""

from __future__ import annotations

import json
import urllib.parse
from typing import Any

from adapters.slack.reports import CALLBACK_ID, REASON_BLOCK, REASON_ELEMENT, TEXT_BLOCK, TEXT_ELEMENT
from tests.adapters.slack.harness import ADMIN, ANN, BOB, CHANNEL, FORM, Sent, SlackHarness, buttons, texts
from tests.adapters.slack.stub import TEAM_ID


async def submit(slack: SlackHarness, view: dict[str, Any], user: str, reason: str, text: str | None) -> Sent:
    """The view_submission Slack sends when the member presses Send report (signed like Slack)."""
    values = {
        REASON_BLOCK: {REASON_ELEMENT: {"type": "static_select", "selected_option": {"value": reason}}},
        TEXT_BLOCK: {TEXT_ELEMENT: {"type": "plain_text_input", "value": text}},
    }
    return await slack.submit_view(
        view["callback_id"], values, user=user, private_metadata=view["private_metadata"], blocks=view["blocks"]
    )


async def open_form(slack: SlackHarness, round_id: int, user: str, opened: int = 1) -> dict[str, Any]:
    sent = await slack.click(round_id, 0, user, action_id=f"report_open.{round_id}")
    assert sent.status == 200
    calls = await slack.stub.wait_for("views.open", opened)
    view = calls[-1].args["view"]
    return json.loads(view) if isinstance(view, str) else view


async def test_a_reveal_report_goes_through_a_real_modal_to_the_admins_queue(slack: SlackHarness) -> None:
    round_ = await slack.daily_round()
    await slack.service.reveals.reveal_round(round_.id)
    reveal = slack.stub.calls_to("chat.postMessage")[-1]
    assert f"report_open.{round_.id}" in buttons(reveal)

    view = await open_form(slack, round_.id, ANN)
    assert view["callback_id"] == CALLBACK_ID
    select, field = (b["element"] for b in view["blocks"])
    assert select["type"] == "static_select" and [o["value"] for o in select["options"]] == [
        "wrong",
        "unclear",
        "typo",
        "other",
    ]
    assert field["type"] == "plain_text_input" and field["max_length"] == 500

    sent = await submit(slack, view, ANN, "wrong", "<!channel> *B* is right & C is not")
    assert sent.status == 200
    answer = json.loads(sent.text)
    assert answer["response_action"] == "update"
    assert "Thanks: your report #1 (wrong answer)" in answer["view"]["blocks"][0]["text"]["text"]
    [report] = await slack.store.reports("slack", TEAM_ID)
    assert (report.reporter, report.question_id, report.text) == (
        ANN,
        round_.question_id,
        "<!channel> *B* is right & C is not",
    )

    again = json.loads((await submit(slack, view, ANN, "typo", "")).text)
    assert "already reported" in again["view"]["blocks"][0]["text"]["text"]

    refused = await slack.reply(await slack.command("admin reports", user=ANN))
    assert "Only members who can manage this server or workspace can see the reports queue" in texts(refused)
    queue = await slack.reply(await slack.command("admin reports", user=ADMIN))
    shown = texts(queue)
    assert f"#1 {round_.question_id} [wrong answer]" in shown and f"by <@{ANN}>" in shown
    assert "&lt;!channel&gt; `*B*` is right &amp; C is not" in shown  # plain text: no @channel, no bold
    assert "<!channel>" not in shown

    member = await slack.reply(await slack.command("admin resolve 1 keep", user=BOB))
    assert "can resolve reports" in texts(member)
    kept = await slack.reply(await slack.command("admin resolve 1 keep", user=ADMIN))
    assert "question is kept" in texts(kept)
    assert await slack.store.reports("slack", TEAM_ID) == []


async def test_a_practice_verdict_has_the_button_and_a_long_text_is_refused_in_the_form(slack: SlackHarness) -> None:
    started = await slack.reply(await slack.command("practice", user=BOB))
    action = next(a for a in buttons(started) if a.startswith("studybot.answer."))
    round_id = int(action.split(".")[2])
    verdict = await slack.reply(await slack.click(round_id, 0, BOB))
    assert f"report_open.{round_id}" in buttons(verdict)
    view = await open_form(slack, round_id, BOB)
    too_long = json.loads((await submit(slack, view, BOB, "unclear", "x" * 501)).text)
    assert too_long == {"response_action": "errors", "errors": {TEXT_BLOCK: too_long["errors"][TEXT_BLOCK]}}
    assert "at most 500" in too_long["errors"][TEXT_BLOCK]
    assert await slack.store.reports("slack", TEAM_ID) == []  # nothing saved
    done = json.loads((await submit(slack, view, BOB, "unclear", None)).text)
    assert "report #1 (unclear)" in done["view"]["blocks"][0]["text"]["text"]
    # another member cannot report someone else's practice question with a forged form
    other = json.loads((await submit(slack, view, ANN, "wrong", "")).text)
    assert "someone else's" in other["view"]["blocks"][0]["text"]["text"]


async def test_typed_report_of_the_channels_latest_question(slack: SlackHarness) -> None:
    round_ = await slack.daily_round()
    said = await slack.reply(await slack.command("report typo choice B has a typo", user=ANN, channel=CHANNEL))
    assert "report #1 (typo)" in texts(said)
    [report] = await slack.store.reports("slack", TEAM_ID)
    assert (report.question_id, report.text) == (round_.question_id, "choice B has a typo")
    bad = await slack.reply(await slack.command("admin resolve one keep", user=ADMIN))
    assert "Use /quiz admin resolve ID keep" in texts(bad)


async def test_forged_or_unreadable_forms_change_nothing(slack: SlackHarness) -> None:
    round_ = await slack.daily_round()
    view = await open_form(slack, round_.id, ANN)
    unknown = json.loads((await submit(slack, view | {"private_metadata": '{"round": 999}'}, ANN, "wrong", "")).text)
    assert "not known here" in unknown["view"]["blocks"][0]["text"]["text"]
    garbled = json.loads((await submit(slack, view | {"private_metadata": "{not json"}, ANN, "wrong", "")).text)
    assert "could not be read" in garbled["view"]["blocks"][0]["text"]["text"]
    reason = json.loads((await submit(slack, view, ANN, "spam", "")).text)
    assert "could not be read" in reason["view"]["blocks"][0]["text"]["text"]
    unsigned = await submit_unsigned(slack, view)
    assert unsigned.status == 401
    assert await slack.store.reports("slack", TEAM_ID) == []


async def submit_unsigned(slack: SlackHarness, view: dict[str, Any]) -> Sent:
    body = "payload=" + urllib.parse.quote(json.dumps({"type": "view_submission", "view": view}))
    return await slack.post(body, FORM, secret="not-the-signing-secret")
