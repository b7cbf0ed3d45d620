"""Issue 31 on Slack, end to end with signed requests: `/quiz review limit|pause|resume`, `/quiz plan`, and
`/quiz stats` speaking of today's share and the streak's freezes."""

from __future__ import annotations

import datetime as dt

from bot.kernel.values import Actor, NewAnswer
from bot.settings import ConfigChange
from tests.adapters.slack.harness import ANN, START, SlackHarness, texts
from tests.adapters.slack.stub import TEAM_ID


async def test_review_settings_plan_and_stats_through_the_quiz_command(slack: SlackHarness) -> None:
    await slack.service.channels.configure(Actor("setup", True), slack.ref, ConfigChange.of(timezone="UTC"))
    for q in slack.service.context.bank.questions[:4]:  # four misses of ann's, due a day later
        round_ = await slack.store.create_practice_round(slack.ref, ANN, q.id, q.topic, START)
        await slack.store.add_answers([NewAnswer(round_.id, ANN, (q.answer + 1) % 4, False, START)], START)
        assert await slack.store.reveal_round(round_.id, START, None)
    slack.clock.set(START + dt.timedelta(days=1, hours=1))

    limit = await slack.reply(await slack.command("review limit 3"))
    assert limit.args["response_type"] == "ephemeral" and "at most 3 a day" in texts(limit)
    stats = await slack.reply(await slack.command("stats"))
    assert "Reviews: 3 today (at most 3 a day)" in texts(stats)
    assert "Streak 0 now, best 0; freezes: 0 held, 0 used" in texts(stats)

    paused = await slack.reply(await slack.command("review pause 5"))
    assert "paused until" in texts(paused) and "/quiz review resume ends it sooner" in texts(paused)
    assert "paused until" in texts(await slack.reply(await slack.command("review")))
    resumed = await slack.reply(await slack.command("review resume"))
    assert "Reviews resumed" in texts(resumed)
    bad = await slack.reply(await slack.command("review limit 500"))
    assert "from 1 to 100" in texts(bad)
    assert (await slack.store.review_prefs("slack", TEAM_ID, ANN)).limit == 3

    plan = await slack.reply(await slack.command("plan 2025-03-20 autograd"))
    assert "Plan saved" in texts(plan) and "Daily target:" in texts(plan)
    assert "Coverage: 1 of 3 questions seen (33%)" in texts(plan)  # autograd-0 was one of the misses
    assert "Plan for Thu 20 Mar 2025 (autograd)" in texts(await slack.reply(await slack.command("plan")))
    assert "is not a date" in texts(await slack.reply(await slack.command("plan 20/03/2025")))
    assert "Your plan is off." in texts(await slack.reply(await slack.command("plan off")))


async def test_stats_give_the_next_review_as_a_slack_date(slack: SlackHarness) -> None:
    await slack.service.channels.configure(Actor("setup", True), slack.ref, ConfigChange.of(timezone="UTC"))
    q = slack.service.context.bank.questions[0]
    round_ = await slack.store.create_practice_round(slack.ref, ANN, q.id, q.topic, START)
    await slack.store.add_answers([NewAnswer(round_.id, ANN, (q.answer + 1) % 4, False, START)], START)
    assert await slack.store.reveal_round(round_.id, START, None)  # a miss, due a day later: nothing today yet
    [card] = await slack.store.learner_cards("slack", TEAM_ID, ANN)
    stamp = int(card.due.timestamp())
    stats = await slack.reply(await slack.command("stats"))
    shown = texts(stats)
    assert f"Reviews: 0 today (at most 20 a day); next <!date^{stamp}^{{date_short_pretty}} at {{time}}|" in shown
    assert "\x00" not in shown  # no stand-in left behind
