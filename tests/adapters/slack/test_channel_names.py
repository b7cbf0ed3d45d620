"""The dashboard names Slack channels: the real slack-sdk client against the Web API stub's conversations.info,
cached; a workspace whose app lacks channels:read (missing_scope) keeps the ids, and says so in the log once."""

from __future__ import annotations

import logging

import pytest

from bot.kernel.platform import ChannelNamePlatform
from tests.adapters.slack.harness import CHANNEL, SlackHarness
from tests.adapters.slack.stub import TEAM_ID


async def test_channels_are_named_by_conversations_info_once_each(slack: SlackHarness) -> None:
    platform = slack.service.context.platforms["slack"]
    assert isinstance(platform, ChannelNamePlatform)
    slack.stub.channels["G0PRIV"] = "study-hall"
    names = await platform.channel_names(TEAM_ID, [CHANNEL, "G0PRIV", "C0GONE", "D0DM"])
    assert names == {CHANNEL: "daily-pytorch", "G0PRIV": "study-hall"}  # a deleted channel: its id stays
    asked = [c.args.get("channel") for c in slack.stub.calls_to("conversations.info")]
    assert sorted(asked) == ["C0GONE", CHANNEL, "G0PRIV"]  # never a direct message's id
    assert await platform.channel_names(TEAM_ID, [CHANNEL]) == {CHANNEL: "daily-pytorch"}
    assert len(slack.stub.calls_to("conversations.info")) == 3  # cached


async def test_an_app_without_channels_read_keeps_the_ids_and_logs_it_once(
    slack: SlackHarness, caplog: pytest.LogCaptureFixture
) -> None:
    platform = slack.service.context.platforms["slack"]
    assert isinstance(platform, ChannelNamePlatform)
    for _ in range(2):
        slack.stub.fail_next("conversations.info", status=200, error="missing_scope", retry_after=None)
    with caplog.at_level(logging.INFO, logger="adapters.slack.platform"):
        assert await platform.channel_names(TEAM_ID, [CHANNEL]) == {}
        assert await platform.channel_names(TEAM_ID, [CHANNEL]) == {}
    said = [r.getMessage() for r in caplog.records if "conversations.info failed" in r.getMessage()]
    assert said == ["conversations.info failed (missing_scope): the dashboard shows channel ids"]
