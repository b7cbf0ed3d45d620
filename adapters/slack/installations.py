"""Slack for many workspaces: bolt's installation and OAuth state stores, on our own database.

Both go through the Features (adapters never touch the store). Bot tokens are sealed with Fernet under
STUDYBOT_SECRET_KEY before they leave this module, so the database only ever holds ciphertext; a row that
does not open with the current key is treated as not installed (and logged without its contents). With
token rotation the refresh token is sealed the same way and expiring tokens are renewed here, once across
processes (adapters/slack/rotation.py).
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from slack_sdk.oauth.installation_store import Bot, Installation
from slack_sdk.oauth.installation_store.async_installation_store import AsyncInstallationStore
from slack_sdk.oauth.state_store.async_state_store import AsyncOAuthStateStore

from adapters.slack.ids import PLATFORM
from adapters.slack.logsafe import install as redact_logs
from adapters.slack.rotation import TokenRenewer, TokenRotation
from adapters.slack.tokens import TokenBox
from bot.features import Features
from bot.installs.values import WorkspaceInstall

log = logging.getLogger(__name__)

STATE_KEEP = dt.timedelta(minutes=10)  # how long an install link stays good (bolt's default too)


def workspace_key(enterprise_id: str | None, team_id: str | None, is_enterprise_install: bool | None) -> str | None:
    """The workspace an installation belongs to: the team, or the org for an org-wide install."""
    if is_enterprise_install and enterprise_id:
        return enterprise_id
    return team_id or enterprise_id


class ServiceInstallationStore(AsyncInstallationStore):
    """Bot-scope installations by workspace (user tokens are not asked for, so none are kept). With token
    rotation, bots are handed out with a fresh token and without their refresh token (bolt rotates nothing)."""

    def __init__(self, service: Features, box: TokenBox, rotation: TokenRotation | None = None) -> None:
        self._service = service
        self._box = box
        self._renewer = TokenRenewer(service, box, rotation) if rotation is not None else None

    @property
    def logger(self) -> logging.Logger:
        return log

    async def async_save(self, installation: Installation) -> None:
        if not installation.bot_token or not installation.bot_user_id:
            log.warning("ignored an installation without a bot token (workspace %s)", installation.team_id)
            return
        key = workspace_key(installation.enterprise_id, installation.team_id, installation.is_enterprise_install)
        if key is None:
            log.warning("ignored an installation that names no workspace")
            return
        refresh, expires = installation.bot_refresh_token, installation.bot_token_expires_at
        redact_logs(installation.bot_token, refresh or "")
        scopes = installation.bot_scopes
        await self._service.installs.save_install(
            WorkspaceInstall(
                platform=PLATFORM,
                workspace_id=key,
                bot_user_id=installation.bot_user_id,
                token_secret=self._box.seal(installation.bot_token),
                installed_at=dt.datetime.fromtimestamp(installation.installed_at, dt.UTC),
                bot_id=installation.bot_id,
                scopes=scopes if isinstance(scopes, str) else ",".join(scopes or ()),
                installed_by=installation.user_id,
                enterprise_id=installation.enterprise_id,
                refresh_secret=self._box.seal(refresh) if refresh else None,
                token_expires_at=dt.datetime.fromtimestamp(expires, dt.UTC) if refresh and expires else None,
            )
        )

    async def async_save_bot(self, bot: Bot) -> None:
        await self.async_save(
            Installation(
                app_id=bot.app_id,
                enterprise_id=bot.enterprise_id,
                team_id=bot.team_id,
                bot_token=bot.bot_token,
                bot_id=bot.bot_id,
                bot_user_id=bot.bot_user_id,
                bot_scopes=bot.bot_scopes,
                bot_refresh_token=bot.bot_refresh_token,
                bot_token_expires_at=bot.bot_token_expires_at,
                user_id="",
                is_enterprise_install=bot.is_enterprise_install,
                installed_at=bot.installed_at,
            )
        )

    async def _open(self, key: str | None) -> tuple[WorkspaceInstall, str] | None:
        if key is None:
            return None
        found = await self._service.installs.find_install(PLATFORM, key)
        if found is None:
            return None
        token = self._box.open(found.token_secret)
        if token is None:
            log.warning(
                "the stored token of workspace %s does not open with STUDYBOT_SECRET_KEY; reinstall needed", key
            )
            return None
        redact_logs(token)
        if self._renewer is not None:
            return await self._renewer.fresh(found, token)
        return found, token

    async def async_find_bot(
        self, *, enterprise_id: str | None, team_id: str | None, is_enterprise_install: bool | None = False
    ) -> Bot | None:
        opened = await self._open(workspace_key(enterprise_id, team_id, is_enterprise_install))
        if opened is None:
            return None
        row, token = opened
        return Bot(
            enterprise_id=row.enterprise_id,
            team_id=None if is_enterprise_install else row.workspace_id,
            bot_token=token,
            bot_id=row.bot_id or "",
            bot_user_id=row.bot_user_id,
            bot_scopes=row.scopes,
            is_enterprise_install=bool(is_enterprise_install),
            installed_at=row.installed_at.timestamp(),
        )

    async def async_find_installation(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        user_id: str | None = None,
        is_enterprise_install: bool | None = False,
    ) -> Installation | None:
        opened = await self._open(workspace_key(enterprise_id, team_id, is_enterprise_install))
        if opened is None:
            return None
        row, token = opened
        return Installation(
            enterprise_id=row.enterprise_id,
            team_id=None if is_enterprise_install else row.workspace_id,
            bot_token=token,
            bot_id=row.bot_id,
            bot_user_id=row.bot_user_id,
            bot_scopes=row.scopes,
            user_id=row.installed_by or "",
            is_enterprise_install=bool(is_enterprise_install),
            installed_at=row.installed_at.timestamp(),
        )

    async def async_delete_bot(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        key = workspace_key(enterprise_id, team_id, None)
        if key is not None:
            await self._service.installs.forget_install(PLATFORM, key)

    async def async_delete_installation(
        self, *, enterprise_id: str | None, team_id: str | None, user_id: str | None = None
    ) -> None:
        if user_id is None:  # the whole workspace (app_uninstalled); a user's revoked token leaves the bot
            await self.async_delete_bot(enterprise_id=enterprise_id, team_id=team_id)

    async def token_for(self, workspace_id: str) -> str | None:
        """The workspace's bot token, for pushes the core starts (daily questions, reveals)."""
        opened = await self._open(workspace_id)
        return opened[1] if opened else None


class ServiceStateStore(AsyncOAuthStateStore):
    """OAuth states in the database: every process of the bot accepts a state any of them issued."""

    def __init__(self, service: Features, keep: dt.timedelta = STATE_KEEP) -> None:
        self._service = service
        self._keep = keep

    @property
    def logger(self) -> logging.Logger:
        return log

    async def async_issue(self, *args: Any, **kwargs: Any) -> str:
        return await self._service.installs.issue_oauth_state(self._keep)

    async def async_consume(self, state: str) -> bool:
        return await self._service.installs.consume_oauth_state(state or "")
