"""The role settings' part of the Store contract (issue 32): every store runs it (SQLite, PostgreSQL, the fake)."""

from __future__ import annotations

from bot.kernel.values import ChannelConfig, ChannelRef

HERE = ChannelRef("test", "space", "chan")
THERE = ChannelRef("test", "space", "chan-2")
ELSEWHERE = ChannelRef("test", "other-space", "chan-9")
ROLE, OTHER = "123456789012345678", "876543210987654321"


class RoleContract:
    async def test_the_role_settings_round_trip_and_default_to_off(self, store):
        await store.save_channel(ChannelConfig(ref=HERE))
        saved = await store.get_channel(HERE)
        assert (saved.manager_role, saved.ping_role, saved.ping_group) == (None, None, None)
        full = ChannelConfig(ref=HERE, manager_role=ROLE, ping_role=OTHER, ping_group="S0123ABCD")
        await store.save_channel(full)
        assert await store.get_channel(HERE) == full
        assert [c for c in await store.list_channels("test")] == [full]

    async def test_the_manager_role_is_set_on_every_channel_of_the_space_only(self, store):
        for ref in (HERE, THERE, ELSEWHERE):
            await store.save_channel(ChannelConfig(ref=ref, ping_role=OTHER))
        assert await store.manager_role("test", "space") is None
        await store.set_manager_role("test", "space", ROLE)
        assert [(await store.get_channel(r)).manager_role for r in (HERE, THERE, ELSEWHERE)] == [ROLE, ROLE, None]
        assert (await store.get_channel(HERE)).ping_role == OTHER  # nothing else changes
        assert await store.manager_role("test", "space") == ROLE
        assert await store.manager_role("test", "other-space") is None
        await store.save_channel(ChannelConfig(ref=ChannelRef("test", "space", "chan-3")))  # a new channel: none
        assert await store.manager_role("test", "space") == ROLE
        await store.set_manager_role("test", "space", None)
        assert await store.manager_role("test", "space") is None
