"""STUDYBOT_ROLE and STUDYBOT_SHARD_COUNT=auto as settings (issue 34); the processes themselves are run in
tests/adapters/discord/test_process_roles.py and tests/integration/test_roles_cluster.py."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys

import pytest

from bot.app.cli import _starters
from bot.app.config import Settings
from bot.app.roles import batching_of, check_start, round_cache_of, runs_tick, web_settings
from bot.kernel.errors import StartupError
from bot.kernel.rounds import ROUND_CACHE_SIZE, RoundCache
from bot.kernel.values import ChannelRef, Round, RoundKind

PG = "postgresql://bot@127.0.0.1:5432/studybot"


def settings(**env: str) -> Settings:
    return Settings.from_env({"STUDYBOT_DATABASE_URL": PG, **env})


def test_the_default_role_is_all_and_does_everything() -> None:
    s = Settings.from_env({})
    assert s.role == "all" and runs_tick(s)
    assert web_settings(s) is s


@pytest.mark.parametrize(("raw", "role"), [("all", "all"), ("Interactive", "interactive"), (" delivery ", "delivery")])
def test_roles_on_postgresql(raw: str, role: str) -> None:
    assert settings(STUDYBOT_ROLE=raw).role == role


def test_an_unknown_role_names_the_variable_the_value_and_the_roles() -> None:
    with pytest.raises(StartupError) as exc:
        settings(STUDYBOT_ROLE="fanout")
    assert str(exc.value) == (
        "STUDYBOT_ROLE=fanout is not accepted: use all (the default: one process does everything), interactive "
        "or delivery."
    )


@pytest.mark.parametrize("role", ["interactive", "delivery"])
def test_sqlite_keeps_one_all_process(role: str) -> None:
    with pytest.raises(StartupError) as exc:
        Settings.from_env({"STUDYBOT_ROLE": role, "STUDYBOT_DATABASE_URL": "sqlite:///bot.db"})
    assert str(exc.value) == (
        f"STUDYBOT_ROLE={role} is not accepted with a SQLite database (STUDYBOT_DATABASE_URL=sqlite:///bot.db): "
        "SQLite keeps one process, STUDYBOT_ROLE=all; split the roles on PostgreSQL."
    )
    assert Settings.from_env({"STUDYBOT_ROLE": "all", "STUDYBOT_DATABASE_URL": "sqlite:///bot.db"}).role == "all"


def test_a_split_role_needs_a_chat_platform() -> None:
    with pytest.raises(StartupError, match=r"^STUDYBOT_ROLE=delivery needs a platform"):
        check_start(settings(STUDYBOT_ROLE="delivery"))
    check_start(settings(STUDYBOT_ROLE="delivery", DISCORD_TOKEN="x"))
    check_start(settings())  # all: the console


def test_an_interactive_process_runs_no_tick_and_a_delivery_process_no_dashboard() -> None:
    interactive = settings(STUDYBOT_ROLE="interactive", STUDYBOT_WEB_PORT="8081", STUDYBOT_METRICS_PORT="9100")
    assert not runs_tick(interactive) and web_settings(interactive) is interactive
    delivery = settings(STUDYBOT_ROLE="delivery", STUDYBOT_WEB_PORT="8081", STUDYBOT_METRICS_PORT="9100")
    assert runs_tick(delivery)
    web = web_settings(delivery)
    assert web.dashboard_port == 0 and web.metrics_port == 9100  # /healthz and /metrics stay


def test_each_role_starts_the_platform_its_own_way() -> None:
    """Listeners (gateway, Slack events) in all and interactive processes; REST only in delivery ones."""
    env = {"DISCORD_TOKEN": "x", "SLACK_BOT_TOKEN": "y"}
    for role in ("all", "interactive"):
        starters = _starters(settings(STUDYBOT_ROLE=role, **env))
        assert [f.__module__ + "." + f.__name__ for f in starters.values()] == [
            "adapters.discord.app.start_discord",
            "adapters.slack.app.start_slack",
        ]
    starters = _starters(settings(STUDYBOT_ROLE="delivery", **env))
    assert [f.__module__ + "." + f.__name__ for f in starters.values()] == [
        "adapters.discord.delivery.start_discord_delivery",
        "adapters.slack.delivery.start_slack_delivery",
    ]


def test_shard_count_auto_is_asked_at_start_and_shard_ids_wait_for_it() -> None:
    s = settings(STUDYBOT_SHARD_COUNT="auto", STUDYBOT_SHARD_IDS="2-3")
    assert s.shard_auto and s.shard_count is None and s.shard_ids == (2, 3)
    assert settings(STUDYBOT_SHARD_COUNT="AUTO").shard_auto
    assert not settings(STUDYBOT_SHARD_COUNT="4").shard_auto
    assert not Settings.from_env({"shard_auto": "true"}).shard_auto  # no variable of its own
    with pytest.raises(StartupError, match=r"^STUDYBOT_SHARD_COUNT=autom is not accepted: .* or auto"):
        settings(STUDYBOT_SHARD_COUNT="autom")


@pytest.mark.parametrize(("raw", "nice"), [(None, 10), ("0", 0), (" 19 ", 19)])
def test_delivery_nice_defaults_to_10_and_takes_0_to_19(raw: str | None, nice: int) -> None:
    env = {"STUDYBOT_DELIVERY_NICE": raw} if raw is not None else {}
    assert settings(STUDYBOT_ROLE="delivery", **env).delivery_nice == nice


@pytest.mark.parametrize("raw", ["20", "-5", "high"])
def test_a_bad_delivery_nice_names_the_variable_the_value_and_what_is_accepted(raw: str) -> None:
    with pytest.raises(StartupError) as exc:
        settings(STUDYBOT_DELIVERY_NICE=raw)
    assert str(exc.value) == (
        f"STUDYBOT_DELIVERY_NICE={raw} is not accepted: use a whole number from 0 (off) to 19 (default 10)."
    )


@pytest.mark.parametrize(("raw", "rate"), [(None, 450), ("0", 0), (" 2000 ", 2000)])
def test_delivery_rate_defaults_to_450_and_0_is_no_limit(raw: str | None, rate: int) -> None:
    env = {"STUDYBOT_DELIVERY_RATE": raw} if raw is not None else {}
    s = settings(STUDYBOT_ROLE="delivery", **env)
    assert s.delivery_rate == rate and batching_of(s).rate == rate


@pytest.mark.parametrize("role", ["all", "interactive"])
def test_only_a_delivery_process_paces_its_tick(role: str) -> None:
    assert batching_of(settings(STUDYBOT_ROLE=role, STUDYBOT_DELIVERY_RATE="100")).rate == 0


@pytest.mark.parametrize("raw", ["-1", "fast", "2.5", "1000001"])
def test_a_bad_delivery_rate_names_the_variable_the_value_and_what_is_accepted(raw: str) -> None:
    with pytest.raises(StartupError) as exc:
        settings(STUDYBOT_DELIVERY_RATE=raw)
    assert str(exc.value) == (
        f"STUDYBOT_DELIVERY_RATE={raw} is not accepted: use a whole number of posts and reveals a second up to "
        "1000000, or 0 for no limit (default 450)."
    )


# a process of its own: a lowered priority cannot be raised again without privileges
_NICE_PROBE = """
import os, sys
from bot.app.config import Settings
from bot.app.roles import yield_cpu
before = os.getpriority(os.PRIO_PROCESS, 0)
yield_cpu(Settings.from_env({"STUDYBOT_DATABASE_URL": "postgresql://bot@127.0.0.1/db", **dict(
    pair.split("=", 1) for pair in sys.argv[1:])}))
