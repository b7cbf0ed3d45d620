"""Every `/quiz ...` subcommand fed 6,000 characters and hostile text, through the real bolt app: every reply and
every Web API call is within Slack's documented limits, and no text can notify anyone (`<!channel>`,
`<!here>`, `<!subteam^...>`, `<@U...>` of people the reply is not about are entities, not mentions)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from adapters.slack import limits
from adapters.slack.limits import fit_blocks, fit_text
from bot.settings import listed
from tests.adapters.slack.harness import ADMIN, ANN, BOB, OWNER, SlackHarness
from tests.adapters.slack.stub import BOT_USER_ID, Call
from tests.adapters.test_console_limits import new_lines

LONG = "x" * 6000
HOSTILE = [
    LONG,
    ("@everyone <@&123> <!channel> <!here> <!subteam^S1> <@U0BOB> __x__ ``````` " * 100)[:6000],
    "@everyone",
    "<@&123>",
    "<!channel>",
    "<!here|here>",
    "`" * 12,
    "__x__",
    "*b* ~s~ &amp; <https://evil.example|click>",
]
KNOWN_PEOPLE = {ADMIN, ANN, BOB, OWNER, BOT_USER_ID}
_LINK = re.compile(r"<([^<>]*)>")


def commands_for(value: str) -> list[str]:
    """Every subcommand with the hostile value in each place a value can go."""
    out = [
        value,
        f"practice {value}",
        f"answer {value}",
        f"leaderboard {value}",
        f"stats {value}",
        f"help {value}",
        f"config {value}",
        f"config {value} 1",
        f"config channel {value}",
        f"config channel {value} time 09:00",
        f"post-now {value}",
        f"reveal {value}",
    ]
    out += [f"config {s.word} {value}" for s in listed()]
    return out + new_lines(value)


def message_texts(args: dict[str, Any]) -> list[str]:
    """Every text of a message or view a person could read."""
    out = [str(args.get("text") or "")]
    blocks = args.get("blocks") or (args.get("view") or {}).get("blocks") or []
    for b in blocks:
        if isinstance(b.get("text"), dict):
            out.append(b["text"]["text"])
        out += [f["text"] for f in b.get("fields", [])]
        out += [
            e["text"] if isinstance(e.get("text"), str) else e["text"]["text"]
            for e in b.get("elements", [])
            if e.get("text")
        ]
    return out


def assert_within_limits(call: Call) -> None:
    args = call.args
    what = call.method
    assert len(str(args.get("text") or "")) <= limits.MESSAGE_TEXT_MAX, what
    blocks = args.get("blocks") or (args.get("view") or {}).get("blocks") or []
    assert len(blocks) <= (limits.VIEW_BLOCKS_MAX if "view" in args else limits.MESSAGE_BLOCKS_MAX), what
    for b in blocks:
        if b["type"] == "header":
            assert 0 < len(b["text"]["text"]) <= limits.HEADER_MAX, what
        elif b["type"] == "section":
            assert 0 < len(b["text"]["text"]) <= limits.SECTION_TEXT_MAX, what
        elif b["type"] == "context":
            assert len(b["elements"]) <= limits.CONTEXT_ELEMENTS_MAX, what
            assert all(len(e["text"]) <= limits.CONTEXT_TEXT_MAX for e in b["elements"]), what
        elif b["type"] == "actions":
            assert all(len(e["text"]["text"]) <= limits.BUTTON_TEXT_MAX for e in b["elements"]), what
            assert all(len(e["action_id"]) <= limits.ID_MAX for e in b["elements"]), what


def assert_pings_nobody(call: Call) -> None:
    """Only links Slack would render quietly or for people the message is about: <@U...> of a known member
    (a leaderboard, a stats card), <#C...> channels and <!date^...> times (a daily question's reveal); no
    broadcast, no user group, no foreign link."""
    assert not call.args.get("link_names"), call.method
    for text in message_texts(call.args):
        for inner in _LINK.findall(text):
            target = inner.split("|", 1)[0]
            ok = (
                (target.startswith("@") and target[1:] in KNOWN_PEOPLE)
                or re.fullmatch(r"#C[A-Z0-9]+", target)
                or re.fullmatch(r"!date\^\d+\^\{date_short_pretty\} at \{time\}", target)
            )
            assert ok, (call.method, inner[:80])


async def test_every_subcommand_with_hostile_values_replies_within_limits_and_pings_nobody(
    slack: SlackHarness,
) -> None:
    await slack.daily_round()
    sent = 0
    for value in HOSTILE:
        for text in commands_for(value):
            user = ADMIN if text.startswith(("config", "post-now", "reveal", "admin")) else ANN
            reply = await slack.reply(await slack.command(text, user=user))
            assert reply.args["response_type"] == "ephemeral", text[:60]
            assert "went wrong" not in " ".join(message_texts(reply.args)), text[:60]
            assert not any("x" * 200 in t for t in message_texts(reply.args)), text[:60]
            sent += 1
    assert sent == len(HOSTILE) * len(commands_for(""))
    outgoing = [
        c
        for c in slack.stub.calls
        if c.method.startswith("respond:")
        or c.method in {"chat.postMessage", "chat.postEphemeral", "chat.update", "views.publish"}
    ]
    assert len(outgoing) >= sent
    for call in outgoing:
        assert_within_limits(call)
        assert_pings_nobody(call)


def test_the_safety_net_fits_any_block_list() -> None:
    blocks = [
        {"type": "header", "text": {"type": "plain_text", "text": LONG}},
        {
            "type": "section",
            "text": {"type": "mrkdwn", "text": "```" + LONG},
            "fields": [{"type": "mrkdwn", "text": LONG}] * 12,
        },
        {"type": "context", "elements": [{"type": "mrkdwn", "text": LONG}] * 12},
        {
            "type": "actions",
            "elements": [{"type": "button", "action_id": "a" * 300, "text": {"type": "plain_text", "text": LONG}}],
        },
    ] * 20
    fitted = fit_blocks(blocks)
    assert fitted is not None
    call = Call("chat.postMessage", {"text": fit_text("y" * 50_000), "blocks": fitted}, {}, 0.0)
    assert_within_limits(call)
    assert fitted[1]["text"]["text"].endswith("```") and len(fitted[1]["fields"]) == limits.SECTION_FIELDS_MAX
    assert blocks[0]["text"]["text"] == LONG, "the caller's blocks are left as they were"
    assert fit_text("") == " " and fit_blocks(None) is None


@pytest.mark.parametrize("value", ["<!channel>", "<!here>", "<@U0BOB>", "<!subteam^S1|devs>"])
async def test_an_ephemeral_error_never_echoes_a_broadcast(slack: SlackHarness, value: str) -> None:
    reply = await slack.reply(await slack.command(f"practice {value}"))
    assert "is not a topic" in reply.args["text"]
    assert value not in reply.args["text"] and "&lt;" in reply.args["text"]
