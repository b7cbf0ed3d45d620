"""The `/quiz ...` grammar (Slack and the console share it): short forms mean what their long forms do."""

from __future__ import annotations

import pytest

from bot.kernel.errors import BadSetting
from bot.text.command_values import Configure, ShowHelp
from bot.text.commands import TOP_LEVEL, as_quiz_line, parse_quiz


@pytest.mark.parametrize("text", ["show", "/quiz show", "SHOW", "quiz show", "config show", "settings show"])
def test_show_means_config_show(text: str) -> None:
    assert parse_quiz(text) == Configure("show") == parse_quiz("config show")


def test_show_takes_nothing_more() -> None:
    with pytest.raises(BadSetting, match="/quiz show takes nothing more"):
        parse_quiz("show time 09:00")


@pytest.mark.parametrize(
    ("line", "quiz_line"),
    [
        ("/stats", "/quiz stats"),
        ("/Leaderboard week public", "/quiz leaderboard week public"),
        ("  /review 3 ", "/quiz review 3"),
        ("/suggest What is x? | a | b | c | d | A", "/quiz suggest What is x? | a | b | c | d | A"),
    ],
)
def test_discords_own_commands_read_as_the_quiz_lines_they_stand_for(line: str, quiz_line: str) -> None:
    assert as_quiz_line(line) == quiz_line


@pytest.mark.parametrize("line", ["stats", "/quiz stats", "/config show", "/statistics", "/", "hello"])
def test_a_line_that_is_no_top_level_command_is_not_read_as_one(line: str) -> None:
    assert as_quiz_line(line) is None


def test_every_top_level_command_is_a_quiz_command() -> None:
    for word in TOP_LEVEL:
        try:
            command = parse_quiz(f"/quiz {word}")
        except BadSetting:
            continue  # a command that wants more words (/quiz answer B)
        assert not isinstance(command, ShowHelp), word
