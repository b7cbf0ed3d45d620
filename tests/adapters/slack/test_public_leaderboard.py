"""`/quiz leaderboard week public` posts the board in the channel, naming members without notifying them."""

from __future__ import annotations

from tests.adapters.slack.harness import ANN, BOB, CHANNEL, SlackHarness, texts


async def test_a_public_leaderboard_goes_to_the_channel_with_quiet_names(slack: SlackHarness) -> None:
    round_ = await slack.daily_round()
    question = slack.service.context.bank.get(round_.question_id)
    assert question is not None
    await slack.reply(await slack.click(round_.id, question.answer, user=ANN))
    await slack.service.reveals.reveal_round(round_.id)
    before = len(slack.stub.calls_to("chat.postMessage"))

    reply = await slack.reply(await slack.command("leaderboard week public", user=BOB))
    assert reply.args["response_type"] == "ephemeral" and f"<#{CHANNEL}>" in texts(reply)
    posted = (await slack.stub.wait_for("chat.postMessage", before + 1))[-1]
    assert posted.args["channel"] == CHANNEL
    shown = texts(posted)
    assert "Leaderboard: week 2025-W10" in shown and "1. u0ann  *10* pts (1/1 right)" in shown
    assert "<@" not in shown and "you:" not in shown

    private = await slack.reply(await slack.command("leaderboard week", user=ANN))
    assert f"<@{ANN}>" in texts(private)  # the private board may mention: nobody is notified by it
    assert len(slack.stub.calls_to("chat.postMessage")) == before + 1
    bad = await slack.reply(await slack.command("leaderboard week month", user=ANN))
    assert "public to post it in the channel" in texts(bad)
