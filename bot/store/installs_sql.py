"""Installation and OAuth-state rows for the SQL stores (mixed into SqliteStore and PostgresStore).

Platform-neutral: a row is a workspace's installation of the bot, its token already encrypted by the caller.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from bot.installs import WorkspaceInstall
from bot.store.rows import from_ts, to_ts

if TYPE_CHECKING:
    import aiosqlite
    import asyncpg

INSTALL_COLUMNS = (
    "platform, workspace_id, bot_user_id, token_secret, installed_at, bot_id, scopes, installed_by, enterprise_id"
)


def _install(row: Any) -> WorkspaceInstall:
    return WorkspaceInstall(
        platform=row[0],
        workspace_id=row[1],
        bot_user_id=row[2],
        token_secret=row[3],
        installed_at=from_ts(row[4]),
        bot_id=row[5],
        scopes=row[6] or "",
        installed_by=row[7],
        enterprise_id=row[8],
    )


class SqliteInstalls:
    """save/find/delete an installation, issue/consume an OAuth state, on aiosqlite."""

    if TYPE_CHECKING:

        def _tx(self) -> contextlib.AbstractAsyncContextManager[aiosqlite.Connection]: ...
        async def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]: ...

    async def save_install(self, install: WorkspaceInstall) -> None:
        """Insert or replace the workspace's installation (a reinstall brings a new token)."""
        async with self._tx() as db:
            await db.execute(
                f"INSERT INTO installations ({INSTALL_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (platform, workspace_id) DO UPDATE SET bot_user_id = excluded.bot_user_id, "
                "token_secret = excluded.token_secret, installed_at = excluded.installed_at, "
                "bot_id = excluded.bot_id, scopes = excluded.scopes, installed_by = excluded.installed_by, "
                "enterprise_id = excluded.enterprise_id",
                (
                    install.platform,
                    install.workspace_id,
                    install.bot_user_id,
                    install.token_secret,
                    to_ts(install.installed_at),
                    install.bot_id,
                    install.scopes,
                    install.installed_by,
                    install.enterprise_id,
                ),
            )

    async def find_install(self, platform: str, workspace_id: str) -> WorkspaceInstall | None:
        rows = await self._read(
            f"SELECT {INSTALL_COLUMNS} FROM installations WHERE platform = ? AND workspace_id = ?",
            (platform, workspace_id),
        )
        return _install(rows[0]) if rows else None

    async def delete_install(self, platform: str, workspace_id: str) -> bool:
        async with self._tx() as db:
            async with db.execute(
                "DELETE FROM installations WHERE platform = ? AND workspace_id = ?", (platform, workspace_id)
            ) as cur:
                return cur.rowcount > 0

    async def save_oauth_state(self, state: str, expires_at: dt.datetime) -> None:
        async with self._tx() as db:
            await db.execute("INSERT INTO oauth_states (state, expires_at) VALUES (?, ?)", (state, to_ts(expires_at)))

    async def consume_oauth_state(self, state: str, now: dt.datetime) -> bool:
        async with self._tx() as db:
            await db.execute("DELETE FROM oauth_states WHERE expires_at <= ?", (to_ts(now),))
            async with db.execute("DELETE FROM oauth_states WHERE state = ?", (state,)) as cur:
                return cur.rowcount == 1


class PostgresInstalls:
    """The same on asyncpg."""

    if TYPE_CHECKING:

        @property
        def pool(self) -> asyncpg.Pool: ...

    async def save_install(self, install: WorkspaceInstall) -> None:
        """Insert or replace the workspace's installation (a reinstall brings a new token)."""
        await self.pool.execute(
            f"INSERT INTO installations ({INSTALL_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) "
            "ON CONFLICT (platform, workspace_id) DO UPDATE SET bot_user_id = excluded.bot_user_id, "
            "token_secret = excluded.token_secret, installed_at = excluded.installed_at, "
            "bot_id = excluded.bot_id, scopes = excluded.scopes, installed_by = excluded.installed_by, "
            "enterprise_id = excluded.enterprise_id",
            install.platform,
            install.workspace_id,
            install.bot_user_id,
            install.token_secret,
            install.installed_at,
            install.bot_id,
            install.scopes,
            install.installed_by,
            install.enterprise_id,
        )

    async def find_install(self, platform: str, workspace_id: str) -> WorkspaceInstall | None:
        row = await self.pool.fetchrow(
            f"SELECT {INSTALL_COLUMNS} FROM installations WHERE platform = $1 AND workspace_id = $2",
            platform,
            workspace_id,
        )
        return _install(row) if row else None

    async def delete_install(self, platform: str, workspace_id: str) -> bool:
        status = await self.pool.execute(
            "DELETE FROM installations WHERE platform = $1 AND workspace_id = $2", platform, workspace_id
        )
        return str(status) != "DELETE 0"

    async def save_oauth_state(self, state: str, expires_at: dt.datetime) -> None:
        await self.pool.execute("INSERT INTO oauth_states (state, expires_at) VALUES ($1, $2)", state, expires_at)

    async def consume_oauth_state(self, state: str, now: dt.datetime) -> bool:
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute("DELETE FROM oauth_states WHERE expires_at <= $1", now)
            gone = await conn.fetchval("DELETE FROM oauth_states WHERE state = $1 RETURNING 1", state)
            return gone is not None
