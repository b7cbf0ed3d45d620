"""Answers by button and by reaction: each records exactly one answer in the store and is acknowledged
privately; a second answer is refused privately; Slack's retries of one event record one answer."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from bot.kernel.values import Actor
from bot.settings import ConfigChange
from tests.adapters.slack.harness import ADMIN, ANN, BOB, SlackHarness, texts

SETTLE = 0.3  # time for a (wrongly) started listener to show its effects


async def test_button_click_records_one_answer_and_acknowledges_privately(slack: SlackHarness) -> None:
    round_ = await slack.daily_round()
    sent = await slack.click(round_.id, 2)
    assert sent.text == "", "block_actions are acknowledged with an empty 200"
    reply = await slack.reply(sent)
    assert reply.args == {
        "text": "Your answer C is locked in. You will see whether it is right when the answer is revealed.",
        "response_type": "ephemeral",
        "replace_original": False,
    }
    [answer] = await slack.store.round_answers(round_.id)
    assert (answer.user_id, answer.choice) == (ANN, 2)
    assert not slack.stub.calls_to("chat.postMessage")[1:], "nothing public besides the question"


async def test_second_click_is_refused_privately_and_the_first_answer_stays(slack: SlackHarness) -> None:
    round_ = await slack.daily_round()
    await slack.reply(await slack.click(round_.id, 0))
    second = await slack.reply(await slack.click(round_.id, 3))
    assert second.args["response_type"] == "ephemeral" and second.args["replace_original"] is False
    assert second.args["text"] == "You already answered A; the first answer is the one that counts."
    [answer] = await slack.store.round_answers(round_.id)
    assert answer.choice == 0


async def test_practice_click_replaces_the_question_with_the_verdict(slack: SlackHarness) -> None:
    card = await slack.service.practice.start_practice(slack.ref, ANN)
    question = slack.service.context.bank.get((await slack.store.get_round(card.round_id)).question_id)  # type: ignore[union-attr]
    assert question is not None
    reply = await slack.reply(await slack.click(card.round_id, question.answer, ephemeral=True))
    assert reply.args["replace_original"] is True
    assert texts(reply).startswith("Correct!")
    assert question.explanation in texts(reply)
    [answer] = await slack.store.round_answers(card.round_id)
    assert answer.correct is True

    other = await slack.service.practice.start_practice(slack.ref, ANN)
    stolen = await slack.reply(await slack.click(other.round_id, 0, user=BOB, ephemeral=True))
    assert "belongs to someone else" in stolen.args["text"]
    assert await slack.store.round_answers(other.round_id) == []


async def test_reaction_records_one_answer_and_acknowledges_with_an_ephemeral(slack: SlackHarness) -> None:
    round_ = await slack.daily_round()
    sent = await slack.react(round_, "three", user=BOB)
    assert sent.status == 200
    [ack] = await slack.stub.wait_for("chat.postEphemeral")
    assert ack.args == {
        "channel": slack.ref.channel_id,
        "user": BOB,
        "text": "Your answer C is locked in. You will see whether it is right when the answer is revealed.",
    }
    [answer] = await slack.store.round_answers(round_.id)
    assert (answer.user_id, answer.choice) == (BOB, 2)

    await slack.react(round_, "regional_indicator_a", user=BOB, event_id="Ev0REACT2")
    refused = (await slack.stub.wait_for("chat.postEphemeral", 2))[1]
    assert refused.args["text"] == "You already answered C; the first answer is the one that counts."
    [answer] = await slack.store.round_answers(round_.id)
    assert answer.choice == 2


async def test_same_event_delivered_three_times_records_one_answer(slack: SlackHarness) -> None:
    round_ = await slack.daily_round()
    deliveries = [
        await slack.react(round_, "two", event_id="Ev0SAME"),
        await slack.react(round_, "two", event_id="Ev0SAME", retry=1),
        await slack.react(round_, "two", event_id="Ev0SAME", retry=2),
    ]
    assert [d.status for d in deliveries] == [200, 200, 200]
    await slack.stub.wait_for("chat.postEphemeral")
    await asyncio.sleep(SETTLE)
    assert len(slack.stub.calls_to("chat.postEphemeral")) == 1, "retries are dropped, not answered again"
    [answer] = await slack.store.round_answers(round_.id)
    assert (answer.user_id, answer.choice) == (ANN, 1)


async def test_reactions_that_are_not_answers_record_nothing(slack: SlackHarness) -> None:
    round_ = await slack.daily_round()
    await slack.react(round_, "thumbsup", event_id="Ev0A")
    unrelated = replace(round_, message_id="C0QUIZ:1699999999.000009")
    await slack.react(unrelated, "one", event_id="Ev0B")
    await slack.service.channels.configure(Actor(ADMIN, True), slack.ref, ConfigChange.of(reactions=False))
    await slack.react(round_, "one", event_id="Ev0C")
    await asyncio.sleep(SETTLE)
    assert await slack.store.round_answers(round_.id) == []
    assert not slack.stub.calls_to("chat.postEphemeral")
    # the same reaction counts once reactions are on again: the ignores above were not accidents
    await slack.service.channels.configure(Actor(ADMIN, True), slack.ref, ConfigChange.of(reactions=True))
    await slack.react(round_, "one", event_id="Ev0D")
    await slack.stub.wait_for("chat.postEphemeral")
    assert len(await slack.store.round_answers(round_.id)) == 1


async def test_reaction_after_the_reveal_is_refused_privately(slack: SlackHarness) -> None:
    round_ = await slack.daily_round()
    await slack.service.reveals.reveal_round(round_.id)
    await slack.react(round_, "one", event_id="Ev0LATE")
    [note] = await slack.stub.wait_for("chat.postEphemeral")
    assert "question closed at" in note.args["text"] and "the answer was" in note.args["text"]
    assert await slack.store.round_answers(round_.id) == []
