"""Discord parity: every setting of the table is an option of /quizconfig, each one optional, so changing
one setting keeps the others."""

from __future__ import annotations

import datetime as dt

from adapters.discord.app import StudyBotClient
from bot.settings import listed
from tests.adapters.discord.conftest import Core, channel_ref, configure_channel
from tests.adapters.discord.fake_discord import FakeDiscord


async def test_every_setting_is_an_optional_quizconfig_option(bot: StudyBotClient, fake: FakeDiscord) -> None:
    config = fake.command("quizconfig")
    options = {(sub["name"], o["name"]): o for sub in config["options"] for o in sub.get("options", [])}
    assert ("roles", "ping_group") not in options  # Slack's user groups are no Discord option
    for setting in (s for s in listed() if s.applies_to("discord")):
        option = options.get((setting.group, setting.option_name))
        assert option is not None, f"{setting.key} has no /quizconfig {setting.group} option"
        assert option["required"] is False and len(option["description"]) <= 100
        if setting.choices:
            assert [c["value"] for c in option["choices"]] == list(setting.choices)


async def test_rules_sets_window_and_speed_and_keeps_the_rest(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    ref = await configure_channel(core, fake)
    saved = await fake.reply(await fake.slash(fake.ada, "quizconfig", "rules", window="12h", speed="on"))
    assert saved.ephemeral and "Saved." in saved.text and "answer window 12h" in saved.text
    cfg = await core.store.get_channel(ref)
    assert cfg is not None and cfg.answer_window == dt.timedelta(hours=12) and cfg.speed_bonus and cfg.reactions

    await fake.reply(await fake.slash(fake.ada, "quizconfig", "rules", window="none", reactions="off"))
    cfg = await core.store.get_channel(ref)
    assert cfg is not None and cfg.answer_window is None and not cfg.reactions and cfg.speed_bonus


async def test_schedule_with_only_a_timezone_keeps_the_time(bot: StudyBotClient, fake: FakeDiscord, core: Core) -> None:
    ref = channel_ref(fake)
    await fake.reply(await fake.slash(fake.ada, "quizconfig", "schedule", time="07:30", weekdays="mon-fri"))
    await fake.reply(await fake.slash(fake.ada, "quizconfig", "schedule", timezone="Asia/Tokyo"))
    cfg = await core.store.get_channel(ref)
    assert cfg is not None and cfg.timezone == "Asia/Tokyo" and cfg.post_time == dt.time(7, 30)
    assert cfg.weekdays == frozenset(range(5))


async def test_a_bad_rule_value_names_the_problem_and_changes_nothing(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    ref = await configure_channel(core, fake)
    before = await core.store.get_channel(ref)
    reply = await fake.reply(await fake.slash(fake.ada, "quizconfig", "rules", window="99h"))
    assert reply.ephemeral and "is not an answer window" in reply.text
    assert await core.store.get_channel(ref) == before


async def test_rules_without_options_shows_the_settings(bot: StudyBotClient, fake: FakeDiscord, core: Core) -> None:
    await configure_channel(core, fake)
    reply = await fake.reply(await fake.slash(fake.ada, "quizconfig", "rules"))
    assert "Saved." not in reply.text and "speed bonus off" in reply.text


async def _reveal_with_a_winner(fake: FakeDiscord, core: Core, **changes: object) -> dict:
    ref = await configure_channel(core, fake, **changes)
    round_ = await core.service.posting.post_scheduled(ref)
    assert round_ is not None and round_.message_id is not None
    correct = core.service.context.bank.get(round_.question_id).answer_letter  # type: ignore[union-attr]
    message = fake.messages[round_.message_id]
    await fake.reply(await fake.click(fake.alice, message, f"studybot:answer:{round_.id}:{correct}"))
    await core.service.reveals.reveal_round(round_.id)
    [post] = [
        r
        for r in fake.requests_to("POST", rf"/channels/{fake.channel_id}/messages$")
        if r.body and r.body.get("message_reference")
    ]
    return post.body


async def test_reveal_pings_nobody_by_default(bot: StudyBotClient, fake: FakeDiscord, core: Core) -> None:
    body = await _reveal_with_a_winner(fake, core)
    assert body["allowed_mentions"]["parse"] == [] and not body["allowed_mentions"].get("users")
    assert f"<@{fake.alice.id}>" not in (body.get("content") or "")
    assert f"<@{fake.alice.id}>" in str(body["embeds"][0])  # named in the embed, which never notifies


async def test_ping_winners_on_notifies_exactly_the_winners(bot: StudyBotClient, fake: FakeDiscord, core: Core) -> None:
    await fake.reply(await fake.slash(fake.ada, "quizconfig", "rules", ping_winners="on"))
    body = await _reveal_with_a_winner(fake, core)
    assert body["content"] == f"Got it right: <@{fake.alice.id}>"
    assert body["allowed_mentions"]["parse"] == []
    assert [str(u) for u in body["allowed_mentions"]["users"]] == [fake.alice.id]
    assert not body["allowed_mentions"].get("replied_user")
