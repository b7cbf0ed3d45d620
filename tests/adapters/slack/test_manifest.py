"""The shipped Slack app manifest declares what the adapter relies on."""

from __future__ import annotations

from pathlib import Path

import yaml

MANIFEST = Path(__file__).resolve().parents[3] / "slack" / "manifest.yml"


def test_manifest_declares_command_events_scopes_interactivity_and_home() -> None:
    manifest = yaml.safe_load(MANIFEST.read_text())
    features, settings = manifest["features"], manifest["settings"]
    [command] = features["slash_commands"]
    assert command["command"] == "/quiz"
    assert command["should_escape"] is True, "the adapter parses <#C..|name> and <@U..|name> mentions"
    assert set(settings["event_subscriptions"]["bot_events"]) == {
        "reaction_added",
        "app_home_opened",
        "member_joined_channel",  # the bot invited to a channel says once what it does there
        "app_uninstalled",
        "tokens_revoked",  # the last two: Add to Slack
    }
    assert settings["interactivity"]["is_enabled"] is True
    assert features["app_home"]["home_tab_enabled"] is True
    scopes = set(manifest["oauth_config"]["scopes"]["bot"])
    assert {
        "commands",
        "chat:write",
        "reactions:read",
        "users:read",
        "channels:join",
        "files:write",
        "files:read",
        "im:write",
        "channels:history",  # reading a channel back after an interrupted post (with groups:history)
        "groups:history",
        "channels:read",  # the dashboard names channels (conversations.info, with groups:read)
        "groups:read",
    } <= scopes
    assert len(manifest["display_information"]["description"]) <= 140
