"""The one web server of a bot process: the dashboard's application on STUDYBOT_WEB_HOST:STUDYBOT_WEB_PORT,
and, where STUDYBOT_METRICS_PORT asks for it, the same application on that address answering only /healthz
and /metrics. No access log: a one-time link's token or an OAuth code is in a URL and must not reach a log."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from aiohttp import web

log = logging.getLogger(__name__)

HEALTH_PATHS = ("/healthz", "/metrics")
HEALTH_ONLY = web.AppKey("health_only", set)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def health_only(request: web.Request, handler: Handler) -> web.StreamResponse:
    """On the metrics address only /healthz and /metrics answer (the dashboard's pages stay on their own)."""
    sock = request.transport.get_extra_info("sockname") if request.transport else None
    port = sock[1] if isinstance(sock, tuple) and len(sock) >= 2 else None
    if port in request.app[HEALTH_ONLY] and request.path not in HEALTH_PATHS:
        return web.Response(status=404, text="try /healthz or /metrics\n")
    return await handler(request)


class WebServer:
    """Runs one aiohttp application on one or more addresses until stopped."""

    def __init__(self, app: web.Application) -> None:
        app[HEALTH_ONLY] = set()
        app.middlewares.insert(0, health_only)
        self.app = app
        self.runner = web.AppRunner(app, access_log=None, handle_signals=False)
        self._setup = False

    async def listen(self, host: str, port: int, *, health: bool = False) -> int:
        """Serve on host:port (0: any free port); the port bound. OSError when it cannot listen."""
        if not self._setup:
            await self.runner.setup()
            self._setup = True
        before = len(self.runner.addresses)
        await web.TCPSite(self.runner, host, port).start()
        bound = self.runner.addresses[before][1]  # the new site's first socket (port 0: the port it got)
        if health:
            self.app[HEALTH_ONLY].add(bound)
        return int(bound)

    async def close(self) -> None:
        if self._setup:
            await self.runner.cleanup()
