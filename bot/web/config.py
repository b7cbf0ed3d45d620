"""What the dashboard is configured with (built by bot/app from the settings; secrets never shown)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from bot.access.values import ATTEMPT_LIMIT


@dataclass(frozen=True)
class OAuthClient:
    """An OAuth application's id and secret (Discord's or Slack's)."""

    client_id: str
    client_secret: str = field(repr=False)


@dataclass(frozen=True)
class Endpoints:
    """Where the sign-in providers answer (tests point these at loopback fakes)."""

    discord_authorize: str = "https://discord.com/oauth2/authorize"
    discord_api: str = "https://discord.com/api/v10"  # /oauth2/token, /users/@me, /users/@me/guilds
    slack_authorize: str = "https://slack.com/openid/connect/authorize"
    slack_api: str = "https://slack.com/api"  # /openid.connect.token, /openid.connect.userInfo


@dataclass(frozen=True)
class WebConfig:
    """The dashboard's address, its cookie key and its sign-in providers."""

    public_url: str  # where people open it (links and OAuth callbacks), without a trailing slash
    key: bytes = field(repr=False)  # a Fernet key: sessions are signed and encrypted with it
    discord: OAuthClient | None = None
    slack: OAuthClient | None = None
    endpoints: Endpoints = Endpoints()
    session_lifetime: dt.timedelta = dt.timedelta(hours=12)
    attempt_limit: int = ATTEMPT_LIMIT  # sign-in attempts per client per 10 minutes

    @property
    def secure(self) -> bool:
        """Behind https: cookies are marked Secure."""
        return self.public_url.startswith("https://")

    def url(self, path: str) -> str:
        return self.public_url + path
