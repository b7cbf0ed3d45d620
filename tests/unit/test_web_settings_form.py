"""The dashboard's channel settings form: the settings of the channel's platform, as `/quiz config show`
lists them."""

from __future__ import annotations

from bot.settings import SETTINGS
from bot.web.pages import setting_fields


def _names(platform: str) -> set[str]:
    return {field["name"] for field in setting_fields({}, {}, platform)}


def test_a_discord_channel_has_its_roles_and_no_slack_user_group() -> None:
    names = _names("discord")
    assert {"champion_role", "manager_role", "ping_role"} <= names
    assert "ping_group" not in names


def test_a_slack_channel_has_its_user_group_and_no_discord_roles() -> None:
    names = _names("slack")
    assert "ping_group" in names
    assert not names & {"champion_role", "manager_role", "ping_role"}


def test_the_console_has_only_the_settings_every_platform_shares() -> None:
    shared = {s.word for s in SETTINGS if not s.platform}
    assert _names("console") == shared and {"time", "tz", "paused"} <= shared


def test_every_on_off_setting_is_a_choice_of_on_and_off_paused_too() -> None:
    fields = {field["name"]: field for field in setting_fields({}, {}, "discord")}
    on_off = {name for name, field in fields.items() if field["choices"] == ("on", "off")}
    assert {"paused", "reactions", "speed", "ping_winners", "threads"} <= on_off
    assert fields["time"]["choices"] == ()  # a free value stays a text field
