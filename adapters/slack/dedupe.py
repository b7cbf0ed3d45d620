"""Slack redelivers an event (X-Slack-Retry-Num, same event_id) when it thinks we were slow, and in Socket
Mode several processes may each receive one delivery; bolt does not deduplicate. This middleware drops
every delivery of an event_id after the first, decided in the store so that every process agrees."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse

from bot.features import Features

log = logging.getLogger(__name__)

KEEP = dt.timedelta(hours=1)  # Slack retries within minutes


def dedupe_middleware(service: Features) -> Callable[..., Awaitable[BoltResponse | None]]:
    async def drop_repeated_events(
        body: dict[str, Any], request: AsyncBoltRequest, next: Callable[[], Awaitable[Any]]
    ) -> BoltResponse | None:
        event_id = body.get("event_id") if body.get("type") == "event_callback" else None
        if (
            isinstance(event_id, str)
            and event_id
            and not await service.installs.first_delivery("slack-event", event_id, KEEP)
        ):
            retry = request.headers.get("x-slack-retry-num", ["?"])[0]
            log.debug("dropping repeated event %s (retry %s)", event_id, retry)
            return BoltResponse(status=200, body="")
        response: BoltResponse | None = await next()
        return response

    return drop_repeated_events
