"""Who counts as a quiz admin on Slack: workspace admins and owners (users.info), or the
STUDYBOT_SLACK_ADMINS allow-list. The adapter only computes Actor.is_admin; the core decides."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.kernel.values import Actor

log = logging.getLogger(__name__)

CACHE_SECONDS = 60.0


class AdminPolicy:
    def __init__(
        self,
        allow: frozenset[str] = frozenset(),
        ttl: float = CACHE_SECONDS,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.allow = allow
        self.ttl = ttl
        self._now = now
        self._cache: dict[tuple[str, str], tuple[float, bool]] = {}

    async def actor(
        self, client: AsyncWebClient, team_id: str, user_id: str, auth: dict[str, Any] | None = None
    ) -> Actor:
        """The asking user with their admin right (allow-list first, then users.info, cached briefly);
        `auth`: the workspace's token argument where the client has none of its own."""
        if user_id in self.allow or f"{team_id}:{user_id}" in self.allow:
            return Actor(user_id, True)
        key = (team_id, user_id)
        cached = self._cache.get(key)
        if cached is not None and self._now() - cached[0] < self.ttl:
            return Actor(user_id, cached[1])
        try:
            resp = await client.users_info(user=user_id, **(auth or {}))
        except SlackApiError as exc:
            log.warning("users.info failed for %s: %s; treating as non-admin", user_id, exc.response.get("error"))
            return Actor(user_id, False)
        user = resp.get("user") or {}
        is_admin = bool(user.get("is_admin") or user.get("is_owner") or user.get("is_primary_owner"))
        if len(self._cache) > 10_000:
            self._cache.clear()
        self._cache[key] = (self._now(), is_admin)
        return Actor(user_id, is_admin)
