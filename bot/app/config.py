"""Settings: the one place that reads the environment (STUDYBOT_*, DISCORD_*, SLACK_*), once, at start.

`Settings.from_env()` parses every variable into one typed object; a bad value is a StartupError whose
message names the variable, the value (never a secret) and what is accepted. `Settings(...)` in code and
tests takes exactly the values given and never looks at the environment.
"""

from __future__ import annotations

import base64
import datetime as dt
import ipaddress
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit, urlunsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, EnvSettingsSource, NoDecode, PydanticBaseSettingsSource, SettingsConfigDict

from bot.bank.load import DEFAULT_BANK_DIR
from bot.kernel.context import DEFAULT_SEND_LEASE
from bot.kernel.errors import StartupError
from bot.kernel.platform_defaults import DEFAULT_HTTP_PORT, DEFAULT_SLACK_SCOPES, check_shards

DEFAULT_DATABASE_URL = "sqlite:///studybot.db"
DEFAULT_WEB_PORT = 8080
MAX_TICK_SECONDS = 300  # a tick longer than this would make a settings change wait minutes to take effect
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
ROLES = ("all", "interactive", "delivery")  # STUDYBOT_ROLE: what one process of the bot does
DEFAULT_DELIVERY_NICE = 10  # STUDYBOT_DELIVERY_NICE: a delivery process's CPU priority below the others'
# STUDYBOT_DELIVERY_RATE: the posts and reveals a second a delivery process starts at most (bot.daily.pace): 10,000
# channels' 20,000 in about 45 s, inside the minute the posts may take (bench.daily_minute --roles)
DEFAULT_DELIVERY_RATE = 450
MAX_DELIVERY_RATE = 1_000_000
SHARD_AUTO = "auto"  # STUDYBOT_SHARD_COUNT=auto: Discord's recommended count, asked at start
SECRET_KEY_HELP = (
    "STUDYBOT_SECRET_KEY must be a Fernet key (44 characters of URL-safe base64 encoding 32 random bytes); "
    'make one with: python -c "from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())"'
)

#: What each variable accepts, for the one-line error (the field's alias is the variable's name).
ACCEPTED: dict[str, str] = {
    "STUDYBOT_DATABASE_URL": "sqlite:///file.db, sqlite:////abs/path.db or postgresql://user:password@host:5432/dbname",
    "STUDYBOT_BANK_DIR": "a folder of question files",
    "STUDYBOT_MISFIRE_GRACE_SECONDS": "a whole number of seconds, 0 or more (default 3600)",
    "STUDYBOT_SEND_LEASE_SECONDS": "a whole number of seconds, 1 or more (default 120)",
    "STUDYBOT_TICK_SECONDS": "a whole number of seconds from 1 to 300 (default 15)",
    "STUDYBOT_LOG_LEVEL": "one of " + ", ".join(LOG_LEVELS),
    "STUDYBOT_CONSOLE_TZ": "an IANA timezone such as UTC or Europe/Berlin",
    "STUDYBOT_METRICS_HOST": "an IP address or host name to listen on, such as 0.0.0.0 or 127.0.0.1",
    "STUDYBOT_METRICS_PORT": "a port number from 0 to 65535, or empty for no endpoint",
    "STUDYBOT_SHARD_COUNT": "a whole number of shards, 1 or more, or auto (Discord's recommended count)",
    "STUDYBOT_ROLE": "all (the default: one process does everything), interactive or delivery",
    "STUDYBOT_DELIVERY_NICE": "a whole number from 0 (off) to 19 (default 10)",
    "STUDYBOT_DELIVERY_RATE": (
        "a whole number of posts and reveals a second up to 1000000, or 0 for no limit (default 450)"
    ),
    "STUDYBOT_SHARD_IDS": "shard numbers, comma separated or a range, such as 0,1 or 0-3",
    "STUDYBOT_HTTP_HOST": "an IP address or host name to listen on, such as 0.0.0.0",
    "STUDYBOT_HTTP_PORT": "a port number from 0 to 65535 (default 3000)",
    "STUDYBOT_WEB_HOST": "an IP address or host name to listen on, such as 127.0.0.1 or 0.0.0.0",
    "STUDYBOT_WEB_PORT": "a port number from 1 to 65535 (default 8080), or 0 for no dashboard",
    "STUDYBOT_PUBLIC_URL": "the dashboard's address as people open it, such as https://quiz.example.com",
    "STUDYBOT_SLACK_ADMINS": "Slack user ids, comma separated, such as U123,T123:U456",
    "DISCORD_GUILD_ID": "a server id (digits)",
    "DISCORD_CLIENT_ID": "an application id (digits)",
    "SLACK_CLIENT_ID": "the app's client id from its Basic Information page",
    "SLACK_SCOPES": "bot scopes, comma separated, such as commands,chat:write",
    "SLACK_REDIRECT_URI": "the https URL of /slack/oauth_redirect",
}
SECRET_NAMES = frozenset(
    {
        "DISCORD_TOKEN",
        "SLACK_BOT_TOKEN",
        "SLACK_APP_TOKEN",
        "SLACK_SIGNING_SECRET",
        "SLACK_CLIENT_SECRET",
        "DISCORD_CLIENT_SECRET",
        "STUDYBOT_SECRET_KEY",
    }
)


