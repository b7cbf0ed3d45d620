"""Installations and de-duplication in SQL written once for both engines."""

from __future__ import annotations

import datetime as dt

from bot.installs.values import WorkspaceInstall
from bot.store.base import SqlBase
from bot.store.rows import (
    INSTALL_COLUMNS,
    install_from_row,
)


class InstallSql(SqlBase):
    """Workspace installations, OAuth states and de-duplicated deliveries."""

    async def remember_once(self, scope: str, key: str, now: dt.datetime, keep: dt.timedelta) -> bool:
        """True the first time (scope, key) is seen within `keep` of `now`; False for a repeat."""
        rows = await self._atomic_steps(
            [
                ("DELETE FROM seen_once WHERE expires_at <= ?", (self._ts(now),)),
                (
                    "INSERT INTO seen_once (scope, key, expires_at) VALUES (?, ?, ?) "
                    "ON CONFLICT DO NOTHING RETURNING 1",
                    (scope, key, self._ts(now + keep)),
                ),
            ]
        )
        return bool(rows)

    async def save_install(self, install: WorkspaceInstall) -> None:
        """Insert or replace the workspace's installation (a reinstall brings a new token)."""
        await self._atomic(
            f"INSERT INTO installations ({INSTALL_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (platform, workspace_id) DO UPDATE SET bot_user_id = excluded.bot_user_id, "
            "token_secret = excluded.token_secret, installed_at = excluded.installed_at, "
            "bot_id = excluded.bot_id, scopes = excluded.scopes, installed_by = excluded.installed_by, "
            "enterprise_id = excluded.enterprise_id, refresh_secret = excluded.refresh_secret, "
            "token_expires_at = excluded.token_expires_at, refresh_claimed_until = NULL",
            (
                install.platform,
                install.workspace_id,
                install.bot_user_id,
                install.token_secret,
                self._ts(install.installed_at),
                install.bot_id,
                install.scopes,
                install.installed_by,
                install.enterprise_id,
                install.refresh_secret,
                None if install.token_expires_at is None else self._ts(install.token_expires_at),
            ),
        )

    async def find_install(self, platform: str, workspace_id: str) -> WorkspaceInstall | None:
        row = await self._first(
            f"SELECT {INSTALL_COLUMNS} FROM installations WHERE platform = ? AND workspace_id = ?",
            (platform, workspace_id),
        )
        return install_from_row(row) if row else None

    async def delete_install(self, platform: str, workspace_id: str) -> bool:
        rows = await self._atomic(
            "DELETE FROM installations WHERE platform = ? AND workspace_id = ? RETURNING 1", (platform, workspace_id)
        )
        return bool(rows)

    async def claim_token_refresh(
        self, platform: str, workspace_id: str, token_secret: str, now: dt.datetime, until: dt.datetime
    ) -> bool:
        """One statement: the row is claimed only while it still holds that token and no claim is live."""
        rows = await self._atomic(
            "UPDATE installations SET refresh_claimed_until = ? WHERE platform = ? AND workspace_id = ? "
            "AND token_secret = ? AND (refresh_claimed_until IS NULL OR refresh_claimed_until <= ?) RETURNING 1",
            (self._ts(until), platform, workspace_id, token_secret, self._ts(now)),
        )
        return bool(rows)

    async def save_refreshed_token(
        self,
        platform: str,
        workspace_id: str,
        old_secret: str,
        token_secret: str,
        refresh_secret: str,
        expires_at: dt.datetime | None,
    ) -> bool:
        """Compare-and-set on the stored token: a reinstall or another renewal in between wins."""
        rows = await self._atomic(
            "UPDATE installations SET token_secret = ?, refresh_secret = ?, token_expires_at = ?, "
            "refresh_claimed_until = NULL WHERE platform = ? AND workspace_id = ? AND token_secret = ? RETURNING 1",
            (
                token_secret,
                refresh_secret,
                None if expires_at is None else self._ts(expires_at),
                platform,
                workspace_id,
                old_secret,
            ),
        )
        return bool(rows)

    async def save_oauth_state(self, state: str, expires_at: dt.datetime) -> None:
        await self._atomic("INSERT INTO oauth_states (state, expires_at) VALUES (?, ?)", (state, self._ts(expires_at)))

    async def consume_oauth_state(self, state: str, now: dt.datetime) -> bool:
        rows = await self._atomic_steps(
            [
                ("DELETE FROM oauth_states WHERE expires_at <= ?", (self._ts(now),)),
                ("DELETE FROM oauth_states WHERE state = ? RETURNING 1", (state,)),
            ]
        )
        return bool(rows)
