"""The weekly recap on Slack, end to end on the Web API stub: the chart goes up through the external-upload
methods (files.getUploadURLExternal, the upload URL, files.completeUploadExternal) with alt text, never
through the retired files.upload; a week without answers gets a plain note instead of a blank chart."""

from __future__ import annotations

import datetime as dt
import io
import json

from PIL import Image, ImageStat

from bot.recap.cards import NOTHING
from tests.adapters.slack.harness import ANN, BOB, CHANNEL, SlackHarness

RECAP_AT = dt.datetime(2025, 3, 10, 9, 0, tzinfo=dt.UTC)  # the Monday after the harness's Wednesday, 09:00


async def test_the_recap_chart_is_uploaded_with_alt_text_and_shared_in_the_channel(slack: SlackHarness) -> None:
    round_ = await slack.daily_round()
    question = slack.service.context.bank.get(round_.question_id)
    assert question is not None
    await slack.reply(await slack.click(round_.id, question.answer, user=ANN))
    await slack.reply(await slack.click(round_.id, (question.answer + 1) % 4, user=BOB))
    await slack.service.reveals.reveal_round(round_.id)
    assert await slack.store.get_next_recap(slack.ref) == RECAP_AT

    slack.clock.set(RECAP_AT)
    await slack.service.recaps.run_due()

    [ask] = slack.stub.calls_to("files.getUploadURLExternal")
    [done] = slack.stub.calls_to("files.completeUploadExternal")
    assert slack.stub.calls_to("files.upload") == []
    file_id = json.loads(done.args["files"])[0]["id"] if isinstance(done.args["files"], str) else None
    assert file_id is not None and slack.stub.calls_to(f"upload:{file_id}")
    png = slack.stub.uploads[file_id]
    assert int(ask.args["length"]) == len(png) and ask.args["filename"] == "recap-2025-03-09.png"
    assert "Answers per day: Mon 0, Tue 0, Wed 2," in ask.args["alt_txt"]
    assert "u0ann 10 points" in ask.args["alt_txt"]  # the name from users.info, not a mention
    assert done.args["channel_id"] == CHANNEL
    assert "Weekly recap · 03–09 Mar 2025: 2 answers, 50% correct." in done.args["initial_comment"]
    assert "<@" not in done.args["initial_comment"]

    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG" and image.size == (1200, 900)
    assert ImageStat.Stat(image.convert("L")).var[0] > 500  # not blank
    assert await slack.store.get_next_recap(slack.ref) == RECAP_AT + dt.timedelta(days=7)

    await slack.service.recaps.run_due()  # nothing more is due this week
    assert len(slack.stub.calls_to("files.completeUploadExternal")) == 1


async def test_a_week_without_answers_gets_nothing_to_chart_yet(slack: SlackHarness) -> None:
    await slack.daily_round()  # posted, but nobody answers
    slack.clock.set(RECAP_AT)
    await slack.service.delivery.run_due_work()  # the tick reveals the round first
    await slack.service.recaps.run_due()
    assert slack.stub.calls_to("files.getUploadURLExternal") == []
    note = slack.stub.calls_to("chat.postMessage")[-1]
    assert note.args["channel"] == CHANNEL and NOTHING in note.args["text"]
