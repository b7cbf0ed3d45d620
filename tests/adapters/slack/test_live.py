"""A live game on Slack end to end (the real slack-bolt app, signed requests, the Web API stub): `/quiz live`,
three players clicking A-D, each question posted once and closed by one chat.update, the podium and table,
faster right answers scoring more, a second game refused while one runs, and `/quiz leaderboard live`."""

from __future__ import annotations

import datetime as dt

from adapters.slack.ids import parse_message_id
from bot.kernel.values import LETTERS
from tests.adapters.slack.harness import ADMIN, ANN, BOB, SlackHarness, texts


async def run_game(slack: SlackHarness, players: list[tuple[str, bool, float]]) -> list[int]:
    """Drive the game's due steps with the clock; each player answers every question `after` seconds in,
    right or not. The rounds asked, in order."""
    asked: list[int] = []
    for _ in range(100):
        next_due = await slack.service.live.run_due()
        round_ = await slack.service.live.open_round(slack.ref)
        if round_ is not None and round_.id not in asked:
            asked.append(round_.id)
            question = slack.service.context.bank.get(round_.question_id)
            assert question is not None
            start = slack.clock.now()
            for user, right, after in players:
                slack.clock.set(start + dt.timedelta(seconds=after))
                choice = question.answer if right else (question.answer + 1) % 4
                reply = await slack.reply(await slack.click(round_.id, choice, user=user))
                assert reply.args["response_type"] == "ephemeral", reply.args
                assert f"Your answer {LETTERS[choice]} is locked in" in reply.args["text"]
        if next_due is None:
            return asked
        slack.clock.set(max(next_due, slack.clock.now()))
    raise AssertionError("the game did not end")


async def test_a_live_game_of_five_with_three_players_runs_to_its_podium(slack: SlackHarness) -> None:
    started = await slack.reply(await slack.command("live 5 10", user=ANN))
    assert started.args["response_type"] == "ephemeral" and "Live game on: 5 questions" in started.args["text"]
    refused = await slack.reply(await slack.command("live 3", user=BOB))
    assert "already running in this channel" in refused.args["text"] and "/quiz live stop" in refused.args["text"]

    asked = await run_game(slack, [(ANN, True, 1), (BOB, True, 6), (ADMIN, False, 2)])
    assert len(asked) == 5
    posts = [c for c in slack.stub.calls_to("chat.postMessage") if c.args.get("channel") == slack.ref.channel_id]
    questions, finals = posts[:5], posts[5:]
    assert [texts(q).split(":")[0] for q in questions] == [f"Live question {i} of 5" for i in range(1, 6)]
    updates = slack.stub.calls_to("chat.update")
    assert len(updates) == 5, "one chat.update per question: its close"
    rounds = [await slack.store.get_round(r) for r in asked]
    assert [u.args["ts"] for u in updates] == [parse_message_id(r.message_id)[1] for r in rounds]  # type: ignore[index, union-attr]
    close = texts(updates[0])
    assert "closed" in close and "3 answered, 2 right." in close and "Fastest:" in close and "Top 5" in close
    assert "actions" not in [b["type"] for b in updates[0].args["blocks"]]  # the buttons are gone
    [final] = finals
    table = texts(final)
    assert "Podium" in table and "Full table" in table and "<@" not in table  # named, nobody notified
    assert table.index("u0ann") < table.index("u0bob") < table.index("u0admin")  # by points
    podium = table[table.index("Podium") : table.index("Full table")]
    assert "u0bob" in podium and "u0admin" not in podium  # no medal for 0 points

    standings = {s.user_id: s for s in await slack.store.live_board("slack", slack.ref.space_id, 10)}
    assert standings[ANN].points > standings[BOB].points > standings[ADMIN].points == 0  # faster scores more
    assert (standings[ANN].wins, standings[ANN].games) == (1, 1)
    board = await slack.reply(await slack.command("leaderboard live", user=BOB))
    assert board.args["response_type"] == "ephemeral" and "Live games" in texts(board)
    assert texts(board).index(f"<@{ANN}>") < texts(board).index(f"<@{BOB}>")
    again = await slack.reply(await slack.command("live 3", user=BOB))  # the game is over: a new one may start
    assert "Live game on" in again.args["text"]


async def test_live_stop_is_for_the_starter_or_an_admin(slack: SlackHarness) -> None:
    await slack.reply(await slack.command("live 5 10", user=ANN))
    await slack.service.live.run_due()
    refused = await slack.reply(await slack.command("live stop", user=BOB))
    assert "Only the member who started" in refused.args["text"]
    stopped = await slack.reply(await slack.command("live stop", user=ANN))
    assert "stopped" in stopped.args["text"]
    assert len(slack.stub.calls_to("chat.update")) == 1  # the open question closed at once
    final = slack.stub.calls_to("chat.postMessage")[-1]
    assert "stopped after 1 question" in texts(final)
    assert await slack.service.live.open_round(slack.ref) is None
