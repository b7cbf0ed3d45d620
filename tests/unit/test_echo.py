"""Core messages repeat at most ECHO_MAX characters of what someone typed, on one line."""

from __future__ import annotations

import pytest

from bot.kernel.echo import ECHO_MAX, echo
from bot.kernel.errors import BadSetting
from bot.settings import SETTINGS, ConfigChange, lookup
from bot.text.command_values import ShowHelp
from bot.text.commands import parse_quiz

LONG = "x" * 6000
MESSAGE_MAX = 600  # the longest fixed text of a core error plus one echo


def test_echo_keeps_short_text_and_clips_long_text_with_an_ellipsis() -> None:
    assert echo("09:00") == "09:00"
    assert echo("a\nb\r\n\tc") == "a b c"
    clipped = echo(LONG)
    assert len(clipped) == ECHO_MAX and clipped.endswith("…")
    assert echo("y" * ECHO_MAX) == "y" * ECHO_MAX


@pytest.mark.parametrize("setting", [s for s in SETTINGS if s.listed], ids=lambda s: s.word)
def test_every_setting_refuses_a_6000_character_value_briefly(setting) -> None:
    with pytest.raises(BadSetting) as err:
        ConfigChange.parse([(setting.word, LONG + ",\n" + LONG)])
    assert len(err.value.message) <= MESSAGE_MAX and "…" in err.value.message
    assert "\n" not in err.value.message


def test_an_unknown_setting_name_is_echoed_briefly() -> None:
    with pytest.raises(BadSetting) as err:
        lookup(LONG)
    assert len(err.value.message) <= MESSAGE_MAX and "…" in err.value.message


@pytest.mark.parametrize(
    "text",
    [
        LONG,
        f"practice {LONG}",
        f"answer {LONG}",
        f"leaderboard {LONG}",
        f"config {LONG}",
        f"config time {LONG}",
        f"config {LONG} 1 2",
        f"config channel x {LONG} y",
        f"post-now {LONG}",
    ],
)
def test_the_text_grammar_echoes_briefly(text: str) -> None:
    try:
        command = parse_quiz(text)
    except BadSetting as exc:
        message = exc.message
    else:
        assert isinstance(command, ShowHelp), command
        message = f"{command.reason} {command.suggestion or ''}"
    assert len(message) <= MESSAGE_MAX
