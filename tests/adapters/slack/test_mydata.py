"""A learner's own data on Slack, end to end on the Web API stub: `/quiz export` uploads a CSV and an Anki TSV
into the person's direct messages through files.getUploadURLExternal / files.completeUploadExternal; `/quiz
forget-me` changes nothing until its confirm button (or `confirm`) and then takes the person off the boards."""

from __future__ import annotations

import csv
import io
import json

from adapters.slack.mydata import FORGET_ACTION
from bot.kernel.values import Period
from tests.adapters.slack.harness import ANN, BOB, SlackHarness, buttons, texts
from tests.adapters.slack.stub import TEAM_ID


async def _daily_with_misses(slack: SlackHarness) -> str:
    """Today's question: Ann wrong, Bob right; revealed."""
    round_ = await slack.daily_round()
    question = slack.service.context.bank.get(round_.question_id)
    assert question is not None
    await slack.reply(await slack.click(round_.id, (question.answer + 1) % 4, user=ANN))
    await slack.reply(await slack.click(round_.id, question.answer, user=BOB))
    assert await slack.service.reveals.reveal_round(round_.id) is not None
    return round_.question_id


async def test_export_uploads_both_files_into_the_persons_direct_messages(slack: SlackHarness) -> None:
    question_id = await _daily_with_misses(slack)

    reply = await slack.reply(await slack.command("export", user=ANN))

    assert reply.args["response_type"] == "ephemeral"
    assert "I sent you your 1 missed question in our direct messages." in texts(reply)
    [opened] = slack.stub.calls_to("conversations.open")
    assert opened.args["users"] == ANN
    asks = slack.stub.calls_to("files.getUploadURLExternal")
    [done] = slack.stub.calls_to("files.completeUploadExternal")
    assert slack.stub.calls_to("files.upload") == []
    assert done.args["channel_id"] == "D0ANN"  # the DM conversations.open gave, not the channel
    listed = json.loads(done.args["files"])
    assert len(asks) == 2 and len(listed) == 2 and all(slack.stub.calls_to(f"upload:{f['id']}") for f in listed)
    assert {ask.args["filename"] for ask in asks} == {f["title"] for f in listed}
    files = {f["title"]: slack.stub.uploads[f["id"]] for f in listed}
    [csv_data] = [data for name, data in files.items() if name.endswith(".csv")]
    [tsv_data] = [data for name, data in files.items() if name.endswith("-anki.tsv")]
    rows = list(csv.DictReader(io.StringIO(csv_data.decode("utf-8-sig"), newline="")))
    assert [r["question_id"] for r in rows] == [question_id] and rows[0]["last_result"] == "wrong"
    lines = [line for line in tsv_data.decode().splitlines() if not line.startswith("#")]
    assert len(lines) == 1 and len(lines[0].split("\t")) == 2
    assert "missed question" in done.args["initial_comment"]


async def test_export_without_misses_says_so_and_uploads_nothing(slack: SlackHarness) -> None:
    await _daily_with_misses(slack)
    reply = await slack.reply(await slack.command("export", user=BOB))  # Bob got it right
    assert "Nothing to export yet" in texts(reply)
    assert slack.stub.calls_to("conversations.open") == []
    assert slack.stub.calls_to("files.getUploadURLExternal") == []


async def test_forget_me_asks_first_and_its_button_deletes_the_presser(slack: SlackHarness) -> None:
    await _daily_with_misses(slack)
    before = await slack.store.leaderboard("slack", TEAM_ID, Period.ALL, "all", 10)
    assert {row.user_id for row in before} == {ANN, BOB}

    prompt = await slack.reply(await slack.command("forget-me", user=ANN))
    assert prompt.args["response_type"] == "ephemeral"
    assert "nothing has been deleted yet" in texts(prompt) and buttons(prompt) == [FORGET_ACTION]
    assert await slack.store.leaderboard("slack", TEAM_ID, Period.ALL, "all", 10) == before

    bad = await slack.reply(await slack.command("forget-me now", user=ANN))
    assert "Nothing was deleted" in texts(bad)
    assert await slack.store.leaderboard("slack", TEAM_ID, Period.ALL, "all", 10) == before

    pressed = await slack.reply(await slack.click(0, 0, user=ANN, ephemeral=True, action_id=FORGET_ACTION))
    assert pressed.args["replace_original"] is True and "Done: deleted 1 answer" in texts(pressed)
    board = await slack.store.leaderboard("slack", TEAM_ID, Period.ALL, "all", 10)
    assert [row.user_id for row in board] == [BOB] and board[0].rank == 1
    assert await slack.store.learner_cards("slack", TEAM_ID, ANN) == []
    assert len(await slack.store.learner_cards("slack", TEAM_ID, BOB)) == 1


async def test_forget_me_confirm_in_text_deletes_at_once(slack: SlackHarness) -> None:
    await _daily_with_misses(slack)
    reply = await slack.reply(await slack.command("forget-me confirm", user=BOB))
    assert "Done: deleted 1 answer" in texts(reply)
    board = await slack.store.leaderboard("slack", TEAM_ID, Period.ALL, "all", 10)
    assert [row.user_id for row in board] == [ANN]