print(os.getpriority(os.PRIO_PROCESS, 0) - before)
"""


@pytest.mark.parametrize(
    ("env", "lowered"),
    [
        (["STUDYBOT_ROLE=delivery"], 10),
        (["STUDYBOT_ROLE=delivery", "STUDYBOT_DELIVERY_NICE=3"], 3),
        (["STUDYBOT_ROLE=delivery", "STUDYBOT_DELIVERY_NICE=0"], 0),
        (["STUDYBOT_ROLE=interactive", "STUDYBOT_DELIVERY_NICE=5"], 0),
        (["STUDYBOT_ROLE=all"], 0),
    ],
)
def test_only_a_delivery_process_lowers_its_cpu_priority(env: list[str], lowered: int) -> None:
    done = subprocess.run([sys.executable, "-c", _NICE_PROBE, *env], capture_output=True, text=True, check=True)
    assert int(done.stdout) == min(lowered, 19 - os.getpriority(os.PRIO_PROCESS, 0))


@pytest.mark.parametrize(
    ("role", "kept"), [("all", ROUND_CACHE_SIZE), ("interactive", ROUND_CACHE_SIZE), ("delivery", 0)]
)
def test_a_delivery_process_keeps_no_rounds_in_memory(role: str, kept: int) -> None:
    assert round_cache_of(settings(STUDYBOT_ROLE=role)) == kept


def _round(round_id: int) -> Round:
    return Round(
        round_id,
        RoundKind.DAILY,
        ChannelRef("fake", "s", "c"),
        "q1",
        "tensors",
        dt.datetime(2026, 12, 7, tzinfo=dt.UTC),
    )


def test_the_round_cache_keeps_its_newest_rounds_and_of_size_0_none() -> None:
    cache = RoundCache(2)
    for i in (1, 2, 1, 3):  # keeping a kept round again replaces it and drops no other
        cache.keep(_round(i))
    assert [r.id for r in cache] == [2, 3]
    none = RoundCache(0)
    none.keep(_round(1))
    assert none.get(1) is None and list(none) == []
