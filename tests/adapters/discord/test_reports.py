"""Reports on Discord (issue 12): "Report a problem" under a reveal and a practice verdict opens a real modal;
its MODAL_SUBMIT (interaction type 5) reaches the core; /quizadmin reports and resolve for admins only."""

from __future__ import annotations

from typing import Any

from adapters.discord.app import StudyBotClient
from bot.reports.values import ReportReason
from tests.adapters.discord.conftest import Core, configure_channel
from tests.adapters.discord.fake_discord import FakeDiscord


def custom_ids(components: list[dict[str, Any]]) -> list[str]:
    return [c.get("custom_id", "") for row in components for c in row.get("components", [])]


async def test_a_reveal_report_through_a_real_modal_reaches_the_admins_queue(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    ref = await configure_channel(core, fake)
    round_ = await core.service.posting.post_scheduled(ref)
    assert round_ is not None
    await core.service.reveals.reveal_round(round_.id)
    reveal = fake.channel_messages()[-1]
    button = f"studybot:report:{round_.id}"
    assert button in custom_ids(reveal["components"])

    opened = await fake.click(fake.bob, reveal, button)
    await fake.wait_for(lambda: opened.callback is not None, "the modal")
    modal = fake.modal_of(opened)
    assert modal["title"] == "Report a problem"
    select, field = (label["component"] for label in modal["components"])
    assert [o["value"] for o in select["options"]] == ["wrong", "unclear", "typo", "other"]
    assert field["type"] == 4 and field["style"] == 2 and field["max_length"] == 500

    text = "@everyone <@1234567890123456789> **B** is right"
    sent = await fake.submit_modal(fake.bob, modal, {"report_reason": ["wrong"], "report_text": text})
    thanks = await fake.reply(sent)
    assert thanks.ephemeral and "Thanks: your report #1 (wrong answer)" in thanks.text
    [report] = await core.store.reports("discord", fake.guild_id)
    assert (report.reporter, report.question_id, report.text) == (fake.bob.id, round_.question_id, text)

    refused = await fake.reply(await fake.slash(fake.bob, "quizadmin", "reports"))
    assert refused.ephemeral and "can see the reports queue" in refused.text
    queue = await fake.reply(await fake.slash(fake.ada, "quizadmin", "reports"))
    assert queue.ephemeral and f"#1 {round_.question_id} [wrong answer]" in queue.text
    assert f"by <@{fake.bob.id}>" in queue.text
    assert "@\u200beveryone <@\u200b1234567890123456789> \\*\\*B\\*\\* is right" in queue.text  # plain text
    assert "/quizadmin resolve report:ID" in queue.text

    member = await fake.reply(await fake.slash(fake.bob, "quizadmin", "resolve", report=1, action="keep"))
    assert "can resolve reports" in member.text
    held = await fake.reply(await fake.slash(fake.ada, "quizadmin", "resolve", report=1, action="hold"))
    assert "held here" in held.text
    assert await core.service.reports.held("discord", fake.guild_id) == {round_.question_id}


async def report_a_practice_verdict(fake: FakeDiscord, reason: str) -> tuple[int, str]:
    """Bob practises, answers, presses Report a problem on the verdict and sends the form: (round, reply)."""
    question = await fake.reply(await fake.slash(fake.bob, "quiz"))
    answer = next(i for i in custom_ids(question.components) if i.startswith("studybot:answer:"))
    round_id = int(answer.split(":")[2])
    verdict = await fake.reply(await fake.click(fake.bob, fake.messages[question.message_id], answer))
    button = f"studybot:report:{round_id}"
    assert button in custom_ids(verdict.components)
    opened = await fake.click(fake.bob, fake.messages[verdict.message_id], button)
    await fake.wait_for(lambda: opened.callback is not None, "the modal")
    done = await fake.reply(await fake.submit_modal(fake.bob, fake.modal_of(opened), {"report_reason": [reason]}))
    return round_id, done.text


async def test_a_practice_verdict_can_be_reported_and_the_sixth_report_in_a_day_is_refused(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    round_id, said = await report_a_practice_verdict(fake, "typo")
    assert "report #1 (typo)" in said
    ref = (await core.store.get_round(round_id)).ref  # type: ignore[union-attr]
    for n in range(2, 6):  # four more questions reported the same day: five in all
        other = await core.store.create_practice_round(ref, fake.bob.id, f"other-{n}", "tensors", core.clock.now())
        await core.service.reports.report_round(fake.bob.id, other.id, ReportReason.OTHER)
    _, refused = await report_a_practice_verdict(fake, "unclear")
    assert "You have made 5 reports today" in refused
    assert len(await core.store.reports("discord", fake.guild_id)) == 5


async def test_a_report_button_with_a_bad_round_gets_a_private_refusal(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    ref = await configure_channel(core, fake)
    round_ = await core.service.posting.post_scheduled(ref)
    assert round_ is not None and round_.message_id

    def with_button(custom_id: str) -> dict[str, Any]:  # a message carrying a (forged) report button
        button = {"type": 2, "style": 2, "label": "Report a problem", "custom_id": custom_id}
        return {**fake.messages[round_.message_id], "components": [{"type": 1, "components": [button]}]}  # type: ignore[index]

    bad = "studybot:report:not-a-round"
    reply = await fake.reply(await fake.click(fake.bob, with_button(bad), bad))
    assert reply.ephemeral and "does not belong to a studybot question" in reply.text
    unknown = await fake.click(fake.bob, with_button("studybot:report:424242"), "studybot:report:424242")
    await fake.wait_for(lambda: unknown.callback is not None, "the modal")
    sent = await fake.submit_modal(fake.bob, fake.modal_of(unknown), {"report_reason": ["wrong"]})
    assert "not known here" in (await fake.reply(sent)).text
    assert await core.store.reports("discord", fake.guild_id) == []
