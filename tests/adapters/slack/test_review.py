"""Learner memory on Slack: `/quiz review` serves Monday's misses on Tuesday, "not sure" buttons, stats show due."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

from adapters.slack.ids import REVIEW_ACTION, unsure_action_id
from bot.kernel.values import Period
from tests.adapters.slack.harness import ANN, START, SlackHarness, buttons, texts
from tests.adapters.slack.stub import TEAM_ID
from tests.support.learning import miss_three_on_monday

MONDAY_9 = dt.datetime(2025, 3, 10, 9, 0, tzinfo=dt.UTC)  # the Monday after the harness's Wednesday
TUESDAY_NOON = MONDAY_9 + dt.timedelta(days=1, hours=3)


async def test_three_monday_misses_come_back_on_tuesday_most_overdue_first(slack: SlackHarness) -> None:
    assert START < MONDAY_9 and MONDAY_9.weekday() == 0
    refs = [slack.ref, *(replace(slack.ref, channel_id=c) for c in ("C0TWO", "C0THREE"))]

    async def click(round_, letter):
        reply = await slack.reply(await slack.click(round_.id, "ABCD".index(letter)))
        assert "locked in" in texts(reply)

    missed = await miss_three_on_monday(slack.service, slack.clock, refs, MONDAY_9, click)
    slack.clock.set(TUESDAY_NOON)

    stats = await slack.reply(await slack.command("stats"))
    assert "Reviews: 3 today (at most 20 a day)" in texts(stats) and "/quiz review" in texts(stats)

    question = await slack.reply(await slack.command("review 5"))
    served = []
    for position in range(1, 4):
        assert question.args["response_type"] == "ephemeral"
        assert f"Review {position}/3" in texts(question)
        round_id = int(buttons(question)[0].split(".")[2])
        assert buttons(question)[4:] == [unsure_action_id(round_id, i) for i in range(4)]
        round_ = await slack.store.get_round(round_id)
        assert round_ is not None
        served.append(round_.question_id)
        right = slack.service.context.bank.get(round_.question_id).answer  # type: ignore[union-attr]
        before = len(slack.stub.responses())
        slack.clock.advance(minutes=1)
        unsure = position == 3
        sent = await slack.click(
            round_id, right, action_id=unsure_action_id(round_id, right) if unsure else None, ephemeral=True
        )
        assert sent.status == 200
        expected = 1 if position == 3 else 2  # the verdict, then (but after the last) the next question
        calls = await slack.stub.wait_for("respond", before + expected)
        verdict = calls[before]
        assert verdict.args["replace_original"] is True and "Correct!" in texts(verdict)
        if position < 3:
            question = calls[before + 1]
    assert served == missed
    assert "Review done: 3 of 3 right." in texts(verdict)
    events = await slack.store.review_events("slack", TEAM_ID, ANN)
    assert [e.sure for e in events][-3:] == [True, True, False]
    [row] = await slack.store.leaderboard("slack", TEAM_ID, Period.ALL, "all", 10)
    assert (row.points, row.answered) == (0, 3)  # reviews never reach the leaderboard


async def test_review_counts_topics_and_levels_in_the_slash_command(slack: SlackHarness) -> None:
    bad = await slack.reply(await slack.command("review 30"))
    assert "from 1 to 20" in texts(bad)
    topics = await slack.reply(await slack.command("topics"))
    assert "autograd: Autograd, 3 questions" in texts(topics)
    hard = await slack.reply(await slack.command("practice autograd hard"))
    round_ = await slack.store.get_round(int(buttons(hard)[0].split(".")[2]))
    assert round_ is not None and slack.service.context.bank.get(round_.question_id).difficulty.value == "hard"  # type: ignore[union-attr]
    nothing = await slack.reply(await slack.command("review"))
    assert "Nothing to review yet" in texts(nothing)  # the practice question is not answered yet: no card


async def test_app_home_shows_reviews_due_with_a_review_button_that_starts_one_in_dms(slack: SlackHarness) -> None:
    refs = [slack.ref, *(replace(slack.ref, channel_id=c) for c in ("C0TWO", "C0THREE"))]

    async def click(round_, letter):
        await slack.reply(await slack.click(round_.id, "ABCD".index(letter)))

    missed = await miss_three_on_monday(slack.service, slack.clock, refs, MONDAY_9, click)
    slack.clock.set(TUESDAY_NOON)
    event = {
        "type": "app_home_opened",
        "user": ANN,
        "channel": "D0HOME",
        "tab": "home",
        "event_ts": "1700000004.000001",
    }
    assert (await slack.event(event, "Ev0HOMEREVIEW")).status == 200
    [publish] = await slack.stub.wait_for("views.publish")
    assert "Reviews: 3 today (at most 20 a day)" in texts(publish)
    assert REVIEW_ACTION in [
        e["action_id"] for b in publish.args["view"]["blocks"] if b.get("type") == "actions" for e in b["elements"]
    ]
    posts_before = len(slack.stub.calls_to("chat.postMessage"))
    assert (await slack.click(0, 0, action_id=REVIEW_ACTION)).status == 200
    posts = await slack.stub.wait_for("chat.postMessage", posts_before + 1)
    dm = posts[-1]
    assert dm.args["channel"] == ANN and "Review 1/3" in texts(dm)
    round_ = await slack.store.get_round(int(buttons(dm)[0].split(".")[2]))
    assert round_ is not None and round_.user_id == ANN and round_.question_id == missed[0]