def redact_url(url: str) -> str:
    """The URL with its password replaced, for messages and logs."""
    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
    except ValueError:
        return re.sub(r"(//[^:/@]*:)[^@]*@", r"\1***@", url)
    user, host = parts.netloc.rsplit("@", 1)
    return urlunsplit(parts._replace(netloc=f"{user.split(':', 1)[0]}:***@{host}"))


def _whole(value: object, *, low: int, high: int | None = None) -> int:
    if isinstance(value, bool):
        raise ValueError("not a number")
    if isinstance(value, int):
        number = value
    else:
        text = str(value).strip()
        if not re.fullmatch(r"[+-]?\d+", text):
            raise ValueError("not a whole number")
        number = int(text)
    if number < low or (high is not None and number > high):
        raise ValueError("out of range")
    return number


def _seconds(value: object, *, low: int, high: int | None = None) -> dt.timedelta:
    """A duration in whole seconds from the environment; a timedelta from code (a test's fraction of a second)
    only has to be positive and within `high`."""
    if isinstance(value, dt.timedelta):
        if value <= dt.timedelta(0) or (high is not None and value > dt.timedelta(seconds=high)):
            raise ValueError("out of range")
        return value
    return dt.timedelta(seconds=_whole(value, low=low, high=high))


def _check_host(host: str) -> str:
    host = host.strip()
    if not host:
        raise ValueError("empty")
    if re.fullmatch(r"[\d.]+", host):
        ipaddress.IPv4Address(host)  # 999.1.1.1 is no address (and no name to look up)
    elif ":" in host:
        ipaddress.IPv6Address(host.strip("[]"))
    elif not re.fullmatch(r"[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?", host):
        raise ValueError("not a host name")
    return host


def check_database_url(url: str) -> str:
    """Accept sqlite:///path or postgresql://user@host:port/dbname (syntax only; the store connects)."""
    if url.startswith("sqlite:"):
        if not url.startswith("sqlite:///") or url == "sqlite:///":
            raise ValueError("not a sqlite URL")
        return url
    if url.startswith(("postgresql://", "postgres://")):
        parts = urlsplit(url)
        if parts.port is not None and not 1 <= parts.port <= 65535:  # .port raises ValueError for 'abc'
            raise ValueError("bad port")
        if parts.hostname is not None and parts.hostname != "" and not parts.hostname.startswith("/"):
            _check_host(parts.hostname)
        if "@" in parts.netloc and not parts.username:
            raise ValueError("empty user")
        if parts.path not in ("", "/") and not re.fullmatch(r"/[^/]+", parts.path):
            raise ValueError("bad database name")
        return url
    raise ValueError("unsupported scheme")


