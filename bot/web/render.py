"""Rendering a page, and the session of the request being handled (read and changed by the pages)."""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from bot.web.config import WebConfig
from bot.web.sessions import SESSION_COOKIE, Session
from bot.web.state import STATE


@dataclass
class Current:
    """The session of the request being handled (each request runs in a task of its own, with its context)."""

    session: Session
    changed: bool


CURRENT: ContextVar[Current] = ContextVar("dashboard_session")


def session_of(request: web.Request) -> Session:
    return CURRENT.get().session


def set_session(request: web.Request, session: Session) -> None:
    """This request changes its browser's session: the cookie is written with the answer."""
    CURRENT.set(Current(session, True))


def cookie_name(config: WebConfig) -> str:
    """Behind https the cookie is a __Host- cookie: Secure, Path=/, no Domain, so no other host can set it."""
    return f"__Host-{SESSION_COOKIE}" if config.secure else SESSION_COOKIE


def render(request: web.Request, template: str, status: int = 200, **context: Any) -> web.Response:
    state = request.app[STATE]
    page = state.templates.get_template(template)
    session = session_of(request)
    text = page.render(session=session, csrf=session.csrf, config=state.config, request=request, **context)
    return web.Response(text=text, status=status, content_type="text/html", charset="utf-8")


def error_page(request: web.Request, status: int, title: str, text: str) -> web.Response:
    return render(request, "error.html", status=status, title=title, text=text)
