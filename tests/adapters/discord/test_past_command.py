"""/past on Discord, the real discord.py client against the fake: the channel's last revealed daily questions with
their answers and the member's own, privately; a count outside 1-5 is refused by Discord's own option range,
and in a DM it is a server command."""

from __future__ import annotations

from adapters.discord.app import StudyBotClient
from tests.adapters.discord.conftest import Core, configure_channel
from tests.adapters.discord.fake_discord import FakeDiscord


async def test_past_lists_the_revealed_question_with_its_answer_and_yours(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    ref = await configure_channel(core, fake)
    round_ = await core.service.posting.post_scheduled(ref)
    assert round_ is not None
    question = core.service.context.bank.get(round_.question_id)
    assert question is not None
    wrong = (question.answer + 1) % 4
    await core.service.answers.submit_answer(round_.id, fake.alice.id, wrong)

    before = await fake.reply(await fake.slash(fake.alice, "past"))
    assert before.ephemeral and before.text.startswith("No daily question has been revealed here yet")

    assert await core.service.reveals.reveal_round(round_.id) is not None
    told = await fake.reply(await fake.slash(fake.alice, "past", questions=1))
    assert told.ephemeral and told.text.startswith("Past daily questions in this channel, newest first:")
    assert f"Answer: {question.answer_letter}." in told.text
    assert f"0 of 1 right (0%). You: {'ABCD'[wrong]}, not right." in told.text
    assert told.text.endswith("Past questions on the dashboard (/dashboard).")
    assert {o["name"]: (o["min_value"], o["max_value"]) for o in fake.command("past")["options"]} == {
        "questions": (1, 5)
    }
    assert fake.command("past").get("contexts") == [0]  # a server command: Discord offers it in servers only
