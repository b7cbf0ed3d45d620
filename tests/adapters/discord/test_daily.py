"""The daily question end to end: post, answers by button and by reaction, reveal, restart, rate limits."""

from __future__ import annotations

import asyncio

from adapters.discord.app import StudyBotClient
from tests.adapters.discord.conftest import Core, configure_channel, open_core, run_bot
from tests.adapters.discord.fake_discord import BOT_PERMS, FakeDiscord, buttons, custom_ids

LETTERS = "ABCD"
EMOJI = {letter: chr(0x1F1E6 + i) for i, letter in enumerate(LETTERS)}


async def post_daily(core: Core, fake: FakeDiscord, **changes: object) -> tuple[int, dict]:
    ref = await configure_channel(core, fake, **changes)
    round_ = await core.service.posting.post_scheduled(ref)
    assert round_ is not None and round_.message_id is not None
    return round_.id, fake.messages[round_.message_id]


async def test_daily_post_reaches_the_channel_with_buttons_and_reactions(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    round_id, message = await post_daily(core, fake)
    assert fake.channel_messages() == [message]
    question = core.service.context.bank.get((await core.store.get_round(round_id)).question_id)  # type: ignore[union-attr]
    embed = message["embeds"][0]
    assert question.prompt in embed["description"] and all(c in embed["description"] for c in question.choices)
    assert custom_ids(message["components"]) == [f"studybot:answer:{round_id}:{x}" for x in LETTERS]
    assert not any(b.get("disabled") for b in buttons(message["components"]))
    bot_reactions = [emoji for mid, emoji, user in fake.reactions_added if mid == message["id"] and user == fake.bot.id]
    assert bot_reactions == [EMOJI[x] for x in LETTERS]
    assert (await core.store.get_round(round_id)).message_id == message["id"]  # type: ignore[union-attr]
    closes_at = (await core.store.get_round(round_id)).closes_at  # type: ignore[union-attr]
    assert closes_at is not None  # the reveal time as Discord's timestamp: each member reads it in their own zone
    how = [f["value"] for f in embed["fields"] if f["name"] == "How to answer"][0]
    stamp = int(closes_at.timestamp())
    assert f"The answer is revealed <t:{stamp}:F> (<t:{stamp}:R>)." in how


async def test_no_reactions_are_added_when_reaction_answers_are_off(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    _, message = await post_daily(core, fake, reactions=False)
    assert len(buttons(message["components"])) == 4
    assert not fake.requests_to("PUT", r"/reactions/")


async def test_a_click_records_one_answer_and_a_second_is_refused_privately(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    round_id, message = await post_daily(core, fake)
    first = await fake.reply(await fake.click(fake.alice, message, f"studybot:answer:{round_id}:B"))
    assert first.ephemeral and first.callback_type == 4
    assert "Your answer B is locked in" in first.text
    second = await fake.reply(await fake.click(fake.alice, message, f"studybot:answer:{round_id}:C"))
    assert second.ephemeral and "You already answered B" in second.text
    answers = await core.store.round_answers(round_id)
    assert [(a.user_id, a.choice) for a in answers] == [(fake.alice.id, 1)]


async def test_a_reaction_records_one_answer_is_removed_and_acknowledged_by_dm(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    round_id, message = await post_daily(core, fake)
    await fake.react(fake.bob, message["id"], EMOJI["C"])
    await fake.wait_for(lambda: fake.dms(fake.bob), "a DM to bob")
    assert "Your answer C is locked in" in fake.dms(fake.bob)[0]
    await fake.wait_for(lambda: (message["id"], EMOJI["C"], fake.bob.id) in fake.reactions_removed, "removal")

    await fake.react(fake.bob, message["id"], EMOJI["A"])  # a second answer
    await fake.wait_for(lambda: len(fake.dms(fake.bob)) == 2, "a second DM to bob")
    assert "You already answered C" in fake.dms(fake.bob)[1]
    answers = await core.store.round_answers(round_id)
    assert [(a.user_id, a.choice) for a in answers] == [(fake.bob.id, 2)]
    # a click after the reaction is refused too
    reply = await fake.reply(await fake.click(fake.bob, message, f"studybot:answer:{round_id}:D"))
    assert reply.ephemeral and "You already answered C" in reply.text


async def test_a_member_with_closed_dms_still_answers_by_reaction(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    fake.dms_closed.add(fake.alice.id)
    round_id, message = await post_daily(core, fake)
    await fake.react(fake.alice, message["id"], EMOJI["B"])
    await fake.wait_for(lambda: fake.requests_to("POST", r"/users/@me/channels$"), "an attempt to DM alice")
    await fake.wait_for(lambda: any(r.status == 403 for r in fake.requests_to("POST", r"/messages$")), "the 403")
    assert [(a.user_id, a.choice) for a in await core.store.round_answers(round_id)] == [(fake.alice.id, 1)]
    assert (message["id"], EMOJI["B"], fake.alice.id) in fake.reactions_removed
    reply = await fake.reply(await fake.click(fake.bob, message, f"studybot:answer:{round_id}:A"))  # still serving
    assert "locked in" in reply.text


async def test_the_bot_ignores_its_own_reactions(bot: StudyBotClient, fake: FakeDiscord, core: Core) -> None:
    round_id, message = await post_daily(core, fake)
    # the fake echoed MESSAGE_REACTION_ADD for each of the bot's four reactions, as Discord does
    assert len([r for r in fake.reactions_added if r[2] == fake.bot.id]) == 4
    await fake.react(fake.bot, message["id"], EMOJI["B"], with_member=False)  # only the user id tells it is us
    await fake.react(fake.alice, message["id"], EMOJI["A"])  # a sentinel handled after the bot's own events
    await fake.wait_for(lambda: fake.dms(fake.alice), "a DM to alice")
    answers = await core.store.round_answers(round_id)
    assert [a.user_id for a in answers] == [fake.alice.id]
    assert not fake.dms(fake.bot)
    assert all(user != fake.bot.id for _, _, user in fake.reactions_removed)


async def test_without_manage_messages_the_reaction_stays_but_the_answer_counts(fake: FakeDiscord, core: Core) -> None:
    fake.bot_perms = BOT_PERMS  # no Manage Messages in the guild the bot sees
    running = await run_bot(core.service)
    try:
        round_id, message = await post_daily(core, fake)
        await fake.react(fake.alice, message["id"], EMOJI["D"])
        await fake.wait_for(lambda: fake.dms(fake.alice), "a DM to alice")
        assert not fake.requests_to("DELETE", r"/reactions/")
        assert [(a.user_id, a.choice) for a in await core.store.round_answers(round_id)] == [(fake.alice.id, 3)]
    finally:
        await running.stop()


async def test_the_reveal_edits_the_question_and_posts_the_result(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    round_id, message = await post_daily(core, fake)
    round_ = await core.store.get_round(round_id)
    correct = core.service.context.bank.get(round_.question_id).answer_letter  # type: ignore[union-attr]
    wrong = next(x for x in LETTERS if x != correct)
    await fake.reply(await fake.click(fake.alice, message, f"studybot:answer:{round_id}:{correct}"))
    await fake.reply(await fake.click(fake.bob, message, f"studybot:answer:{round_id}:{wrong}"))

    core.clock.set(round_.closes_at)  # type: ignore[union-attr]  # the next daily post, as promised, reveals it
    next_round = await core.service.posting.post_scheduled(round_.ref)  # type: ignore[union-attr]
    assert next_round is not None

    edits = [body for mid, body in fake.edits if mid == message["id"]]
    assert len(edits) == 1
    marked = buttons(edits[0]["components"])
    assert [b["custom_id"] for b in marked] == [f"studybot:answer:{round_id}:{x}" for x in LETTERS]
    assert all(b["disabled"] for b in marked)
    assert [b["style"] for b in marked] == [3 if x == correct else 2 for x in LETTERS]  # 3 = green
    reveal = next(
        m for m in fake.channel_messages() if str(m.get("message_reference", {}).get("message_id")) == message["id"]
    )
    text = str(reveal["embeds"][0])
    assert f"Answer: {correct}" in text and f"<@{fake.alice.id}>" in text and f"<@{fake.bob.id}>" not in text
    assert "Got it right (1)" in text and "How the channel answered (2)" in text
    # order in the channel: question, reveal, next question
    ids = [m["id"] for m in fake.channel_messages()]
    assert ids == [message["id"], reveal["id"], next_round.message_id]


async def test_a_deleted_question_message_does_not_stop_the_reveal(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    round_id, message = await post_daily(core, fake)
    del fake.messages[message["id"]]  # a moderator deleted the question
    card = await core.service.reveals.reveal_round(round_id)
    assert card is not None
    assert fake.requests_to("PATCH", rf"/messages/{message['id']}$")[0].status == 404
    [reveal] = fake.channel_messages()
    assert f"Answer: {card.correct_letter}" in reveal["embeds"][0]["title"]


async def test_a_button_on_an_old_message_still_answers_after_a_restart(
    fake: FakeDiscord, core: Core, tmp_path
) -> None:
    first = await run_bot(core.service)
    round_id, message = await post_daily(core, fake)
    await first.stop()
    await core.close()

    # a new process: new client, new service, the same database file
    again = await open_core(tmp_path / "studybot.db", core.clock)
    second = await run_bot(again.service)
    try:
        assert fake.connected == 1
        reply = await fake.reply(await fake.click(fake.alice, message, f"studybot:answer:{round_id}:A"))
        assert reply.ephemeral and "Your answer A is locked in" in reply.text
        assert [(a.user_id, a.choice) for a in await again.store.round_answers(round_id)] == [(fake.alice.id, 0)]
    finally:
        await second.stop()
        await again.close()


async def test_a_429_on_posting_delays_the_post_and_loses_nothing(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    fake.rate_limit_next("POST", rf"^/api/v10/channels/{fake.channel_id}/messages$", retry_after=0.3)
    fake.rate_limit_next("PUT", r"/reactions/", retry_after=0.2)
    loop = asyncio.get_running_loop()
    started = loop.time()
    round_id, message = await post_daily(core, fake)
    assert loop.time() - started >= 0.5  # waited out both retry-afters
    posts = fake.requests_to("POST", rf"/channels/{fake.channel_id}/messages$")
    assert [p.status for p in posts] == [429, 200]
    assert posts[1].at - posts[0].at >= 0.29
    assert fake.channel_messages() == [message]  # posted once, not dropped, not doubled
    assert [e for mid, e, u in fake.reactions_added if mid == message["id"]] == [EMOJI[x] for x in LETTERS]
    assert (await core.store.get_round(round_id)).message_id == message["id"]  # type: ignore[union-attr]
