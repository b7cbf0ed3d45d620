"""Slack token rotation for "Add to Slack": a workspace's bot token expires (about 12 hours after it was
issued) and is renewed with its one-use refresh token (oauth.v2.access, grant_type=refresh_token).

The renewal happens before the token expires (REFRESH_AHEAD, bolt's default of 120 minutes), when a request
or a push first needs the workspace's token, and once across every process: the store decides who renews
(claim_token_refresh, a lease on the stored token), and the new token replaces the old one only while the old
one is still stored (a compare-and-set), so a slower process never overwrites a newer token with an older one.
Everyone else goes on with the current token, which is still good until it expires; a caller that finds it
expired waits a little for the renewal in flight.

bolt's own rotation (AsyncInstallationStoreAuthorize with slack_sdk's AsyncTokenRotator) does not fit: it
renews in every process that sees an expiring token (Slack revokes the refresh token at its first use, so the
second renewal fails), decides on the wall clock, and never runs for the pushes the core starts. So the
installation store renews here and hands bolt bots without their refresh token: bolt has nothing to rotate.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from dataclasses import dataclass, field, replace

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.ids import PLATFORM
from adapters.slack.logsafe import install as redact_logs
from adapters.slack.tokens import TokenBox
from bot.features import Features
from bot.installs.values import WorkspaceInstall

log = logging.getLogger(__name__)

REFRESH_AHEAD = dt.timedelta(minutes=120)  # renew this long before the token expires (bolt's default)
REFRESH_LEASE = dt.timedelta(seconds=60)  # one process's claim on a renewal; a failed one is retried after it
WAITS = (0.05, 0.1, 0.2, 0.4, 0.8, 1.6)  # seconds: an expired token waits this long for the renewal in flight


@dataclass(frozen=True)
class TokenRotation:
    """What a renewal needs: the app's credentials and a Web API client (no token of its own)."""

    client: AsyncWebClient
    client_id: str
    client_secret: str = field(repr=False)
    ahead: dt.timedelta = REFRESH_AHEAD
    lease: dt.timedelta = REFRESH_LEASE
    waits: tuple[float, ...] = WAITS


class TokenRenewer:
    """Keeps each workspace's token fresh: `fresh(row, token)` returns the installation and token to use."""

    def __init__(self, service: Features, box: TokenBox, rotation: TokenRotation) -> None:
        self._service = service
        self._box = box
        self._rotation = rotation

    def due(self, row: WorkspaceInstall) -> bool:
        """The token expires within REFRESH_AHEAD and can be renewed."""
        expires = row.token_expires_at
        now = self._service.context.clock.now()
        return bool(row.refresh_secret) and expires is not None and expires - now <= self._rotation.ahead

    async def fresh(self, row: WorkspaceInstall, token: str) -> tuple[WorkspaceInstall, str]:
        """Renew the token when it is due and this caller wins the claim; else the newest stored token."""
        if not self.due(row):
            return row, token
        if await self._service.installs.claim_token_refresh(row, self._rotation.lease):
            renewed = await self._renew(row)
            if renewed is None:  # Slack refused or could not be reached: the claim lapses, and then a retry
                return row, token
            if await self._service.installs.save_refreshed_token(row, renewed[0]):
                log.info(
                    "renewed the bot token of Slack workspace %s (expires %s)",
                    row.workspace_id,
                    f"{renewed[0].token_expires_at:%Y-%m-%d %H:%M} UTC",
                )
                return renewed
            log.info("Slack workspace %s was reinstalled during a token renewal; using its new token", row.workspace_id)
        return await self._newest(row, token)

    async def _renew(self, row: WorkspaceInstall) -> tuple[WorkspaceInstall, str] | None:
        """oauth.v2.access with the refresh token; the renewed installation (sealed) and its token."""
        refresh = self._box.open(row.refresh_secret or "")
        if refresh is None:
            log.warning(
                "the stored refresh token of Slack workspace %s does not open with STUDYBOT_SECRET_KEY; "
                "reinstall needed",
                row.workspace_id,
            )
            return None
        redact_logs(refresh)
        try:
            resp = await self._rotation.client.oauth_v2_access(
                client_id=self._rotation.client_id,
                client_secret=self._rotation.client_secret,
                grant_type="refresh_token",
                refresh_token=refresh,
            )
        except SlackApiError as exc:
            log.warning(
                "Slack refused to renew the bot token of workspace %s: %s", row.workspace_id, exc.response.get("error")
            )
            return None
        except (OSError, aiohttp.ClientError, TimeoutError) as exc:
            log.warning(
                "cannot reach Slack to renew the bot token of workspace %s: %s", row.workspace_id, type(exc).__name__
            )
            return None
        token, new_refresh, expires_in = resp.get("access_token"), resp.get("refresh_token"), resp.get("expires_in")
        if not (
            resp.get("token_type") == "bot"
            and isinstance(token, str)
            and token
            and isinstance(new_refresh, str)
            and new_refresh
            and isinstance(expires_in, int)
            and expires_in > 0
        ):
            log.warning(
                "Slack's renewal of the bot token of workspace %s was not a bot token; ignored", row.workspace_id
            )
            return None
        redact_logs(token, new_refresh)
        renewed = replace(
            row,
            token_secret=self._box.seal(token),
            refresh_secret=self._box.seal(new_refresh),
            token_expires_at=self._service.context.clock.now() + dt.timedelta(seconds=expires_in),
        )
        return renewed, token

    async def _newest(self, row: WorkspaceInstall, token: str) -> tuple[WorkspaceInstall, str]:
        """Another caller is renewing (or has renewed): its token once stored; the current one while it is still
        good; an expired one is waited on a little (WAITS), then used as it is."""
        for pause in (0.0, *self._rotation.waits):
            if pause:
                await asyncio.sleep(pause)
            found = await self._service.installs.find_install(PLATFORM, row.workspace_id)
            if found is None:
                return row, token
            if found.token_secret != row.token_secret:
                opened = self._box.open(found.token_secret)
                if opened is not None:
                    redact_logs(opened)
                    return found, opened
            expires = found.token_expires_at
            if expires is None or expires > self._service.context.clock.now():
                return row, token
        log.warning("the bot token of Slack workspace %s expired and its renewal has not come yet", row.workspace_id)
        return row, token
