"""Issue 30 item 2 on Discord: the real discord.py client against the loopback fake, over a SQLite store that
cannot write (its connection switched to query_only: every write fails as on a full disk, reads still work).
Each interaction gets a fast private "try again", a reaction answer a DM saying so, and the log says once that
the database cannot record and once that it can again."""

from __future__ import annotations

import asyncio
import logging

from adapters.discord.app import StudyBotClient
from bot.kernel.outage import STORE_DOWN
from tests.adapters.discord.conftest import Core, configure_channel
from tests.adapters.discord.fake_discord import FakeDiscord
from tests.support.loglines import printed_log

EMOJI_C = chr(0x1F1E6 + 2)


async def test_while_the_store_cannot_write_each_interaction_gets_a_private_try_again(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    ref = await configure_channel(core, fake)
    round_ = await core.service.posting.post_scheduled(ref)
    assert round_ is not None and round_.message_id is not None
    message = fake.messages[round_.message_id]
    outage = core.service.context.outage
    outage.probe_every = 0.1

    with printed_log() as printed:
        await core.store.db.execute("PRAGMA query_only = ON")  # writes fail with SQLITE_READONLY from now on
        for user, letter in ((fake.alice, "A"), (fake.bob, "B"), (fake.ada, "D"), (fake.alice, "C")):
            inter = await fake.click(user, message, f"studybot:answer:{round_.id}:{letter}")
            reply = await fake.reply(inter)
            assert reply.ephemeral and reply.text == STORE_DOWN, reply.text
            assert reply.callback_type == 4  # answered at once: no deferral was needed
            assert inter.callback_at is not None and inter.callback_at - inter.sent_at < 1.5
        practice = await fake.reply(await fake.slash(fake.bob, "quiz"))  # a practice question is a write too
        assert practice.ephemeral and practice.text == STORE_DOWN
        board = await fake.reply(await fake.slash(fake.bob, "leaderboard"))  # reads still work
        assert board.ephemeral and STORE_DOWN not in board.text

        await fake.react(fake.bob, message["id"], EMOJI_C)
        await fake.wait_for(lambda: fake.dms(fake.bob), "a DM to bob")
        assert fake.dms(fake.bob) == [STORE_DOWN]
        await asyncio.sleep(0.3)  # probes fail meanwhile, silently
        assert outage.down

        await core.store.db.execute("PRAGMA query_only = OFF")
        for _ in range(100):
            if not outage.down:
                break
            await asyncio.sleep(0.05)
        assert not outage.down  # the probe's write went through
        again = await fake.reply(await fake.click(fake.alice, message, f"studybot:answer:{round_.id}:C"))
        assert "Your answer C is locked in" in again.text

    assert [(a.user_id, a.choice) for a in await core.store.round_answers(round_.id)] == [(fake.alice.id, 2)]
    loud = [(r.name, r.levelname, r.getMessage()) for r, _ in printed.printed if r.levelno >= logging.WARNING]
    assert [(name, level) for name, level, _ in loud] == [
        ("bot.kernel.outage", "ERROR"),
        ("bot.kernel.outage", "WARNING"),
    ], loud
    assert "attempt to write a readonly database" in loud[0][2]
    assert not [line for _, lines in printed.printed for line in lines if "Traceback" in line]
