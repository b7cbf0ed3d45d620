"""Roles on Discord, end to end on the fake with the real discord.py client: a member holding the server's
manager_role changes settings (and reads the reports queue) like Manage Server, a member without it or Manage
Server cannot, and only Manage Server moves the role itself; the daily question mentions the channel's
ping_role and may notify that role and nobody else."""

from __future__ import annotations

from adapters.discord.app import StudyBotClient
from tests.adapters.discord.conftest import Core, configure_channel
from tests.adapters.discord.fake_discord import FakeDiscord

REFUSED = "Only members who can manage this server"


async def test_a_member_with_the_manager_role_changes_settings_and_one_without_cannot(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    ref = await configure_channel(core, fake)
    role = f"<@&{fake.manager_role_id}>"
    before = await core.store.get_channel(ref)

    # without the setting, neither bob (no role) nor his later role makes him an admin
    fake.member_roles[(fake.guild_id, fake.bob.id)] = {fake.manager_role_id}
    refused = await fake.reply(await fake.slash(fake.bob, "quizconfig", "schedule", time="07:30"))
    assert refused.ephemeral and REFUSED in refused.text
    assert await core.store.get_channel(ref) == before

    # ada (Manage Server) names the manager role; the card shows it
    saved = await fake.reply(await fake.slash(fake.ada, "quizconfig", "roles", manager_role=role))
    assert saved.content == "Saved." and f"manager role {role}" in saved.text
    assert await core.service.channels.manager_role("discord", fake.guild_id) == fake.manager_role_id

    # bob holds the role: he changes the schedule, reads the reports queue and posts now
    changed = await fake.reply(await fake.slash(fake.bob, "quizconfig", "schedule", time="07:30"))
    assert changed.content == "Saved." and "time 07:30" in changed.text
    assert (await core.store.get_channel(ref)).post_time.strftime("%H:%M") == "07:30"
    queue = await fake.reply(await fake.slash(fake.bob, "quizadmin", "reports"))
    assert REFUSED not in queue.text
    posted = await fake.reply(await fake.slash(fake.bob, "quizconfig", "post-now"))
    assert posted.text.startswith("Posted question #")
    # ... but not the manager role itself
    moved = await fake.reply(await fake.slash(fake.bob, "quizconfig", "roles", manager_role="off"))
    assert "Only members with Manage Server can change the manager role" in moved.text
    assert await core.service.channels.manager_role("discord", fake.guild_id) == fake.manager_role_id

    # alice has neither the role nor Manage Server: refused everywhere, nothing changed
    for sub, options in (("schedule", {"time": "06:00"}), ("rules", {"speed": "on"}), ("reveal", {})):
        reply = await fake.reply(await fake.slash(fake.alice, "quizconfig", sub, **options))
        assert reply.ephemeral and REFUSED in reply.text, sub
    assert (await fake.reply(await fake.slash(fake.alice, "quizadmin", "reports"))).text.startswith(REFUSED)
    cfg = await core.store.get_channel(ref)
    assert cfg.post_time.strftime("%H:%M") == "07:30" and not cfg.speed_bonus

    # the role taken from bob (or the setting off) and he is a member again
    fake.member_roles[(fake.guild_id, fake.bob.id)] = set()
    again = await fake.reply(await fake.slash(fake.bob, "quizconfig", "schedule", time="05:00"))
    assert REFUSED in again.text and (await core.store.get_channel(ref)).post_time.strftime("%H:%M") == "07:30"


async def test_the_manager_role_cannot_be_everyone_or_an_integrations_role(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    ref = await configure_channel(core, fake)
    everyone = await fake.reply(await fake.slash(fake.ada, "quizconfig", "roles", manager_role=f"<@&{fake.guild_id}>"))
    assert "@everyone cannot be used here" in everyone.text
    bots = await fake.reply(await fake.slash(fake.ada, "quizconfig", "roles", manager_role=f"<@&{fake.bot_role_id}>"))
    assert "belongs to an integration" in bots.text
    unknown = await fake.reply(await fake.slash(fake.ada, "quizconfig", "roles", manager_role="1234567890123456789"))
    assert "no role with id 1234567890123456789" in unknown.text
    assert (await core.store.get_channel(ref)).manager_role is None


async def test_the_daily_question_mentions_the_ping_role_and_nothing_else(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    ref = await configure_channel(core, fake)
    # a role nobody may mention (and the bot has no Mention All Roles): refused, nothing saved
    quiet = await fake.reply(
        await fake.slash(fake.ada, "quizconfig", "roles", ping_role=f"<@&{fake.champion_role_id}>")
    )
    assert "I cannot mention the role Champion" in quiet.text
    assert (await core.store.get_channel(ref)).ping_role is None
    saved = await fake.reply(await fake.slash(fake.ada, "quizconfig", "roles", ping_role=f"<@&{fake.ping_role_id}>"))
    assert saved.content == "Saved." and f"ping role <@&{fake.ping_role_id}>" in saved.text

    round_ = await core.service.posting.post_scheduled(ref)
    assert round_ is not None and round_.message_id
    [post] = [
        r
        for r in fake.requests_to("POST", rf"/channels/{fake.channel_id}/messages$")
        if r.body and r.body.get("components")
    ]
    assert post.body["content"] == f"<@&{fake.ping_role_id}>"
    assert post.body["allowed_mentions"] == {"parse": [], "roles": [int(fake.ping_role_id)]}
    assert fake.messages[round_.message_id]["content"] == f"<@&{fake.ping_role_id}>"

    # the reveal mentions nobody; with the setting off the next question mentions nobody either
    await core.service.reveals.reveal_round(round_.id)
    reveal = [r for r in fake.requests_to("POST", rf"/channels/{fake.channel_id}/messages$") if r is not post][-1]
    assert not reveal.body.get("content") and reveal.body["allowed_mentions"] == {"parse": []}
    await fake.reply(await fake.slash(fake.ada, "quizconfig", "roles", ping_role="off"))
    core.clock.advance(days=1, hours=2)
    later = await core.service.posting.post_scheduled(ref)
    assert later is not None and later.message_id
    assert fake.messages[later.message_id]["content"] == ""
    last = fake.requests_to("POST", rf"/channels/{fake.channel_id}/messages$")[-1].body
    assert last["allowed_mentions"] == {"parse": []} and not last.get("content")


async def test_ping_group_is_no_discord_option_and_refused_by_text(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    options = {o["name"] for sub in fake.command("quizconfig")["options"] for o in sub.get("options", [])}
    assert {"manager_role", "ping_role"} <= options and "ping_group" not in options
