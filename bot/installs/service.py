"""What platforms deliver and install: workspace installations ("Add to Slack"), the OAuth states of install
attempts, and the de-duplication of repeated deliveries (a retried event, a replayed request)."""

from __future__ import annotations

import datetime as dt
import logging
import secrets
from typing import Protocol

from bot.installs.store import InstallStore
from bot.installs.values import WorkspaceInstall
from bot.kernel.context import Context
from bot.kernel.store import ChannelReads, OnceStore
from bot.kernel.values import ChannelRef, CommandNames

log = logging.getLogger(__name__)

WELCOME_KEEP = dt.timedelta(days=30)


def welcome_text(names: CommandNames) -> str:
    """What a server or workspace that added the bot reads first: what it does and the first commands."""
    return (
        "Thanks for adding studybot: a daily PyTorch interview question in a channel, private practice that "
        "brings back what you miss, live quiz games, teams and leaderboards.\n"
        f"Admins: in the channel that should get the daily question, {names.schedule} (any time, timezone and "
        f"days). Everyone: {names.practice} for a practice question now, {names.dashboard} for the web "
        f"dashboard, and {names.help} for the rest."
    )


def channel_welcome_text(names: CommandNames) -> str:
    """What a channel the bot was just added to reads: what it would do there and who starts it."""
    return (
        "Hello! I'm studybot: a daily PyTorch interview question, its answer hidden until the reveal, with streaks "
        "and leaderboards.\n"
        f"Admins: {names.schedule}, typed in this channel, starts the daily question here (any time, timezone and "
        "days). "
        f"Everyone: {names.practice} for a private practice question now, and {names.help} for the rest."
    )


class InstallServiceStore(InstallStore, OnceStore, ChannelReads, Protocol):
    """What installations and de-duplication read and write."""


class Installs:
    """Installations, OAuth states and first deliveries; every decision is the store's, shared by processes."""

    def __init__(self, ctx: Context, store: InstallServiceStore) -> None:
        self.ctx = ctx
        self.store = store

    async def first_delivery(self, scope: str, key: str, keep: dt.timedelta) -> bool:
        """True the first time a platform delivery (an event id, a request signature) is seen within
        `keep`, by any process on the same database; adapters drop the repeats."""
        return await self.store.remember_once(scope, key, self.ctx.now(), keep)

    async def welcome(self, platform: str, space_id: str) -> str | None:
        """The note for a server or workspace that just added the bot: once, whichever process sees the join
        first (a rejoin within WELCOME_KEEP gets none); None for a repeat."""
        if not await self.store.remember_once("welcome", f"{platform}:{space_id}", self.ctx.now(), WELCOME_KEEP):
            return None
        return welcome_text(self.ctx.commands_of(platform))

    async def channel_welcome(self, ref: ChannelRef) -> str | None:
        """The note for a channel the bot was just added to: once per channel within WELCOME_KEEP, whichever process
        sees the event first; None for a repeat, and where the channel has its settings already (an admin set the
        quiz up there, which is what added the bot)."""
        if await self.store.get_channel(ref) is not None:
            return None
        key = f"{ref.platform}:{ref.space_id}:{ref.channel_id}"
        if not await self.store.remember_once("welcome-channel", key, self.ctx.now(), WELCOME_KEEP):
            return None
        return channel_welcome_text(self.ctx.commands_of(ref.platform))

    async def save_install(self, install: WorkspaceInstall) -> None:
        """Keep a workspace's installation (its token already encrypted by the adapter); a reinstall replaces it."""
        await self.store.save_install(install)
        log.info("installed in %s workspace %s", install.platform, install.workspace_id)

    async def find_install(self, platform: str, workspace_id: str) -> WorkspaceInstall | None:
        return await self.store.find_install(platform, workspace_id)

    async def forget_install(self, platform: str, workspace_id: str) -> bool:
        """The workspace uninstalled the bot or revoked its token: drop the installation."""
        gone = await self.store.delete_install(platform, workspace_id)
        if gone:
            log.info("uninstalled from %s workspace %s", platform, workspace_id)
        return gone

    async def claim_token_refresh(self, install: WorkspaceInstall, lease: dt.timedelta) -> bool:
        """Claim the renewal of this installation's (expiring) token for `lease`: one caller across every
        process; False when another holds the claim or the stored token is no longer this one."""
        now = self.ctx.now()
        return await self.store.claim_token_refresh(
            install.platform, install.workspace_id, install.token_secret, now, now + lease
        )

    async def save_refreshed_token(self, old: WorkspaceInstall, renewed: WorkspaceInstall) -> bool:
        """Store a renewed token (encrypted by the adapter) in place of `old`'s, only while `old`'s is still the
        stored one (a reinstall or another renewal in between wins); ends the claim."""
        if renewed.refresh_secret is None:
            raise ValueError("a renewed token comes with its refresh token")
        return await self.store.save_refreshed_token(
            old.platform,
            old.workspace_id,
            old.token_secret,
            renewed.token_secret,
            renewed.refresh_secret,
            renewed.token_expires_at,
        )

    async def issue_oauth_state(self, keep: dt.timedelta) -> str:
        """A fresh, unguessable state for one install attempt, valid for `keep`."""
        state = secrets.token_urlsafe(24)
        await self.store.save_oauth_state(state, self.ctx.now() + keep)
        return state

    async def consume_oauth_state(self, state: str) -> bool:
        """True once for a state this bot issued that has not expired."""
        return bool(state) and await self.store.consume_oauth_state(state, self.ctx.now())
