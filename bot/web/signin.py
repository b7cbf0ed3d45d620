"""Signing in and out: a one-time link (the console's admin, `studybot web link`), "Login with Discord" and
"Sign in with Slack". Every attempt is counted per client in the store (rate-limited); a person sees the
spaces the bot serves that they are in, with admin pages only where the chat would let them change settings."""

from __future__ import annotations

import hmac
import ipaddress
import logging
import re
from dataclasses import asdict
from urllib.parse import urlencode

from aiohttp import web

from bot.kernel.platform import AdminPlatform
from bot.web.oauth import (
    Flow,
    SignInFailed,
    discord_authorize_url,
    discord_user,
    slack_authorize_url,
    slack_user,
)
from bot.web.render import error_page, render, session_of, set_session
from bot.web.sessions import OAUTH_COOKIE, OAUTH_SECONDS, Membership, clear_cookie, set_cookie
from bot.web.state import STATE

log = logging.getLogger(__name__)

CONSOLE_NAME = "Console"
TOO_MANY = "Too many sign-in attempts from here; wait a few minutes and try again."


def client_address(request: web.Request) -> str:
    """Who is signing in, for the rate limit: the peer, or, when the peer is a reverse proxy on this machine,
    the last address it put in X-Forwarded-For."""
    peer = request.remote or "unknown"
    try:
        local = ipaddress.ip_address(peer).is_loopback
    except ValueError:
        local = False
    forwarded = request.headers.get("X-Forwarded-For", "")
    if local and forwarded:
        return forwarded.split(",")[-1].strip()[:64] or peer
    return peer


async def _allowed(request: web.Request) -> None:
    state = request.app[STATE]
    features = state.need_features()
    if not await features.access.allow_attempt(client_address(request), state.config.attempt_limit):
        log.warning("sign-in attempts over the limit from one client")
        raise web.HTTPTooManyRequests(text=TOO_MANY, headers={"Retry-After": "600"})


def _home_of(spaces: list[Membership]) -> str:
    return f"/s/{spaces[0].platform}/{spaces[0].space_id}" if len(spaces) == 1 else "/"


NEXT_MAX = 300  # characters of a page address kept through a sign-in
_NEXT = re.compile(r"/s/[A-Za-z0-9_.:-]+/[A-Za-z0-9_.:-]+(?:/[A-Za-z0-9_./%-]*)?(?:\?[A-Za-z0-9_.%=&+-]*)?")


def next_page(text: str | None) -> str:
    """The page to come back to after signing in: a space's page of this site only (never another host, nor a
    scheme or '//' a browser would read as one); "" for anything else."""
    if not text or len(text) > NEXT_MAX or not _NEXT.fullmatch(text) or "//" in text or ".." in text:
        return ""
    return text


def _space_in(asked: str) -> tuple[str, str]:
    """(platform, space id) of a page that next_page let through."""
    _, _, platform, space_id, *_ = asked.split("?", 1)[0].split("/") + ["", "", "", ""]
    return platform, space_id


def _landing(spaces: list[Membership], asked: str) -> str:
    """Where a sign-in ends: the page asked for when it is a page of one of the member's spaces, else home."""
    if asked and any((m.platform, m.space_id) == _space_in(asked) for m in spaces):
        return asked
    return _home_of(spaces) if spaces else "/"


async def login_page(request: web.Request) -> web.Response:
    state = request.app[STATE]
    asked = next_page(request.query.get("next"))
    return render(
        request,
        "login.html",
        discord=state.config.discord is not None,
        slack=state.config.slack is not None,
        after=f"?{urlencode({'next': asked})}" if asked else "",
    )


async def link_page(request: web.Request) -> web.Response:
    """The link opened: a button signs in (a link preview or a prefetch cannot use it up)."""
    return render(request, "link.html", token=request.match_info["token"])


async def link_sign_in(request: web.Request) -> web.StreamResponse:
    await _allowed(request)
    form = await request.post()
    token = form.get("token")
    grant = await request.app[STATE].need_features().access.redeem_link(token if isinstance(token, str) else "")
    if grant is None:
        return error_page(
            request,
            403,
            "Link used or expired",
            "This sign-in link was used already or is more than 10 minutes old. Run `studybot web link` for a new one.",
        )
    name = CONSOLE_NAME if grant.platform == "console" else f"{grant.platform} {grant.space_id}"
    spaces = [Membership(grant.platform, grant.space_id, name, grant.is_admin)]
    lifetime = request.app[STATE].config.session_lifetime.total_seconds()
    set_session(request, session_of(request).signed(grant.user_id, grant.platform, grant.user_id, spaces, lifetime))
    log.info("signed in to the dashboard with a one-time link (%s/%s)", grant.platform, grant.space_id)
    raise web.HTTPSeeOther(_home_of(spaces))


async def sign_out(request: web.Request) -> web.StreamResponse:
    set_session(request, type(session_of(request))())
    raise web.HTTPSeeOther("/login")


# ---- OAuth: Discord and Slack ---------------------------------------------------------------------


def _redirect_uri(request: web.Request, provider: str) -> str:
    return request.app[STATE].config.url(f"/login/{provider}/callback")


