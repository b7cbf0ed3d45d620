"""The reveal (chat.update on the question, a reveal message in the channel) and the App Home tab."""

from __future__ import annotations

from bot.access.values import DashboardLink
from tests.adapters.slack.harness import ADMIN, ANN, BOB, CHANNEL, SlackHarness, buttons, texts


async def test_reveal_updates_the_question_and_posts_the_result(slack: SlackHarness) -> None:
    round_ = await slack.daily_round()
    question = slack.service.context.bank.get(round_.question_id)
    assert question is not None
    wrong = (question.answer + 1) % 4
    await slack.reply(await slack.click(round_.id, question.answer, user=ANN))
    await slack.reply(await slack.click(round_.id, wrong, user=BOB))

    card = await slack.service.reveals.reveal_round(round_.id)  # as the scheduler does at the next post
    assert card is not None

    [update] = slack.stub.calls_to("chat.update")
    channel, ts = round_.message_id.split(":", 1)  # type: ignore[union-attr]
    assert (update.args["channel"], update.args["ts"]) == (channel, ts)
    assert buttons(update) == [], "the buttons are removed"
    letter = "ABCD"[question.answer]
    assert f":white_check_mark: *{letter}.* {question.choices[question.answer]}  (1)" in texts(update)

    question_post, reveal = slack.stub.calls_to("chat.postMessage")
    assert reveal.args["channel"] == CHANNEL
    shown = texts(reveal)
    assert f"Answer: {letter}" in shown
    assert question.explanation in shown
    assert f"*Right (1 of 2):* {ANN.lower()}" in shown  # by name from users.info: quiet by default
    assert "<@" not in shown
    assert f"`{letter}` █████ 1 (50%) :white_check_mark:" in shown
    assert (await slack.store.get_round(round_.id)).revealed_at is not None  # type: ignore[union-attr]


async def test_reveal_still_posts_when_the_question_message_is_gone(slack: SlackHarness) -> None:
    round_ = await slack.daily_round()
    slack.stub.fail_next("chat.update", status=200, error="message_not_found", retry_after=None)
    await slack.service.reveals.reveal_round(round_.id)
    assert len(slack.stub.calls_to("chat.update")) == 1
    assert len(slack.stub.calls_to("chat.postMessage")) == 2


async def test_app_home_opened_publishes_stats_and_leaderboard(slack: SlackHarness) -> None:
    round_ = await slack.daily_round()
    question = slack.service.context.bank.get(round_.question_id)
    assert question is not None
    await slack.service.answers.submit_answer(round_.id, ANN, question.answer)
    await slack.service.reveals.reveal_round(round_.id)

    event = {
        "type": "app_home_opened",
        "user": ANN,
        "channel": "D0HOME",
        "tab": "home",
        "event_ts": "1700000004.000001",
    }
    sent = await slack.event(event, "Ev0HOME")
    assert sent.status == 200
    [publish] = await slack.stub.wait_for("views.publish")
    assert publish.args["user_id"] == ANN
    assert publish.args["view"]["type"] == "home"
    shown = texts(publish)
    assert "Quiz stats" in shown and f"<@{ANN}>: answered 1 (1 daily, 0 practice), right 1 (100%)" in shown
    assert "Leaderboard: week 2025-W10" in shown and f"1. <@{ANN}>" in shown
    assert "dashboard" not in shown  # this bot runs none
    assert "`/quiz past` for the last answers" in shown


async def test_the_home_tab_and_quiz_dashboard_point_to_the_dashboard_where_slack_can_sign_in(
    slack: SlackHarness,
) -> None:
    none = await slack.reply(await slack.command("dashboard"))
    assert "This bot has no dashboard" in texts(none)
    slack.service.access.dashboard = DashboardLink("https://quiz.example.com", frozenset({"console", "discord"}))
    unset = await slack.reply(await slack.command("dashboard"))
    assert "signing in with Slack is not set up on this bot yet" in texts(unset)
    slack.service.access.dashboard = DashboardLink("https://quiz.example.com", frozenset({"console", "slack"}))
    told = await slack.reply(await slack.command("dashboard"))
    assert "https://quiz.example.com/login (sign in with Slack" in texts(told)
    assert told.args.get("response_type", "ephemeral") == "ephemeral"
    await slack.event({"type": "app_home_opened", "user": ANN, "channel": "D0HOME", "tab": "home"}, "Ev0WEB")
    [publish] = await slack.stub.wait_for("views.publish")
    assert "<https://quiz.example.com/login|the dashboard> (Sign in with Slack)" in texts(publish)


async def test_app_home_messages_tab_is_acknowledged_and_ignored(slack: SlackHarness) -> None:
    event = {"type": "app_home_opened", "user": ANN, "channel": "D0HOME", "tab": "messages"}
    sent = await slack.event(event, "Ev0MSGS")
    assert sent.status == 200
    home = {"type": "app_home_opened", "user": BOB, "channel": "D0HOME2", "tab": "home"}
    await slack.event(home, "Ev0HOME2")
    [publish] = await slack.stub.wait_for("views.publish")
    assert publish.args["user_id"] == BOB, "only the home tab is published"


async def test_ping_winners_mentions_them_and_a_name_lookup_failure_shows_the_id(slack: SlackHarness) -> None:
    await slack.reply(await slack.command("config ping_winners on", user=ADMIN))
    assert (await slack.store.get_channel(slack.ref)).ping_winners  # type: ignore[union-attr]
    round_ = await slack.daily_round()
    question = slack.service.context.bank.get(round_.question_id)
    assert question is not None
    await slack.reply(await slack.click(round_.id, question.answer, user=ANN))
    await slack.service.reveals.reveal_round(round_.id)
    assert f"*Right (1 of 1):* <@{ANN}>" in texts(slack.stub.calls_to("chat.postMessage")[-1])

    await slack.reply(await slack.command("config ping_winners off", user=ADMIN))
    slack.stub.users.pop(ANN)  # users.info: user_not_found
    slack.clock.advance(days=1)
    round_ = await slack.daily_round()
    await slack.reply(await slack.click(round_.id, slack.service.context.bank.get(round_.question_id).answer, user=ANN))
    await slack.service.reveals.reveal_round(round_.id)
    shown = texts(slack.stub.calls_to("chat.postMessage")[-1])
    assert f"*Right (1 of 1):* `{ANN}`" in shown and "<@" not in shown


async def test_quiz_past_lists_the_revealed_question_with_its_answer_and_yours(slack: SlackHarness) -> None:
    round_ = await slack.daily_round()
    question = slack.service.context.bank.get(round_.question_id)
    assert question is not None
    wrong = (question.answer + 1) % 4
    await slack.reply(await slack.click(round_.id, wrong, user=ANN))
    before = await slack.reply(await slack.command("past", user=ANN))
    assert "No daily question has been revealed here yet" in texts(before)
    await slack.service.reveals.reveal_round(round_.id)

    told = await slack.reply(await slack.command("past 1", user=ANN))
    shown = texts(told)
    assert told.args.get("response_type", "ephemeral") == "ephemeral"
    assert "Past daily questions in this channel, newest first:" in shown
    assert (
        f"Answer: {question.answer_letter}." in shown
        and f"0 of 1 right (0%). You: {'ABCD'[wrong]}, not right." in shown
    )
    assert "Past questions on the dashboard (/quiz dashboard)." in shown
    refused = await slack.reply(await slack.command("past 9", user=ANN))
    assert "give a number from 1 to 5" in texts(refused)
