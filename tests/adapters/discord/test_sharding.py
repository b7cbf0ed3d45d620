"""Sharding end to end: with STUDYBOT_SHARD_COUNT the real discord.py AutoShardedClient connects only its shards
to the fake, which (like Discord) brings each shard only the guilds and events that belong to it."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import discord
import pytest

from adapters.discord.app import ShardedStudyBotClient, StudyBotClient, StudyBotMixin, start_discord
from adapters.discord.sharding import channel_owner
from bot.app.config import Settings
from bot.kernel.errors import StartupError
from bot.kernel.values import ChannelRef, RoundKind
from bot.settings import ConfigChange
from tests.adapters.discord.conftest import ADMIN, TOKEN, Core, open_core
from tests.adapters.discord.fake_discord import FakeDiscord, FakeGuild, shard_of

A = "\N{REGIONAL INDICATOR SYMBOL LETTER A}"


@dataclass
class Process:
    """One bot process: its own core and the Discord client start_discord built for it."""

    core: Core
    client: ShardedStudyBotClient
    task: asyncio.Task[None]

    async def stop(self) -> None:
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task
        await self.core.close()

    def guild_ids(self) -> set[str]:
        return {str(g.id) for g in self.client.guilds}


async def start_process(core: Core, shard_ids: tuple[int, ...], shard_count: int = 2) -> Process:
    settings = Settings(shard_count=shard_count, shard_ids=shard_ids, discord_token=TOKEN)
    task = await start_discord(core.service, settings, guild_ready_timeout=0.1)
    client = core.service.context.platforms["discord"].client  # type: ignore[attr-defined]
    try:
        await asyncio.wait_for(client.wait_until_ready(), 5)
    except BaseException:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        raise
    return Process(core, client, task)


@pytest.fixture
def guilds(fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch) -> tuple[FakeGuild, FakeGuild]:
    """Two more guilds, one on each of two shards (the fake's first guild lands on either)."""
    monkeypatch.delenv("DISCORD_GUILD_ID", raising=False)  # commands are synced globally, as in production
    return fake.add_guild("shard zero", shard=(0, 2)), fake.add_guild("shard one", shard=(1, 2))


@pytest.fixture
async def shard_one(fake: FakeDiscord, core: Core, guilds: tuple[FakeGuild, FakeGuild]) -> AsyncIterator[Process]:
    process = await start_process(core, (1,))
    yield process
    process.task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await process.task


async def test_shard_one_of_two_identifies_as_1_2_and_receives_only_its_guilds(
    shard_one: Process, fake: FakeDiscord, guilds: tuple[FakeGuild, FakeGuild]
) -> None:
    zero, one = guilds
    client = shard_one.client
    assert isinstance(client, discord.AutoShardedClient) and client.shard_count == 2
    assert sorted(client.shards) == [1]
    assert [i["shard"] for i in fake.identifies] == [[1, 2]]  # one IDENTIFY, for shard 1 only
    [ready] = fake.readies
    assert ready["shard"] == [1, 2]

    mine = {g.id for g in fake.guilds.values() if shard_of(g.id, 2) == 1}
    assert one.id in mine and zero.id not in mine
    assert {g["id"] for g in ready["guilds"]} == mine
    assert shard_one.guild_ids() == mine
    assert all(g.shard_id == 1 for g in client.guilds)
    # the scheduler of this process (adapters.discord.sharding) owns exactly the guilds its gateway brings
    owns = channel_owner(2, (1,))
    assert {g.id for g in fake.guilds.values() if owns(ChannelRef("discord", g.id, g.channel_id))} == mine

    limits = await client.fetch_session_start_limits()  # GET /gateway/bot
    assert limits.total == 1000 and limits.remaining == 999 and limits.max_concurrency == 1


async def test_a_slash_command_from_a_guild_of_shard_one_is_answered(
    shard_one: Process, fake: FakeDiscord, guilds: tuple[FakeGuild, FakeGuild]
) -> None:
    _, one = guilds
    reply = await fake.reply(await fake.slash(fake.alice, "quiz", channel_id=one.channel_id, topic="autograd"))
    assert reply.callback_type == 4 and reply.ephemeral
    assert reply.embeds[0]["title"].startswith("Practice: Autograd")
    round_id = int(reply.custom_ids[0].split(":")[2])
    round_ = await shard_one.core.store.get_round(round_id)
    assert round_ is not None and round_.kind is RoundKind.PRACTICE
    assert round_.ref == ChannelRef("discord", one.id, one.channel_id)


async def test_the_sharded_platform_posts_and_its_buttons_and_reactions_answer(
    shard_one: Process, fake: FakeDiscord, guilds: tuple[FakeGuild, FakeGuild]
) -> None:
    _, one = guilds
    service, store = shard_one.core.service, shard_one.core.store
    ref = ChannelRef("discord", one.id, one.channel_id)
    await service.channels.configure(ADMIN, ref, ConfigChange.of(post_time=dt.time(9, 0), timezone="UTC"))
    round_ = await service.posting.post_scheduled(ref)  # the platform posts over REST
    assert round_ is not None
    [message] = fake.channel_messages(one.channel_id)
    assert (await store.round_by_message("discord", message["id"])).id == round_.id  # type: ignore[union-attr]

    clicked = await fake.reply(await fake.click(fake.alice, message, f"studybot:answer:{round_.id}:B"))
    assert clicked.ephemeral and "Your answer B is locked in" in clicked.text
    await fake.react(fake.bob, message["id"], A)  # answered, hidden (Manage Messages), acknowledged by DM
    await fake.wait_for(lambda: fake.dms(fake.bob), "the DM acknowledging bob's reaction")
    assert (message["id"], A, fake.bob.id) in fake.reactions_removed
    assert sorted((a.user_id, a.choice) for a in await store.round_answers(round_.id)) == sorted(
        [(fake.alice.id, 1), (fake.bob.id, 0)]
    )


async def test_two_processes_each_answer_only_the_guilds_of_their_shard(
    fake: FakeDiscord, guilds: tuple[FakeGuild, FakeGuild], tmp_path: Path
) -> None:
    zero, one = guilds
    first = await start_process(await open_core(tmp_path / "zero.db"), (0,))
    try:
        second = await start_process(await open_core(tmp_path / "one.db"), (1,))
        try:
            assert sorted(i["shard"] for i in fake.identifies) == [[0, 2], [1, 2]]
            assert first.guild_ids().isdisjoint(second.guild_ids())
            assert first.guild_ids() | second.guild_ids() == set(fake.guilds)
            assert zero.id in first.guild_ids() and one.id in second.guild_ids()

            for guild in (zero, one):
                reply = await fake.reply(await fake.slash(fake.bob, "quiz", channel_id=guild.channel_id))
                assert reply.ephemeral and reply.embeds[0]["title"].startswith("Practice")
            # each process (its own database here) made exactly one practice round: the one of its shard's guild
            for process, guild in ((first, zero), (second, one)):
                made = await process.core.store.get_round(1)
                assert made is not None and made.ref.space_id == guild.id and made.user_id == fake.bob.id
                assert await process.core.store.get_round(2) is None
            # each interaction was answered exactly once (a second callback would have been a 400)
            assert all(r.status == 200 for r in fake.requests_to("POST", r"/callback$"))
            assert len(fake.requests_to("POST", r"/callback$")) == 2
        finally:
            await second.stop()
    finally:
        await first.stop()


async def test_without_a_shard_count_the_plain_client_runs(
    fake: FakeDiscord, core: Core, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DISCORD_GUILD_ID", raising=False)
    task = await start_discord(core.service, Settings(discord_token=TOKEN), guild_ready_timeout=0.1)
    try:
        client = core.service.context.platforms["discord"].client  # type: ignore[attr-defined]
        await asyncio.wait_for(client.wait_until_ready(), 5)
        assert type(client) is StudyBotClient and not isinstance(client, discord.AutoShardedClient)
        assert "shard" not in fake.identifies[0] and "shard" not in fake.readies[0]
        assert not fake.requests_to("GET", r"/gateway/bot$")
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def test_a_shard_outside_the_count_is_refused_before_connecting(fake: FakeDiscord, core: Core) -> None:
    with pytest.raises(StartupError, match="shard 2 is outside 0..1"):
        await start_discord(core.service, Settings(shard_count=2, shard_ids=(2,), discord_token=TOKEN))
    assert fake.requests == [] and "discord" not in core.service.context.platforms


def test_the_plain_and_the_sharded_client_share_every_method() -> None:
    for cls in (StudyBotClient, ShardedStudyBotClient):
        assert cls.__mro__[1] is StudyBotMixin
        assert not {name for name, value in vars(cls).items() if callable(value)}
