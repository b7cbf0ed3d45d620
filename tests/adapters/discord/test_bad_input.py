"""Refusals and bad input: a specific private reply (or silence for stray reactions), nothing recorded, no crash."""

from __future__ import annotations

import asyncio
import datetime as dt

from adapters.discord.app import StudyBotClient
from bot.daily.values import PostFinish
from bot.kernel.values import ChannelRef
from tests.adapters.discord.conftest import Core, channel_ref, configure_channel
from tests.adapters.discord.fake_discord import FakeDiscord, FakeInteraction

A, E = chr(0x1F1E6), chr(0x1F1EA)  # regional indicators A and E


async def post_daily(core: Core, fake: FakeDiscord, **changes: object) -> tuple[int, dict]:
    round_ = await core.service.posting.post_scheduled(await configure_channel(core, fake, **changes))
    assert round_ is not None and round_.message_id is not None
    return round_.id, fake.messages[round_.message_id]


def button_message(fake: FakeDiscord, custom_id: str) -> dict:
    """A message carrying one hand-made button (what a stale or forged client could click)."""
    return {
        "id": fake.snowflake(),
        "channel_id": fake.channel_id,
        "author": fake.bot.json(),
        "content": "",
        "type": 0,
        "flags": 0,
        "embeds": [],
        "attachments": [],
        "mentions": [],
        "mention_roles": [],
        "pinned": False,
        "tts": False,
        "mention_everyone": False,
        "timestamp": "2026-06-01T08:00:00+00:00",
        "edited_timestamp": None,
        "components": [{"type": 1, "components": [{"type": 2, "style": 1, "label": "?", "custom_id": custom_id}]}],
    }


