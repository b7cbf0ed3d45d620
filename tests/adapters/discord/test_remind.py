"""Reminders on Discord: /remind on, and the next morning the DM arrives at the fake REST; a member with DMs
closed (50007) gets reminders switched off; a bad time is refused with nothing changed."""

from __future__ import annotations

import datetime as dt
import logging

import pytest

from adapters.discord.app import StudyBotClient
from bot.app.scheduler import DailyScheduler
from bot.settings import ConfigChange
from tests.adapters.discord.conftest import ADMIN, START, Core, channel_ref
from tests.adapters.discord.fake_discord import FakeDiscord, FakeUser

NEXT_MORNING = dt.datetime(2026, 6, 2, 9, 0, tzinfo=dt.UTC)  # 11:00 in Berlin (CEST), a miss of START is due


async def configure_channel(core: Core, fake: FakeDiscord, **changes: object):
    ref = channel_ref(fake)
    await core.service.channels.configure(ADMIN, ref, ConfigChange.of(**{"post_time": dt.time(9, 0), **changes}))
    return ref


async def _miss(core: Core, fake: FakeDiscord, user: FakeUser, ref) -> None:
    card = await core.service.practice.start_practice(ref, user.id)
    round_ = await core.store.get_round(card.round_id)
    assert round_ is not None
    question = core.service.context.bank.get(round_.question_id)
    assert question is not None
    await core.service.answers.submit_answer(card.round_id, user.id, (question.answer + 1) % 4)


async def test_remind_on_then_the_dm_arrives_next_morning_once(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    ref = await configure_channel(core, fake, timezone="Europe/Berlin", post_time=dt.time(10, 0))
    await _miss(core, fake, fake.alice, ref)
    reply = await fake.reply(await fake.slash(fake.alice, "remind", state="on", time="11:00"))
    assert reply.ephemeral and "Reminders are on: at 11:00 (Europe/Berlin)" in reply.text
    assert "/remind off" in reply.text
    scheduler = DailyScheduler(core.service, core.clock)  # the tick every process runs
    core.clock.set(NEXT_MORNING - dt.timedelta(minutes=1))
    await scheduler.tick()
    assert fake.dms(fake.alice) == []
    core.clock.set(NEXT_MORNING)
    await scheduler.tick()
    [dm] = await fake.wait_for(lambda: fake.dms(fake.alice), "the reminder DM")
    assert "1 review today" in dm and "/review" in dm and "/quiz review" not in dm
    assert "(You get this at 11:00 (Europe/Berlin) because reminders are on: /remind off stops them" in dm
    core.clock.advance(hours=2)
    await scheduler.tick()
    assert len(fake.dms(fake.alice)) == 1


async def test_a_member_with_dms_closed_gets_reminders_switched_off(
    bot: StudyBotClient, fake: FakeDiscord, core: Core, caplog: pytest.LogCaptureFixture
) -> None:
    ref = await configure_channel(core, fake, timezone="Europe/Berlin")
    await _miss(core, fake, fake.bob, ref)
    await fake.reply(await fake.slash(fake.bob, "remind", state="on"))  # the default: 09:00, 07:00 UTC
    fake.dms_closed.add(fake.bob.id)
    caplog.set_level(logging.INFO, logger="bot.reminders.service")
    for day in range(3):
        core.clock.set(NEXT_MORNING + dt.timedelta(days=day, hours=-2))
        await core.service.reminders.run_due()
    stored = await core.store.get_reminder("discord", fake.guild_id, fake.bob.id)
    assert stored is not None and not stored.enabled
    assert sum("switched off" in r.getMessage() for r in caplog.records) == 1
    assert fake.dms(fake.bob) == []


async def test_remind_off_and_a_bad_time(bot: StudyBotClient, fake: FakeDiscord, core: Core) -> None:
    await configure_channel(core, fake)
    bad = await fake.reply(await fake.slash(fake.alice, "remind", state="on", time="9pm"))
    assert bad.ephemeral and "'9pm' is not a reminder time" in bad.text and "Nothing was changed" in bad.text
    assert await core.store.get_reminder("discord", fake.guild_id, fake.alice.id) is None
    await fake.reply(await fake.slash(fake.alice, "remind", state="on", time="07:15"))
    off = await fake.reply(await fake.slash(fake.alice, "remind", state="off"))
    assert off.ephemeral and "Reminders are off" in off.text and "/remind on" in off.text
    stored = await core.store.get_reminder("discord", fake.guild_id, fake.alice.id)
    assert stored is not None and not stored.enabled and stored.at == dt.time(7, 15)
    assert START < NEXT_MORNING


async def test_remind_with_a_timezone_of_ones_own_and_remind_alone_shows_it(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    await configure_channel(core, fake, timezone="Europe/Berlin")
    off = await fake.reply(await fake.slash(fake.alice, "remind"))
    assert off.ephemeral and "Reminders are off" in off.text
    assert "/remind time:07:30 timezone:Europe/Berlin sets the time" in off.text
    suggested = await fake.autocomplete(fake.alice, "remind", None, "timezone", timezone="new_y")
    await fake.wait_for(lambda: suggested.callback is not None, "the timezone suggestions")
    assert "America/New_York" in [c["value"] for c in suggested.callback["data"]["choices"]]  # type: ignore[index]
    bad = await fake.reply(await fake.slash(fake.alice, "remind", state="on", timezone="Mars/Base"))
    assert "'Mars/Base' is not an IANA timezone" in bad.text
    assert await core.store.get_reminder("discord", fake.guild_id, fake.alice.id) is None
    first = await fake.reply(await fake.slash(fake.bob, "remind", state="on"))  # no zone chosen: the server's
    assert "at 09:00 (Europe/Berlin)" in first.text
    assert "Another timezone: /remind time:09:00 timezone:America/New_York (any IANA name)" in first.text
    on = await fake.reply(await fake.slash(fake.alice, "remind", time="06:45", timezone="america/new_york"))
    assert "Reminders are on: at 06:45 (America/New_York)" in on.text
    assert "Another timezone" not in on.text  # the member chose one: no hint
    stored = await core.store.get_reminder("discord", fake.guild_id, fake.alice.id)
    assert stored is not None and stored.timezone == "America/New_York" and stored.at == dt.time(6, 45)
    shown = await fake.reply(await fake.slash(fake.alice, "remind"))
    assert "Reminders are on: at 06:45 (America/New_York), the next one" in shown.text
