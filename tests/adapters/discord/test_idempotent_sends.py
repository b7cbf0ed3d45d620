"""Idempotent daily sends on Discord (issue 30): every post and reveal carries a nonce of its round and kind
with enforce_nonce, so a resend returns the message Discord already made; a send whose outcome is unknown (the
process died while the request was at Discord) is settled by reading the channel back, never sent twice."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
from typing import Any

import pytest

from adapters.discord.app import StudyBotClient
from adapters.discord.platform import send_nonce
from bot.app.scheduler import DailyScheduler
from bot.kernel.platform import IdempotentSends
from bot.kernel.values import ChannelRef
from tests.adapters.discord.conftest import Core, configure_channel
from tests.adapters.discord.fake_discord import FakeDiscord, FakeUser, custom_ids

POSTS = r"^/api/v10/channels/\d+/messages$"


def questions(fake: FakeDiscord, round_id: int) -> list[dict[str, Any]]:
    """The channel's messages carrying the round's answer buttons (its daily question)."""
    return [m for m in fake.channel_messages() if f"studybot:answer:{round_id}:A" in custom_ids(m["components"])]


def reveals(fake: FakeDiscord, round_id: int) -> list[dict[str, Any]]:
    return [m for m in fake.channel_messages() if f"studybot:report:{round_id}" in custom_ids(m["components"])]


def follow_the_core(fake: FakeDiscord, core: Core) -> None:
    """The fake's ids and timestamps follow the core's clock (as Discord's and the bot's clocks agree)."""
    fake.clock = lambda: core.clock.now().timestamp()


async def killed_while_held(fake: FakeDiscord, hold: Any, work: Any) -> None:
    """Run `work` until its request is at the fake (done there, its answer held), then stop it there, as a
    kill -9 would: nothing after the request runs, the claim stays in the store."""
    task = asyncio.ensure_future(work)
    await asyncio.wait_for(hold.arrived.wait(), 5)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    hold.release()


async def test_posts_and_reveals_carry_a_nonce_of_their_round_and_kind_with_enforce_nonce(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    ref = await configure_channel(core, fake)
    round_ = await core.service.posting.post_scheduled(ref)
    assert round_ is not None
    await core.service.reveals.reveal_round(round_.id)
    [question, reveal] = [r.body for r in fake.requests_to("POST", POSTS)]
    assert question["nonce"] == f"sb-q-{round_.id}" and question["enforce_nonce"] is True
    assert reveal["nonce"] == f"sb-r-{round_.id}" and reveal["enforce_nonce"] is True
    assert len(send_nonce(2**63 - 1, "question")) <= 25  # Discord's limit, for any round id
    assert isinstance(bot.platform, IdempotentSends)


async def test_a_resend_within_the_nonce_window_returns_the_first_message(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    ref = await configure_channel(core, fake)
    round_ = await core.service.posting.post_scheduled(ref)
    assert round_ is not None
    card = await core.service.posting.open_question_card(ref)
    again = await bot.platform.post_question(ref, card)
    assert again == round_.message_id and len(questions(fake, round_.id)) == 1
    assert len(fake.requests_to("POST", POSTS)) == 2  # sent twice, made once


@pytest.mark.parametrize("window", [300.0, 0.0])
async def test_a_post_killed_while_at_discord_is_found_and_not_sent_again(
    bot: StudyBotClient, fake: FakeDiscord, core: Core, window: float
) -> None:
    follow_the_core(fake, core)
    fake.nonce_window = window  # 0: past Discord's nonce window, only reading the channel back can tell
    ref = await configure_channel(core, fake)
    hold = fake.hold_next("POST", POSTS)
    await killed_while_held(fake, hold, core.service.posting.post_scheduled(ref))
    [made] = fake.channel_messages()
    round_ = await core.store.latest_daily_round(ref)
    assert round_ is not None and round_.post_state == "sending" and round_.message_id is None
    core.clock.advance(minutes=3)  # the dead process's lease runs out
    await DailyScheduler(core.service, core.clock).tick()
    assert questions(fake, round_.id) == [made]
    got = await core.store.get_round(round_.id)
    assert got is not None and got.post_state == "sent" and got.message_id == made["id"]
    history = fake.requests_to("GET", POSTS)
    assert len(history) == 1 and int(history[0].query["after"]) < int(made["id"])


async def test_a_reveal_killed_while_at_discord_is_found_and_not_posted_again(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    follow_the_core(fake, core)
    fake.nonce_window = 0.0
    ref = await configure_channel(core, fake)
    round_ = await core.service.posting.post_scheduled(ref)
    assert round_ is not None
    hold = fake.hold_next("POST", POSTS, when=lambda r: r.body.get("nonce") == f"sb-r-{round_.id}")
    await killed_while_held(fake, hold, core.service.reveals.reveal_round(round_.id))
    assert len(reveals(fake, round_.id)) == 1
    core.clock.advance(minutes=3)
    await DailyScheduler(core.service, core.clock).tick()
    assert len(reveals(fake, round_.id)) == 1 and len(questions(fake, round_.id)) == 1


async def test_a_post_that_never_reached_discord_is_sent_after_looking(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    follow_the_core(fake, core)
    ref = await configure_channel(core, fake)
    fake.fail_next("POST", POSTS)  # a 503 before anything was made
    assert await core.service.posting.post_scheduled(ref) is not None
    round_ = await core.store.latest_daily_round(ref)
    assert round_ is not None and round_.post_state == "failed" and fake.channel_messages() == []
    core.clock.advance(seconds=10)
    await DailyScheduler(core.service, core.clock).tick()
    [made] = questions(fake, round_.id)
    assert len(fake.requests_to("GET", POSTS)) == 1  # asked first: the failed call might have gone out
    assert (await core.store.get_round(round_.id)).message_id == made["id"]  # type: ignore[union-attr]


async def test_a_post_whose_answer_was_lost_after_discord_made_it_is_adopted(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    follow_the_core(fake, core)
    fake.nonce_window = 0.0
    ref = await configure_channel(core, fake)
    fake.fail_next("POST", POSTS, after=True)  # made, but the answer says 503
    await core.service.posting.post_scheduled(ref)
    [made] = fake.channel_messages()
    core.clock.advance(seconds=10)
    await DailyScheduler(core.service, core.clock).tick()
    round_ = await core.store.latest_daily_round(ref)
    assert round_ is not None and questions(fake, round_.id) == [made] and round_.message_id == made["id"]


async def test_looking_back_takes_only_the_bots_own_post_of_that_round_since_its_intent(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    follow_the_core(fake, core)
    ref = ChannelRef("discord", fake.guild_id, fake.channel_id)
    buttons = [{"type": 1, "components": [{"type": 2, "style": 1, "label": "A", "custom_id": "studybot:answer:7:A"}]}]
    before = fake._message(fake.channel_id, {"content": "", "components": buttons})  # an older one
    core.clock.advance(minutes=30)
    since = core.clock.now()
    core.clock.advance(seconds=1)
    fake._message(fake.channel_id, {"components": buttons}, author=FakeUser(fake.snowflake(), "impostor"))
    fake._message(fake.channel_id, {"components": buttons}, interaction=True)  # the question shown again
    other = [{"type": 1, "components": [{"type": 2, "style": 1, "label": "A", "custom_id": "studybot:answer:8:A"}]}]
    fake._message(fake.channel_id, {"components": other})
    assert await bot.platform.find_sent(ref, 7, "question", since) is None
    assert await bot.platform.find_sent(ref, 7, "reveal", since) is None
    mine = fake._message(fake.channel_id, {"components": buttons})
    assert await bot.platform.find_sent(ref, 7, "question", since) == mine["id"]
    assert await bot.platform.find_sent(ref, 7, "question", since - dt.timedelta(hours=1)) == before["id"]
