"""Suggested questions on Discord (issue 12), end to end on the loopback fake: /suggest opens a modal, its
real submission (interaction type 5) stores a suggestion, /quizadmin suggestions lists it with buttons,
Approve puts it in the pack `suggestions` and DMs its author, Reject asks for a reason in a second modal."""

from __future__ import annotations

import json
from typing import Any

from adapters.discord.app import StudyBotClient
from bot.suggestions.values import SuggestionStatus
from tests.adapters.discord.conftest import Core
from tests.adapters.discord.fake_discord import FakeDiscord, FakeInteraction, FakeUser

FIELDS = {
    "topic": "team-lore / easy",
    "prompt": "What does this print?\n```python\nprint(*'ab')\n```",
    "choices": "A) a b\nB) ab\nC) ['a', 'b']\nD) an error",
    "answer": "a",
    "explanation": "print(*'ab') unpacks the string into two arguments, printed with a space.\nhttps://docs.python.org/3/library/functions.html#print",
}


async def submit(fake: FakeDiscord, user: FakeUser, custom_id: str, values: dict[str, str]) -> FakeInteraction:
    """What Discord sends when a member submits a modal: one action row per text input."""
    rows: list[dict[str, Any]] = [
        {"type": 1, "components": [{"type": 4, "custom_id": k, "value": v}]} for k, v in values.items()
    ]
    return await fake._interact(5, user, {"custom_id": custom_id, "components": rows})


async def suggest(fake: FakeDiscord, user: FakeUser, **changes: str) -> str:
    opened = await fake.slash(user, "suggest")
    await fake.wait_for(lambda: opened.callback is not None, "the modal")
    modal = opened.callback or {}
    assert modal["type"] == 9, modal  # MODAL
    data = modal["data"]
    assert data["custom_id"] == "suggest_form" and len(data["components"]) == 5
    ids = [c["components"][0]["custom_id"] for c in data["components"]]
    assert ids == ["topic", "prompt", "choices", "answer", "explanation"]
    return (await fake.reply(await submit(fake, user, "suggest_form", FIELDS | changes))).text


async def test_a_modal_suggestion_is_approved_into_the_pack_and_its_author_gets_a_dm(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    text = await suggest(fake, fake.bob)
    assert "Your question is suggestion #1" in text
    [pending] = await core.store.list_suggestions("discord", fake.guild_id, "pending", 10)
    body = json.loads(pending.body)
    assert (body["topic"], body["difficulty"], body["answer"], body["code"]) == (
        "team-lore",
        "easy",
        "A",
        "print(*'ab')",
    )
    assert body["prompt"] == "What does this print?" and body["reference"].endswith("functions.html#print")

    listing = await fake.reply(await fake.slash(fake.ada, "quizadmin", "suggestions"))
    assert listing.ephemeral and "#1 [team-lore, easy] What does this print?" in listing.text.replace("\\", "")
    assert f"by <@{fake.bob.id}>" in listing.text
    assert listing.custom_ids == ["suggest_approve:1", "suggest_reject:1"]
    message = fake.messages[listing.message_id]  # type: ignore[index]

    refused = await fake.reply(await fake.click(fake.bob, message, "suggest_approve:1"))
    assert refused.ephemeral and "Only members who can manage" in refused.text
    assert (await core.store.get_suggestion("discord", fake.guild_id, 1)).status is SuggestionStatus.PENDING

    approved = await fake.reply(await fake.click(fake.ada, message, "suggest_approve:1"))
    assert (
        approved.ephemeral
        and "Approved suggestion #1: it is question suggestion-1 of the pack suggestions" in approved.text
    )
    assert [q for q, _ in await core.store.pack_questions("discord", fake.guild_id, "suggestions")] == ["suggestion-1"]
    dm = await fake.wait_for(lambda: fake.dms(fake.bob), "the author's DM")
    assert "Your suggested question #1" in dm[0] and "was approved" in dm[0]
    again = await fake.reply(await fake.click(fake.ada, message, "suggest_approve:1"))
    assert "already approved" in again.text

    packs = await fake.reply(await fake.slash(fake.bob, "packs"))
    assert "suggestions: 1 question" in packs.text


async def test_reject_with_a_reason_bad_input_and_the_daily_limit(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    bad = await suggest(fake, fake.bob, answer="E")
    assert "answer: 'E' is not a choice" in bad.replace("\\", "")
    bad = await suggest(fake, fake.bob, choices="A) one\nB) two")
    assert "choices: write exactly four lines" in bad
    assert await core.store.list_suggestions("discord", fake.guild_id, "pending", 10) == []

    for _ in range(3):
        assert "Your question is suggestion" in await suggest(fake, fake.bob)
    fourth = await suggest(fake, fake.bob)
    assert "You have made 3 suggestions today" in fourth and "nothing was saved" in fourth
    assert len(await core.store.list_suggestions("discord", fake.guild_id, "pending", 10)) == 3

    listing = await fake.reply(await fake.slash(fake.ada, "quizadmin", "suggestions"))
    message = fake.messages[listing.message_id]  # type: ignore[index]
    member = await fake.reply(await fake.click(fake.bob, message, "suggest_reject:2"))
    assert "Only members who can manage" in member.text
    click = await fake.click(fake.ada, message, "suggest_reject:2")
    await fake.wait_for(lambda: click.callback is not None, "the reason modal")
    assert click.callback["type"] == 9 and click.callback["data"]["custom_id"] == "suggest_reason:2"  # type: ignore[index]
    done = await fake.reply(await submit(fake, fake.ada, "suggest_reason:2", {"reason": "Two **choices** are right."}))
    assert "Rejected suggestion #2" in done.text
    rejected = await core.store.get_suggestion("discord", fake.guild_id, 2)
    assert rejected.status is SuggestionStatus.REJECTED and rejected.reason == "Two **choices** are right."
    dm = await fake.wait_for(lambda: fake.dms(fake.bob), "the author's DM")
    assert "was not accepted" in dm[0] and "Two \\*\\*choices\\*\\* are right." in dm[0]  # shown as typed
    assert await core.store.list_packs("discord", fake.guild_id) == []
    forged = await fake.reply(await submit(fake, fake.bob, "suggest_reason:3", {"reason": "spite"}))
    assert "Only members who can manage" in forged.text
