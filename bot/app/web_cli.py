"""The dashboard in the process: its configuration from the settings, its server (with /healthz and
/metrics), the console's one-time sign-in link, and `studybot web link`."""

from __future__ import annotations

import errno
import logging
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from cryptography.fernet import Fernet

from bot.access.service import CONSOLE_GRANT
from bot.access.values import DashboardLink, sign_in_url
from bot.app.config import Settings
from bot.kernel.errors import StartupError
from bot.kernel.metrics import Metrics
from bot.web.app import build_app
from bot.web.config import OAuthClient, WebConfig
from bot.web.server import WebServer
from bot.web.state import HealthCheck

log = logging.getLogger(__name__)


def web_config(settings: Settings) -> WebConfig:
    """The dashboard's configuration; a bad STUDYBOT_SECRET_KEY stops the start (one line naming it)."""
    if settings.secret_key:
        try:
            key = settings.token_key()
        except ValueError as exc:
            raise StartupError(str(exc)) from None
    else:
        key = Fernet.generate_key()
        log.info(
            "STUDYBOT_SECRET_KEY is not set: dashboard sign-ins last until this process stops, and another "
            "process does not accept them (set it where several processes serve the dashboard)"
        )
    discord = None
    if settings.discord_client_id and settings.discord_client_secret:
        discord = OAuthClient(settings.discord_client_id, settings.discord_client_secret)
    slack = None
    if settings.slack_client_id and settings.slack_client_secret:
        slack = OAuthClient(settings.slack_client_id, settings.slack_client_secret)
    return WebConfig(settings.dashboard_url, key, discord, slack)


def _reason(exc: OSError) -> str:
    return os.strerror(exc.errno) if exc.errno and exc.errno > 0 else (str(exc).splitlines() or ["error"])[0]


async def start_web(settings: Settings, metrics: Metrics, health: HealthCheck) -> tuple[WebServer, bool] | None:
    """Start the web server: the dashboard (unless STUDYBOT_WEB_PORT=0) and the metrics address (when
    STUDYBOT_METRICS_PORT is set). Returns the server and whether the dashboard listens; None when nothing
    is to be served. A port chosen by a setting that cannot be had stops the start; the default port taken
    by something else only leaves the dashboard off (a warning says so)."""
    port = settings.dashboard_port
    if not port and settings.metrics_port is None:
        return None
    server = WebServer(build_app(web_config(settings), metrics, health))
    dashboard = False
    try:
        if port:
            try:
                await server.listen(settings.web_host, port)
                dashboard = True
            except OSError as exc:
                if settings.web_port is not None or exc.errno not in (errno.EADDRINUSE, errno.EACCES):
                    raise StartupError(
                        f"STUDYBOT_WEB_PORT={port}: cannot listen on {settings.web_host}:{port} ({_reason(exc)}); "
                        "choose a free port, another STUDYBOT_WEB_HOST, or 0 for no dashboard."
                    ) from None
                log.warning(
                    "the dashboard is off: %s:%d is taken (%s); set STUDYBOT_WEB_PORT to a free port",
                    settings.web_host,
                    port,
                    _reason(exc),
                )
        if settings.metrics_port is not None:
            try:
                await server.listen(settings.metrics_host, settings.metrics_port, health=True)
            except OSError as exc:
                raise StartupError(
                    f"STUDYBOT_METRICS_PORT={settings.metrics_port}: cannot listen on "
                    f"{settings.metrics_host}:{settings.metrics_port} ({_reason(exc)}); choose a free "
                    "port or another STUDYBOT_METRICS_HOST."
                ) from None
    except BaseException:
        await server.close()
        raise
    if dashboard:
        log.info("dashboard on %s (listening on %s:%d)", settings.dashboard_url, settings.web_host, port)
    return server, dashboard


def dashboard_link(settings: Settings, listening: bool) -> DashboardLink | None:
    """What `/quiz dashboard` tells: the dashboard's address and who can sign in to it; None when no dashboard
    serves this bot (this process's is off, and STUDYBOT_PUBLIC_URL names no other)."""
    if not listening and not settings.public_url:
        return None
    sign_in = {"console"}
    if settings.discord_client_id and settings.discord_client_secret:
        sign_in.add("discord")
    if settings.slack_client_id and settings.slack_client_secret:
        sign_in.add("slack")
    return DashboardLink(settings.dashboard_url, frozenset(sign_in))


def link_text(settings: Settings, token: str) -> str:
    url = sign_in_url(settings.dashboard_url, token)
    return (
        f"Dashboard: {url}\n(a one-time sign-in link for the console's admin: it works once, within 10 minutes; "
        "`studybot web link` prints a new one)"
    )


async def console_link(features: Any, settings: Settings) -> str:
    """The console's one-time sign-in link, as printed at start."""
    return link_text(settings, await features.access.issue_link(CONSOLE_GRANT))


def add_web_cli(sub: Any) -> None:
    web = sub.add_parser("web", help="the dashboard")
    web_sub = web.add_subparsers(dest="web_command", required=True)
    web_sub.add_parser("link", help="print a new one-time sign-in link for the console's admin (10 minutes, once)")


async def web_link(settings: Settings, open_store: Callable[[str], Awaitable[Any]]) -> int:
    """`studybot web link`: a new one-time link, kept in the database every process of the bot shares."""
    from bot.access.service import Access
    from bot.kernel.clock import SystemClock
    from bot.kernel.context import Context

    store = await open_store(settings.database_url)
    try:
        ctx = Context(clock=SystemClock(), bank=_NoBank(), spaces=store)
        token = await Access(ctx, store).issue_link(CONSOLE_GRANT)
    finally:
        await store.close()
    if not settings.dashboard_port and not settings.public_url:
        print(
            "STUDYBOT_WEB_PORT=0: the dashboard is off in this setup; the link works where it is on.", file=sys.stderr
        )
    print(link_text(settings, token))
    return 0


class _NoBank:
    """The link needs no questions."""

    questions: tuple[Any, ...] = ()

    def get(self, question_id: str) -> None:
        return None

    def filtered(self, topics: Any, difficulties: Any) -> tuple[Any, ...]:
        return ()
