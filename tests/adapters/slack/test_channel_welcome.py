"""The bot invited to a Slack channel says once what it does there: the real slack-bolt app against signed
member_joined_channel events and the Web API stub. Not for anyone else's join, not again for a replayed or a
later join of the same channel, and not in a channel an admin set up (which is how the bot got there)."""

from __future__ import annotations

from bot.kernel.values import Actor
from tests.adapters.slack.harness import ADMIN, ANN, CHANNEL, SlackHarness, texts
from tests.adapters.slack.stub import BOT_USER_ID


def joined(user: object, channel: object) -> dict[str, object]:
    return {"type": "member_joined_channel", "user": user, "channel": channel, "channel_type": "C", "team": "T0TEAM"}


async def test_invited_to_a_channel_the_bot_says_once_what_it_does_there(slack: SlackHarness) -> None:
    assert (await slack.event(joined(BOT_USER_ID, "C0NEW"), "Ev0JOIN1")).status == 200
    [hello] = await slack.stub.wait_for("chat.postMessage")
    assert hello.args["channel"] == "C0NEW"
    said = texts(hello)
    assert said.startswith("Hello! I'm studybot: a daily PyTorch interview question")
    assert "Admins: /quiz config time 09:00 tz Europe/Berlin days mon-fri, typed in this channel, starts" in said
    assert "Everyone: /quiz for a private practice question now, and /quiz help for the rest." in said

    await slack.event(joined(BOT_USER_ID, "C0NEW"), "Ev0JOIN2")  # removed and invited again: once is enough
    await slack.event(joined(ANN, "C0OTHER"), "Ev0JOIN3")  # a member joining is none of its business
    await slack.event(joined(BOT_USER_ID, ["C0BAD"]), "Ev0JOIN4")  # a channel of the wrong shape: logged, ignored
    await slack.service.channels.configure(Actor(ADMIN, True), slack.ref)  # set up here first: the bot joins
    await slack.event(joined(BOT_USER_ID, CHANNEL), "Ev0JOIN5")
    await slack.event(joined(BOT_USER_ID, "C0LAST"), "Ev0JOIN6")  # answered after everything sent before it
    posts = await slack.stub.wait_for("chat.postMessage", 2)
    assert [p.args["channel"] for p in posts] == ["C0NEW", "C0LAST"]
