"""The channel's threads setting on Discord, end to end on the fake: a public thread is started on the reveal
message; without it, or without the right to create threads, the reveal stands alone."""

from __future__ import annotations

from adapters.discord.app import StudyBotClient
from tests.adapters.discord.conftest import Core, configure_channel
from tests.adapters.discord.fake_discord import FakeDiscord


async def _reveal(core: Core, fake: FakeDiscord, **changes: object) -> dict:
    ref = await configure_channel(core, fake, **changes)
    round_ = await core.service.posting.post_scheduled(ref)
    assert round_ is not None
    await core.service.reveals.reveal_round(round_.id)
    return fake.channel_messages()[-1]


async def test_a_thread_is_opened_on_the_reveal(bot: StudyBotClient, fake: FakeDiscord, core: Core) -> None:
    reveal = await _reveal(core, fake, threads=True)
    thread = fake.threads[reveal["id"]]
    assert thread["parent_id"] == fake.channel_id and thread["name"].startswith("Discuss: Prompt of ")
    assert len(thread["name"]) <= 100 and thread["thread_metadata"]["auto_archive_duration"] == 1440
    assert "Answer:" in reveal["embeds"][0]["title"]  # the thread hangs on the reveal message itself


async def test_no_thread_by_default_or_without_the_permission(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    await _reveal(core, fake)
    assert fake.threads == {} and not fake.requests_to("POST", r"/threads$")
    fake.no_threads.add(fake.channel_id)
    core.clock.advance(days=1)
    reveal = await _reveal(core, fake, threads=True)
    assert "Answer:" in reveal["embeds"][0]["title"] and fake.threads == {}  # the reveal still went out
    assert len(fake.requests_to("POST", r"/threads$")) == 1
