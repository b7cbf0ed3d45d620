"""`/quiz progress` on Slack, end to end on the Web API stub: the learning report's numbers in an ephemeral reply
(one section per part, the core's own lines), and the chart uploaded into the person's direct messages with its
alt text (files.getUploadURLExternal / files.completeUploadExternal), within Block Kit's limits even for the
largest report."""

from __future__ import annotations

import io
import json

from PIL import Image

from adapters.slack.mrkdwn import escape
from adapters.slack.progress import CHART_SENT
from bot.practice.progress_cards import CHART_NAME, progress_alt_text
from tests.adapters.slack.harness import ANN, BOB, START, SlackHarness, texts
from tests.adapters.slack.test_limits import assert_pings_nobody, assert_within_limits
from tests.support.progress import long_topic_bank, two_weeks_of_learning, weeks_of_practice


async def test_progress_replies_with_the_numbers_and_sends_the_chart_to_the_dm(slack: SlackHarness) -> None:
    await two_weeks_of_learning(slack.service, slack.clock, slack.ref, ANN, START)
    expected = await slack.service.progress.report(slack.ref, ANN, chart=False)

    reply = await slack.reply(await slack.command("progress", user=ANN))

    assert reply.args["response_type"] == "ephemeral"
    sections = [b["text"]["text"] for b in reply.args["blocks"] if b["type"] == "section"]
    assert sections[0] == "*Your progress*"
    for part, shown in zip(expected.sections, sections[1:], strict=True):  # the core's lines, in order
        heading, *lines = shown.split("\n")
        assert heading == f"*{escape(part.heading)}*" and lines == [escape(line) for line in part.lines]
    assert CHART_SENT in texts(reply)
    [opened] = slack.stub.calls_to("conversations.open")
    assert opened.args["users"] == ANN
    [ask] = slack.stub.calls_to("files.getUploadURLExternal")
    [done] = slack.stub.calls_to("files.completeUploadExternal")
    assert ask.args["filename"] == CHART_NAME and ask.args["alt_txt"] == progress_alt_text(expected)
    assert done.args["channel_id"] == "D0ANN"  # the direct messages, never the channel
    [listed] = json.loads(done.args["files"])
    image = Image.open(io.BytesIO(slack.stub.uploads[listed["id"]]))
    assert image.format == "PNG" and image.size == (1200, 900)
    assert_within_limits(reply)
    assert_pings_nobody(reply)


async def test_progress_before_any_answer_uploads_nothing(slack: SlackHarness) -> None:
    await slack.daily_round()
    reply = await slack.reply(await slack.command("progress", user=BOB))
    assert "Nothing to report yet" in texts(reply) and CHART_SENT not in texts(reply)
    assert slack.stub.calls_to("files.getUploadURLExternal") == []
    bad = await slack.reply(await slack.command("progress everyone", user=BOB))
    assert "takes nothing more" in texts(bad)


async def test_a_refused_dm_still_gives_the_numbers(slack: SlackHarness) -> None:
    await two_weeks_of_learning(slack.service, slack.clock, slack.ref, ANN, START)
    slack.stub.fail_next("conversations.open", status=200, error="cannot_dm_bot", retry_after=None)
    reply = await slack.reply(await slack.command("progress", user=ANN))
    shown = texts(reply)
    assert "Memory that holds" in shown and "could not send you the chart" in shown and "cannot_dm_bot" in shown
    assert slack.stub.calls_to("files.completeUploadExternal") == []


async def test_the_largest_report_stays_within_block_kits_limits(slack: SlackHarness) -> None:
    slack.service.context.bank = long_topic_bank()
    await weeks_of_practice(slack.service, slack.clock, slack.ref, ANN, START)
    reply = await slack.reply(await slack.command("progress", user=ANN))
    assert_within_limits(reply)
    assert "… and 4 more topics." in texts(reply) and texts(reply).count("Week of ") >= 8
    [ask] = slack.stub.calls_to("files.getUploadURLExternal")
    assert len(ask.args["alt_txt"]) <= 1000
