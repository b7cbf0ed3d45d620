"""A server that adds the bot gets one welcome: the real discord.py client against the fake's GUILD_CREATE for a
new server after READY (on_guild_join), posted in its first text channel with no pings; the same join seen again
(another process, a replay) posts nothing more."""

from __future__ import annotations

import asyncio

from adapters.discord.app import StudyBotClient
from tests.adapters.discord.conftest import Core
from tests.adapters.discord.fake_discord import FakeDiscord


async def test_a_new_server_gets_one_welcome_with_the_setup_command(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    joined = fake.add_guild("Torch Club")
    # a join's GUILD_CREATE has no "unavailable": false (that marks a known server coming back after an outage)
    payload = {k: v for k, v in fake.guild_payload(joined.id).items() if k != "unavailable"}
    await fake.dispatch("GUILD_CREATE", payload)
    await fake.wait_for(lambda: fake.channel_messages(joined.channel_id), "the welcome")
    [welcome] = fake.channel_messages(joined.channel_id)
    assert welcome["content"].startswith("Thanks for adding studybot")
    assert "/quizconfig schedule time:09:00 timezone:Europe/Berlin weekdays:mon-fri" in welcome["content"]
    assert "/dashboard" in welcome["content"]
    [sent] = fake.requests_to("POST", rf"/channels/{joined.channel_id}/messages$")
    assert sent.body["allowed_mentions"]["parse"] == []
    assert await core.service.installs.welcome("discord", joined.id) is None  # decided once, in the store
    await fake.dispatch("GUILD_CREATE", payload)  # the join seen again (a replay, another process)
    await asyncio.sleep(0.2)
    assert len(fake.channel_messages(joined.channel_id)) == 1
    assert fake.channel_messages(joined.other_channel_id) == []
