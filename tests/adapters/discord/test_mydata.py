"""A learner's own data on Discord, end to end on the fake REST and gateway: /export sends a CSV and an Anki
TSV as attachments of an ephemeral followup; /forget-me changes nothing until its confirm button is pressed (by
the member it belongs to) and then takes the member off the leaderboard."""

from __future__ import annotations

import csv
import io

from adapters.discord.app import StudyBotClient
from adapters.discord.mydata import forget_custom_id
from bot.kernel.values import Period
from tests.adapters.discord.conftest import Core, configure_channel
from tests.adapters.discord.fake_discord import EPHEMERAL, FakeDiscord


async def _daily_with_misses(core: Core, fake: FakeDiscord) -> str:
    """Today's question: Alice wrong, Bob right; revealed."""
    ref = await configure_channel(core, fake)
    round_ = await core.service.posting.post_scheduled(ref)
    assert round_ is not None
    question = core.service.context.bank.get(round_.question_id)
    assert question is not None
    await core.service.answers.submit_answer(round_.id, fake.alice.id, (question.answer + 1) % 4)
    await core.service.answers.submit_answer(round_.id, fake.bob.id, question.answer)
    assert await core.service.reveals.reveal_round(round_.id) is not None
    return round_.question_id


async def test_export_sends_both_files_in_an_ephemeral_followup(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    question_id = await _daily_with_misses(core, fake)

    inter = await fake.slash(fake.alice, "export")
    await fake.wait_for(lambda: inter.followups, "the export followup")

    assert inter.callback is not None and inter.callback["type"] == 5  # deferred privately first
    assert inter.callback["data"]["flags"] & EPHEMERAL
    [sent] = inter.followups
    assert sent["flags"] & EPHEMERAL and "1 missed question" in sent["content"]
    files = {f.filename: f.data for f in sent["_files"]}
    [csv_name] = [n for n in files if n.endswith(".csv")]
    [tsv_name] = [n for n in files if n.endswith("-anki.tsv")]
    rows = list(csv.DictReader(io.StringIO(files[csv_name].decode("utf-8-sig"), newline="")))
    assert [r["question_id"] for r in rows] == [question_id] and rows[0]["last_result"] == "wrong"
    lines = [line for line in files[tsv_name].decode().splitlines() if not line.startswith("#")]
    assert len(lines) == 1 and len(lines[0].split("\t")) == 2


async def test_export_without_misses_says_so_without_a_file(bot: StudyBotClient, fake: FakeDiscord, core: Core) -> None:
    await _daily_with_misses(core, fake)
    inter = await fake.slash(fake.bob, "export")  # Bob got it right
    await fake.wait_for(lambda: inter.followups, "the export followup")
    [sent] = inter.followups
    assert "Nothing to export yet" in sent["content"] and not sent.get("_files")
    assert sent["flags"] & EPHEMERAL


async def test_forget_me_asks_first_and_only_its_owner_can_confirm(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    await _daily_with_misses(core, fake)
    before = await core.store.leaderboard("discord", fake.guild_id, Period.ALL, "all", 10)
    assert {row.user_id for row in before} == {fake.alice.id, fake.bob.id}

    prompt = await fake.reply(await fake.slash(fake.alice, "forget-me"))
    assert prompt.ephemeral and "nothing has been deleted yet" in prompt.text
    assert prompt.custom_ids == [forget_custom_id(fake.alice.id)]
    assert await core.store.leaderboard("discord", fake.guild_id, Period.ALL, "all", 10) == before

    message = fake.messages[prompt.message_id]
    stolen = await fake.reply(await fake.click(fake.bob, message, forget_custom_id(fake.alice.id)))
    assert stolen.ephemeral and "someone else's" in stolen.text
    assert await core.store.leaderboard("discord", fake.guild_id, Period.ALL, "all", 10) == before

    done = await fake.reply(await fake.click(fake.alice, message, forget_custom_id(fake.alice.id)))
    assert done.ephemeral and "Done: deleted 1 answer" in done.text
    board = await core.store.leaderboard("discord", fake.guild_id, Period.ALL, "all", 10)
    assert [row.user_id for row in board] == [fake.bob.id] and board[0].rank == 1
    assert await core.store.rank_of("discord", fake.guild_id, Period.ALL, "all", fake.alice.id) is None
    assert await core.store.learner_cards("discord", fake.guild_id, fake.alice.id) == []
    assert len(await core.store.learner_cards("discord", fake.guild_id, fake.bob.id)) == 1