def _start(request: web.Request, provider: str, url: str, flow: Flow) -> web.StreamResponse:
    response = web.HTTPFound(url)
    sealed = request.app[STATE].sealer.seal(asdict(flow))
    set_cookie(response, OAUTH_COOKIE, sealed, secure=request.app[STATE].config.secure, max_age=OAUTH_SECONDS)
    raise response


async def discord_start(request: web.Request) -> web.StreamResponse:
    config = request.app[STATE].config
    if config.discord is None:
        raise web.HTTPNotFound()
    await _allowed(request)
    flow = Flow.start("discord", next_page(request.query.get("next")))
    return _start(
        request,
        "discord",
        discord_authorize_url(config.endpoints, config.discord, _redirect_uri(request, "discord"), flow),
        flow,
    )


async def slack_start(request: web.Request) -> web.StreamResponse:
    config = request.app[STATE].config
    if config.slack is None:
        raise web.HTTPNotFound()
    await _allowed(request)
    flow = Flow.start("slack", next_page(request.query.get("next")))
    return _start(
        request,
        "slack",
        slack_authorize_url(config.endpoints, config.slack, _redirect_uri(request, "slack"), flow),
        flow,
    )


def _flow(request: web.Request, provider: str) -> tuple[Flow, str]:
    """The flow this browser started, checked against the callback's state; and the code."""
    state = request.app[STATE]
    value = state.sealer.open(request.cookies.get(OAUTH_COOKIE), ttl=OAUTH_SECONDS)
    try:
        flow = Flow(**value) if value else None
    except TypeError:
        flow = None
    given = request.query.get("state", "")
    if flow is None or flow.provider != provider or not hmac.compare_digest(given.encode(), flow.state.encode()):
        raise SignInFailed("the sign-in's state does not match this browser's (start again from the sign-in page)")
    if "error" in request.query:
        raise SignInFailed(f"{provider.capitalize()} did not sign you in ({request.query['error'][:60]})")
    code = request.query.get("code", "")
    if not code:
        raise SignInFailed("the answer carries no code")
    return flow, code


def _failed(request: web.Request, exc: SignInFailed) -> web.Response:
    log.info("a dashboard sign-in failed: %s", exc)
    response = error_page(request, 403, "Sign-in failed", f"Sign-in failed: {exc}.")
    clear_cookie(response, OAUTH_COOKIE, secure=request.app[STATE].config.secure)
    return response


async def _finish(
    request: web.Request, user_id: str, platform: str, name: str, spaces: list[Membership], asked: str = ""
) -> web.StreamResponse:
    lifetime = request.app[STATE].config.session_lifetime.total_seconds()
    landing = _landing(spaces, next_page(asked))
    if landing.startswith("/s/"):  # its space first: a session cookie too big for every space still keeps it
        spaces = sorted(spaces, key=lambda m: (m.platform, m.space_id) != _space_in(landing))
    set_session(request, session_of(request).signed(user_id, platform, name, spaces, lifetime))
    response = web.HTTPSeeOther(landing)
    clear_cookie(response, OAUTH_COOKIE, secure=request.app[STATE].config.secure)
    log.info("signed in to the dashboard with %s: %d space(s)", platform, len(spaces))
    raise response


async def discord_callback(request: web.Request) -> web.StreamResponse:
    state = request.app[STATE]
    if state.config.discord is None:
        raise web.HTTPNotFound()
    await _allowed(request)
    try:
        flow, code = _flow(request, "discord")
        user = await discord_user(
            state.config.endpoints, state.config.discord, code, _redirect_uri(request, "discord"), flow
        )
    except SignInFailed as exc:
        return _failed(request, exc)
    features = state.need_features()
    served = await features.access.served_spaces("discord", [g.id for g in user.guilds])
    spaces = [Membership("discord", g.id, g.name, g.is_admin) for g in user.guilds if g.id in served]
    spaces.sort(key=lambda m: (not m.is_admin, m.name.lower()))
    return await _finish(request, user.id, "discord", user.name, spaces, flow.next)


async def slack_callback(request: web.Request) -> web.StreamResponse:
    state = request.app[STATE]
    if state.config.slack is None:
        raise web.HTTPNotFound()
    await _allowed(request)
    try:
        flow, code = _flow(request, "slack")
        user = await slack_user(state.config.endpoints, state.config.slack, code, _redirect_uri(request, "slack"), flow)
    except SignInFailed as exc:
        return _failed(request, exc)
    features = state.need_features()
    spaces = []
    if user.team_id in await features.access.served_spaces("slack", [user.team_id]):
        platform = features.context.platforms.get("slack")
        admin = isinstance(platform, AdminPlatform) and await platform.is_space_admin(user.team_id, user.id)
        spaces.append(Membership("slack", user.team_id, user.team_name, admin))
    return await _finish(request, user.id, "slack", user.name, spaces, flow.next)


def add_routes(app: web.Application) -> None:
    app.router.add_get("/login", login_page)
    app.router.add_get("/login/link/{token}", link_page)
    app.router.add_post("/login/link", link_sign_in)
    app.router.add_post("/logout", sign_out)
    app.router.add_get("/login/discord", discord_start)
    app.router.add_get("/login/discord/callback", discord_callback)
    app.router.add_get("/login/slack", slack_start)
    app.router.add_get("/login/slack/callback", slack_callback)
