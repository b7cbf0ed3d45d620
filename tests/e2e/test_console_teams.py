"""Teams and the role settings in the console, through stdin of a real `studybot` subprocess (SQLite)."""

from __future__ import annotations

import re

import pytest

from tests.e2e.test_console import correct_letter, run_console

pytestmark = pytest.mark.slow


def test_teams_and_the_team_board_in_the_console(tmp_path):
    out = run_console(
        tmp_path,
        [
            "/quiz team create Green Tea",
            "/quiz answer A",
            "/quiz as alice",
            "/quiz team join GREEN tea",
            "/quiz team create Mate",
            "/quiz team rename Green Tea to Oolong",
            "/quiz answer A",
            "/quiz as bob",
            "/quiz team create **Mate**",
            "/quiz team create Mate",
            "/quiz as you",
            "/quiz reveal",
            "/quiz leaderboard teams",
            "/quiz team rename green tea to Oolong",
            "/quiz team list",
            "/quiz config ping_group S0123ABCD",
            "/quiz config manager_role 123456789012345678",
            "/quiz config show",
            "/quit",
        ],
    )
    assert "(private to you) Team Green Tea is created, and you are in it." in out
    assert "(private to alice) You joined team Green Tea." in out
    assert "You are in team Green Tea already: one team per member here (/quiz team leave first)." in out
    assert "can rename a team" in out  # alice is no admin
    assert "'**Mate**' cannot be a team name" in out
    points = 20 if correct_letter(out) == "A" else 0
    board = out[out.index("Team board: week") :]
    assert re.search(rf"1\. Green Tea: {points} pts \(best 2 of 2 members\)", board), board
    mate = 2 if points else 1  # a tie at 0 shares the first place
    assert re.search(rf"{mate}\. Mate: 0 pts \(best 1 of 1 member\)", board), board
    assert "Team Green Tea is now called Oolong." in out
    assert "- Oolong: 2 members" in out and "You are in Oolong." in out
    assert "ping_group is a Slack setting: Console has no user groups" in out
    assert "manager_role is a Discord setting: Console has no roles" in out
    settings = out[out.rindex("== Channel settings") :]
    assert "manager role" not in settings and "ping group" not in settings
