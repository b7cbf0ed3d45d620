"""`/leaderboard public:true` posts the board in the channel for everyone (no asker's rank, no pings)."""

from __future__ import annotations

from adapters.discord.app import StudyBotClient
from tests.adapters.discord.conftest import Core, configure_channel
from tests.adapters.discord.fake_discord import FakeDiscord


async def test_a_public_leaderboard_is_visible_to_the_channel(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    round_ = await core.service.posting.post_scheduled(await configure_channel(core, fake))
    assert round_ is not None
    correct = core.service.context.bank.get(round_.question_id).answer  # type: ignore[union-attr]
    await core.service.answers.submit_answer(round_.id, fake.alice.id, correct)
    await core.service.reveals.reveal_round(round_.id)

    public = await fake.reply(await fake.slash(fake.bob, "leaderboard", period="week", public=True))
    assert public.callback_type == 4 and not public.ephemeral
    assert public.embeds[0]["title"].startswith("Leaderboard: week ")
    assert f"<@{fake.alice.id}>" in public.text and "You" not in public.text  # nobody's private rank
    private = await fake.reply(await fake.slash(fake.bob, "leaderboard"))
    assert private.ephemeral and "No points in this period yet." in private.text
    schema = next(o for o in fake.command("leaderboard")["options"] if o["name"] == "public")
    assert schema["type"] == 5 and not schema.get("required")  # an optional boolean
