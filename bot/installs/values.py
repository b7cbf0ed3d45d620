"""Installations of the bot in a workspace (a Slack team, or an org for an org-wide install).

The store keeps each as a row keyed by (platform, workspace id). The bot token travels as `token_secret`:
the adapter encrypts it before it reaches the service, so no store ever holds the plaintext. With token
rotation the refresh token travels the same way (`refresh_secret`), and the store decides which one process
renews an expiring token (claim_token_refresh, then a compare-and-set in save_refreshed_token).
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
    # token rotation: the encrypted refresh token (as opaque as token_secret) and when the token expires
    refresh_secret: str | None = field(default=None, repr=False)
    token_expires_at: dt.datetime | None = None  # None: the token never expires
