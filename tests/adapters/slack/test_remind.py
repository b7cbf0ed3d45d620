"""Reminders on Slack through the real bolt app: `/quiz remind on 08:30` reads the member's timezone from
users.info (the stub), and at 08:30 there the DM goes out via conversations.open + chat.postMessage; a
member Slack will not let the bot message gets reminders switched off; a bad time changes nothing; a
timezone given wins over the profile's, and `/quiz remind` alone shows the reminder."""

from __future__ import annotations

import datetime as dt

from bot.kernel.values import Actor
from bot.settings import ConfigChange
from tests.adapters.slack.harness import ADMIN, ANN, BOB, SlackHarness, texts
from tests.adapters.slack.stub import TEAM_ID


async def _miss(slack: SlackHarness, user: str) -> None:
    """A practice miss, due for review a day later."""
    card = await slack.service.practice.start_practice(slack.ref, user)
    round_ = await slack.store.get_round(card.round_id)
    assert round_ is not None
    question = slack.service.context.bank.get(round_.question_id)
    assert question is not None
    await slack.service.answers.submit_answer(card.round_id, user, (question.answer + 1) % 4)


async def test_remind_on_0830_in_the_members_timezone_delivers_one_dm(slack: SlackHarness) -> None:
    await slack.service.channels.configure(Actor(ADMIN, True), slack.ref, ConfigChange.of(timezone="Europe/Berlin"))
    slack.stub.users[ANN]["tz"] = "America/Los_Angeles"
    await _miss(slack, ANN)  # START is Wed 2025-03-05 08:00 UTC
    reply = await slack.reply(await slack.command("remind on 08:30"))
    assert reply.args["response_type"] == "ephemeral"
    assert "Reminders are on: at 08:30 (America/Los_Angeles)" in texts(reply)
    assert [c.args.get("user") for c in slack.stub.calls_to("users.info")].count(ANN) >= 1
    stored = await slack.store.get_reminder("slack", TEAM_ID, ANN)
    # Thursday 08:30 in Los Angeles (PST, UTC-8) is 16:30 UTC; not 08:30 in Berlin
    assert stored is not None and stored.next_at == dt.datetime(2025, 3, 5, 16, 30, tzinfo=dt.UTC)
    slack.clock.set(dt.datetime(2025, 3, 5, 16, 30, tzinfo=dt.UTC))
    await slack.service.reminders.run_due()  # Wednesday: the miss is not due yet, nothing to say
    assert slack.stub.calls_to("conversations.open") == []
    slack.clock.set(dt.datetime(2025, 3, 6, 16, 30, tzinfo=dt.UTC))
    await slack.service.reminders.run_due()
    await slack.service.reminders.run_due()
    [opened] = await slack.stub.wait_for("conversations.open")
    assert opened.args["users"] == ANN
    dms = [c for c in slack.stub.calls_to("chat.postMessage") if c.args["channel"] == "D0ANN"]
    assert len(dms) == 1
    assert "1 review today" in dms[0].args["text"] and "/quiz review" in dms[0].args["text"]


async def test_a_member_slack_will_not_dm_gets_reminders_switched_off(slack: SlackHarness) -> None:
    await slack.service.channels.configure(Actor(ADMIN, True), slack.ref, ConfigChange.of(timezone="UTC"))
    await _miss(slack, BOB)
    await slack.reply(await slack.command("remind on 09:00", user=BOB))
    slack.stub.fail_next("conversations.open", status=200, error="cannot_dm_bot", retry_after=None)
    for day in (6, 7):
        slack.clock.set(dt.datetime(2025, 3, day, 9, 0, tzinfo=dt.UTC))
        await slack.service.reminders.run_due()
    assert len(slack.stub.calls_to("conversations.open")) == 1
    stored = await slack.store.get_reminder("slack", TEAM_ID, BOB)
    assert stored is not None and not stored.enabled


async def test_remind_bad_input_and_off(slack: SlackHarness) -> None:
    bad = await slack.reply(await slack.command("remind on 8.30"))
    assert "'8.30' is not a reminder time" in texts(bad) and "Nothing was changed" in texts(bad)
    usage = await slack.reply(await slack.command("remind sometimes"))
    assert "/quiz remind on 08:30" in texts(usage)
    assert await slack.store.get_reminder("slack", TEAM_ID, ANN) is None
    await slack.reply(await slack.command("remind on"))
    off = await slack.reply(await slack.command("remind off"))
    assert "Reminders are off" in texts(off)
    stored = await slack.store.get_reminder("slack", TEAM_ID, ANN)
    assert stored is not None and not stored.enabled and stored.at == dt.time(9, 0)


async def test_a_timezone_given_wins_over_the_profiles_and_remind_alone_shows_it(slack: SlackHarness) -> None:
    slack.stub.users[ANN]["tz"] = "America/Los_Angeles"
    shown = await slack.reply(await slack.command("remind"))
    assert shown.args["response_type"] == "ephemeral" and "Reminders are off" in texts(shown)
    given = await slack.reply(await slack.command("remind on Asia/Tokyo 07:00"))
    assert "Reminders are on: at 07:00 (Asia/Tokyo)" in texts(given)
    assert "Another timezone" not in texts(given)  # Slack tells the bot the member's own: no hint needed
    stored = await slack.store.get_reminder("slack", TEAM_ID, ANN)
    assert stored is not None and stored.next_at == dt.datetime(2025, 3, 5, 22, 0, tzinfo=dt.UTC)  # 07:00 Tokyo
    shown = await slack.reply(await slack.command("remind"))
    assert "Reminders are on: at 07:00 (Asia/Tokyo), the next one Thu 06 Mar 07:00" in texts(shown)
    again = await slack.reply(await slack.command("remind on"))  # none given: the profile's zone, after a move
    assert "Reminders are on: at 07:00 (America/Los_Angeles)" in texts(again)
