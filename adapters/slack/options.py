"""Slack-only settings read from the environment (bot/config.py holds the tokens): the HTTP listener and
an allow-list of quiz admins. No secret is read or logged here."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

DEFAULT_HOST = "0.0.0.0"
DEFAULT_PORT = 3000
EVENTS_PATH = "/slack/events"


@dataclass(frozen=True)
class SlackOptions:
    http_host: str = DEFAULT_HOST
    http_port: int = DEFAULT_PORT
    admins: frozenset[str] = frozenset()  # user ids (U123) or team-scoped ids (T123:U123)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> SlackOptions:
        env = os.environ if env is None else env
        raw_port = (env.get("STUDYBOT_HTTP_PORT") or "").strip()
        try:
            port = int(raw_port) if raw_port else DEFAULT_PORT
        except ValueError:
            raise SystemExit(f"STUDYBOT_HTTP_PORT must be a port number, not {raw_port!r}") from None
        if not 0 <= port <= 65535:
            raise SystemExit(f"STUDYBOT_HTTP_PORT must be between 0 and 65535, not {port}")
        admins = frozenset(a.strip() for a in (env.get("STUDYBOT_SLACK_ADMINS") or "").split(",") if a.strip())
        return cls(http_host=(env.get("STUDYBOT_HTTP_HOST") or DEFAULT_HOST).strip(), http_port=port, admins=admins)
