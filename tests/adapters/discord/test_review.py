"""Learner memory on Discord: /review serves Monday's misses on Tuesday, "not sure" buttons, /stats shows due."""

from __future__ import annotations

import datetime as dt

from adapters.discord.app import StudyBotClient
from bot.kernel.values import LETTERS, Period
from bot.settings import ConfigChange
from tests.adapters.discord.conftest import START, Core, channel_ref
from tests.adapters.discord.fake_discord import FakeDiscord
from tests.support.learning import SETUP, miss_three_on_monday

MONDAY_9 = START + dt.timedelta(hours=1)
TUESDAY_NOON = MONDAY_9 + dt.timedelta(days=1, hours=3)


async def test_three_monday_misses_come_back_on_tuesday_most_overdue_first(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    refs = [channel_ref(fake), channel_ref(fake, fake.other_channel_id), channel_ref(fake, fake.snowflake())]

    async def click(round_, letter):
        stored = await core.store.get_round(round_.id)
        assert stored is not None and stored.message_id
        message = fake.messages[stored.message_id]
        reply = await fake.reply(await fake.click(fake.alice, message, f"studybot:answer:{round_.id}:{letter}"))
        assert "locked in" in reply.text  # no verdict before the reveal

    missed = await miss_three_on_monday(core.service, core.clock, refs, MONDAY_9, click)
    core.clock.set(TUESDAY_NOON)

    stats = await fake.reply(await fake.slash(fake.alice, "stats"))
    assert "Reviews: 3 today (at most 20 a day)" in stats.text and "Review them with /review" in stats.text

    reply = await fake.reply(await fake.slash(fake.alice, "review"))
    served = []
    for position in range(1, 4):
        assert reply.ephemeral and reply.embeds[-1]["title"].startswith(f"Review {position}/3")
        round_id = int(reply.custom_ids[0].split(":")[2])
        assert reply.custom_ids[4:8] == [f"studybot:answer:{round_id}:{x}?" for x in LETTERS]  # "not sure" row
        round_ = await core.store.get_round(round_id)
        assert round_ is not None
        served.append(round_.question_id)
        question = core.service.context.bank.get(round_.question_id)
        assert question is not None
        unsure = position == 2
        custom_id = reply.custom_ids[question.answer + (4 if unsure else 0)]
        core.clock.advance(minutes=1)
        reply = await fake.reply(await fake.click(fake.alice, fake.messages[reply.message_id], custom_id))
        assert reply.embeds[0]["title"] == "Correct!"
    assert served == missed
    assert "Review done: 3 of 3 right." in reply.text
    assert reply.custom_ids == [f"studybot:report:{round_id}"]  # only "Report a problem" on the last verdict
    events = await core.store.review_events("discord", fake.guild_id, fake.alice.id)
    assert [e.sure for e in events][-3:] == [True, False, True]
    [row] = await core.store.leaderboard("discord", fake.guild_id, Period.ALL, "all", 10)
    assert (row.points, row.answered) == (0, 3)  # reviews never reach the leaderboard

    # nothing due now: the weakest topic's unseen questions (every topic here was missed once)
    weak = await fake.reply(await fake.slash(fake.alice, "review"))
    weak_round = await core.store.get_round(int(weak.custom_ids[0].split(":")[2]))
    assert weak_round is not None and weak_round.question_id not in missed
    assert weak_round.topic in {core.service.context.bank.get(q).topic for q in missed}  # type: ignore[union-attr]


async def test_a_confident_miss_says_so_and_a_bad_review_count_gets_a_specific_reply(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    reply = await fake.reply(await fake.slash(fake.alice, "quiz", topic="autograd", difficulty="hard"))
    round_id = int(reply.custom_ids[0].split(":")[2])
    round_ = await core.store.get_round(round_id)
    question = core.service.context.bank.get(round_.question_id)  # type: ignore[union-attr]
    assert question is not None and question.difficulty.value == "hard"
    wrong = reply.custom_ids[(question.answer + 1) % 4]
    verdict = await fake.reply(await fake.click(fake.alice, fake.messages[reply.message_id], wrong))
    assert "Confident miss" in verdict.text and "You were sure" in verdict.text
    bad = await fake.reply(await fake.slash(fake.alice, "review", count=25))
    assert bad.ephemeral and "A review takes 1 to 20 questions" in bad.text


async def test_answer_not_sure_marks_the_daily_answer_and_its_card_learns_it_at_the_reveal(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    ref = channel_ref(fake)
    await core.service.channels.configure(SETUP, ref, ConfigChange.of(timezone="UTC"))
    round_ = await core.service.posting.post_scheduled(ref)
    assert round_ is not None
    right = LETTERS[core.service.context.bank.get(round_.question_id).answer]  # type: ignore[union-attr]
    reply = await fake.reply(await fake.slash(fake.bob, "answer", choice=right, not_sure=True))
    assert "locked in" in reply.text
    await core.service.reveals.reveal_round(round_.id)
    [event] = await core.store.review_events("discord", fake.guild_id, fake.bob.id)
    assert (event.rating, event.sure) == (2, False)
