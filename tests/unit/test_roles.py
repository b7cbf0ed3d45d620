"""The role settings on the in-memory store: manager_role (Discord: a setting of the whole server, changed only
with Manage Server itself), ping_role (Discord) and ping_group (Slack) parsed, refused where the platform has
no such thing or says the role cannot serve, and carried by the daily question's card (never by practice)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace

import pytest

from bot.app.bootstrap import bootstrap
from bot.kernel.errors import BadSetting, NotAllowed
from bot.kernel.values import Actor, ChannelConfig, ChannelRef
from bot.settings import ConfigCard, ConfigChange, lookup
from tests.support.fakes import FakePlatform, FixedClock, make_bank, store_of
from tests.support.memory_store import InMemoryStore

ROLE = "998877665544332211"
OTHER_ROLE = "112233445566778899"
HERE = ChannelRef("fake", "space-1", "chan-1")
THERE = ChannelRef("fake", "space-1", "chan-2")
ELSEWHERE = ChannelRef("fake", "space-2", "chan-9")
OWNER = Actor("owner", is_admin=True)
MANAGER = Actor("manager", is_admin=True, via_role=True)


@dataclass
class RolePlatform(FakePlatform):
    """Has roles, as Discord: says which roles cannot serve."""

    problem: str | None = None
    asked: tuple[str, str] | None = None

    async def role_problem(self, ref: ChannelRef, role_id: str, use: str) -> str | None:
        self.asked = (role_id, use)
        return self.problem


@dataclass
class GroupPlatform(FakePlatform):
    """Has user groups, as Slack."""

    async def group_problem(self, ref: ChannelRef, group_id: str) -> str | None:
        return None


async def env(platform: FakePlatform):
    store = InMemoryStore()
    await store.open()
    return bootstrap(store, make_bank(), FixedClock(dt.datetime(2026, 6, 1, 8, tzinfo=dt.UTC)), {"fake": platform})


def test_the_role_settings_parse_mentions_ids_and_off() -> None:
    for word in ("manager_role", "ping_role"):
        setting = lookup(word)
        assert setting.default is None and setting.render(None) == "off" and setting.platform == "discord"
        assert setting.parse(f"<@&{ROLE}>") == ROLE and setting.parse(ROLE) == ROLE and setting.parse("off") is None
        for bad in ("@Quiz", "<@123456789012345678>", "12", "x" * 6000):
            with pytest.raises(BadSetting) as caught:
                setting.parse(bad)
            assert len(caught.value.message) < 200
    group = lookup("ping_group")
    assert group.platform == "slack" and group.render(None) == "off"
    assert group.parse("<!subteam^S0123ABCD|@learners>") == "S0123ABCD" == group.parse("S0123ABCD")
    assert group.parse("<!subteam^S0123ABCD>") == "S0123ABCD" and group.parse("none") is None
    for bad in ("@learners", "Sports", "<!here>", "<@U0123ABCD>", "<!subteam^S01|x>y>", "x" * 6000):
        with pytest.raises(BadSetting, match="is not a Slack user group") as caught:
            group.parse(bad)
        assert len(caught.value.message) < 250
    assert ConfigChange.parse([("manager", ROLE), ("ping-role", "off")]) == ConfigChange.of(
        manager_role=ROLE, ping_role=None
    )


async def test_roles_are_refused_without_roles_and_groups_without_groups() -> None:
    service = await env(FakePlatform())
    for key, value, why in (
        ("manager_role", ROLE, "manager_role is a Discord setting: Fake has no roles"),
        ("ping_role", "off", "ping_role is a Discord setting: Fake has no roles"),
        ("ping_group", "S0123ABCD", "ping_group is a Slack setting: Fake has no user groups"),
    ):
        with pytest.raises(BadSetting, match=why):
            await service.channels.configure(OWNER, HERE, ConfigChange.parse([(key, value)]))
    assert await service.channels.saved(HERE) is None
    groups = await env(GroupPlatform())
    card = await groups.channels.configure(OWNER, HERE, ConfigChange.parse([("ping_group", "S0123ABCD")]))
    assert card.config.ping_group == "S0123ABCD"
    with pytest.raises(BadSetting, match="is a Discord setting"):
        await groups.channels.configure(OWNER, HERE, ConfigChange.parse([("ping_role", ROLE)]))


async def test_a_role_the_platform_refuses_is_not_saved() -> None:
    platform = RolePlatform(problem="I cannot mention the role Learners: allow anyone to mention it.")
    service = await env(platform)
    with pytest.raises(BadSetting, match="I cannot mention the role Learners"):
        await service.channels.configure(OWNER, HERE, ConfigChange.of(ping_role=ROLE))
    assert platform.asked == (ROLE, "ping") and await service.channels.saved(HERE) is None
    with pytest.raises(BadSetting, match="I cannot mention"):
        await service.channels.configure(OWNER, HERE, ConfigChange.of(manager_role=ROLE))
    assert platform.asked == (ROLE, "manager")
    platform.problem = None
    card = await service.channels.configure(OWNER, HERE, ConfigChange.of(ping_role=ROLE, manager_role=ROLE))
    assert (card.config.ping_role, card.config.manager_role) == (ROLE, ROLE)
    assert (await service.channels.channel_config(HERE)).ping_role == ROLE


async def test_the_manager_role_is_the_spaces_and_only_manage_server_changes_it() -> None:
    service = await env(RolePlatform())
    channels, store = service.channels, store_of(service)
    await channels.configure(OWNER, HERE, ConfigChange.of(timezone="UTC"))
    await channels.configure(OWNER, ELSEWHERE, ConfigChange.of(timezone="UTC"))
    await channels.configure(OWNER, THERE, ConfigChange.of(manager_role=ROLE))
    assert (await store.get_channel(HERE)).manager_role == ROLE  # every channel of the server carries it
    assert (await store.get_channel(ELSEWHERE)).manager_role is None  # another server's are its own
    assert await channels.manager_role("fake", "space-1") == ROLE
    # a member who is an admin only through the role runs the quiz, but cannot move the role itself
    await channels.configure(MANAGER, HERE, ConfigChange.of(post_time=dt.time(7, 30)))
    with pytest.raises(NotAllowed, match="Only members with Manage Server can change the manager role"):
        await channels.configure(MANAGER, HERE, ConfigChange.of(manager_role=OTHER_ROLE))
    with pytest.raises(NotAllowed):
        await channels.configure(MANAGER, HERE, ConfigChange.of(manager_role=None))
    assert await channels.manager_role("fake", "space-1") == ROLE
    # a channel configured later carries the server's role; off clears it everywhere
    late = ChannelRef("fake", "space-1", "chan-3")
    assert (await channels.configure(OWNER, late, ConfigChange.of(timezone="UTC"))).config.manager_role == ROLE
    await channels.configure(OWNER, late, ConfigChange.parse([("manager_role", "off")]))
    assert [c.manager_role for c in await store.list_channels("fake") if c.ref.space_id == "space-1"] == [None] * 3
    assert await channels.manager_role("fake", "space-1") is None


async def test_the_daily_question_carries_the_channels_pings_and_practice_never() -> None:
    platform = RolePlatform()
    service = await env(platform)
    await service.channels.configure(OWNER, HERE, ConfigChange.of(post_time=dt.time(9, 0), ping_role=ROLE))
    # a ping_group too (as a channel copied from Slack could have): the card carries both, each platform renders its own
    await store_of(service).save_channel(replace(await service.channels.channel_config(HERE), ping_group="S0123ABCD"))
    await service.posting.post_now(OWNER, HERE)
    [(_, card)] = platform.posted
    assert (card.ping_role, card.ping_group) == (ROLE, "S0123ABCD")
    practice = await service.practice.start_practice(HERE, "ann")
    assert practice.ping_role is None and practice.ping_group is None


def test_the_settings_card_shows_only_the_platforms_own_role_settings() -> None:
    def card(platform: str) -> str:
        return "\n".join(ConfigCard(ChannelConfig(ref=ChannelRef(platform, "s", "c")), None).lines)

    assert "manager role off; ping role off" in card("discord") and "ping group" not in card("discord")
    assert "ping group off" in card("slack") and "manager role" not in card("slack")
    assert "champion role" not in card("slack")
    console = card("console")
    assert all(word not in console for word in ("manager role", "ping role", "ping group", "champion role"))
