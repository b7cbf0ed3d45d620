"""A tiny HTTP endpoint for operators: GET /healthz (store and scheduler alive) and GET /metrics."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from prometheus_client import CONTENT_TYPE_LATEST

from bot.kernel.metrics import Metrics

log = logging.getLogger(__name__)

HealthCheck = Callable[[], Awaitable[bool]]


async def serve_health(host: str, port: int, metrics: Metrics, check: HealthCheck) -> asyncio.Server:
    """Start the endpoint; returns the server (its sockets tell the bound port when port is 0)."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout=5)
            method, path, *_ = request.split(b"\r\n", 1)[0].decode("latin-1").split(" ")
            if method != "GET":
                status, ctype, body = "405 Method Not Allowed", "text/plain", b"GET only\n"
            elif path.split("?")[0] == "/healthz":
                ok = await _safe(check)
                status = "200 OK" if ok else "503 Service Unavailable"
                ctype, body = "text/plain", b"ok\n" if ok else b"unhealthy\n"
            elif path.split("?")[0] == "/metrics":
                status, ctype, body = "200 OK", CONTENT_TYPE_LATEST, metrics.exposition()
            else:
                status, ctype, body = "404 Not Found", "text/plain", b"try /healthz or /metrics\n"
            head = (
                f"HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}\r\n"
                "Connection: close\r\n\r\n"
            )
            writer.write(head.encode() + body)
            await writer.drain()
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ValueError, ConnectionError):
            log.debug("dropped a malformed health request")
        finally:
            writer.close()

    server = await asyncio.start_server(handle, host, port)
    log.info("health and metrics on %s", ", ".join(str(s.getsockname()) for s in server.sockets))
    return server


async def _safe(check: HealthCheck) -> bool:
    try:
        return await asyncio.wait_for(check(), timeout=3)
    except Exception:  # noqa: BLE001 - any failure of the check means unhealthy
        log.warning("health check failed", exc_info=True)
        return False
