"""Slack-only settings, taken from the one Settings object (bot/app/config.py reads the environment): the HTTP
listener and an allow-list of quiz admins."""

from __future__ import annotations

from dataclasses import dataclass

from adapters.slack.settings import DEFAULT_HTTP_PORT, SlackSettings

DEFAULT_HOST = "0.0.0.0"
DEFAULT_PORT = DEFAULT_HTTP_PORT
EVENTS_PATH = "/slack/events"


@dataclass(frozen=True)
class SlackOptions:
    http_host: str = DEFAULT_HOST
    http_port: int = DEFAULT_PORT
    admins: frozenset[str] = frozenset()  # user ids (U123) or team-scoped ids (T123:U123)

    @classmethod
    def from_settings(cls, settings: SlackSettings) -> SlackOptions:
        return cls(http_host=settings.http_host, http_port=settings.http_port, admins=settings.slack_admins)
