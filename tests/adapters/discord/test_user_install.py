"""The user-installable app: /quiz, /review, /answer and /stats work in DMs, group DMs and for a member who
installed the app for themselves, in the learner's own space ("user:<id>"); every other command stays in servers."""

from __future__ import annotations

import logging

import pytest

from adapters.discord.app import StudyBotClient
from adapters.discord.commands import OWN_STATS_ONLY
from adapters.discord.replies import GUILD_ONLY
from bot.kernel.values import LETTERS, Period, RoundKind
from tests.adapters.discord.conftest import Core, channel_ref
from tests.adapters.discord.fake_discord import FakeDiscord, FakeReply, FakeUser

# commands.personal; a new command marked so joins this set
PERSONAL = {"quiz", "review", "plan", "remind", "answer", "stats", "progress", "dashboard"}
DM, GROUP_DM = 1, 2


def personal_space(user: FakeUser) -> str:
    return f"user:{user.id}"


async def practise_in_dm(fake: FakeDiscord, user: FakeUser, context: int = DM, **options: object) -> FakeReply:
    channel = fake.dm_channel(user) if context == DM else fake.snowflake()
    return await fake.reply(await fake.slash(user, "quiz", channel_id=channel, context=context, **options))


async def test_the_synced_commands_say_which_work_outside_servers(bot: StudyBotClient, fake: FakeDiscord) -> None:
    [body] = [r.body for r in fake.requests_to("PUT", r"/applications/\d+/commands$")]
    by_name = {c["name"]: c for c in body}
    assert PERSONAL <= set(by_name) and {"leaderboard", "packs", "quizconfig", "quizadmin"} <= set(by_name)
    for name, command in by_name.items():
        if name in PERSONAL:  # guild and user install; servers, the bot's DM, group DMs
            assert (command["integration_types"], command["contexts"]) == ([0, 1], [0, 1, 2]), name
        else:  # daily rounds, settings, admin and leaderboards: servers that installed the bot only
            assert (command["integration_types"], command["contexts"]) == ([0], [0]), name


