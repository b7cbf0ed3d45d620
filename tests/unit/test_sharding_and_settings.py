"""Shard ownership and settings read from the environment."""

from __future__ import annotations

import datetime as dt

import pytest

from adapters.discord.sharding import channel_owner, check_shards, discord_shard_of
from bot.app.config import Settings
from bot.kernel.errors import StartupError
from bot.kernel.values import ChannelRef
from bot.store.urls import sqlite_path


def test_discord_shard_formula():
    guild = 197038439483310086  # (guild_id >> 22) % shard_count, as Discord documents
    assert discord_shard_of(guild, 1) == 0
    assert discord_shard_of(guild, 4) == (guild >> 22) % 4


def shard_ids(text: str) -> tuple[int, ...]:
    return Settings.from_env({"STUDYBOT_SHARD_IDS": text, "STUDYBOT_SHARD_COUNT": "4"}).shard_ids


def test_parse_shard_ids():
    assert shard_ids("") == ()  # every shard
    assert check_shards(3, ()) is None
    assert shard_ids("0, 2") == (0, 2)
    assert shard_ids("1-3") == (1, 2, 3)
    with pytest.raises(StartupError, match="outside 0..1"):
        check_shards(2, shard_ids("2"))
    with pytest.raises(StartupError, match="STUDYBOT_SHARD_IDS=one is not accepted"):
        shard_ids("one")


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {"STUDYBOT_SHARD_COUNT": "2", "STUDYBOT_SHARD_IDS": "5"},
            "STUDYBOT_SHARD_IDS=5 is not accepted: shard 5 is outside 0..1 (STUDYBOT_SHARD_COUNT=2); "
            "use shard numbers from 0 to 1.",
        ),
        (
            {"STUDYBOT_SHARD_COUNT": "2", "STUDYBOT_SHARD_IDS": " 1-2 "},
            "STUDYBOT_SHARD_IDS=1-2 is not accepted: shard 2 is outside 0..1 (STUDYBOT_SHARD_COUNT=2); "
            "use shard numbers from 0 to 1.",
        ),
        (
            {"STUDYBOT_SHARD_IDS": "0"},
            "STUDYBOT_SHARD_IDS=0 is not accepted without STUDYBOT_SHARD_COUNT: set the number of shards too, "
            "and use shard numbers from 0 to one less than it.",
        ),
    ],
)
def test_shard_ids_outside_the_count_are_a_bad_setting_in_every_mode(env: dict[str, str], message: str) -> None:
    with pytest.raises(StartupError) as raised:
        Settings.from_env(env)  # no platform token: the console's settings are refused as well
    assert str(raised.value) == message
    assert Settings.from_env({"STUDYBOT_SHARD_COUNT": "2", "STUDYBOT_SHARD_IDS": "1"}).shard_ids == (1,)


def test_each_discord_guild_is_owned_by_exactly_one_process():
    owners = [channel_owner(3, (i,)) for i in range(3)]
    for guild in range(10**17, 10**17 + 500 * (1 << 22), 1 << 22):
        ref = ChannelRef("discord", str(guild), "c")
        assert sum(owns(ref) for owns in owners) == 1
    slack = ChannelRef("slack", "T1", "C1")
    assert all(owns(slack) for owns in owners)  # not sharded: the claim keeps posts to one
    assert channel_owner(None, ())(ChannelRef("discord", "1", "c"))


def test_settings_from_the_environment():
    s = Settings.from_env(
        {
            "STUDYBOT_DATABASE_URL": "sqlite:///x.db",
            "STUDYBOT_MISFIRE_GRACE_SECONDS": "120",
            "STUDYBOT_METRICS_PORT": "9100",
            "STUDYBOT_SHARD_COUNT": "4",
            "STUDYBOT_SHARD_IDS": "2-3",
            "DISCORD_TOKEN": "secret-token",
            "SLACK_BOT_TOKEN": "",
        }
    )
    assert s.database_url == "sqlite:///x.db" and s.misfire_grace == dt.timedelta(seconds=120)
    assert s.metrics_port == 9100 and s.shard_count == 4 and s.shard_ids == (2, 3)
    assert s.platforms == ["discord"]
    assert "secret-token" not in repr(s)
    empty = Settings.from_env({})
    assert empty.database_url == "sqlite:///studybot.db" and empty.platforms == [] and empty.metrics_port is None
    assert empty.send_lease == dt.timedelta(seconds=120) and empty.tick == dt.timedelta(seconds=15)


def test_the_send_lease_and_the_tick_are_settings():
    s = Settings.from_env({"STUDYBOT_SEND_LEASE_SECONDS": " 10 ", "STUDYBOT_TICK_SECONDS": "2"})
    assert s.send_lease == dt.timedelta(seconds=10) and s.tick == dt.timedelta(seconds=2)
    assert Settings.from_env({"STUDYBOT_TICK_SECONDS": "300"}).tick == dt.timedelta(minutes=5)
    for variable, value in [
        ("STUDYBOT_SEND_LEASE_SECONDS", "-1"),
        ("STUDYBOT_SEND_LEASE_SECONDS", "ten"),
        ("STUDYBOT_TICK_SECONDS", "0"),
        ("STUDYBOT_TICK_SECONDS", "301"),
    ]:
        with pytest.raises(StartupError) as raised:
            Settings.from_env({variable: value})
        assert str(raised.value).startswith(f"{variable}={value} is not accepted: use a whole number of seconds")
    # from code (a test), a fraction of a second is fine; nothing zero or negative
    assert Settings(tick=dt.timedelta(milliseconds=50)).tick == dt.timedelta(milliseconds=50)
    with pytest.raises(ValueError):
        Settings(send_lease=dt.timedelta(0))


def test_sqlite_urls():
    assert sqlite_path("sqlite:///studybot.db") == "studybot.db"
    assert sqlite_path("sqlite:////var/lib/studybot/s.db") == "/var/lib/studybot/s.db"
    assert sqlite_path("sqlite:///:memory:") == ":memory:"
    with pytest.raises(ValueError):
        sqlite_path("mysql://x")


def test_a_scheduler_claims_only_its_platforms_and_discord_shards():
    import datetime as dt

    from bot.app.bootstrap import bootstrap
    from bot.app.scheduler import DailyScheduler
    from bot.kernel.values import SpaceFilter
    from tests.support.fakes import FakePlatform, FixedClock, make_bank
    from tests.support.memory_store import InMemoryStore

    service = bootstrap(InMemoryStore(), make_bank(), FixedClock(dt.datetime(2026, 12, 1, tzinfo=dt.UTC)))
    service.context.platforms.add(FakePlatform(name="discord"))
    spaces = DailyScheduler(service, service.context.clock, owns=channel_owner(2, (1,))).spaces
    assert spaces == SpaceFilter(platforms=("discord",), shard_count=2, shard_ids=(1,))
    assert spaces(ChannelRef("discord", str(1 << 22), "c")) and not spaces(ChannelRef("discord", str(2 << 22), "c"))
    assert not spaces(ChannelRef("slack", "T1", "c"))  # no Slack in this process: not its work
    unsharded = DailyScheduler(service, service.context.clock).spaces
    assert unsharded(ChannelRef("discord", "123", "c")) and unsharded.shard_count is None
