"""Question packs on Discord (issue 12): /quizconfig filters packs, /packs, a channel posting from its pack."""

from __future__ import annotations

import datetime as dt

from adapters.discord.app import StudyBotClient
from bot.model import Actor
from tests.adapters.discord.conftest import Core, channel_ref, configure_channel
from tests.adapters.discord.fake_discord import FakeDiscord
from tests.support.packs import pack_csv

ADMIN = Actor("admin", is_admin=True)


async def test_a_channel_switched_to_a_pack_posts_from_it(bot: StudyBotClient, fake: FakeDiscord, core: Core) -> None:
    ref = await configure_channel(core, fake)
    now = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
    await core.service.packs.import_pack(ADMIN, "discord", fake.guild_id, "team", pack_csv(), "csv", now=now)

    refused = await fake.reply(await fake.slash(fake.bob, "quizconfig", "filters", packs="team"))
    assert refused.ephemeral and "Only members who can manage" in refused.text
    missing = await fake.reply(await fake.slash(fake.ada, "quizconfig", "filters", packs="team,nope"))
    assert "There is no pack nope in this space" in missing.text
    saved = await fake.reply(await fake.slash(fake.ada, "quizconfig", "filters", packs="team"))
    assert "Saved." in saved.text and "packs team" in saved.text
    assert (await core.store.get_channel(channel_ref(fake))).packs == frozenset({"team"})  # type: ignore[union-attr]

    listed = await fake.reply(await fake.slash(fake.bob, "packs"))
    assert listed.ephemeral and listed.embeds[0]["title"] == "Question packs"
    assert "team: 30 questions (this channel)" in listed.text
    assert "pytorch:" in listed.text and "(shipped, read-only)" in listed.text

    round_ = await core.service.post_scheduled(ref)
    assert round_ is not None and round_.question_id.startswith("team/team-")
    posted = fake.messages[round_.message_id]  # type: ignore[index]
    assert "Which number does the team call question" in str(posted)
