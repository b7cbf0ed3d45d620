"""A channel's saved settings, and the time zone of its space (bot.daily.store.ChannelStore, the
kernel's ChannelReads).

Run on every store (SQLite, PostgreSQL, the in-memory fake) through StoreContract (store_contract.py).
"""

from __future__ import annotations

import asyncio
import datetime as dt

from bot.kernel.values import ChannelConfig, Difficulty
from tests.integration.contract_values import REF, REF2


class ChannelContract:
    """Channel settings keep every field a row keeps; a space's time zone is its latest saved channel's."""

    async def test_channel_config_round_trips_every_field(self, store):
        cfg = ChannelConfig(
            ref=REF,
            post_time=dt.time(7, 45),
            timezone="Asia/Tokyo",
            weekdays=frozenset({0, 3, 6}),
            topics=frozenset({"autograd", "tensors"}),
            difficulties=frozenset({Difficulty.HARD}),
            paused=True,
            reactions=False,
            answer_window=dt.timedelta(hours=6),
            speed_bonus=True,
            ping_winners=True,
        )
        await store.save_channel(cfg)
        assert await store.get_channel(REF) == cfg
        assert await store.get_channel(REF2) is None
        await store.save_channel(ChannelConfig(ref=REF))
        assert await store.get_channel(REF) == ChannelConfig(ref=REF)
        assert [c.ref for c in await store.list_channels()] == [REF]
        assert await store.list_channels("other") == []

    async def test_space_timezone_follows_the_latest_configured_channel(self, store):
        assert await store.space_timezone("test", "space") is None
        await store.save_channel(ChannelConfig(ref=REF, timezone="Europe/Berlin"))
        await asyncio.sleep(0.002)
        await store.save_channel(ChannelConfig(ref=REF2, timezone="America/New_York"))
        assert await store.space_timezone("test", "space") == "America/New_York"
