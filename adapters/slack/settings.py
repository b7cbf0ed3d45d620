"""What the Slack adapter reads of the bot's settings (bot/app/config.py reads the environment once and hands
its Settings in; any object with these attributes will do)."""

from __future__ import annotations

from typing import Protocol

from bot.kernel.platform_defaults import DEFAULT_HTTP_PORT, DEFAULT_SLACK_SCOPES

__all__ = ["DEFAULT_HTTP_PORT", "DEFAULT_SLACK_SCOPES", "SlackSettings"]


class SlackSettings(Protocol):
    """The Slack tokens and secrets, the HTTP listener, the admins and "Add to Slack"."""

    @property
    def slack_bot_token(self) -> str | None: ...

    @property
    def slack_app_token(self) -> str | None: ...

    @property
    def slack_signing_secret(self) -> str | None: ...

    @property
    def slack_client_id(self) -> str | None: ...

    @property
    def slack_client_secret(self) -> str | None: ...

    @property
    def slack_scopes(self) -> tuple[str, ...]: ...

    @property
    def slack_redirect_uri(self) -> str | None: ...

    @property
    def slack_admins(self) -> frozenset[str]: ...

    @property
    def http_host(self) -> str: ...

    @property
    def http_port(self) -> int: ...

    @property
    def slack_oauth(self) -> bool: ...

    def token_key(self) -> bytes:
        """STUDYBOT_SECRET_KEY checked as a Fernet key; raises ValueError when it is not one."""
        ...
