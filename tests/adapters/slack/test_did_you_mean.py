"""Slack parity: an unknown /quiz subcommand gets a short "did you mean", `/quiz post-now` works, and every
setting of the table can be set through `/quiz config`."""

from __future__ import annotations

import datetime as dt

from bot.kernel.values import Actor
from bot.settings import ConfigChange
from tests.adapters.slack.harness import ADMIN, CHANNEL, SlackHarness, texts


async def test_a_misspelt_subcommand_gets_did_you_mean_not_the_help(slack: SlackHarness) -> None:
    reply = await slack.reply(await slack.command("leaderbord"))
    assert reply.args["response_type"] == "ephemeral"
    text = texts(reply)
    assert "'leaderbord' is not a /quiz command" in text and "Did you mean `/quiz leaderboard`?" in text
    assert "/quiz answer B" not in text  # not the whole help


async def test_a_misspelt_setting_names_the_closest_one(slack: SlackHarness) -> None:
    reply = await slack.reply(await slack.command("config tiem 10:00", user=ADMIN))
    assert "'tiem' is not a setting" in texts(reply) and "Did you mean time?" in texts(reply)
    assert await slack.store.get_channel(slack.ref) is None


async def test_post_now_is_accepted_without_config(slack: SlackHarness) -> None:
    await slack.service.channels.configure(Actor(ADMIN, True), slack.ref, ConfigChange.of(reactions=True))
    reply = await slack.reply(await slack.command("post-now", user=ADMIN))
    assert f"Posted today's question in <#{CHANNEL}>" in texts(reply)
    assert len(slack.stub.calls_to("chat.postMessage")) == 1


async def test_speed_and_window_are_set_from_slack(slack: SlackHarness) -> None:
    reply = await slack.reply(await slack.command("config window 12h speed on", user=ADMIN))
    assert "answer window 12h" in texts(reply) and "speed bonus on" in texts(reply)
    cfg = await slack.store.get_channel(slack.ref)
    assert cfg is not None and cfg.answer_window == dt.timedelta(hours=12) and cfg.speed_bonus