class Settings(BaseSettings):
    """Every setting of the bot; from_env() reads them, Settings(...) takes them as given."""

    model_config = SettingsConfigDict(
        frozen=True, case_sensitive=True, env_ignore_empty=True, populate_by_name=True, extra="ignore"
    )

    database_url: str = Field(default=DEFAULT_DATABASE_URL, validation_alias="STUDYBOT_DATABASE_URL")
    bank_dir: Path = Field(default=DEFAULT_BANK_DIR, validation_alias="STUDYBOT_BANK_DIR")
    misfire_grace: dt.timedelta = Field(
        default=dt.timedelta(hours=1), validation_alias="STUDYBOT_MISFIRE_GRACE_SECONDS"
    )
    # how long a claimed send (a post, a reveal) is this process's before another may take it up
    send_lease: dt.timedelta = Field(default=DEFAULT_SEND_LEASE, validation_alias="STUDYBOT_SEND_LEASE_SECONDS")
    # how often every process's scheduler looks for due work
    tick: dt.timedelta = Field(default=dt.timedelta(seconds=15), validation_alias="STUDYBOT_TICK_SECONDS")
    log_level: str | None = Field(
        default=None, validation_alias="STUDYBOT_LOG_LEVEL"
    )  # None: INFO, WARNING in the console
    console_timezone: str = Field(default="UTC", validation_alias="STUDYBOT_CONSOLE_TZ")
    metrics_host: str = Field(default="0.0.0.0", validation_alias="STUDYBOT_METRICS_HOST")
    metrics_port: int | None = Field(default=None, validation_alias="STUDYBOT_METRICS_PORT")
    shard_count: int | None = Field(default=None, validation_alias="STUDYBOT_SHARD_COUNT")
    # STUDYBOT_SHARD_COUNT=auto: shard_count is None until the start asks Discord (bot.app.roles)
    shard_auto: bool = False
    # all: answers and the tick; interactive: answers only; delivery: the tick only, over REST
    role: str = Field(default="all", validation_alias="STUDYBOT_ROLE")
    # how far a delivery process lowers its own CPU priority (a nice increment; bot.app.roles.yield_cpu)
    delivery_nice: int = Field(default=DEFAULT_DELIVERY_NICE, validation_alias="STUDYBOT_DELIVERY_NICE")
    # how many posts and reveals a second a delivery process starts at most (0: no limit; bot.daily.pace)
    delivery_rate: int = Field(default=DEFAULT_DELIVERY_RATE, validation_alias="STUDYBOT_DELIVERY_RATE")
    # which of the shard_count shards this process runs (empty: all); the Discord adapter checks the range
    shard_ids: Annotated[tuple[int, ...], NoDecode] = Field(default=(), validation_alias="STUDYBOT_SHARD_IDS")
    http_host: str = Field(default="0.0.0.0", validation_alias="STUDYBOT_HTTP_HOST")
    http_port: int = Field(default=DEFAULT_HTTP_PORT, validation_alias="STUDYBOT_HTTP_PORT")
    web_host: str = Field(default="127.0.0.1", validation_alias="STUDYBOT_WEB_HOST")
    web_port: int | None = Field(default=None, validation_alias="STUDYBOT_WEB_PORT")  # None: 8080, not chosen
    public_url: str | None = Field(default=None, validation_alias="STUDYBOT_PUBLIC_URL")
    slack_admins: Annotated[frozenset[str], NoDecode] = Field(
        default=frozenset(), validation_alias="STUDYBOT_SLACK_ADMINS"
    )
    discord_guild_id: int | None = Field(default=None, validation_alias="DISCORD_GUILD_ID")
    discord_client_id: str | None = Field(default=None, validation_alias="DISCORD_CLIENT_ID")
    discord_client_secret: str | None = Field(default=None, repr=False, validation_alias="DISCORD_CLIENT_SECRET")
    discord_token: str | None = Field(default=None, repr=False, validation_alias="DISCORD_TOKEN")
    slack_bot_token: str | None = Field(default=None, repr=False, validation_alias="SLACK_BOT_TOKEN")
    slack_app_token: str | None = Field(default=None, repr=False, validation_alias="SLACK_APP_TOKEN")
    slack_signing_secret: str | None = Field(default=None, repr=False, validation_alias="SLACK_SIGNING_SECRET")
    slack_client_id: str | None = Field(default=None, validation_alias="SLACK_CLIENT_ID")
    slack_client_secret: str | None = Field(default=None, repr=False, validation_alias="SLACK_CLIENT_SECRET")
    slack_scopes: Annotated[tuple[str, ...], NoDecode] = Field(
        default=DEFAULT_SLACK_SCOPES, validation_alias="SLACK_SCOPES"
    )
    slack_redirect_uri: str | None = Field(default=None, validation_alias="SLACK_REDIRECT_URI")
    secret_key: str | None = Field(default=None, repr=False, validation_alias="STUDYBOT_SECRET_KEY")

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings,)  # the environment is read by from_env only

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Parse the environment (or `env`) once; raises StartupError naming the first bad variable."""
        values = _EnvSource(cls, os.environ if env is None else env)()
        values.pop("shard_auto", None)  # no variable of its own: set by STUDYBOT_SHARD_COUNT=auto only
        if str(values.get("STUDYBOT_SHARD_COUNT", "")).strip().lower() == SHARD_AUTO:
            values["shard_auto"] = True
            del values["STUDYBOT_SHARD_COUNT"]
        try:
            settings = cls(**values)
        except ValidationError as exc:
            raise StartupError(_one_line(exc, values)) from None
        settings.check_shards(str(values.get("STUDYBOT_SHARD_IDS", "")).strip())
        settings.check_role()
        return settings

    def check_role(self) -> None:
        """interactive and delivery processes share a PostgreSQL store; SQLite keeps one `all` process."""
        if self.role != "all" and self.database_url.startswith("sqlite:"):
            raise StartupError(
                f"STUDYBOT_ROLE={self.role} is not accepted with a SQLite database "
                f"(STUDYBOT_DATABASE_URL={redact_url(self.database_url)}): SQLite keeps one process, "
                "STUDYBOT_ROLE=all; split the roles on PostgreSQL."
            )

    def check_shards(self, raw_ids: str) -> None:
        """Shard ids only with a shard count, and each below it, whatever the mode (Discord or not): a
        StartupError naming STUDYBOT_SHARD_IDS as typed (`raw_ids`), the count and the ids accepted."""
        if not self.shard_ids or self.shard_auto:  # auto: checked once the count is known (bot.app.roles)
            return
        if self.shard_count is None:
            raise StartupError(
                f"STUDYBOT_SHARD_IDS={raw_ids} is not accepted without STUDYBOT_SHARD_COUNT: set the number of "
                "shards too, and use shard numbers from 0 to one less than it."
            )
        check_shards(self.shard_count, self.shard_ids, raw_ids)

    # ---- parsers (strings from the environment; typed values from code pass through) -------------

    @field_validator("database_url", mode="before")
    @classmethod
    def _database_url(cls, value: Any) -> str:
        return check_database_url(str(value).strip())

    @field_validator("misfire_grace", mode="before")
    @classmethod
    def _grace(cls, value: Any) -> dt.timedelta:
        if isinstance(value, dt.timedelta):
            if value < dt.timedelta(0):
                raise ValueError("negative")
            return value
        return dt.timedelta(seconds=_whole(value, low=0))

    @field_validator("send_lease", mode="before")
    @classmethod
    def _send_lease(cls, value: Any) -> dt.timedelta:
        return _seconds(value, low=1)

    @field_validator("tick", mode="before")
    @classmethod
    def _tick(cls, value: Any) -> dt.timedelta:
        return _seconds(value, low=1, high=MAX_TICK_SECONDS)

    @field_validator("log_level", mode="before")
    @classmethod
    def _log_level(cls, value: Any) -> str | None:
        if value is None:
            return None
        level = str(value).strip().upper()
        if level not in LOG_LEVELS:
            raise ValueError("unknown level")
        return level

    @field_validator("role", mode="before")
    @classmethod
    def _role(cls, value: Any) -> str:
        role = str(value).strip().lower()
        if role not in ROLES:
            raise ValueError("unknown role")
        return role

    @field_validator("delivery_nice", mode="before")
    @classmethod
    def _nice(cls, value: Any) -> int:
        return _whole(value, low=0, high=19)

    @field_validator("delivery_rate", mode="before")
    @classmethod
    def _rate(cls, value: Any) -> int:
        return _whole(value, low=0, high=MAX_DELIVERY_RATE)

    @field_validator("console_timezone", mode="before")
    @classmethod
    def _timezone(cls, value: Any) -> str:
        name = str(value).strip()
        try:
            ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError("unknown timezone") from exc
        return name

    @field_validator("metrics_host", "http_host", "web_host", mode="before")
    @classmethod
    def _host(cls, value: Any) -> str:
        return _check_host(str(value))

    @field_validator("metrics_port", mode="before")
    @classmethod
    def _optional_port(cls, value: Any) -> int | None:
        return None if value is None else _whole(value, low=0, high=65535)

    @field_validator("http_port", mode="before")
    @classmethod
    def _port(cls, value: Any) -> int:
        return _whole(value, low=0, high=65535)

    @field_validator("web_port", mode="before")
    @classmethod
    def _web_port(cls, value: Any) -> int | None:
        return None if value is None else _whole(value, low=0, high=65535)

    @field_validator("public_url", mode="before")
    @classmethod
    def _public_url(cls, value: Any) -> str | None:
        if value is None or not str(value).strip():
            return None
        return check_public_url(str(value).strip())

    @field_validator("shard_count", mode="before")
    @classmethod
    def _shard_count(cls, value: Any) -> int | None:
        return None if value is None else _whole(value, low=1)

    @field_validator("shard_ids", mode="before")
    @classmethod
    def _shard_ids(cls, value: Any) -> tuple[int, ...]:
        if not isinstance(value, str):
            return tuple(sorted(set(value)))
        ids: set[int] = set()
        for part in value.split(","):
            lo, dash, hi = part.strip().partition("-")
            first, last = _whole(lo, low=0), _whole(hi if dash else lo, low=0)
            if last < first:
                raise ValueError("empty range")
            ids.update(range(first, last + 1))
        return tuple(sorted(ids))

    @field_validator("slack_admins", mode="before")
    @classmethod
    def _admins(cls, value: Any) -> frozenset[str]:
        items = value.split(",") if isinstance(value, str) else value
        return frozenset(a.strip() for a in items if a.strip())

    @field_validator("discord_guild_id", mode="before")
    @classmethod
    def _guild(cls, value: Any) -> int | None:
        if value is None:
            return None
        if not str(value).strip().isdigit():
            raise ValueError("not digits")
        return int(str(value).strip())

    @field_validator("discord_client_id", mode="before")
    @classmethod
    def _client_id(cls, value: Any) -> str | None:
        return None if value is None else str(value).strip() or None

    @field_validator("slack_scopes", mode="before")
    @classmethod
    def _scopes(cls, value: Any) -> tuple[str, ...]:
        items = value.split(",") if isinstance(value, str) else value
        return tuple(s.strip() for s in items if s.strip()) or DEFAULT_SLACK_SCOPES

    @field_validator(
        "slack_client_id",
        "slack_client_secret",
        "slack_redirect_uri",
        "secret_key",
        "discord_client_secret",
        mode="before",
    )
    @classmethod
    def _stripped(cls, value: Any) -> str | None:
        return None if value is None else str(value).strip() or None

    @property
    def slack_oauth(self) -> bool:
        """Add to Slack for many workspaces: on when both SLACK_CLIENT_ID and SLACK_CLIENT_SECRET are set."""
        return bool(self.slack_client_id and self.slack_client_secret)

    def token_key(self) -> bytes:
        """STUDYBOT_SECRET_KEY checked as a Fernet key (bot tokens are encrypted with it). Raises ValueError
        naming the variable and what it accepts; the value itself is never echoed."""
        return check_secret_key(self.secret_key)

    @property
    def dashboard_port(self) -> int:
        """The dashboard's port: STUDYBOT_WEB_PORT, else 8080 (0: no dashboard)."""
        return DEFAULT_WEB_PORT if self.web_port is None else self.web_port

    @property
    def dashboard_url(self) -> str:
        """Where people open the dashboard: STUDYBOT_PUBLIC_URL, else the address it listens on."""
        if self.public_url:
            return self.public_url
        host = {"0.0.0.0": "127.0.0.1", "::": "[::1]"}.get(self.web_host, self.web_host)  # noqa: S104
        if ":" in host and not host.startswith("["):
            host = f"[{host}]"
        return f"http://{host}:{self.dashboard_port}"

    @property
    def platforms(self) -> list[str]:
        out = []
        if self.discord_token:
            out.append("discord")
        if self.slack_bot_token or self.slack_oauth:
            out.append("slack")
        return out

    def effective_log_level(self) -> str:
        """STUDYBOT_LOG_LEVEL, else WARNING in the console channel (no platform) and INFO with one."""
        return self.log_level or ("INFO" if self.platforms else "WARNING")


