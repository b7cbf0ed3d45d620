"""What installations need of the store."""

from __future__ import annotations

import datetime as dt
from typing import Protocol

from bot.installs.values import WorkspaceInstall


class InstallStore(Protocol):
    """Workspace installations (tokens encrypted by the adapter) and OAuth states."""

    # installations of the bot in a workspace ("Add to Slack"), and the OAuth states of the install page
    async def save_install(self, install: WorkspaceInstall) -> None:
        """Insert or replace the installation of (platform, workspace id)."""
        ...

    async def find_install(self, platform: str, workspace_id: str) -> WorkspaceInstall | None: ...

    async def delete_install(self, platform: str, workspace_id: str) -> bool:
        """Forget the workspace's installation; False when there was none."""
        ...

    async def save_oauth_state(self, state: str, expires_at: dt.datetime) -> None: ...

    async def consume_oauth_state(self, state: str, now: dt.datetime) -> bool:
        """True once for a state issued and not expired at `now`; it is gone afterwards."""
        ...