async def test_practice_in_a_dm_is_private_and_recorded_in_the_learners_own_space(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    reply = await practise_in_dm(fake, fake.alice, topic="autograd")
    assert reply.callback_type == 4 and reply.ephemeral
    assert reply.embeds[0]["title"].startswith("Practice: Autograd")
    round_id = int(reply.custom_ids[0].split(":")[2])
    round_ = await core.store.get_round(round_id)
    assert round_ is not None and round_.kind is RoundKind.PRACTICE and round_.user_id == fake.alice.id
    assert (round_.ref.space_id, round_.ref.channel_id) == (personal_space(fake.alice), fake.dm_channel(fake.alice))
    question = core.service.context.bank.get(round_.question_id)
    assert question is not None

    verdict = await fake.reply(
        await fake.click(fake.alice, fake.messages[reply.message_id], reply.custom_ids[question.answer], context=DM)
    )
    assert verdict.ephemeral and verdict.embeds[0]["title"] == "Correct!"
    answers = await core.store.round_answers(round_id)
    assert [(a.user_id, a.choice) for a in answers] == [(fake.alice.id, question.answer)]

    async def learned() -> bool:
        return bool(await core.store.learner_cards("discord", personal_space(fake.alice), fake.alice.id))

    await fake.wait_for(learned, "the practice answer to reach the learner's own memory")
    mine = await core.store.user_topic_stats("discord", personal_space(fake.alice), fake.alice.id)
    assert [(kind, row.topic, row.answered) for kind, row in mine] == [(RoundKind.PRACTICE, "autograd", 1)]
    # nothing of it in the server: no stats, no memory card, no leaderboard row
    assert await core.store.user_topic_stats("discord", fake.guild_id, fake.alice.id) == []
    assert await core.store.learner_cards("discord", fake.guild_id, fake.alice.id) == []
    assert await core.store.leaderboard("discord", fake.guild_id, Period.ALL, "all", 10) == []

    stats = await fake.reply(await fake.slash(fake.alice, "stats", channel_id=fake.dm_channel(fake.alice), context=DM))
    assert stats.ephemeral and "Autograd" in stats.text
    in_server = await fake.reply(await fake.slash(fake.alice, "stats"))
    assert "Autograd" not in in_server.text


async def test_review_and_answer_in_a_dm_and_a_group_dm(bot: StudyBotClient, fake: FakeDiscord, core: Core) -> None:
    dm = fake.dm_channel(fake.bob)
    empty = await fake.reply(await fake.slash(fake.bob, "review", channel_id=dm, context=DM))
    assert empty.ephemeral and empty.custom_ids == []  # nothing learned in this space yet
    missed = []
    for _ in range(2):  # two misses in the DM: two cards due tomorrow
        practice = await practise_in_dm(fake, fake.bob)
        missed_round = await core.store.get_round(int(practice.custom_ids[0].split(":")[2]))
        assert missed_round is not None
        missed.append(missed_round.question_id)
        wrong = (core.service.context.bank.get(missed_round.question_id).answer + 1) % 4  # type: ignore[union-attr]
        message = fake.messages[practice.message_id]
        await fake.reply(await fake.click(fake.bob, message, practice.custom_ids[wrong], context=DM))
    core.clock.advance(days=1)

    review = await fake.reply(await fake.slash(fake.bob, "review", channel_id=dm, context=DM, count=5))
    assert review.ephemeral and review.embeds[-1]["title"].startswith("Review 1/2")  # the two due cards
    round_ = await core.store.get_round(int(review.custom_ids[0].split(":")[2]))
    assert round_ is not None and round_.ref.space_id == personal_space(fake.bob)
    assert round_.question_id in missed
    question = core.service.context.bank.get(round_.question_id)
    assert question is not None

    # /answer in a DM answers the learner's waiting practice or review question (there are no daily rounds)
    answered = await fake.reply(
        await fake.slash(fake.bob, "answer", channel_id=dm, context=DM, choice=LETTERS[question.answer])
    )
    assert answered.ephemeral and answered.embeds[0]["title"] == "Correct!"
    assert answered.embeds[-1]["title"].startswith("Review 2/2")  # the review goes on in the same reply
    assert answered.custom_ids  # with the next question's buttons
    assert [a.user_id for a in await core.store.round_answers(round_.id)] == [fake.bob.id]

    # a group DM (context 2) is the learner's own space too; /answer there with nothing waiting says so
    group = await practise_in_dm(fake, fake.alice, GROUP_DM)
    group_round = await core.store.get_round(int(group.custom_ids[0].split(":")[2]))
    assert group.ephemeral and group_round is not None and group_round.ref.space_id == personal_space(fake.alice)
    nothing = await fake.reply(
        await fake.slash(fake.alice, "answer", channel_id=fake.dm_channel(fake.alice), context=DM, choice="A")
    )
    assert nothing.ephemeral and "no practice question waiting here" in nothing.text


async def test_server_only_commands_outside_a_server_get_a_clear_reply_and_change_nothing(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    dm = fake.dm_channel(fake.ada)
    for name, sub in [("leaderboard", None), ("packs", None), ("quizconfig", "pause")]:
        reply = await fake.reply(await fake.slash(fake.ada, name, sub, channel_id=dm, context=DM))
        assert reply.ephemeral and reply.text == GUILD_ONLY, name
    # a server where only the member installed the app (context 0, owners: the user only) is not the bot's
    user_only = {"1": fake.ada.id}
    reply = await fake.reply(await fake.slash(fake.ada, "quizconfig", "pause", owners=user_only))
    assert reply.text == GUILD_ONLY
    assert await core.store.get_channel(channel_ref(fake)) is None  # nothing configured
    practice = await fake.reply(await fake.slash(fake.ada, "quiz", owners=user_only))
    round_ = await core.store.get_round(int(practice.custom_ids[0].split(":")[2]))
    assert round_ is not None and round_.ref.space_id == personal_space(fake.ada)
    # another member's stats are not in my own space
    other = await fake.reply(await fake.slash(fake.ada, "stats", owners=user_only, member=fake.bob))
    assert other.ephemeral and other.text == OWN_STATS_ONLY


async def test_a_click_never_answers_a_round_of_another_space(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    in_server = await fake.reply(await fake.slash(fake.alice, "quiz"))
    message = fake.messages[in_server.message_id]
    from_dm = await fake.reply(await fake.click(fake.alice, message, in_server.custom_ids[0], context=DM))
    assert from_dm.ephemeral and "not" in from_dm.text.lower()
    round_id = int(in_server.custom_ids[0].split(":")[2])
    assert await core.store.round_answers(round_id) == []


async def test_an_unreadable_install_owner_is_dropped_and_the_bot_goes_on(
    bot: StudyBotClient, fake: FakeDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="adapters.discord.app"):
        dm = fake.dm_channel(fake.alice)
        bad = await fake.slash(fake.alice, "quiz", channel_id=dm, context=DM, owners={"1": "x"})
        await fake.wait_for(lambda: "could not be parsed" in caplog.text, "the refusal to be logged")
    assert bad.callback is None  # not answered: the payload is not what Discord documents
    reply = await practise_in_dm(fake, fake.alice)
    assert reply.ephemeral and reply.embeds[0]["title"].startswith("Practice")
