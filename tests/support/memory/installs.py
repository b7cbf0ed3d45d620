"""Workspace installations and OAuth states (bot.installs.store.InstallStore)."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

from bot.installs.values import WorkspaceInstall
from tests.support.memory.tables import MemoryTables, utc


class MemoryInstalls(MemoryTables):
    """Installations per (platform, workspace); one token refresh claim per workspace."""

    async def save_install(self, install: WorkspaceInstall) -> None:
        t = await self._db()
        expires = install.token_expires_at
        t.installs[(install.platform, install.workspace_id)] = replace(
            install,
            installed_at=utc(install.installed_at),
            scopes=install.scopes or "",
            token_expires_at=None if expires is None else utc(expires),
        )
        t.refresh_claims.pop((install.platform, install.workspace_id), None)

    async def find_install(self, platform: str, workspace_id: str) -> WorkspaceInstall | None:
        return (await self._db()).installs.get((platform, workspace_id))

    async def delete_install(self, platform: str, workspace_id: str) -> bool:
        t = await self._db()
        t.refresh_claims.pop((platform, workspace_id), None)
        return t.installs.pop((platform, workspace_id), None) is not None

    async def claim_token_refresh(
        self, platform: str, workspace_id: str, token_secret: str, now: dt.datetime, until: dt.datetime
    ) -> bool:
        t = await self._db()
        key = (platform, workspace_id)
        found = t.installs.get(key)
        if found is None or found.token_secret != token_secret:
            return False
        claimed = t.refresh_claims.get(key)
        if claimed is not None and claimed > utc(now):
            return False
        t.refresh_claims[key] = utc(until)
        return True

    async def save_refreshed_token(
        self,
        platform: str,
        workspace_id: str,
        old_secret: str,
        token_secret: str,
        refresh_secret: str,
        expires_at: dt.datetime | None,
    ) -> bool:
        t = await self._db()
        key = (platform, workspace_id)
        found = t.installs.get(key)
        if found is None or found.token_secret != old_secret:
            return False
        t.installs[key] = replace(
            found,
            token_secret=token_secret,
            refresh_secret=refresh_secret,
            token_expires_at=None if expires_at is None else utc(expires_at),
        )
        t.refresh_claims.pop(key, None)
        return True

    async def save_oauth_state(self, state: str, expires_at: dt.datetime) -> None:
        t = await self._db()
        if state in t.oauth_states:
            raise ValueError("duplicate OAuth state")  # as a primary key would refuse it
        t.oauth_states[state] = utc(expires_at)

    async def consume_oauth_state(self, state: str, now: dt.datetime) -> bool:
        t = await self._db()
        now = utc(now)
        for issued, expires in list(t.oauth_states.items()):
            if expires <= now:
                del t.oauth_states[issued]
        return t.oauth_states.pop(state, None) is not None
