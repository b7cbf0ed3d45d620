"""Teams on Discord, end to end on the fake with the real discord.py client: /team creates, joins, lists and
leaves (one team each, names checked, echoes notify nobody); admins (and the manager role) rename and remove;
/leaderboard board:teams ranks teams by their best three members' points with their member counts."""

from __future__ import annotations

from adapters.discord.app import StudyBotClient
from tests.adapters.discord.conftest import Core, configure_channel
from tests.adapters.discord.fake_discord import FakeDiscord


async def test_team_commands_one_team_each_and_admins_rename_and_remove(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    made = await fake.reply(await fake.slash(fake.alice, "team", action="create", name="Green Tea"))
    assert made.ephemeral and "Team Green Tea is created" in made.text
    assert "/team action:join name:Green Tea" in made.text
    joined = await fake.reply(await fake.slash(fake.bob, "team", action="join", name="GREEN tea"))
    assert "You joined team Green Tea" in joined.text
    twice = await fake.reply(await fake.slash(fake.bob, "team", action="create", name="Mate"))
    assert "You are in team Green Tea already" in twice.text and "/team action:leave" in twice.text
    listed = await fake.reply(await fake.slash(fake.ada, "team", action="list"))
    assert "Green Tea: 2 members" in listed.text
    alone = await fake.reply(await fake.slash(fake.bob, "team"))  # no action: the list, with their own team
    assert "Green Tea: 2 members" in alone.text and "You are in Green Tea." in alone.text

    hostile = await fake.reply(await fake.slash(fake.ada, "team", action="create", name="@everyone " + "x" * 50))
    assert "cannot be a team name" in hostile.text and len(hostile.text) < 300
    callback = fake.requests_to("POST", r"/callback$")[-1].body
    assert callback["data"]["allowed_mentions"]["parse"] == []
    nameless = await fake.reply(await fake.slash(fake.ada, "team", action="join"))
    assert "needs the team's name" in nameless.text

    refused = await fake.reply(
        await fake.slash(fake.alice, "team", action="rename", name="Green Tea", new_name="Oolong")
    )
    assert "Only members who can manage this server" in refused.text
    # a member holding the server's manager role renames like an admin
    await configure_channel(core, fake, manager_role=fake.manager_role_id)
    fake.member_roles[(fake.guild_id, fake.alice.id)] = {fake.manager_role_id}
    renamed = await fake.reply(
        await fake.slash(fake.alice, "team", action="rename", name="green tea", new_name="Oolong")
    )
    assert "Team Green Tea is now called Oolong" in renamed.text
    removed = await fake.reply(await fake.slash(fake.ada, "team", action="remove", name="oolong"))
    assert "Team Oolong is removed" in removed.text
    left = await fake.reply(await fake.slash(fake.bob, "team", action="leave"))
    assert "You are not in a team here" in left.text


async def test_the_team_board_ranks_by_the_best_three(bot: StudyBotClient, fake: FakeDiscord, core: Core) -> None:
    ref = await configure_channel(core, fake)
    await fake.reply(await fake.slash(fake.alice, "team", action="create", name="Alice's"))
    await fake.reply(await fake.slash(fake.bob, "team", action="create", name="Bob and co"))
    round_ = await core.service.posting.post_scheduled(ref)
    assert round_ is not None and round_.message_id
    right = "ABCD"[core.service.context.bank.get(round_.question_id).answer]  # type: ignore[union-attr]
    wrong = "ABCD"[(core.service.context.bank.get(round_.question_id).answer + 1) % 4]  # type: ignore[union-attr]
    message = fake.messages[round_.message_id]
    await fake.reply(await fake.click(fake.alice, message, f"studybot:answer:{round_.id}:{right}"))
    await fake.reply(await fake.click(fake.bob, message, f"studybot:answer:{round_.id}:{wrong}"))
    await core.service.reveals.reveal_round(round_.id)

    board = await fake.reply(await fake.slash(fake.bob, "leaderboard", board="teams", period="week"))
    [embed] = board.embeds
    assert board.ephemeral and embed["title"].startswith("Team board: week ")
    lines = embed["description"].split("\n")
    assert lines[0] == "1. Alice's: 10 pts (best 1 of 1 member)" and lines[1].startswith("2. Bob and co: 0 pts")
    assert "best 3 members" in embed["footer"]["text"]
    public = await fake.reply(await fake.slash(fake.bob, "leaderboard", board="teams", public=True))
    assert not public.ephemeral and "Alice's: 10 pts" in public.text
    seasonal = await fake.reply(await fake.slash(fake.bob, "leaderboard", board="teams", season="2026-05"))
    assert "leave season out for board:teams" in seasonal.text.replace("\\", "")
    schema = next(o for o in fake.command("leaderboard")["options"] if o["name"] == "board")
    assert [c["value"] for c in schema["choices"]] == ["members", "teams", "live"]
