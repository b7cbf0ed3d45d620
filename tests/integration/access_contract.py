"""Dashboard access decided in the store (bot.access.store.AccessStore): one-time links, sign-in attempts,
the spaces the bot serves.

Mixed into the store test classes (SQLite, PostgreSQL, the in-memory fake), which give the `store` fixture.
"""

from __future__ import annotations

import asyncio
import datetime as dt

from bot.access.values import LinkGrant
from bot.kernel.values import ChannelConfig, ChannelRef
from tests.integration.contract_values import T0

GRANT = LinkGrant("console", "local", "you", True)
MINUTES_10 = dt.timedelta(minutes=10)


class AccessContract:
    async def test_a_link_works_once_before_it_expires(self, store):
        await store.save_login_link("h1", GRANT, T0, T0 + MINUTES_10)
        await store.save_login_link("h2", LinkGrant("discord", "9", "42", False), T0, T0 + MINUTES_10)
        assert await store.redeem_login_link("nope", T0) is None
        assert await store.redeem_login_link("h1", T0 + dt.timedelta(minutes=9)) == GRANT
        assert await store.redeem_login_link("h1", T0 + dt.timedelta(minutes=9)) is None  # once
        assert await store.redeem_login_link("h2", T0 + MINUTES_10) is None  # expired at 10 minutes

    async def test_one_link_redeemed_at_once_has_one_winner(self, store):
        await store.save_login_link("h3", GRANT, T0, T0 + MINUTES_10)
        results = await asyncio.gather(*(store.redeem_login_link("h3", T0) for _ in range(10)))
        assert results.count(GRANT) == 1 and results.count(None) == 9

    async def test_attempts_are_counted_per_bucket_and_window(self, store):
        w1, w2 = T0, T0 + MINUTES_10
        assert [await store.count_login_attempt("a", w1) for _ in range(3)] == [1, 2, 3]
        assert await store.count_login_attempt("b", w1) == 1
        assert await store.count_login_attempt("a", w2) == 1
        counts = await asyncio.gather(*(store.count_login_attempt("c", w1) for _ in range(8)))
        assert sorted(counts) == list(range(1, 9))

    async def test_served_spaces_and_their_channels(self, store):
        for ref in (
            ChannelRef("discord", "g1", "c2"),
            ChannelRef("discord", "g1", "c1"),
            ChannelRef("slack", "g2", "c3"),
        ):
            await store.save_channel(ChannelConfig(ref=ref))
        assert await store.served_spaces("discord", ["g1", "g2", "g3"]) == {"g1"}
        assert await store.served_spaces("slack", ["g2"]) == {"g2"}
        assert await store.served_spaces("discord", []) == set()
        assert [c.ref.channel_id for c in await store.space_channels("discord", "g1")] == ["c1", "c2"]
        assert await store.space_channels("discord", "g2") == []
