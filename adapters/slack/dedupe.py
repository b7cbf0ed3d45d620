"""Slack redelivers an event (X-Slack-Retry-Num, same event_id) when it thinks we were slow; bolt does
not deduplicate, so this middleware drops every delivery of an event_id after the first."""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse

log = logging.getLogger(__name__)

KEEP_SECONDS = 3600.0  # Slack retries within minutes
KEEP_MAX = 50_000


class RecentIds:
    """Event ids seen lately (bounded by count and age)."""

    def __init__(self, keep: float = KEEP_SECONDS, limit: int = KEEP_MAX,
                 now: Callable[[], float] = time.monotonic) -> None:
        self.keep = keep
        self.limit = limit
        self._now = now
        self._seen: OrderedDict[str, float] = OrderedDict()

    def first_time(self, event_id: str) -> bool:
        """True the first time an id is seen (and remembers it); False for a repeat."""
        now = self._now()
        while self._seen and (len(self._seen) >= self.limit or now - next(iter(self._seen.values())) > self.keep):
            self._seen.popitem(last=False)
        if event_id in self._seen:
            return False
        self._seen[event_id] = now
        return True


def dedupe_middleware(recent: RecentIds) -> Callable[..., Awaitable[BoltResponse | None]]:
    async def drop_repeated_events(body: dict, request: AsyncBoltRequest, next: Callable[[], Awaitable[Any]]
                                   ) -> BoltResponse | None:
        event_id = body.get("event_id") if body.get("type") == "event_callback" else None
        if event_id and not recent.first_time(str(event_id)):
            retry = request.headers.get("x-slack-retry-num", ["?"])[0]
            reason = request.headers.get("x-slack-retry-reason", ["?"])[0]
            log.debug("dropping repeated event %s (retry %s, %s)", event_id, retry, reason)
            return BoltResponse(status=200, body="")
        return await next()

    return drop_repeated_events
