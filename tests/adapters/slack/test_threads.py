"""The channel's threads setting on Slack: the reveal gets a first reply in its thread, inviting the talk."""

from __future__ import annotations

from adapters.slack.platform import DISCUSSION
from bot.kernel.values import Actor
from bot.settings import ConfigChange
from tests.adapters.slack.harness import ADMIN, SlackHarness


async def test_the_reveal_opens_a_reply_thread_when_the_channel_wants_one(slack: SlackHarness) -> None:
    round_ = await slack.daily_round()
    await slack.service.channels.configure(Actor(ADMIN, True), slack.ref, ConfigChange.parse([("threads", "on")]))
    await slack.service.reveals.reveal_round(round_.id)
    question, reveal, reply = slack.stub.calls_to("chat.postMessage")
    assert "thread_ts" not in reveal.args
    assert reply.args["thread_ts"] == "1700000000.000002" and reply.args["channel"] == reveal.args["channel"]
    assert reply.args["text"] == DISCUSSION


async def test_no_thread_by_default(slack: SlackHarness) -> None:
    round_ = await slack.daily_round()
    await slack.service.reveals.reveal_round(round_.id)
    assert not any("thread_ts" in c.args for c in slack.stub.calls_to("chat.postMessage"))
