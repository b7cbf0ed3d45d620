"""At DEBUG, nothing secret reaches the logs: tokens, the signing secret, response URLs, locked-in choices."""

from __future__ import annotations

import asyncio
import logging

import pytest

from adapters.slack.logsafe import install, redact
from tests.adapters.slack.harness import SECRET, SlackHarness

SETTLE = 0.3


async def test_a_debug_log_of_answers_and_commands_holds_no_secret(
    slack: SlackHarness, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    round_ = await slack.daily_round()
    click = await slack.click(round_.id, 2)
    assert "locked in" in (await slack.reply(click)).args["text"]
    command = await slack.command("answer B")
    await slack.reply(command)
    await slack.react(round_, "one", user="U0BOB", event_id="Ev0LOG")
    await slack.stub.wait_for("chat.postEphemeral")
    await asyncio.sleep(SETTLE)
    ours = [r for r in caplog.records if not r.name.startswith("aiohttp.access")]  # the stub's own server log
    text = "\n".join(r.getMessage() for r in ours)
    assert any(r.name.startswith("slack_sdk") for r in ours), "slack_sdk logged nothing at DEBUG: test is blind"
    assert "/respond/" not in text, "a response_url reached the log"
    assert "locked in" not in text and "Your answer" not in text
    assert "xoxb-" not in text and SECRET not in text


def test_redact_replaces_tokens_urls_and_known_secrets() -> None:
    install(SECRET)
    line = "url: https://hooks.slack.com/commands/T1/123/abc token xoxb-1-2-abc xapp-1-A-2 and " + SECRET
    cleaned = redact(line)
    assert "hooks.slack.com/commands" not in cleaned and "xoxb-" not in cleaned and "xapp-" not in cleaned
    assert SECRET not in cleaned and "[response_url]" in cleaned and "[token]" in cleaned
