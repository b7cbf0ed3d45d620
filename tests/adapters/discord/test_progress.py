"""`/progress` on Discord, end to end on the fake REST and gateway: the learning report as a private followup,
one embed field per part with the core's own numbers, the chart attached (shown in the embed, with its alt
text), within Discord's limits even for the largest report."""

from __future__ import annotations

import io

from PIL import Image

from adapters.discord.app import StudyBotClient
from bot.kernel.values import ChannelRef
from bot.practice.progress_cards import CHART_NAME, progress_alt_text
from tests.adapters.discord.conftest import START, Core, configure_channel
from tests.adapters.discord.fake_discord import EPHEMERAL, FakeDiscord
from tests.adapters.discord.test_limits import assert_pings_nobody, assert_within_limits
from tests.adapters.discord.test_user_install import DM, personal_space
from tests.support.progress import answer, long_topic_bank, two_weeks_of_learning, weeks_of_practice


async def test_progress_sends_the_numbers_and_the_chart_only_to_the_member(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    ref = await configure_channel(core, fake)
    await two_weeks_of_learning(core.service, core.clock, ref, fake.alice.id, START)
    expected = await core.service.progress.report(ref, fake.alice.id, chart=False)

    inter = await fake.slash(fake.alice, "progress")
    await fake.wait_for(lambda: inter.followups, "the progress followup")

    assert inter.callback is not None and inter.callback["type"] == 5  # deferred privately first
    assert inter.callback["data"]["flags"] & EPHEMERAL
    [sent] = inter.followups
    assert sent["flags"] & EPHEMERAL
    [embed] = sent["embeds"]
    assert embed["title"] == "Your progress"
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    for part in expected.sections:  # the same numbers as the core's card, line for line
        [value] = [v for name, v in fields.items() if name.startswith(part.heading.split(" (")[0])]
        assert value.split("\n") == list(part.lines)
    assert "came back 7 or more days later" in fields["Missed daily questions, 7+ days later"]
    assert embed["image"]["url"] == f"attachment://{CHART_NAME}"
    [chart] = sent["_files"]
    assert chart.filename == CHART_NAME
    image = Image.open(io.BytesIO(chart.data))
    assert image.format == "PNG" and image.size == (1200, 900)
    [attachment] = sent["attachments"]
    assert attachment["description"] == progress_alt_text(expected)[:1024]
    assert_within_limits(sent, "/progress")
    assert_pings_nobody(sent, "/progress")


async def test_progress_before_any_answer_says_so_without_a_chart(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    await configure_channel(core, fake)
    inter = await fake.slash(fake.bob, "progress")
    await fake.wait_for(lambda: inter.followups, "the progress followup")
    [sent] = inter.followups
    assert sent["flags"] & EPHEMERAL and not sent.get("_files")
    [embed] = sent["embeds"]
    assert [f["name"] for f in embed["fields"]] == ["Nothing to report yet"]
    assert "/quiz" in embed["fields"][0]["value"] and "image" not in embed


async def test_the_largest_report_stays_within_discords_limits(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    core.service.context.bank = long_topic_bank()  # 14 topics named with 40 characters each
    ref = await configure_channel(core, fake)
    await weeks_of_practice(core.service, core.clock, ref, fake.alice.id, START)
    card = await core.service.progress.report(ref, fake.alice.id, chart=False)
    assert len(card.counts.weeks) == 8 and len(card.topics) == 14  # every week shown, topics past the ten lines
    assert all(b.reviews.answered for b in card.counts.buckets[1:])

    inter = await fake.slash(fake.alice, "progress")
    await fake.wait_for(lambda: inter.followups, "the progress followup")
    [sent] = inter.followups
    assert_within_limits(sent, "/progress, the largest report")
    text = "\n".join(f["value"] for f in sent["embeds"][0]["fields"])
    assert "… and 4 more topics." in text and text.count("Week of ") == 8
    assert len(sent["attachments"][0]["description"]) <= 1024


async def test_progress_in_a_dm_reports_the_learners_own_space(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    dm = ChannelRef("discord", personal_space(fake.alice), fake.dm_channel(fake.alice))
    for question in core.service.context.bank.questions[:3]:  # three practice answers in the DM, one topic
        card = await core.service.practice.practice_round(dm, fake.alice.id, question)
        await answer(core.service, card.round_id, fake.alice.id, True)

    inter = await fake.slash(fake.alice, "progress", channel_id=fake.dm_channel(fake.alice), context=DM)
    await fake.wait_for(lambda: inter.followups, "the progress followup")
    [sent] = inter.followups
    text = "\n".join(f["value"] for f in sent["embeds"][0]["fields"])
    assert sent["flags"] & EPHEMERAL and "When sure: 3 of 3 right; a rate needs 7 more answers." in text
    assert [f.filename for f in sent["_files"]] == [CHART_NAME]

    in_server = await fake.slash(fake.alice, "progress")  # the server's report holds nothing of the DM's
    await fake.wait_for(lambda: in_server.followups, "the server's progress followup")
    assert [f["name"] for f in in_server.followups[0]["embeds"][0]["fields"]] == ["Nothing to report yet"]
