"""Question packs on Discord (issue 12): /quizconfig filters packs, /packs, a channel posting from its pack."""

from __future__ import annotations

import datetime as dt

from adapters.discord.app import StudyBotClient
from bot.kernel.values import Actor
from tests.adapters.discord.conftest import Core, channel_ref, configure_channel
from tests.adapters.discord.fake_discord import FakeDiscord, FakeFile
from tests.support.packs import pack_csv, pack_rows

ADMIN = Actor("admin", is_admin=True)


async def test_a_channel_switched_to_a_pack_posts_from_it(bot: StudyBotClient, fake: FakeDiscord, core: Core) -> None:
    ref = await configure_channel(core, fake)
    now = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
    await core.service.catalog.import_pack(ADMIN, "discord", fake.guild_id, "team", pack_csv(), "csv", now=now)

    refused = await fake.reply(await fake.slash(fake.bob, "quizconfig", "filters", packs="team"))
    assert refused.ephemeral and "Only members who can manage" in refused.text
    missing = await fake.reply(await fake.slash(fake.ada, "quizconfig", "filters", packs="team,nope"))
    assert "There is no pack nope in this space" in missing.text
    saved = await fake.reply(await fake.slash(fake.ada, "quizconfig", "filters", packs="team"))
    assert "Saved." in saved.text and "packs team" in saved.text
    assert (await core.store.get_channel(channel_ref(fake))).packs == frozenset({"team"})  # type: ignore[union-attr]

    listed = await fake.reply(await fake.slash(fake.bob, "packs"))
    assert listed.ephemeral and listed.embeds[0]["title"] == "Question packs"
    assert "team: 30 questions (this channel)" in listed.text
    assert "pytorch:" in listed.text and "(shipped, read-only)" in listed.text

    round_ = await core.service.posting.post_scheduled(ref)
    assert round_ is not None and round_.question_id.startswith("team/team-")
    posted = fake.messages[round_.message_id]  # type: ignore[index]
    assert "Which number does the team call question" in str(posted)


