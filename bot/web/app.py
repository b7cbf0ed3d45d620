"""The dashboard's aiohttp application: middlewares (sessions, CSRF, security headers, error pages), the
template renderer, and the routes of every page, sign-in, /healthz and /metrics."""

from __future__ import annotations

import hmac
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import jinja2
from aiohttp import web

from bot.kernel.metrics import Metrics
from bot.web import pages, signin
from bot.web.config import WebConfig
from bot.web.health import add_health_routes
from bot.web.render import CURRENT, Current, cookie_name, error_page, session_of
from bot.web.sessions import Sealer, Session, sealed_session, session_from, set_cookie
from bot.web.state import STATE, HealthCheck, WebState

log = logging.getLogger(__name__)

HERE = Path(__file__).resolve().parent
MAX_UPLOAD = 2 * 1024 * 1024  # a pack file is at most 1 MiB; the form around it is small

# no inline script or style anywhere; images only from here; forms only to here; never framed
CSP = (
    "default-src 'none'; script-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
}
UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def security_headers(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every answer: a strict Content-Security-Policy and its companions; pages are never cached."""
    try:
        response = await handler(request)
    except web.HTTPException as exc:
        _secure(request, exc)
        raise
    _secure(request, response)
    return response


def _secure(request: web.Request, response: web.StreamResponse) -> None:
    for name, value in HEADERS.items():
        response.headers.setdefault(name, value)
    if not request.path.startswith("/static/"):
        response.headers.setdefault("Cache-Control", "no-store")


@web.middleware
async def sessions(request: web.Request, handler: Handler) -> web.StreamResponse:
    """The session from its cookie (a new anonymous one when there is none, or it is forged or expired);
    written back when it changed."""
    state = request.app[STATE]
    name = cookie_name(state.config)
    lifetime = int(state.config.session_lifetime.total_seconds())
    found = session_from(state.sealer.open(request.cookies.get(name), ttl=lifetime))
    CURRENT.set(Current(found or Session(), found is None))
    try:
        response = await handler(request)
    except web.HTTPException as exc:
        _write(request, exc, name, lifetime)
        raise
    _write(request, response, name, lifetime)
    return response


def _write(request: web.Request, response: web.StreamResponse, name: str, lifetime: int) -> None:
    if not CURRENT.get().changed or response.prepared:
        return
    state = request.app[STATE]
    set_cookie(response, name, sealed_session(state.sealer, session_of(request)), secure=state.config.secure)


@web.middleware
async def csrf(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every form carries the session's CSRF token; a change without it (or with another) is refused with
    403 and changes nothing."""
    if request.method in UNSAFE and request.match_info.http_exception is None:
        try:
            form = await request.post()
        except (ValueError, web.HTTPException):
            form = None
        given = form.get("csrf") if form is not None else None
        expected = session_of(request).csrf
        if not isinstance(given, str) or not hmac.compare_digest(given.encode(), expected.encode()):
            log.info("refused a %s %s without its form token", request.method, request.path)
            return error_page(
                request,
                403,
                "Form expired",
                "This form was not accepted (its security token is missing or out of date). Open the page again and "
                "resend it.",
            )
    return await handler(request)


@web.middleware
async def error_pages(request: web.Request, handler: Handler) -> web.StreamResponse:
    """404, 403, 405 and server errors as plain pages (never a traceback); /healthz and /metrics keep theirs."""
    try:
        return await handler(request)
    except web.HTTPException as exc:
        if exc.status < 400 or request.path in ("/healthz", "/metrics") or exc.content_type != "text/plain":
            raise
        titles = {403: "Not allowed", 404: "Not found", 405: "Not allowed", 429: "Too many attempts", 503: "Starting"}
        text = exc.text or ""
        if exc.status == 404:
            text = "There is no such page here, or it belongs to a server or workspace you have not signed in to."
        if exc.status == 405:
            text = "This address does not take that kind of request."
        response = error_page(request, exc.status, titles.get(exc.status, "Error"), text)
        response.headers.update({k: v for k, v in exc.headers.items() if k.lower() == "retry-after"})
        return response
    except Exception:
        log.exception("dashboard page %s failed", request.path)
        return error_page(request, 500, "Something went wrong", "The page could not be shown; try again in a moment.")


def templates() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=True,  # every value is escaped in every template
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["pct"] = lambda value: f"{100 * value:.0f}%"
    return env


def build_app(config: WebConfig, metrics: Metrics, health: HealthCheck) -> web.Application:
    """The dashboard with /healthz and /metrics; hand it the features with `app[STATE].features = ...`."""
    app = web.Application(middlewares=[security_headers, sessions, error_pages, csrf], client_max_size=MAX_UPLOAD)
    app[STATE] = WebState(config, metrics, health, templates(), Sealer(config.key))
    add_health_routes(app)
    app.router.add_static("/static/", HERE / "static", name="static", append_version=False)
    signin.add_routes(app)
    pages.add_routes(app)
    return app


def features_ready(app: web.Application, features: Any) -> None:
    """The bot has built its features: pages answer from now on."""
    state: WebState = app[STATE]
    state.features = features
