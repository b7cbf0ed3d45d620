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
    for setting in listed():
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


async def test_schedule_with_only_a_timezone_keeps_the_time(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
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
