"""What a form just did, carried across its redirect (post, redirect, get): kept in the session for the page it
names and shown there once, so reloading that page sends nothing again and says nothing twice."""

from __future__ import annotations

from dataclasses import replace

from aiohttp import web

from bot.web.render import session_of, set_session

MAX_NOTICE = 400  # characters: the session cookie has room for the spaces first


def done_and_back(request: web.Request, location: str, notice: str) -> web.HTTPSeeOther:
    """The redirect to `location` (a path of this site, with a query or a #fragment) whose page says `notice`."""
    path = location.split("#", 1)[0].split("?", 1)[0]
    if len(notice) > MAX_NOTICE:
        notice = notice[: MAX_NOTICE - 1].rsplit(" ", 1)[0] + "…"
    set_session(request, replace(session_of(request), notice=notice, notice_path=path))
    return web.HTTPSeeOther(location)


def notice_of(request: web.Request) -> str | None:
    """The notice left for this page by the form that redirected here, taken (the next visit shows none)."""
    session = session_of(request)
    if not session.notice or session.notice_path != request.path:
        return None
    set_session(request, replace(session, notice="", notice_path=""))
    return session.notice
