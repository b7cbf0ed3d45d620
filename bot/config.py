"""Settings from the environment. Secrets are read here and never logged."""

from __future__ import annotations

import base64
import datetime as dt
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from bot.bank import DEFAULT_BANK_DIR
from bot.sharding import parse_shard_ids

DEFAULT_DATABASE_URL = "sqlite:///studybot.db"
# the bot scopes "Add to Slack" asks for (as in slack/manifest.yml); SLACK_SCOPES overrides them
DEFAULT_SLACK_SCOPES = ("commands", "chat:write", "channels:join", "reactions:read", "users:read")
SECRET_KEY_HELP = (
    "STUDYBOT_SECRET_KEY must be a Fernet key (44 characters of URL-safe base64 encoding 32 random bytes); "
    "make one with: python -c \"from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())\""
)


@dataclass(frozen=True)
class Settings:
    database_url: str = DEFAULT_DATABASE_URL
    bank_dir: Path = DEFAULT_BANK_DIR
    misfire_grace: dt.timedelta = dt.timedelta(hours=1)
    log_level: str = "INFO"
    console_timezone: str = "UTC"
    metrics_host: str = "0.0.0.0"
    metrics_port: int | None = None
    shard_count: int | None = None
    shard_ids: tuple[int, ...] = ()
    discord_token: str | None = field(default=None, repr=False)
    slack_bot_token: str | None = field(default=None, repr=False)
    slack_app_token: str | None = field(default=None, repr=False)
    slack_signing_secret: str | None = field(default=None, repr=False)
    slack_client_id: str | None = None
    slack_client_secret: str | None = field(default=None, repr=False)
    slack_scopes: tuple[str, ...] = DEFAULT_SLACK_SCOPES
    slack_redirect_uri: str | None = None
    secret_key: str | None = field(default=None, repr=False)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        grace = env.get("STUDYBOT_MISFIRE_GRACE_SECONDS")
        shard_count = int(env["STUDYBOT_SHARD_COUNT"]) if env.get("STUDYBOT_SHARD_COUNT") else None
        return cls(
            database_url=env.get("STUDYBOT_DATABASE_URL") or DEFAULT_DATABASE_URL,
            bank_dir=Path(env.get("STUDYBOT_BANK_DIR") or DEFAULT_BANK_DIR),
            misfire_grace=dt.timedelta(seconds=int(grace)) if grace else dt.timedelta(hours=1),
            log_level=(env.get("STUDYBOT_LOG_LEVEL") or "INFO").upper(),
            console_timezone=env.get("STUDYBOT_CONSOLE_TZ") or "UTC",
            metrics_host=env.get("STUDYBOT_METRICS_HOST") or "0.0.0.0",
            metrics_port=int(env["STUDYBOT_METRICS_PORT"]) if env.get("STUDYBOT_METRICS_PORT") else None,
            shard_count=shard_count,
            shard_ids=parse_shard_ids(env.get("STUDYBOT_SHARD_IDS"), shard_count) if shard_count else (),
            discord_token=env.get("DISCORD_TOKEN") or None,
            slack_bot_token=env.get("SLACK_BOT_TOKEN") or None,
            slack_app_token=env.get("SLACK_APP_TOKEN") or None,
            slack_signing_secret=env.get("SLACK_SIGNING_SECRET") or None,
            slack_client_id=(env.get("SLACK_CLIENT_ID") or "").strip() or None,
            slack_client_secret=(env.get("SLACK_CLIENT_SECRET") or "").strip() or None,
            slack_scopes=tuple(x.strip() for x in (env.get("SLACK_SCOPES") or "").split(",") if x.strip())
            or DEFAULT_SLACK_SCOPES,
            slack_redirect_uri=(env.get("SLACK_REDIRECT_URI") or "").strip() or None,
            secret_key=(env.get("STUDYBOT_SECRET_KEY") or "").strip() or None,
        )

    @property
    def slack_oauth(self) -> bool:
        """Add to Slack for many workspaces: on when both SLACK_CLIENT_ID and SLACK_CLIENT_SECRET are set."""
        return bool(self.slack_client_id and self.slack_client_secret)

    def token_key(self) -> bytes:
        """STUDYBOT_SECRET_KEY checked as a Fernet key (bot tokens are encrypted with it). Raises ValueError
        naming the variable and what it accepts; the value itself is never echoed."""
        return check_secret_key(self.secret_key)

    @property
    def platforms(self) -> list[str]:
        out = []
        if self.discord_token:
            out.append("discord")
        if self.slack_bot_token or self.slack_oauth:
            out.append("slack")
        return out


def check_secret_key(raw: str | None) -> bytes:
    """A Fernet key is URL-safe base64 of exactly 32 bytes."""
    if not raw:
        raise ValueError(f"STUDYBOT_SECRET_KEY is not set; Slack OAuth (SLACK_CLIENT_ID) needs it. {SECRET_KEY_HELP}")
    try:
        decoded = base64.urlsafe_b64decode(raw.encode("ascii"))
    except (ValueError, UnicodeEncodeError):
        decoded = b""
    if len(decoded) != 32 or len(raw) != 44:
        raise ValueError(f"STUDYBOT_SECRET_KEY is not a valid key. {SECRET_KEY_HELP}")
    return raw.encode("ascii")


def sqlite_path(url: str) -> str:
    """sqlite:///relative.db, sqlite:////abs/path.db or sqlite:///:memory: -> a path for sqlite3."""
    prefix = "sqlite:///"
    if not url.startswith(prefix):
        raise ValueError(f"not a sqlite URL: {url.split('://')[0]}://...")
    return url[len(prefix):] or "studybot.db"
