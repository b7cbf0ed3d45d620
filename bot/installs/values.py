"""Installations of the bot in a workspace (a Slack team, or an org for an org-wide install).

The store keeps each as a row keyed by (platform, workspace id). The bot token travels as `token_secret`:
the adapter encrypts it before it reaches the service, so no store ever holds the plaintext.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field


@dataclass(frozen=True)
class WorkspaceInstall:
    platform: str
    workspace_id: str
    bot_user_id: str
    token_secret: str = field(repr=False)  # the encrypted bot token: opaque to the core and the stores
    installed_at: dt.datetime
    bot_id: str | None = None
    scopes: str = ""  # comma-separated, as the platform reports them
    installed_by: str | None = None  # the user who installed it
    enterprise_id: str | None = None
