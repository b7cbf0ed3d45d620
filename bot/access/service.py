"""Dashboard access: one-time sign-in links (10 minutes, once), sign-in attempts counted per client, and the
spaces a person may see (those the bot serves). Decided in the store, so several processes behave as one."""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import secrets
from collections.abc import Iterable
from urllib.parse import quote

from bot.access.store import AccessStore
from bot.access.values import (
    ATTEMPT_LIMIT,
    ATTEMPT_WINDOW,
    LINK_LIFETIME,
    DashboardLink,
    LinkGrant,
    sign_in_url,
)
from bot.kernel.context import Context
from bot.kernel.values import ChannelConfig

_TOKEN = re.compile(r"^[A-Za-z0-9_-]{32,64}$")


MAX_SPACES = 200  # a Discord member is in at most 200 servers
CONSOLE_GRANT = LinkGrant("console", "local", "you", True)  # the console channel's space and its admin
PLATFORM_NAMES = {"discord": "Discord", "slack": "Slack"}


def token_hash(token: str) -> str:
    """What the store keeps of a link's token: a stolen database holds no working link."""
    return hashlib.sha256(token.encode("ascii")).hexdigest()


class Access:
    """Sign-in links, sign-in attempts and the spaces the bot serves."""

    def __init__(self, ctx: Context, store: AccessStore) -> None:
        self.ctx = ctx
        self.store = store
        self.dashboard: DashboardLink | None = None  # the process sets it when a dashboard serves this bot

    async def dashboard_text(self, platform: str) -> str:
        """`/quiz dashboard`: where the dashboard is and how a member of this platform signs in to it (the
        console: a new one-time link for its admin), or that this bot has none."""
        link = self.dashboard
        if link is None:
            return "This bot has no dashboard: its host turns one on (docs/dashboard.md)."
        if platform == "console":
            token = await self.issue_link(CONSOLE_GRANT)
            once = "a one-time sign-in link: it works once, within 10 minutes"
            return f"Dashboard: {sign_in_url(link.url, token)} ({once})"
        name = PLATFORM_NAMES.get(platform, platform)
        if platform not in link.sign_in:
            return (
                f"The dashboard is at {link.url}, but signing in with {name} is not set up on this bot yet "
                "(its host adds the OAuth client: docs/dashboard.md)."
            )
        return (
            f"Your progress, reviews, reminders, team and the leaderboards on the web: {link.url}/login "
            f"(sign in with {name}; you see the servers and workspaces you share with the bot)."
        )

    def page_url(self, platform: str, space_id: str, page: str) -> str | None:
        """The address of one of a space's dashboard pages (`page`: "review", "past" ...) for a member of that
        platform, who signs in with it on the way (the sign-in ends on the page); None where they cannot sign in
        (no dashboard, the platform's sign-in not set up, the console's one-time links)."""
        link = self.dashboard
        if link is None or platform == "console" or platform not in link.sign_in:
            return None
        return f"{link.url}/s/{quote(platform, safe='')}/{quote(space_id, safe='')}/{page}"

    async def issue_link(self, grant: LinkGrant) -> str:
        """A new one-time sign-in link's token (shown once; the store keeps only its hash)."""
        token = secrets.token_urlsafe(32)
        now = self.ctx.now()
        await self.store.save_login_link(token_hash(token), grant, now, now + LINK_LIFETIME)
        return token

    async def redeem_link(self, token: str) -> LinkGrant | None:
        """The grant of a link used for the first time within its 10 minutes; None for anything else."""
        if not _TOKEN.fullmatch(token):
            return None
        return await self.store.redeem_login_link(token_hash(token), self.ctx.now())

    async def allow_attempt(self, client: str, limit: int = ATTEMPT_LIMIT) -> bool:
        """Count a sign-in attempt of this client (an address); False once it made more than `limit` in the
        current 10-minute window."""
        now = self.ctx.now()
        window = ATTEMPT_WINDOW.total_seconds()
        start = dt.datetime.fromtimestamp(now.timestamp() // window * window, dt.UTC)
        bucket = hashlib.sha256(client.encode()).hexdigest()[:32]  # no address kept in the clear
        return await self.store.count_login_attempt(bucket, start) <= limit

    async def served_spaces(self, platform: str, space_ids: Iterable[str]) -> set[str]:
        """Which of these spaces the bot serves (a quiz channel there)."""
        wanted = sorted({s for s in space_ids if s})[:MAX_SPACES]
        return await self.store.served_spaces(platform, wanted) if wanted else set()

    async def space_channels(self, platform: str, space_id: str) -> list[ChannelConfig]:
        """The space's quiz channels."""
        return await self.store.space_channels(platform, space_id)
