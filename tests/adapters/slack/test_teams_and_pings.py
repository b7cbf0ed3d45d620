"""Teams and the daily ping on Slack, end to end: the real slack-bolt app on signed requests and the Web API
stub. `/quiz team ...` (one team each; admins rename and remove), `/quiz leaderboard teams` (best three members'
points, member counts), and ping_group: the daily question mentions that user group and nothing else, while
ping_role and manager_role are refused as Discord's."""

from __future__ import annotations

import re

from bot.kernel.values import Actor
from tests.adapters.slack.harness import ADMIN, ANN, BOB, CHANNEL, SlackHarness, texts

GROUP = "S0LEARNERS"
MENTION = re.compile(r"<(?:[@#]|!(?!date\^))")  # a <!date^...> time is no mention


async def test_team_commands_and_the_team_board(slack: SlackHarness) -> None:
    made = await slack.reply(await slack.command("team create Green Tea", user=ANN))
    assert made.args["response_type"] == "ephemeral" and "Team Green Tea is created" in texts(made)
    assert "/quiz team join Green Tea" in texts(made)
    joined = await slack.reply(await slack.command("team join green TEA", user=BOB))
    assert "You joined team Green Tea" in texts(joined)
    other = await slack.reply(await slack.command("team create Mate", user=BOB))
    assert "You are in team Green Tea already" in texts(other)
    hostile = await slack.reply(await slack.command("team create <!channel> <@U0ANN>", user=ADMIN))
    assert "cannot be a team name" in texts(hostile) and "<!channel>" not in texts(hostile)
    listed = await slack.reply(await slack.command("team list", user=ADMIN))
    assert "Green Tea: 2 members" in texts(listed)

    refused = await slack.reply(await slack.command("team rename Green Tea to Oolong", user=ANN))
    assert "Only members who can manage" in texts(refused)
    renamed = await slack.reply(await slack.command("team rename green tea to Oolong", user=ADMIN))
    assert "Team Green Tea is now called Oolong" in texts(renamed)

    round_ = await slack.daily_round()
    question = slack.service.context.bank.get(round_.question_id)
    assert question is not None
    await slack.reply(await slack.click(round_.id, question.answer, user=ANN))
    await slack.reply(await slack.click(round_.id, (question.answer + 1) % 4, user=BOB))
    await slack.service.reveals.reveal_round(round_.id)
    board = await slack.reply(await slack.command("leaderboard teams week", user=BOB))
    shown = texts(board)
    assert board.args["response_type"] == "ephemeral" and "Team board: week " in shown
    assert "1. Oolong: 10 pts (best 2 of 2 members)" in shown and "best 3 members" in shown
    posted = await slack.reply(await slack.command("leaderboard teams public", user=BOB))
    assert "Posted the team board" in texts(posted)
    [public] = [c for c in slack.stub.calls_to("chat.postMessage") if "Team board" in str(c.args.get("text"))]
    assert public.args["channel"] == CHANNEL and "Oolong: 10 pts" in texts(public)

    removed = await slack.reply(await slack.command("team remove Oolong", user=ADMIN))
    assert "Team Oolong is removed" in texts(removed)
    gone = await slack.reply(await slack.command("team leave", user=ANN))
    assert "You are not in a team here" in texts(gone)


async def test_the_daily_question_mentions_the_ping_group_and_nothing_else(slack: SlackHarness) -> None:
    await slack.service.channels.configure(Actor(ADMIN, True), slack.ref)
    role = await slack.reply(await slack.command("config ping_role <@&123456789012345678>", user=ADMIN))
    assert "ping_role is a Discord setting: Slack has no roles" in texts(role)
    manager = await slack.reply(await slack.command("config manager_role 123456789012345678", user=ADMIN))
    assert "manager_role is a Discord setting" in texts(manager)
    member = await slack.reply(await slack.command(f"config ping_group <!subteam^{GROUP}|@learners>", user=ANN))
    assert "Only members who can manage" in texts(member)
    saved = await slack.reply(await slack.command(f"config ping_group <!subteam^{GROUP}|@learners>", user=ADMIN))
    assert f"ping group {GROUP}" in texts(saved) and "manager role" not in texts(saved)
    cfg = await slack.service.channels.channel_config(slack.ref)
    assert cfg.ping_group == GROUP and cfg.ping_role is None and cfg.manager_role is None

    round_ = await slack.service.posting.post_scheduled(slack.ref)
    assert round_ is not None
    [post] = [c for c in slack.stub.calls_to("chat.postMessage") if c.args.get("channel") == CHANNEL]
    text, blocks = str(post.args["text"]), post.args["blocks"]
    assert text.startswith(f"<!subteam^{GROUP}> ") and blocks[0]["text"]["text"] == f"<!subteam^{GROUP}>"
    # the one mention in the whole message is the group's: the question's own text cannot form another
    assert MENTION.findall(texts(post)) == ["<!", "<!"]
    assert texts(post).count(f"<!subteam^{GROUP}>") == 2

    await slack.reply(await slack.command("config ping_group off", user=ADMIN))
    await slack.service.reveals.reveal_round(round_.id)
    slack.clock.advance(days=1, hours=2)
    later = await slack.service.posting.post_scheduled(slack.ref)
    assert later is not None
    last = [c for c in slack.stub.calls_to("chat.postMessage") if "Daily" in str(c.args.get("text"))][-1]
    assert "subteam" not in texts(last) and not MENTION.search(texts(last))
