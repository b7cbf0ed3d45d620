"""The dashboard names Discord channels from the gateway's cache: the real discord.py client against the fake's
GUILD_CREATE (its channels daily-pytorch and general), with no REST call; an id the server lacks stays unnamed."""

from __future__ import annotations

from adapters.discord.app import StudyBotClient
from bot.kernel.platform import ChannelNamePlatform
from tests.adapters.discord.conftest import Core
from tests.adapters.discord.fake_discord import FakeDiscord


async def test_channels_are_named_from_the_servers_cache(bot: StudyBotClient, fake: FakeDiscord, core: Core) -> None:
    platform = core.service.context.platforms["discord"]
    assert isinstance(platform, ChannelNamePlatform)
    before = len(fake.requests)
    unknown = str(int(fake.other_channel_id) + 999)
    names = await platform.channel_names(fake.guild_id, [fake.channel_id, fake.other_channel_id, unknown, "x"])
    assert names == {fake.channel_id: "daily-pytorch", fake.other_channel_id: "general"}
    assert len(fake.requests) == before  # from the cache: nothing asked of Discord's REST
    assert await platform.channel_names("12345", [fake.channel_id]) == {}  # a server the bot is not in
