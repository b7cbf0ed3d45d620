"""/healthz (the store answers and the scheduler runs) and /metrics (Prometheus), on the dashboard's server."""

from __future__ import annotations

import asyncio
import logging

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST

from bot.web.state import STATE, HealthCheck

log = logging.getLogger(__name__)


async def healthz(request: web.Request) -> web.Response:
    ok = await _safe(request.app[STATE].health)
    return web.Response(status=200 if ok else 503, text="ok\n" if ok else "unhealthy\n")


async def metrics(request: web.Request) -> web.Response:
    body = request.app[STATE].metrics.exposition()
    return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})


async def _safe(check: HealthCheck) -> bool:
    try:
        return await asyncio.wait_for(check(), timeout=3)
    except Exception:  # noqa: BLE001 - any failure of the check means unhealthy
        log.warning("health check failed", exc_info=True)
        return False


def add_health_routes(app: web.Application) -> None:
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/metrics", metrics)