class _EnvSource(EnvSettingsSource):
    """pydantic-settings' environment source over a given mapping (os.environ, or a test's dict)."""

    def __init__(self, settings_cls: type[BaseSettings], env: Mapping[str, str]) -> None:
        self._given = env
        super().__init__(settings_cls)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        return {k: v for k, v in self._given.items() if v is not None and v.strip() != ""}


def _one_line(exc: ValidationError, values: Mapping[str, Any]) -> str:
    error = exc.errors()[0]
    name = str(error["loc"][0]) if error["loc"] else "setting"
    if name not in ACCEPTED and name not in SECRET_NAMES:
        name = next((f.validation_alias for n, f in Settings.model_fields.items() if n == name), name)  # type: ignore[assignment]
    raw = values.get(name, error.get("input"))
    if name in SECRET_NAMES:
        return f"{name} is set to a value that cannot be used"
    shown = redact_url(str(raw)) if name == "STUDYBOT_DATABASE_URL" else str(raw)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    return f"{name}={shown} is not accepted: use {ACCEPTED.get(name, 'a valid value')}."


def check_public_url(url: str) -> str:
    """http(s)://host[:port][/path], without a query or fragment; kept without its trailing slash."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        raise ValueError("not an http or https address")
    if parts.username or parts.password:
        raise ValueError("no user or password in it")
    _check_host(parts.hostname)
    _ = parts.port  # raises ValueError for a bad port
    return url.rstrip("/")


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
