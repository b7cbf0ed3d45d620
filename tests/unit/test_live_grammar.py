"""`/quiz live ...` and `/quiz leaderboard live` in the shared text grammar."""

from __future__ import annotations

import pytest

from bot.kernel.errors import BadSetting
from bot.text.command_values import LiveStart, LiveStop, ShowLiveBoard
from bot.text.commands import HELP, parse_quiz


@pytest.mark.parametrize(
    ("text", "command"),
    [
        ("/quiz live", LiveStart()),
        ("/quiz live 5", LiveStart(5)),
        ("/quiz live 5 autograd", LiveStart(5, "autograd")),
        ("/quiz live 5 Autograd 30", LiveStart(5, "autograd", 30)),
        ("/quiz live autograd", LiveStart(None, "autograd")),
        ("/quiz live 12 45s", LiveStart(12, None, 45)),
        ("/quiz live stop", LiveStop()),
        ("/quiz live STOP", LiveStop()),
        ("/quiz leaderboard live", ShowLiveBoard()),
        ("/quiz leaderboard live public", ShowLiveBoard(public=True)),
    ],
)
def test_live_commands_parse(text, command):
    assert parse_quiz(text) == command


@pytest.mark.parametrize(
    "text",
    ["/quiz live 5 10 20", "/quiz live autograd tensors", "/quiz live 3.5", "/quiz live <@U1>", "/quiz live stop now"],
)
def test_what_is_not_a_live_command_says_how_to_write_one(text):
    with pytest.raises(BadSetting) as refused:
        parse_quiz(text)
    assert "/quiz live [n] [topic] [seconds]" in refused.value.message


def test_the_leaderboard_takes_live_alone():
    with pytest.raises(BadSetting):
        parse_quiz("/quiz leaderboard live week")


def test_the_help_names_the_live_commands():
    assert "/quiz live [n] [topic] [seconds] | stop" in HELP
