"""Every slash command option fed 6,000 characters and hostile text: every reply is within Discord's documented
limits (content, embed texts, fields, choices) and none of them can notify anyone."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import discord
import pytest

from adapters.discord import limits
from adapters.discord.app import StudyBotClient
from adapters.discord.limits import clip, fit_embeds
from tests.adapters.discord.conftest import Core, configure_channel
from tests.adapters.discord.fake_discord import FakeDiscord, FakeInteraction, FakeUser

LONG = "x" * 6000
HOSTILE = [
    LONG,
    ("@everyone <@&123> <!channel> @here __x__ ``````` " * 200)[:6000],
    "@everyone",
    "<@&123456789012345678>",
    "<!channel>",
    "`" * 12,
    "__x__",
]
STRING, SUBCOMMAND, CHANNEL, USER = 3, 1, 7, 6


def embed_total(embed: dict[str, Any]) -> int:
    return (
        len(embed.get("title", ""))
        + len(embed.get("description", ""))
        + len((embed.get("footer") or {}).get("text", ""))
        + len((embed.get("author") or {}).get("name", ""))
        + sum(len(f["name"]) + len(f["value"]) for f in embed.get("fields", []))
    )


def assert_within_limits(body: dict[str, Any], what: str) -> None:
    """One message body (a callback's data, an edit, a follow-up, a channel message) as Discord checks it."""
    assert len(body.get("content") or "") <= limits.CONTENT_MAX, what
    embeds = body.get("embeds") or []
    assert len(embeds) <= limits.EMBEDS_MAX, what
    for e in embeds:
        assert len(e.get("title", "")) <= limits.TITLE_MAX, what
        assert len(e.get("description", "")) <= limits.DESCRIPTION_MAX, what
        assert len(e.get("fields", [])) <= limits.FIELDS_MAX, what
        for f in e.get("fields", []):
            assert 0 < len(f["name"]) <= limits.FIELD_NAME_MAX and 0 < len(f["value"]) <= limits.FIELD_VALUE_MAX, what
        assert len((e.get("footer") or {}).get("text", "")) <= limits.FOOTER_MAX, what
    assert sum(embed_total(e) for e in embeds) <= limits.EMBED_TOTAL_MAX, what
    for choice in body.get("choices") or []:  # an autocomplete answer
        assert 0 < len(choice["name"]) <= limits.CHOICE_NAME_MAX and len(choice["value"]) <= limits.CHOICE_NAME_MAX
    assert len(body.get("choices") or []) <= limits.CHOICES_MAX, what


def assert_pings_nobody(body: dict[str, Any], what: str) -> None:
    if not (body.get("content") or body.get("embeds")):
        return
    allowed = body.get("allowed_mentions")
    assert allowed is not None and allowed.get("parse") == [] and not allowed.get("roles"), (what, allowed)
    assert not allowed.get("users"), (what, allowed)


def bodies(inter: FakeInteraction) -> list[dict[str, Any]]:
    cb = inter.callback or {}
    return [cb.get("data") or {}, *inter.edits, *inter.followups]


def string_options(fake: FakeDiscord) -> list[tuple[str, str | None, str]]:
    """(command, subcommand, option) for every string option of every synced command."""
    out: list[tuple[str, str | None, str]] = []
    for cmds in fake.commands.values():
        for cmd in cmds:
            for opt in cmd.get("options", []):
                if opt["type"] == SUBCOMMAND:
                    out += [
                        (cmd["name"], opt["name"], o["name"]) for o in opt.get("options", []) if o["type"] == STRING
                    ]
                elif opt["type"] == STRING:
                    out.append((cmd["name"], None, opt["name"]))
    return out


def every_command(fake: FakeDiscord) -> list[tuple[str, str | None]]:
    out: list[tuple[str, str | None]] = []
    for cmds in fake.commands.values():
        for cmd in cmds:
            subs = [o["name"] for o in cmd.get("options", []) if o["type"] == SUBCOMMAND]
            out += [(cmd["name"], s) for s in subs] if subs else [(cmd["name"], None)]
    return out


async def test_free_text_options_have_a_max_length_and_closed_ones_choices(
    bot: StudyBotClient, fake: FakeDiscord
) -> None:
    options = string_options(fake)
    assert len(options) >= 13
    for name, sub, option in options:
        cmd = fake.command(name)
        schema = next(o for o in cmd["options"] if o["name"] == (sub or option))
        if sub is not None:
            schema = next(o for o in schema["options"] if o["name"] == option)
        if schema.get("choices"):
            assert all(len(c["name"]) <= 100 and len(str(c["value"])) <= 100 for c in schema["choices"])
        else:
            assert 1 <= schema.get("max_length", 6000) <= 300, (name, sub, option)
            assert schema.get("min_length") == 1


async def test_every_string_option_with_hostile_values_gets_a_reply_within_limits(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    await configure_channel(core, fake)
    replies = 0
    for name, sub, option in string_options(fake):
        user: FakeUser = fake.ada if name == "quizconfig" else fake.alice
        for value in HOSTILE:
            what = f"/{name} {sub or ''} {option}:{value[:20]!r}"
            inter = await fake.slash(user, name, sub, **{option: value})
            reply = await fake.reply(inter)
            assert reply.ephemeral and reply.text, what
            assert "Something went wrong" not in reply.text, what
            for body in bodies(inter):
                assert_within_limits(body, what)
                assert_pings_nobody(body, what)
            replies += 1
    assert replies >= 13 * len(HOSTILE)


async def test_every_command_without_options_replies_within_limits_and_pings_nobody(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    await configure_channel(core, fake)
    for name, sub in every_command(fake):
        inter = await fake.slash(fake.ada, name, sub)
        await fake.reply(inter)
        for body in bodies(inter):
            assert_within_limits(body, f"/{name} {sub}")
            assert_pings_nobody(body, f"/{name} {sub}")
    channel_posts = fake.requests_to("POST", r"/channels/\d+/messages$")
    assert channel_posts, "post-now and reveal posted in the channel"
    for rec in channel_posts:
        assert_within_limits(rec.body, rec.path)
        assert_pings_nobody(rec.body, rec.path)


@pytest.mark.parametrize("current", ["", "eu", LONG, "@everyone", "<!channel>"])
async def test_timezone_autocomplete_answers_within_limits(
    bot: StudyBotClient, fake: FakeDiscord, current: str
) -> None:
    inter = await fake.autocomplete(fake.ada, "quizconfig", "schedule", "timezone", timezone=current)
    await fake.wait_for(lambda: inter.callback is not None, "the autocomplete answer")
    assert inter.callback is not None and inter.callback["type"] == 8
    assert_within_limits(inter.callback["data"], f"autocomplete {current[:20]!r}")


def test_the_safety_net_fits_any_embed_and_keeps_code_blocks_closed() -> None:
    huge = discord.Embed(title=LONG, description="```python\n" + LONG)
    huge.set_footer(text=LONG)
    for _ in range(40):
        huge.add_field(name=LONG, value=LONG)
    fitted = fit_embeds([huge, huge, discord.Embed(description=LONG)])
    body = {"embeds": [e.to_dict() for e in fitted]}
    assert_within_limits(body, "huge embeds")
    assert fitted and fitted[0].description is not None and fitted[0].description.count("```") % 2 == 0
    assert clip("short", 10) == "short" and clip(LONG, 100) == "x" * 99 + "…"


async def test_an_echoed_value_reads_as_typed(bot: StudyBotClient, fake: FakeDiscord) -> None:
    reply = await fake.reply(await fake.slash(fake.alice, "quiz", topic="__x__ *y*"))
    assert "'\\_\\_x\\_\\_ \\*y\\*' is not a topic" in reply.content


# ---- the commands and forms added since: remind, export, forget-me, suggest, reports, /quizadmin ----------

NEW_COMMANDS = {
    ("remind", None),
    ("export", None),
    ("forget-me", None),
    ("suggest", None),
    ("leaderboard", None),
    *(("quizadmin", s) for s in ("import", "export", "question-stats", "reports", "resolve", "suggestions")),
    ("quizconfig", "recap"),
}
NEW_STRING_OPTIONS = {
    ("remind", None, "state"),
    ("remind", None, "time"),
    ("remind", None, "timezone"),
    ("leaderboard", None, "season"),
    ("quizconfig", "recap", "champion_role"),
    ("quizadmin", "import", "pack"),
    ("quizadmin", "export", "pack"),
    ("quizadmin", "question-stats", "pack"),
    ("quizadmin", "resolve", "action"),
}


async def test_the_sweeps_above_reach_every_newer_command_and_option(bot: StudyBotClient, fake: FakeDiscord) -> None:
    """The 6,000-character and no-option sweeps enumerate the synced tree; the newer commands are in it."""
    assert NEW_COMMANDS <= set(every_command(fake))
    assert NEW_STRING_OPTIONS <= set(string_options(fake))


def assert_answered_within_limits(inter: FakeInteraction, text: str, what: str) -> None:
    assert text and "Something went wrong" not in text, what
    assert "x" * 200 not in text, what
    for body in bodies(inter):
        assert_within_limits(body, what)
        assert_pings_nobody(body, what)


@pytest.mark.parametrize("value", [-1, 0, 21, 2**53, 2**70, -(2**70), "²", "9" * 30, 1.5, True])
async def test_integer_options_that_discord_would_never_send_get_a_private_reply(
    bot: StudyBotClient, fake: FakeDiscord, core: Core, value: Any
) -> None:
    await configure_channel(core, fake)
    for user, name, sub, options in (
        (fake.alice, "review", None, {"count": value}),
        (fake.ada, "quizadmin", "resolve", {"report": value, "action": "keep"}),
    ):
        inter = await fake.slash(user, name, sub, **options)
        reply = await fake.reply(inter)
        assert reply.ephemeral, (name, value)
        assert_answered_within_limits(inter, reply.text, f"/{name} {value!r}")
    assert await core.store.reports("discord", fake.guild_id, open_only=False) == []


async def report_forms(fake: FakeDiscord, core: Core) -> Callable[[], Awaitable[dict[str, Any]]]:
    """Post and reveal a round; then each call presses its Report a problem button and gives the form."""
    ref = await configure_channel(core, fake)
    round_ = await core.service.posting.post_scheduled(ref)
    assert round_ is not None
    await core.service.reveals.reveal_round(round_.id)
    reveal = fake.channel_messages()[-1]

    async def open_form() -> dict[str, Any]:
        opened = await fake.click(fake.bob, reveal, f"studybot:report:{round_.id}")
        await fake.wait_for(lambda: opened.callback is not None, "the report form")
        return fake.modal_of(opened)

    return open_form


@pytest.mark.parametrize("value", HOSTILE)
async def test_a_report_form_with_hostile_values_is_answered_within_limits(
    bot: StudyBotClient, fake: FakeDiscord, core: Core, value: str
) -> None:
    open_form = await report_forms(fake, core)
    stored = 0
    for values in ({"report_reason": ["wrong"], "report_text": value}, {"report_reason": [value[:100]]}):
        inter = await fake.submit_modal(fake.bob, await open_form(), values)
        reply = await fake.reply(inter)
        assert reply.ephemeral
        assert_answered_within_limits(inter, reply.text, f"report {values}"[:80])
        stored += "Thanks" in reply.text
    reports = await core.store.reports("discord", fake.guild_id, open_only=False)
    assert len(reports) == stored <= 1 and all(len(r.text) <= 500 for r in reports)
    if reports:  # the admins' queue shows it as plain text, within limits
        inter = await fake.slash(fake.ada, "quizadmin", "reports")
        assert_answered_within_limits(inter, (await fake.reply(inter)).text, "/quizadmin reports")


SUGGESTION = {
    "topic": "team-lore / easy",
    "prompt": "What does print(*'ab') print?",
    "choices": "A) a b\nB) ab\nC) ['a', 'b']\nD) an error",
    "answer": "a",
    "explanation": "It unpacks the string into two arguments.",
}


async def submit_form(fake: FakeDiscord, user: FakeUser, custom_id: str, values: dict[str, str]) -> FakeInteraction:
    """A MODAL_SUBMIT with one action row per text input (values longer than the form allows: forged)."""
    rows = [{"type": 1, "components": [{"type": 4, "custom_id": k, "value": v}]} for k, v in values.items()]
    return await fake._interact(5, user, {"custom_id": custom_id, "components": rows})


@pytest.mark.parametrize("value", HOSTILE)
async def test_suggestion_and_rejection_forms_with_hostile_values_are_answered_within_limits(
    bot: StudyBotClient, fake: FakeDiscord, core: Core, value: str
) -> None:
    await configure_channel(core, fake)
    for field in SUGGESTION:
        inter = await submit_form(fake, fake.bob, "suggest_form", SUGGESTION | {field: value})
        reply = await fake.reply(inter)
        assert reply.ephemeral
        assert_answered_within_limits(inter, reply.text, f"suggest {field}={value[:20]!r}")
    for suggestion in await core.store.list_suggestions("discord", fake.guild_id, "pending", 10):
        assert "x" * 2001 not in str(suggestion)
    listing = await fake.slash(fake.ada, "quizadmin", "suggestions")
    assert_answered_within_limits(listing, (await fake.reply(listing)).text, "/quizadmin suggestions")
    for custom_id in (
        "suggest_reason:1",
        "suggest_reason:²",
        "suggest_reason:" + "9" * 30,
        f"suggest_reason:{value[:50]}",
    ):
        inter = await submit_form(fake, fake.ada, custom_id, {"reason": value})
        reply = await fake.reply(inter)
        assert reply.ephemeral
        assert_answered_within_limits(inter, reply.text, f"{custom_id[:30]} reason={value[:20]!r}")
