"""The `/quiz ...` grammar (Slack and the console share it): short forms mean what their long forms do."""

from __future__ import annotations

import pytest

from bot.kernel.errors import BadSetting
from bot.text.command_values import Configure
from bot.text.commands import parse_quiz


@pytest.mark.parametrize("text", ["show", "/quiz show", "SHOW", "quiz show", "config show", "settings show"])
def test_show_means_config_show(text: str) -> None:
    assert parse_quiz(text) == Configure("show") == parse_quiz("config show")


def test_show_takes_nothing_more() -> None:
    with pytest.raises(BadSetting, match="/quiz show takes nothing more"):
        parse_quiz("show time 09:00")
