"""Each slash command reaches the core and produces the right (ephemeral) interaction callback."""

from __future__ import annotations

import asyncio
import datetime as dt

from adapters.discord.app import StudyBotClient
from bot.kernel.values import Period, RoundKind
from tests.adapters.discord.conftest import Core, channel_ref, configure_channel
from tests.adapters.discord.fake_discord import FakeDiscord


async def test_quiz_gives_a_private_practice_question_whose_click_answers_at_once(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    reply = await fake.reply(await fake.slash(fake.alice, "quiz", topic="autograd"))
    assert reply.callback_type == 4 and reply.ephemeral
    assert reply.embeds[0]["title"].startswith("Practice: Autograd")
    ids = reply.custom_ids
    round_id = int(ids[0].split(":")[2])
    assert ids == [f"studybot:answer:{round_id}:{x}" for x in "ABCD"] + [
        f"studybot:answer:{round_id}:{x}?"
        for x in "ABCD"  # the "not sure" row
    ]
    round_ = await core.store.get_round(round_id)
    assert round_ is not None and round_.kind is RoundKind.PRACTICE and round_.user_id == fake.alice.id
    assert round_.topic == "autograd"
    question = core.service.context.bank.get(round_.question_id)
    assert question is not None

    practice_message = fake.messages[reply.message_id]  # the ephemeral message with the buttons
    verdict = await fake.reply(await fake.click(fake.alice, practice_message, ids[question.answer]))
    assert verdict.ephemeral and verdict.embeds[0]["title"] == "Correct!"
    assert question.explanation in verdict.text
    # practice never counts toward the server leaderboard
    assert await core.store.leaderboard("discord", fake.guild_id, Period.ALL, "all", 10) == []


async def test_answer_answers_the_channels_open_question(bot: StudyBotClient, fake: FakeDiscord, core: Core) -> None:
    nothing = await fake.reply(await fake.slash(fake.bob, "answer", choice="B"))
    assert nothing.ephemeral and "no open daily question" in nothing.text
    round_ = await core.service.posting.post_scheduled(await configure_channel(core, fake))
    assert round_ is not None
    reply = await fake.reply(await fake.slash(fake.bob, "answer", choice="B"))
    assert reply.callback_type == 4 and reply.ephemeral and "Your answer B is locked in" in reply.text
    assert [(a.user_id, a.choice) for a in await core.store.round_answers(round_.id)] == [(fake.bob.id, 1)]


async def test_leaderboard_shows_the_top_and_the_askers_rank(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    empty = await fake.reply(await fake.slash(fake.alice, "leaderboard"))
    assert empty.ephemeral and "No scores yet" in empty.text
    round_ = await core.service.posting.post_scheduled(await configure_channel(core, fake))
    assert round_ is not None
    correct = core.service.context.bank.get(round_.question_id).answer  # type: ignore[union-attr]
    await core.service.answers.submit_answer(round_.id, fake.alice.id, correct)
    await core.service.reveals.reveal_round(round_.id)
    reply = await fake.reply(await fake.slash(fake.alice, "leaderboard", period="all"))
    assert reply.callback_type == 4 and reply.ephemeral
    assert reply.embeds[0]["title"] == "Leaderboard: all time"
    [row] = await core.store.leaderboard("discord", fake.guild_id, Period.ALL, "all", 10)
    assert row.points >= 10 and f"<@{fake.alice.id}>: {row.points} pts (1/1 right)" in reply.text
    assert "#1 with" in reply.text  # the asker's own rank


async def test_stats_for_me_and_for_another_member(bot: StudyBotClient, fake: FakeDiscord, core: Core) -> None:
    card = await core.service.practice.start_practice(channel_ref(fake), fake.bob.id, "tensors")
    await core.service.answers.submit_answer(card.round_id, fake.bob.id, 0)
    mine = await fake.reply(await fake.slash(fake.alice, "stats"))
    assert mine.ephemeral and f"<@{fake.alice.id}>" in mine.text and "0 (0 daily, 0 practice)" in mine.text
    bobs = await fake.reply(await fake.slash(fake.alice, "stats", member=fake.bob))
    assert bobs.ephemeral and f"<@{fake.bob.id}>" in bobs.text and "1 (0 daily, 1 practice)" in bobs.text


async def test_quizconfig_schedule_pause_resume_show(bot: StudyBotClient, fake: FakeDiscord, core: Core) -> None:
    ref = channel_ref(fake)
    saved = await fake.reply(
        await fake.slash(fake.ada, "quizconfig", "schedule", time="07:30", timezone="Europe/Berlin", weekdays="mon-fri")
    )
    assert saved.callback_type == 4 and saved.ephemeral and "Saved." in saved.text
    cfg = await core.store.get_channel(ref)
    assert cfg is not None and cfg.post_time == dt.time(7, 30) and cfg.timezone == "Europe/Berlin"
    assert cfg.weekdays == frozenset(range(5)) and not cfg.paused

    await fake.reply(await fake.slash(fake.ada, "quizconfig", "pause"))
    assert (await core.store.get_channel(ref)).paused  # type: ignore[union-attr]
    await fake.reply(await fake.slash(fake.ada, "quizconfig", "resume"))
    assert not (await core.store.get_channel(ref)).paused  # type: ignore[union-attr]
    shown = await fake.reply(await fake.slash(fake.ada, "quizconfig", "show"))
    assert shown.ephemeral and "time 07:30 tz Europe/Berlin days mon-fri" in shown.text


async def test_quizconfig_schedule_for_another_channel(bot: StudyBotClient, fake: FakeDiscord, core: Core) -> None:
    await fake.reply(await fake.slash(fake.ada, "quizconfig", "schedule", time="18:00", channel=fake.other_channel_id))
    assert await core.store.get_channel(channel_ref(fake)) is None
    other = await core.store.get_channel(channel_ref(fake, fake.other_channel_id))
    assert other is not None and other.post_time == dt.time(18, 0)


async def test_timezone_autocomplete(bot: StudyBotClient, fake: FakeDiscord) -> None:
    inter = await fake.autocomplete(fake.ada, "quizconfig", "schedule", "timezone", time="09:00", timezone="berl")
    await fake.wait_for(lambda: inter.callback is not None, "the autocomplete result")
    assert inter.callback["type"] == 8  # type: ignore[index]
    assert "Europe/Berlin" in [c["value"] for c in inter.callback["data"]["choices"]]  # type: ignore[index]


async def test_quizconfig_filters_reactions_post_now_and_reveal(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    ref = channel_ref(fake)
    await fake.reply(await fake.slash(fake.ada, "quizconfig", "filters", topics="autograd", difficulty="easy,medium"))
    cfg = await core.store.get_channel(ref)
    assert (
        cfg is not None
        and cfg.topics == frozenset({"autograd"})
        and {d.value for d in cfg.difficulties} == {"easy", "medium"}
    )
    await fake.reply(await fake.slash(fake.ada, "quizconfig", "reactions", state="off"))
    assert not (await core.store.get_channel(ref)).reactions  # type: ignore[union-attr]

    posted = await fake.reply(await fake.slash(fake.ada, "quizconfig", "post-now"))
    assert posted.ephemeral and "Posted question #" in posted.text
    [message] = fake.channel_messages()
    round_ = await core.store.round_by_message("discord", message["id"])
    assert round_ is not None and round_.topic == "autograd"
    assert not fake.requests_to("PUT", r"/reactions/")  # reactions are off

    again = await fake.reply(await fake.slash(fake.ada, "quizconfig", "post-now"))
    assert "already posted" in again.text and len(fake.channel_messages()) == 1

    revealed = await fake.reply(await fake.slash(fake.ada, "quizconfig", "reveal"))
    assert revealed.ephemeral and "Revealed: the answer was" in revealed.text
    assert not (await core.store.get_round(round_.id)).is_open  # type: ignore[union-attr]
    assert len(fake.channel_messages()) == 2 and fake.edits


async def test_slow_work_is_deferred_first_then_filled_in(fake: FakeDiscord, core: Core) -> None:
    from tests.adapters.discord.conftest import run_bot

    running = await run_bot(core.service, defer_after=0.05)
    real = core.service.boards.leaderboard

    async def slow_leaderboard(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        await asyncio.sleep(0.3)
        return await real(*args, **kwargs)  # type: ignore[arg-type]

    core.service.boards.leaderboard = slow_leaderboard  # type: ignore[method-assign]
    try:
        inter = await fake.slash(fake.alice, "leaderboard")
        reply = await fake.reply(inter)
        assert inter.callback is not None and inter.callback["type"] == 5  # deferred, ephemeral "thinking"
        assert inter.callback_at is not None and inter.callback_at - inter.sent_at < 0.25
        assert reply.ephemeral and reply.embeds[0]["title"].startswith("Leaderboard")
    finally:
        await running.stop()


async def test_core_messages_name_discords_own_commands(bot: StudyBotClient, fake: FakeDiscord, core: Core) -> None:
    names = core.service.context.commands_of("discord")
    assert (names.practice, names.answer) == ("/quiz", "/answer")  # Discord has no `/quiz answer`
    nothing = await fake.reply(await fake.slash(fake.bob, "answer", choice="B"))
    assert "try /quiz for practice" in nothing.text
