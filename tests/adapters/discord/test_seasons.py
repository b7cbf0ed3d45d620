"""Monthly seasons on Discord, end to end on the fake: champion_role refused without Manage Roles or above the
bot's role and saved once both hold; on the 1st the season card names last month's top three (names, no
pings) and the champion role is PUT on the winner; `/leaderboard season:2026-06` shows the archive."""

from __future__ import annotations

import datetime as dt

from adapters.discord.app import StudyBotClient
from bot.app.scheduler import DailyScheduler
from tests.adapters.discord.conftest import Core, configure_channel
from tests.adapters.discord.fake_discord import MANAGE_ROLES, FakeDiscord

JUNE_30 = dt.datetime(2026, 6, 30, 8, 0, tzinfo=dt.UTC)
JULY_1 = dt.datetime(2026, 7, 1, 9, 0, tzinfo=dt.UTC)  # the channel's posting time


async def test_the_season_card_the_champion_role_and_the_season_board(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    core.clock.set(JUNE_30)
    ref = await configure_channel(core, fake)
    champion = f"<@&{fake.champion_role_id}>"

    # the setting asks for Manage Roles only when it is turned on; without it: a clear refusal, nothing saved
    refused = await fake.reply(await fake.slash(fake.ada, "quizconfig", "recap", champion_role=champion))
    assert refused.ephemeral and "Manage Roles" in refused.text
    assert (await core.service.channels.channel_config(ref)).champion_role is None
    await fake.set_bot_perms(fake.bot_perms | MANAGE_ROLES)
    guild = bot.get_guild(int(fake.guild_id))
    assert guild is not None
    await fake.wait_for(lambda: guild.me.guild_permissions.manage_roles, "the bot's new permissions")
    above = await fake.reply(
        await fake.slash(fake.ada, "quizconfig", "recap", champion_role=f"<@&{fake.high_role_id}>")
    )
    assert "not below my highest role" in above.text and "Moderators" in above.text
    unknown = await fake.reply(
        await fake.slash(fake.ada, "quizconfig", "recap", champion_role="<@&1234567890123456789>")
    )
    assert "no role with id 1234567890123456789" in unknown.text
    saved = await fake.reply(await fake.slash(fake.ada, "quizconfig", "recap", champion_role=champion))
    assert saved.content == "Saved." and champion in saved.text
    assert (await core.service.channels.channel_config(ref)).champion_role == fake.champion_role_id

    # June 30: alice and bob right (alice first), then the July 1 post reveals it and brings June's card
    round_ = await core.service.posting.post_scheduled(ref)
    assert round_ is not None and round_.message_id
    right = "ABCD"[core.service.context.bank.get(round_.question_id).answer]  # type: ignore[union-attr]
    message = fake.messages[round_.message_id]
    for member in (fake.alice, fake.bob):
        core.clock.advance(seconds=30)
        await fake.reply(await fake.click(member, message, f"studybot:answer:{round_.id}:{right}"))
    core.clock.set(JULY_1)
    await DailyScheduler(core.service, core.clock).tick()

    [card] = [m for m in fake.channel_messages() if "Season June 2026" in m["content"]]
    assert "Champion: alice, 10 points (1 of 1 correct)" in card["content"]
    assert "2nd: bob, 10 points" in card["content"] and "/leaderboard season:2026-06" in card["content"]
    assert "<@" not in card["content"]  # names, never pings
    [put] = fake.requests_to("PUT", rf"/guilds/{fake.guild_id}/members/\d+/roles/{fake.champion_role_id}$")
    assert put.path.endswith(f"/members/{fake.alice.id}/roles/{fake.champion_role_id}")
    assert fake.member_roles[(fake.guild_id, fake.alice.id)] == {fake.champion_role_id}
    assert not fake.requests_to("DELETE", r"/roles/")  # no earlier champion to take it from

    board = await fake.reply(await fake.slash(fake.bob, "leaderboard", season="2026-06"))
    assert board.ephemeral and board.embeds[0]["title"] == "Season June 2026"
    [podium] = [f for f in board.embeds[0]["fields"] if f["name"] == "The season's top three"]
    assert podium["value"].startswith(f"🥇 <@{fake.alice.id}>: 10 pts") and f"🥈 <@{fake.bob.id}>" in podium["value"]
    assert "Archived on 01 July 2026" in board.text
    future = await fake.reply(await fake.slash(fake.bob, "leaderboard", season="2027-01"))
    assert future.ephemeral and "has not started yet" in future.text
    bad = await fake.reply(await fake.slash(fake.bob, "leaderboard", season="@everyone " + "x" * 5990))
    assert "is not a season" in bad.text and len(bad.text) < 300 and bad.ephemeral
    callback = fake.requests_to("POST", r"/callback$")[-1].body
    assert callback["data"]["allowed_mentions"]["parse"] == []  # the echoed @everyone notifies nobody
    schema = next(o for o in fake.command("leaderboard")["options"] if o["name"] == "season")
    assert schema["type"] == 3 and schema["max_length"] == 20 and not schema.get("required")
