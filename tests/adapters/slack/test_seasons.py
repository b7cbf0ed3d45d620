"""Monthly seasons on Slack, end to end on the Web API stub: on the 1st the season card names last month's top
three by display name (nobody notified); `/quiz leaderboard season 2025-03` shows the archive; bad, future and
empty seasons get their own replies; champion_role is refused as a Discord-only setting."""

from __future__ import annotations

import datetime as dt

from bot.app.scheduler import DailyScheduler
from bot.kernel.values import Actor
from tests.adapters.slack.harness import ADMIN, ANN, BOB, CHANNEL, SlackHarness, texts

MARCH_31 = dt.datetime(2025, 3, 31, 8, 0, tzinfo=dt.UTC)
APRIL_1 = dt.datetime(2025, 4, 1, 9, 0, tzinfo=dt.UTC)  # the channel's posting time (09:00 UTC)


async def test_the_season_card_and_the_season_board(slack: SlackHarness) -> None:
    slack.clock.set(MARCH_31)
    await slack.service.channels.configure(Actor(ADMIN, True), slack.ref)
    round_ = await slack.service.posting.post_scheduled(slack.ref)
    assert round_ is not None
    question = slack.service.context.bank.get(round_.question_id)
    assert question is not None
    await slack.reply(await slack.click(round_.id, question.answer, user=BOB))
    slack.clock.advance(seconds=20)
    await slack.reply(await slack.click(round_.id, question.answer, user=ANN))

    slack.clock.set(APRIL_1)
    await DailyScheduler(slack.service, slack.clock).tick()
    [card] = [c for c in slack.stub.calls_to("chat.postMessage") if "Season March 2025" in str(c.args.get("text"))]
    shown = str(card.args["text"])
    assert card.args["channel"] == CHANNEL
    assert "Champion: u0bob, 10 points (1 of 1 correct)" in shown and "2nd: u0ann, 10 points" in shown
    assert "/quiz leaderboard season 2025-03" in shown and "<@" not in shown
    await DailyScheduler(slack.service, slack.clock).tick()  # the same instant again: no second card
    assert len([c for c in slack.stub.calls_to("chat.postMessage") if "Season March" in str(c.args.get("text"))]) == 1

    board = await slack.reply(await slack.command("leaderboard season 2025-03", user=ANN))
    read = texts(board)
    assert board.args["response_type"] == "ephemeral"
    assert "Season March 2025" in read and "The season's top three" in read
    assert f"🥇 <@{BOB}>  *10* pts" in read and f"🥈 <@{ANN}>" in read and "Archived on 01 April 2025" in read

    future = await slack.reply(await slack.command("leaderboard season 2025-05", user=ANN))
    assert "has not started yet" in texts(future)
    running = await slack.reply(await slack.command("leaderboard season 2025-04", user=ANN))
    assert "still running" in texts(running)
    empty = await slack.reply(await slack.command("leaderboard season 2025-02", user=ANN))
    assert "No season results for February 2025" in texts(empty)
    bad = await slack.reply(await slack.command("leaderboard season <!channel>" + "x" * 3000, user=ANN))
    assert "is not a season" in texts(bad) and "<!channel>" not in texts(bad) and len(texts(bad)) < 400

    role = await slack.reply(await slack.command("config champion_role <@&123456789012345678>", user=ADMIN))
    assert "champion_role is a Discord setting: Slack has no roles" in texts(role)
    assert (await slack.service.channels.channel_config(slack.ref)).champion_role is None
