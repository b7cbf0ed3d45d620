"""A live game on Discord end to end (the real discord.py client against the fake Discord): `/live`, three
members clicking A-D, each question posted once and closed by one edit, the podium and table, faster right
answers scoring more, a second `/live` refused while one runs, `/live stop:true`, `/leaderboard board:live`."""

from __future__ import annotations

import datetime as dt

from adapters.discord.app import StudyBotClient
from tests.adapters.discord.conftest import Core, channel_ref
from tests.adapters.discord.fake_discord import FakeDiscord, FakeUser, buttons

LETTERS = "ABCD"


async def run_game(core: Core, fake: FakeDiscord, players: list[tuple[FakeUser, bool, float]]) -> list[int]:
    """Drive the game's due steps with the clock; each player clicks every question `after` seconds in, the
    right choice or not. The rounds asked, in order."""
    asked: list[int] = []
    for _ in range(100):
        next_due = await core.service.live.run_due()
        round_ = await core.service.live.open_round(channel_ref(fake))
        if round_ is not None and round_.id not in asked:
            asked.append(round_.id)
            question = core.service.context.bank.get(round_.question_id)
            assert question is not None and round_.message_id is not None
            message = fake.messages[round_.message_id]
            start = core.clock.now()
            for user, right, after in players:
                core.clock.set(start + dt.timedelta(seconds=after))
                letter = LETTERS[question.answer if right else (question.answer + 1) % 4]
                reply = await fake.reply(await fake.click(user, message, f"studybot:answer:{round_.id}:{letter}"))
                assert reply.ephemeral and f"Your answer {letter} is locked in" in reply.text
        if next_due is None:
            return asked
        core.clock.set(max(next_due, core.clock.now()))
    raise AssertionError("the game did not end")


async def test_a_live_game_of_five_with_three_players_runs_to_its_podium(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    started = await fake.reply(await fake.slash(fake.alice, "live", questions=5, seconds=10))
    assert started.ephemeral and "Live game on: 5 questions, 10 seconds each" in started.text
    refused = await fake.reply(await fake.slash(fake.bob, "live"))
    assert refused.ephemeral and "already running in this channel" in refused.text and "/live stop:true" in refused.text

    asked = await run_game(core, fake, [(fake.alice, True, 1), (fake.bob, True, 6), (fake.ada, False, 2)])
    assert len(asked) == 5
    posted = fake.channel_messages()
    questions, finals = posted[:5], posted[5:]
    assert [m["embeds"][0]["title"] for m in questions] == [f"Live question {i} of 5: closed" for i in range(1, 6)]
    bodies = [r.body for r in fake.requests_to("POST", r"/channels/\d+/messages$")]
    sent_titles = [b["embeds"][0]["title"] for b in bodies if len(b.get("embeds") or []) == 1]
    assert sent_titles == [f"Live question {i} of 5" for i in range(1, 6)]  # each posted once
    assert all(len(buttons(m["components"])) == 4 for m in questions)
    assert not fake.requests_to("PUT", r"/reactions/")  # buttons only
    for round_id, message in zip(asked, questions, strict=True):
        edits = [body for mid, body in fake.edits if mid == message["id"]]
        assert len(edits) == 1, "one edit per question: its close"
        [embed] = edits[0]["embeds"]
        assert embed["title"].endswith(": closed")
        fields = {f["name"]: f["value"] for f in embed["fields"]}
        assert "3 answered, 2 right" in fields["Answers"] and "Fastest" in fields["Answers"] and "Top 5" in fields
        assert all(b["disabled"] for b in buttons(edits[0]["components"]))
        assert (await core.store.get_round(round_id)).message_id == message["id"]  # type: ignore[union-attr]
    [final] = finals
    podium, table = final["embeds"]
    assert podium["title"] == "Live game: final results" and table["title"] == "Full table"
    order = [table["description"].index(f"<@{u.id}>") for u in (fake.alice, fake.bob, fake.ada)]
    assert order == sorted(order)  # alice, bob, ada: the faster right answers scored more
    assert f"🥈 <@{fake.bob.id}>" in podium["description"] and f"<@{fake.ada.id}>" not in podium["description"]
    [sent] = [r for r in fake.requests_to("POST", r"/messages$") if len((r.body or {}).get("embeds") or []) == 2]
    assert sent.body["allowed_mentions"]["parse"] == []  # nobody notified

    board = await core.store.live_board("discord", fake.guild_id, 10)
    assert [s.user_id for s in board] == [fake.alice.id, fake.bob.id, fake.ada.id]
    assert board[0].points > board[1].points > board[2].points == 0 and board[0].wins == 1
    shown = await fake.reply(await fake.slash(fake.bob, "leaderboard", board="live"))
    assert shown.ephemeral and "Live games" in str(shown.embeds) and f"<@{fake.alice.id}>" in str(shown.embeds)
    again = await fake.reply(await fake.slash(fake.bob, "live", questions=3))
    assert "Live game on" in again.text  # the game is over: a new one may start


async def test_live_stop_is_for_the_starter_or_an_admin(bot: StudyBotClient, fake: FakeDiscord, core: Core) -> None:
    await fake.reply(await fake.slash(fake.alice, "live", questions=5, seconds=20))
    await core.service.live.run_due()
    refused = await fake.reply(await fake.slash(fake.bob, "live", stop=True))
    assert "Only the member who started" in refused.text
    stopped = await fake.reply(await fake.slash(fake.ada, "live", stop=True))  # ada manages the server
    assert "stopped" in stopped.text
    [question, final] = fake.channel_messages()
    assert len([1 for mid, _ in fake.edits if mid == question["id"]]) == 1
    assert "stopped after 1 question" in final["embeds"][0]["title"]
