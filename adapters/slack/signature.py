"""The HTTP edge checks every request to the events path before bolt parses it.

A request without a valid signature (missing headers, a timestamp that is not a number or is more than five
minutes away, a wrong HMAC) gets 401 and one INFO line, whatever its body holds: a malformed or very deep
payload never reaches a parser. A correctly signed request that was already handled (the same signature
again within the window) is refused too; the signatures seen are kept in the store, so every process of
the bot shares them. Slack's own redeliveries (X-Slack-Retry-Num) are acknowledged without running again.
A signed payload whose fields bolt cannot read is acknowledged, logged at INFO and ignored.

While the store cannot record (it is down, its disk is full, or the check takes longer than GUARD_WAIT), a
replay cannot be told from a first delivery: the request is refused, nothing runs, and it is acknowledged at
once with studybot's private "try again" (adapters/slack/outage.py); the outage is logged once, not per request.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Awaitable, Callable

from aiohttp import web
from slack_sdk.signature import SignatureVerifier

from adapters.slack.ids import PLATFORM
from adapters.slack.outage import follow_up, parse_body, passes_through, refusal
from bot.features import Features
from bot.kernel.errors import StoreUnavailable

log = logging.getLogger(__name__)

WINDOW = dt.timedelta(minutes=5)  # Slack's tolerance for the request timestamp, either way
GUARD_WAIT = 2.0  # seconds the replay check may take: Slack wants its acknowledgement within 3 s
REJECTED = "Rejected a request with an invalid signature or a stale timestamp (body withheld)"
REPLAYED = "Refused a replayed Slack request (the same signature was already handled)"
UNREADABLE = "Ignored a signed Slack request whose fields are not what Slack documents (%s; body withheld)"

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class RequestGuard:
    """Signature first, then replay: both decided before any parsing."""

    def __init__(self, signing_secret: str, service: Features, path: str) -> None:
        self._verifier = SignatureVerifier(signing_secret) if signing_secret.strip() else None
        self._service = service
        self._path = path

    def valid(self, body: bytes, timestamp: str | None, signature: str | None) -> bool:
        if self._verifier is None or not timestamp or not signature or not timestamp.isascii():
            return False
        if not timestamp.isdigit() or len(timestamp) > 12:
            return False
        return self._verifier.is_valid(body, timestamp, signature)

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.method != "POST" or request.path != self._path:
            return await handler(request)
        body = await request.read()  # aiohttp keeps it, so bolt reads the same bytes afterwards
        signature = request.headers.get("X-Slack-Signature")
        if not self.valid(body, request.headers.get("X-Slack-Request-Timestamp"), signature):
            log.info(REJECTED)
            return web.Response(status=401)
        assert signature is not None
        first = await self._first_delivery(signature)
        if first is None:  # the store cannot record: refused, unless it needs no store (Slack's URL check)
            refused = self._refuse(body, request.content_type)
            if refused is not None:
                return refused
        elif not first:
            if request.headers.get("X-Slack-Retry-Num"):
                return web.Response(status=200)  # Slack redelivering what we already handled
            log.info(REPLAYED)
            return web.Response(status=401)
        try:
            return await handler(request)
        except (TypeError, AttributeError, KeyError, ValueError, IndexError) as exc:
            # bolt reads `user`, `team`, `channel` while building its request; a signed payload whose fields
            # have shapes Slack never sends (e.g. "user": 5) is acknowledged and ignored, not a 500 and a traceback
            log.info(UNREADABLE, type(exc).__name__)
            return web.Response(status=200)

    async def _first_delivery(self, signature: str) -> bool | None:
        """Whether this signature is new (the store remembers it for every process); None while the store
        cannot record (not even asked while it is known to be down, so the refusal is immediate)."""
        outage = self._service.context.outage
        if outage.down:
            return None
        try:
            first = await asyncio.wait_for(
                self._service.installs.first_delivery("slack-signature", signature, 2 * WINDOW), GUARD_WAIT
            )
        except TimeoutError:
            outage.failed(StoreUnavailable(f"the replay check had no answer from the database within {GUARD_WAIT:g} s"))
            return None
        except Exception as exc:
            if not outage.failed(exc):
                raise  # not the store's outage: a failure as any other
            return None
        outage.recovered()  # the store recorded it
        return first

    def _refuse(self, body: bytes, content_type: str) -> web.StreamResponse | None:
        """The acknowledgement of a request refused while the store cannot record (the private note in it or
        sent right after it); None for a request that needs no store."""
        payload = parse_body(body, content_type)
        if passes_through(payload):
            return None
        ack, then = refusal(payload, self._service.context.platforms.get(PLATFORM))
        follow_up(then)
        log.debug("refused a Slack request: the database cannot record right now")
        return web.json_response(ack) if ack is not None else web.Response(status=200)
