"""The settings table: each setting parses what it renders, the grammar and the docs come from it."""

from __future__ import annotations

import datetime as dt
import itertools
from pathlib import Path

import pytest

from bot.kernel.errors import BadSetting
from bot.kernel.parsing import days_text, parse_weekdays
from bot.kernel.values import ChannelConfig, ChannelRef
from bot.settings import DOCS, SETTINGS, ConfigChange, docs_table, listed, lookup, rewrite, stale_docs
from bot.text.command_values import Configure, ShowHelp
from bot.text.commands import HELP, parse_quiz

ROOT = Path(__file__).resolve().parents[2]
REF = ChannelRef("fake", "s", "c")


def test_every_channel_field_is_a_setting_and_its_default_round_trips() -> None:
    fields = set(ChannelConfig.__dataclass_fields__) - {"ref"}
    assert {s.key for s in SETTINGS} == fields
    for s in SETTINGS:
        assert s.parse(s.render(s.default)) == s.default, s.key
        assert len(s.help) <= 100
        s.parse(s.example)  # the documented example is accepted


def test_every_name_finds_its_setting_and_a_typo_gets_a_hint() -> None:
    for s in listed():
        for name in (s.word, *s.aliases, s.option_name):
            assert lookup(name) is s
    with pytest.raises(BadSetting, match="Did you mean speed"):
        lookup("sped")
    with pytest.raises(BadSetting, match="is not a setting"):
        lookup("paused")  # set with pause and resume, not by name


def test_config_change_checks_typed_values_like_typed_text() -> None:
    change = ConfigChange.of(post_time=dt.time(8, 15), speed_bonus=True)
    assert change.apply(ChannelConfig(REF)).post_time == dt.time(8, 15) and "speed_bonus" in change
    for bad in (
        {"timezone": "Mars/Olympus"},
        {"weekdays": frozenset()},
        {"topics": frozenset({"cooking!"})},
        {"colour": "blue"},
        {"answer_window": dt.timedelta(minutes=90)},
    ):
        with pytest.raises(BadSetting):
            ConfigChange.of(**bad)


def test_text_grammar_covers_every_setting() -> None:
    assert "champion_role" not in HELP and "manager_role" not in HELP  # Discord's roles: not in the text help
    for s in listed():
        command = parse_quiz(f"/quiz config {s.word} {s.example}")
        assert isinstance(command, Configure) and command.action == "set"
        assert command.change.get(s.key) == s.parse(s.example)
        assert f"/quiz config {s.word} {s.example}" in HELP or s.platform == "discord"


def test_did_you_mean_and_post_now() -> None:
    assert parse_quiz("/quiz leaderbord") == ShowHelp("'leaderbord' is not a /quiz command", "/quiz leaderboard")
    assert parse_quiz("/quiz frobnicate") == ShowHelp("'frobnicate' is not a /quiz command")
    assert parse_quiz("/quiz post-now") == Configure("post-now")
    with pytest.raises(BadSetting, match="Did you mean `/quiz config pause`"):
        parse_quiz("/quiz config pasue")


def test_the_docs_list_every_setting_and_are_current() -> None:
    assert stale_docs(ROOT) == [], "run python -m bot.settings"
    table = docs_table()
    for s in listed():
        discord = f"/quizconfig {s.group} {s.option_name}:" if s.applies_to("discord") else "(Slack only)"
        assert f"/quiz config {s.word} " in table and discord in table


def test_rewrite_replaces_only_the_marked_block() -> None:
    from bot.settings import BEGIN, END

    text = f"intro\n{BEGIN}\nold\n{END}\nafter\n"
    new = rewrite(text)
    assert new.startswith("intro\n") and new.endswith(f"{END}\nafter\n") and "old" not in new
    assert rewrite("no markers") == "no markers" and len(DOCS) == 3


def test_posting_days_read_as_people_write_them_and_parse_back_to_the_same_days() -> None:
    every = [frozenset(c) for r in range(1, 8) for c in itertools.combinations(range(7), r)]
    assert len(every) == 127 and all(parse_weekdays(days_text(days)) == days for days in every)
    assert [days_text(frozenset(d)) for d in ((0, 1, 2, 3, 4, 5, 6), (0, 1, 2, 3, 4), (5, 6), (0, 2, 4))] == [
        "daily",
        "mon-fri",
        "sat,sun",
        "mon,wed,fri",
    ]
    assert days_text(frozenset({0, 1, 2, 5})) == "mon-wed,sat"  # a run of three or more is a range