async def test_a_member_without_manage_server_cannot_change_settings(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    for sub, values in (
        ("schedule", {"time": "07:00"}),
        ("pause", {}),
        ("reactions", {"state": "off"}),
        ("filters", {"topics": "autograd"}),
    ):
        reply = await fake.reply(await fake.slash(fake.alice, "quizconfig", sub, **values))
        assert reply.ephemeral and "Only members who can manage this server" in reply.text, sub
    posted = await fake.reply(await fake.slash(fake.alice, "quizconfig", "post-now"))
    assert posted.ephemeral and "Only members who can manage this server" in posted.text
    assert await core.store.get_channel(channel_ref(fake)) is None
    assert fake.channel_messages() == [] and await core.store.open_daily_rounds() == []


async def test_bad_time_timezone_or_days_get_a_specific_reply_and_change_nothing(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    cases = [
        ({"time": "25:00"}, "'25:00' is not a time"),
        ({"time": "09:00", "timezone": "Mars/Olympus"}, "'Mars/Olympus' is not an IANA timezone"),
        ({"time": "09:00", "weekdays": "funday"}, "'funday' is not a list of days"),
    ]
    for values, expected in cases:
        reply = await fake.reply(await fake.slash(fake.ada, "quizconfig", "schedule", **values))
        assert reply.ephemeral and expected in reply.text
    bad_topic = await fake.reply(await fake.slash(fake.ada, "quizconfig", "filters", topics="cooking"))
    assert "'cooking' is not a topic" in bad_topic.text
    assert await core.store.get_channel(channel_ref(fake)) is None


async def test_unknown_choice_letters_are_refused(bot: StudyBotClient, fake: FakeDiscord, core: Core) -> None:
    round_id, _ = await post_daily(core, fake)
    by_command = await fake.reply(await fake.slash(fake.alice, "answer", choice="E"))
    assert by_command.ephemeral and "'E' is not a choice" in by_command.text
    forged = f"studybot:answer:{round_id}:E"
    by_button = await fake.reply(await fake.click(fake.alice, button_message(fake, forged), forged))
    assert by_button.ephemeral and "'E' is not a choice" in by_button.text
    assert await core.store.round_answers(round_id) == []


async def test_clicks_on_closed_or_unknown_rounds_are_refused(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    round_id, message = await post_daily(core, fake)
    await core.service.reveals.reveal_round(round_id)
    closed = await fake.reply(await fake.click(fake.alice, message, f"studybot:answer:{round_id}:A"))
    assert closed.ephemeral and "question closed at" in closed.text and "the answer was" in closed.text
    assert await core.store.round_answers(round_id) == []

    for custom_id, expected in (
        (f"studybot:answer:{round_id + 999}:A", "not known here"),
        ("studybot:answer:abc:A", "does not belong to a studybot question"),
    ):
        reply = await fake.reply(await fake.click(fake.alice, button_message(fake, custom_id), custom_id))
        assert reply.ephemeral and expected in reply.text


async def test_a_practice_question_is_only_for_its_learner(bot: StudyBotClient, fake: FakeDiscord, core: Core) -> None:
    card = await core.service.practice.start_practice(channel_ref(fake), fake.alice.id, None)
    custom_id = f"studybot:answer:{card.round_id}:A"
    reply = await fake.reply(await fake.click(fake.bob, button_message(fake, custom_id), custom_id))
    assert reply.ephemeral and "belongs to someone else" in reply.text
    assert await core.store.round_answers(card.round_id) == []


async def test_a_topic_without_questions_gets_a_specific_reply(bot: StudyBotClient, fake: FakeDiscord) -> None:
    reply = await fake.reply(await fake.slash(fake.alice, "quiz", topic="optimizers"))
    assert reply.ephemeral and "There are no questions on optimizers yet" in reply.text


async def sentinel(fake: FakeDiscord, message_id: str) -> None:
    """A valid reaction by bob, processed after everything sent before it."""
    await fake.react(fake.bob, message_id, A)
    await fake.wait_for(lambda: fake.dms(fake.bob), "the sentinel's DM")


async def test_stray_reactions_are_ignored_silently(bot: StudyBotClient, fake: FakeDiscord, core: Core) -> None:
    round_id, message = await post_daily(core, fake)
    await fake.react(fake.alice, message["id"], "👍")
    await fake.react(fake.alice, message["id"], E)
    lonely = fake.snowflake()  # a message that is not a question (someone spelling with letters)
    fake.messages[lonely] = {**message, "id": lonely, "components": []}
    await fake.react(fake.alice, lonely, A)
    await sentinel(fake, message["id"])
    assert [a.user_id for a in await core.store.round_answers(round_id)] == [fake.bob.id]
    assert fake.dms(fake.alice) == []
    assert [r[2] for r in fake.reactions_removed] == [fake.bob.id]


async def test_reactions_are_not_answers_when_reaction_answers_are_off(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    round_id, message = await post_daily(core, fake, reactions=False)
    await fake.react(fake.alice, message["id"], A)
    await asyncio.sleep(0.2)
    reply = await fake.reply(await fake.click(fake.bob, message, f"studybot:answer:{round_id}:B"))  # buttons work
    assert "locked in" in reply.text
    assert [a.user_id for a in await core.store.round_answers(round_id)] == [fake.bob.id]
    assert fake.dms(fake.alice) == [] and fake.reactions_removed == []


async def test_payloads_we_do_not_understand_are_ignored(bot: StudyBotClient, fake: FakeDiscord, core: Core) -> None:
    _, message = await post_daily(core, fake)
    await fake.dispatch("SOMETHING_NEW", {"id": "1", "what": "a future event"})
    await fake.dispatch("MESSAGE_REACTION_ADD", {"emoji": {"name": A}})  # malformed: discord.py drops it
    other: FakeInteraction = await fake.click(fake.alice, button_message(fake, "otherbot:vote:1"), "otherbot:vote:1")
    await sentinel(fake, message["id"])
    assert other.callback is None
    assert not bot.is_closed() and fake.connected == 1


async def test_post_now_where_the_bot_may_not_post_says_so(bot: StudyBotClient, fake: FakeDiscord) -> None:
    fake.forbidden_channels.add(fake.channel_id)
    reply = await fake.reply(await fake.slash(fake.ada, "quizconfig", "post-now"))
    assert reply.ephemeral and "I cannot post in" in reply.text and "Send Messages" in reply.text
    assert fake.channel_messages() == []


async def test_a_click_naming_another_server_s_round_is_refused(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    # issue 10, observation 7: a round id from another guild is not known in this one
    theirs = ChannelRef("discord", "999000111", "999000222")
    at = core.clock.now()
    round_ = await core.store.claim_daily_round(theirs, at.date(), "q", "tensors", at, at + dt.timedelta(days=1))
    await core.store.finish_posts([PostFinish(round_.id, "sent", message_id="1")])
    custom_id = f"studybot:answer:{round_.id}:A"
    reply = await fake.reply(await fake.click(fake.alice, button_message(fake, custom_id), custom_id))
    assert reply.ephemeral and "not known here" in reply.text
    assert await core.store.round_answers(round_.id) == []