async def test_quizadmin_imports_an_attachment_and_exports_a_file(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    ref = await configure_channel(core, fake)
    csv = pack_csv()
    refused = await fake.reply(
        await fake.slash(fake.bob, "quizadmin", "import", pack="team", file=FakeFile("team.csv", csv))
    )
    assert "Only members who can manage" in refused.text
    assert await core.store.list_packs("discord", fake.guild_id) == []

    done = await fake.reply(
        await fake.slash(fake.ada, "quizadmin", "import", pack="team", file=FakeFile("team.csv", csv))
    )
    assert done.ephemeral and "Imported pack team: 30 questions" in done.text
    assert await core.store.list_packs("discord", fake.guild_id) == [("team", 30, 1)]

    rows = pack_rows()
    rows[4]["answer"] = "F"
    bad = await fake.reply(
        await fake.slash(
            fake.ada, "quizadmin", "import", pack="team", replace=True, file=FakeFile("bad.csv", pack_csv(rows))
        )
    )
    assert "bad.csv: row 6 (question team-4): field answer" in bad.text and "nothing was imported" in bad.text
    huge = await fake.reply(
        await fake.slash(
            fake.ada, "quizadmin", "import", pack="big", file=FakeFile("big.csv", b"x", size=50 * 1024 * 1024)
        )
    )
    assert "file too large: 52,428,800 bytes, at most 1 MiB" in huge.text
    slash = await fake.reply(
        await fake.slash(fake.ada, "quizadmin", "import", pack="a/b", file=FakeFile("team.csv", csv))
    )
    assert "is not a pack name" in slash.text

    inter = await fake.slash(fake.ada, "quizadmin", "export", pack="team", format="csv")
    reply = await fake.reply(inter)
    assert reply.ephemeral and "Pack team (csv)" in reply.text
    sent = inter.callback if "_files" in (inter.callback or {}) else (inter.edits or [{}])[0]
    assert {f.filename: f.data for f in sent["_files"]} == {"team.csv": csv}  # type: ignore[index]

    await fake.reply(await fake.slash(fake.ada, "quizconfig", "filters", packs="team"))
    round_ = await core.service.posting.post_scheduled(ref)
    assert round_ is not None and round_.question_id.startswith("team/")


async def test_quizadmin_question_stats(bot: StudyBotClient, fake: FakeDiscord, core: Core) -> None:
    ref = await configure_channel(core, fake)
    round_ = await core.service.posting.post_scheduled(ref)
    assert round_ is not None
    await core.service.answers.submit_answer(round_.id, fake.bob.id, 0)
    refused = await fake.reply(await fake.slash(fake.bob, "quizadmin", "question-stats"))
    assert "Only members who can manage" in refused.text
    hidden = await fake.reply(await fake.slash(fake.ada, "quizadmin", "question-stats"))
    assert hidden.ephemeral and hidden.text == "Question stats (every pack)\nNo answers yet."  # open until its reveal
    assert await core.service.reveals.reveal_round(round_.id) is not None
    shown = await fake.reply(await fake.slash(fake.ada, "quizadmin", "question-stats"))
    assert shown.ephemeral and shown.text.startswith("Question stats (every pack)")
    assert f"{round_.question_id}: asked 1, 1 answer," in shown.text.replace("\\", "")


async def test_practice_offers_and_serves_the_topics_of_the_channels_packs(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    await configure_channel(core, fake)
    now = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
    await core.service.catalog.import_pack(ADMIN, "discord", fake.guild_id, "team", pack_csv(), "csv", now=now)
    unknown = await fake.reply(await fake.slash(fake.bob, "quiz", topic="team-lore"))
    assert "'team-lore' is not a topic here" in unknown.text  # the channel draws from pytorch only
    await fake.reply(await fake.slash(fake.ada, "quizconfig", "filters", packs="pytorch,team"))

    inter = await fake.autocomplete(fake.bob, "quiz", None, "topic", topic="lore")
    await fake.wait_for(lambda: inter.callback is not None, "the autocomplete result")
    assert [c["value"] for c in inter.callback["data"]["choices"]] == ["team-lore", "team-lore-2"]  # type: ignore[index]

    card = await fake.reply(await fake.slash(fake.bob, "quiz", topic="team-lore"))
    assert card.ephemeral and "Which number does the team call question" in str(card.embeds)


MIB = 1024 * 1024


async def test_an_attachment_larger_than_declared_is_refused_as_it_streams_not_read_whole(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    """Issue 30 item 4: Discord declares 1,000 bytes but serves 16 MiB. The download is read in chunks and
    stops as soon as it passes 1 MiB (or at once, when the CDN's Content-Length already says so): the fake
    CDN counts what it could send, about 1 MiB at most, never the whole file."""
    await configure_channel(core, fake)
    big = b"x" * (16 * MIB)
    for name, chunked in (("liar.csv", False), ("stream.csv", True)):
        refused = await fake.reply(
            await fake.slash(
                fake.ada, "quizadmin", "import", pack="big", file=FakeFile(name, big, size=1000, chunked=chunked)
            )
        )
        assert f"{name}: file too large: more than 1 MiB" in refused.text, refused.text
    downloads = await fake.wait_for(lambda: fake.downloads if len(fake.downloads) == 2 else None, "both downloads")
    sent = [n for _, n in downloads]
    assert sent[0] < MIB  # the Content-Length said 16 MiB: refused before the body
    assert MIB < sent[1] < 2 * MIB  # no length: refused once it passed 1 MiB
    assert await core.store.list_packs("discord", fake.guild_id) == []

    done = await fake.reply(
        await fake.slash(
            fake.ada, "quizadmin", "import", pack="team", file=FakeFile("team.csv", pack_csv(), chunked=True)
        )
    )
    assert "Imported pack team: 30 questions" in done.text  # a file within the limit streams in whole
    assert fake.downloads[2][1] == len(pack_csv())
