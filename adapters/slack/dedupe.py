"""Slack redelivers an event (X-Slack-Retry-Num, same event_id) when it thinks we were slow, and in Socket
Mode several processes may each receive one delivery; bolt does not deduplicate. This middleware drops
every delivery of an event_id after the first, decided in the store so that every process agrees. While the
store cannot record, events are refused (adapters/slack/outage.py): none is ever let through twice."""

from __future__ import annotations

import datetime as dt
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse

from adapters.slack.ids import PLATFORM
from adapters.slack.outage import follow_up, refusal
from bot.features import Features

log = logging.getLogger(__name__)

KEEP = dt.timedelta(hours=1)  # Slack retries within minutes


def dedupe_middleware(service: Features) -> Callable[..., Awaitable[BoltResponse | None]]:
    async def drop_repeated_events(
        body: dict[str, Any], request: AsyncBoltRequest, next: Callable[[], Awaitable[Any]]
    ) -> BoltResponse | None:
        event_id = body.get("event_id") if body.get("type") == "event_callback" else None
        if isinstance(event_id, str) and event_id:
            first = await _first_delivery(service, event_id)
            if first is None:  # the store cannot record: the event is refused, and its sender told privately
                ack, then = refusal(body, service.context.platforms.get(PLATFORM))
                follow_up(then)
                return BoltResponse(status=200, body=json.dumps(ack) if ack is not None else "")
            if not first:
                retry = request.headers.get("x-slack-retry-num", ["?"])[0]
                log.debug("dropping repeated event %s (retry %s)", event_id, retry)
                return BoltResponse(status=200, body="")
        response: BoltResponse | None = await next()
        return response

    return drop_repeated_events


async def _first_delivery(service: Features, event_id: str) -> bool | None:
    """Whether the event is new; None while the store cannot record (a replay cannot be told from a first
    delivery then: refuse it rather than risk an answer counted twice)."""
    outage = service.context.outage
    if outage.down:
        return None
    try:
        first = await service.installs.first_delivery("slack-event", event_id, KEEP)
    except Exception as exc:
        if not outage.failed(exc):
            raise
        return None
    outage.recovered()
    return first
