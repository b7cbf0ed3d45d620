"""The weekly recap on Discord, end to end on the fake: one message with the chart attached as a multipart
upload (its alt text as the attachment's description), names without pings; an empty week gets a note."""

from __future__ import annotations

import datetime as dt
import io

from PIL import Image, ImageStat

from adapters.discord.app import StudyBotClient
from bot.recap.cards import NOTHING
from tests.adapters.discord.conftest import START, Core, configure_channel
from tests.adapters.discord.fake_discord import FakeDiscord

RECAP_AT = START.replace(hour=9) + dt.timedelta(days=7)  # the Monday after, at the posting time


async def test_the_recap_is_posted_with_the_chart_attached(bot: StudyBotClient, fake: FakeDiscord, core: Core) -> None:
    ref = await configure_channel(core, fake)
    round_ = await core.service.posting.post_scheduled(ref)
    assert round_ is not None and round_.message_id
    question = core.service.context.bank.get(round_.question_id)
    assert question is not None
    message = fake.messages[round_.message_id]
    await fake.reply(await fake.click(fake.alice, message, f"studybot:answer:{round_.id}:{'ABCD'[question.answer]}"))
    wrong = "ABCD"[(question.answer + 1) % 4]
    await fake.reply(await fake.click(fake.bob, message, f"studybot:answer:{round_.id}:{wrong}"))
    await core.service.reveals.reveal_round(round_.id)

    core.clock.set(RECAP_AT)
    await core.service.recaps.run_due()  # the empty week before START is too late by now; this one is due

    [upload] = [
        r
        for r in fake.requests_to("POST", rf"/channels/{fake.channel_id}/messages$")
        if r.headers.get("Content-Type", "").startswith("multipart/form-data")
    ]
    [file] = upload.body["_files"]
    assert file.filename == "recap.png" and file.data.startswith(b"\x89PNG\r\n")
    posted = fake.channel_messages()[-1]
    [attachment] = posted["attachments"]
    assert attachment["filename"] == "recap.png" and attachment["size"] == len(file.data)
    assert "Answers per day: Mon 2, Tue 0" in attachment["description"]
    assert "alice 10 points" in attachment["description"]  # the member's name from the guild, not a mention
    assert "2 answers, 50% correct" in posted["content"] and "<@" not in posted["content"]
    assert upload.body["allowed_mentions"]["parse"] == []

    image = Image.open(io.BytesIO(file.data))
    assert image.format == "PNG" and image.size == (1200, 900)
    assert ImageStat.Stat(image.convert("L")).var[0] > 500


async def test_a_week_without_answers_gets_a_note_and_no_chart(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    await configure_channel(core, fake)
    core.clock.set(START.replace(hour=9))
    await core.service.recaps.run_due()
    note = fake.channel_messages()[-1]
    assert NOTHING in note["content"] and note["attachments"] == []
    assert not any(r.headers.get("Content-Type", "").startswith("multipart/") for r in fake.requests)


async def test_without_attach_files_the_recap_is_posted_in_words(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    ref = await configure_channel(core, fake)
    round_ = await core.service.posting.post_scheduled(ref)
    assert round_ is not None
    await core.service.answers.submit_answer(round_.id, fake.alice.id, 0)
    await core.service.reveals.reveal_round(round_.id)
    fake.no_attach.add(fake.channel_id)
    core.clock.set(RECAP_AT)
    await core.service.recaps.run_due()
    note = fake.channel_messages()[-1]
    assert "1 answer, " in note["content"]
    assert "Attach Files" in note["content"] and note["attachments"] == []
    assert await core.store.get_next_recap(ref) == RECAP_AT + dt.timedelta(days=7)  # done, not retried
