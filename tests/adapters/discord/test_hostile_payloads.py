"""Payload fields Discord documents as ids, holding something else: parsed at the boundary, logged at INFO once,
never an ERROR or a traceback, nothing recorded, the bot still connected."""

from __future__ import annotations

import logging

import pytest

from adapters.discord.app import StudyBotClient
from adapters.discord.commands import UNREADABLE
from tests.adapters.discord.conftest import Core, channel_ref
from tests.adapters.discord.fake_discord import FakeDiscord
from tests.adapters.discord.test_bad_input import button_message, post_daily, sentinel

A = chr(0x1F1E6)


def loud(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [f"{r.levelname} {r.getMessage()}" for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info]


def info_lines(caplog: pytest.LogCaptureFixture, words: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno == logging.INFO and words in r.getMessage()]


@pytest.mark.parametrize("round_raw", ["²", "٣", "9" * 24, str(2**63), "0", "-1", "1e3", "12 "])
async def test_a_button_with_an_unreadable_round_id_is_not_ours(
    bot: StudyBotClient, fake: FakeDiscord, core: Core, caplog: pytest.LogCaptureFixture, round_raw: str
) -> None:
    caplog.set_level(logging.INFO)
    round_id, _ = await post_daily(core, fake)
    custom_id = f"studybot:answer:{round_raw}:A"
    reply = await fake.reply(await fake.click(fake.alice, button_message(fake, custom_id), custom_id))
    assert reply.ephemeral and "does not belong to a studybot question" in reply.text
    assert len(info_lines(caplog, "unreadable round id")) == 1
    assert loud(caplog) == []
    assert await core.store.round_answers(round_id) == []
    assert await core.store.round_answers(3) == []


async def test_a_button_with_a_round_id_too_long_for_the_template_is_ignored(
    bot: StudyBotClient, fake: FakeDiscord, core: Core, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    _, message = await post_daily(core, fake)
    custom_id = f"studybot:answer:{'9' * 26}:A"
    ignored = await fake.click(fake.alice, button_message(fake, custom_id), custom_id)
    await sentinel(fake, message["id"])
    assert ignored.callback is None
    assert len(info_lines(caplog, "unknown custom_id")) == 1 and loud(caplog) == []


@pytest.mark.parametrize("channel_id", ["²", "9" * 24, "9" * 6000, "12abc", 2**70, -5])
async def test_a_channel_option_that_is_not_an_id_gets_a_private_reply_and_changes_nothing(
    bot: StudyBotClient, fake: FakeDiscord, core: Core, caplog: pytest.LogCaptureFixture, channel_id: str | int
) -> None:
    caplog.set_level(logging.INFO)
    for sub, values in (("schedule", {"time": "07:00"}), ("pause", {}), ("post-now", {})):
        reply = await fake.reply(await fake.slash(fake.ada, "quizconfig", sub, channel=channel_id, **values))
        assert reply.ephemeral and reply.text == UNREADABLE, sub
    assert len(info_lines(caplog, "holds no valid id")) == 3
    assert loud(caplog) == []
    assert await core.store.get_channel(channel_ref(fake)) is None
    assert fake.channel_messages() == [] and await core.store.open_daily_rounds() == []


@pytest.mark.parametrize("member", ["²", "9" * 30, "ann"])
async def test_a_user_option_that_is_not_an_id_gets_a_private_reply(
    bot: StudyBotClient, fake: FakeDiscord, caplog: pytest.LogCaptureFixture, member: str
) -> None:
    caplog.set_level(logging.INFO)
    reply = await fake.reply(await fake.slash(fake.alice, "stats", member=member))
    assert reply.ephemeral and reply.text == UNREADABLE
    assert len(info_lines(caplog, "holds no valid id")) == 1 and loud(caplog) == []


async def test_gateway_events_with_ids_that_are_not_ids_are_dropped_quietly(
    bot: StudyBotClient, fake: FakeDiscord, core: Core, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    round_id, message = await post_daily(core, fake)
    bad_message = fake._reaction_payload(message["id"], A, fake.alice) | {"message_id": "²"}
    await fake.dispatch("MESSAGE_REACTION_ADD", bad_message)
    huge_user = fake._reaction_payload(message["id"], A, fake.alice) | {"user_id": "9" * 24}
    huge_user.pop("member")
    await fake.dispatch("MESSAGE_REACTION_ADD", huge_user)
    interaction = await fake.click(fake.alice, message, f"studybot:answer:{round_id}:A")
    assert "locked in" in (await fake.reply(interaction)).text
    member = interaction.payload["member"]
    unreadable_user = {**member, "user": {**member["user"], "id": "²"}}
    forged = {**interaction.payload, "id": fake.snowflake(), "member": unreadable_user}
    await fake.dispatch("INTERACTION_CREATE", forged)
    await sentinel(fake, message["id"])
    assert [a.user_id for a in await core.store.round_answers(round_id)] == [fake.alice.id, fake.bob.id]
    assert len(info_lines(caplog, "could not be parsed")) == 2
    assert len(info_lines(caplog, "are not Discord ids")) == 1
    assert loud(caplog) == []
    assert not bot.is_closed() and fake.connected == 1


def test_snowflakes_and_command_data_are_checked_before_discord_py_reads_them() -> None:
    from adapters.discord.payloads import snowflake, unreadable

    assert snowflake("1577325832433565700") == 1577325832433565700 and snowflake(42) == 42
    assert [snowflake(v) for v in ("²", "٣", "9" * 21, str(2**64), "", "0", True, None, 1.5, -1)] == [None] * 10
    good = {
        "name": "quizconfig",
        "options": [{"name": "pause", "type": 1, "options": [{"name": "channel", "type": 7, "value": "123"}]}],
        "resolved": {"channels": {"123": {"id": "123", "type": 0}}},
    }
    assert unreadable(good) is None and unreadable(None) is None
    nested_bad = {
        **good,
        "options": [{"name": "pause", "type": 1, "options": [{"name": "channel", "type": 7, "value": "²"}]}],
    }
    assert "channel" in (unreadable(nested_bad) or "")
    assert unreadable({**good, "resolved": {"channels": {"²": {"id": "²", "type": 0}}}}) is not None
    assert unreadable({**good, "resolved": {"users": "nope"}}) is not None
    assert unreadable({"name": "quiz", "options": [{"name": "topic", "type": 3, "value": "²"}]}) is None


def test_integer_and_boolean_options_are_checked_before_the_command_reads_them() -> None:
    from adapters.discord.payloads import unreadable

    def review(value: object, kind: int = 4) -> str | None:
        return unreadable({"name": "review", "options": [{"name": "count", "type": kind, "value": value}]})

    assert review(5) is None and review(-3) is None and review(2**53) is None  # the core says what is accepted
    assert [review(v) for v in ("²", "5", 2**70, -(2**70), 1.5, True, None, [5])] == [
        "option 'count' holds no valid integer"
    ] * 8
    assert review(True, 5) is None and review("true", 5) is not None and review(1, 5) is not None
    assert review(0.5, 10) is None and review("0.5", 10) is not None


BROKEN_COMPONENTS = [
    "x",
    [5],
    [{"type": 18, "component": "x"}],
    [{"type": 18, "component": {"type": 3, "custom_id": "report_reason", "values": "wrong"}}],
    [{"type": 1, "components": [{"type": 4, "custom_id": "report_text", "value": 5}]}],
    None,
]


@pytest.mark.parametrize("components", BROKEN_COMPONENTS)
async def test_a_report_form_whose_components_are_not_components_is_answered_and_stores_nothing(
    bot: StudyBotClient, fake: FakeDiscord, core: Core, caplog: pytest.LogCaptureFixture, components: object
) -> None:
    from adapters.discord.forms import UNREADABLE_FORM
    from tests.adapters.discord.test_limits import report_forms

    caplog.set_level(logging.INFO)
    modal = await (await report_forms(fake, core))()
    forged = await fake._interact(5, fake.bob, {"custom_id": modal["custom_id"], "components": components})
    reply = await fake.reply(forged)
    pick = "Pick what is wrong: wrong answer, unclear, typo or other."  # a form read as one with nothing chosen
    assert reply.ephemeral and reply.text in (UNREADABLE_FORM, pick)
    assert len(info_lines(caplog, "not what Discord documents")) <= 1 and loud(caplog) == []
    assert await core.store.reports("discord", fake.guild_id, open_only=False) == []


@pytest.mark.parametrize("components", BROKEN_COMPONENTS)
async def test_a_suggestion_form_whose_components_are_not_components_is_refused_quietly(
    bot: StudyBotClient, fake: FakeDiscord, core: Core, caplog: pytest.LogCaptureFixture, components: object
) -> None:
    caplog.set_level(logging.INFO)
    opened = await fake.slash(fake.bob, "suggest")
    await fake.wait_for(lambda: opened.callback is not None, "the suggestion form")
    forged = await fake._interact(5, fake.bob, {"custom_id": "suggest_form", "components": components})
    reply = await fake.reply(forged)
    assert reply.ephemeral and "not saved" in reply.text
    assert loud(caplog) == []
    assert await core.store.list_suggestions("discord", fake.guild_id, "pending", 10) == []
