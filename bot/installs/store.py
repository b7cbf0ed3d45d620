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

    async def claim_token_refresh(
        self, platform: str, workspace_id: str, token_secret: str, now: dt.datetime, until: dt.datetime
    ) -> bool:
        """Claim the renewal of the workspace's token (the one sealed as `token_secret`) until `until`: True
        for one caller only, while that token is still the stored one and no other claim is live at `now`."""
        ...

    async def save_refreshed_token(
        self,
        platform: str,
        workspace_id: str,
        old_secret: str,
        token_secret: str,
        refresh_secret: str,
        expires_at: dt.datetime | None,
    ) -> bool:
        """Replace the token sealed as `old_secret` by a renewed one (compare-and-set) and end the claim;
        False, changing nothing, when the stored token is no longer `old_secret`."""
        ...

    async def save_oauth_state(self, state: str, expires_at: dt.datetime) -> None: ...

    async def consume_oauth_state(self, state: str, now: dt.datetime) -> bool:
        """True once for a state issued and not expired at `now`; it is gone afterwards."""
        ...
