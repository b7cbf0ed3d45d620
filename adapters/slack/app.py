"""Build the slack-bolt AsyncApp and run it: Socket Mode when SLACK_APP_TOKEN is set, otherwise HTTP mode
(requests on /slack/events, verified with SLACK_SIGNING_SECRET) on STUDYBOT_HTTP_HOST:STUDYBOT_HTTP_PORT.

With SLACK_CLIENT_ID and SLACK_CLIENT_SECRET set, the app serves "Add to Slack" for many workspaces (bolt's
OAuth flow on /slack/install and /slack/oauth_redirect, HTTP mode): each workspace's installation is kept in
our database with its bot token (and, with token rotation, its refresh token) encrypted under
STUDYBOT_SECRET_KEY, and every request and push uses its own workspace's token, renewed before it expires.
Without them, one SLACK_BOT_TOKEN serves one workspace."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp import web
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp
from slack_bolt.error import BoltUnhandledRequestError
from slack_bolt.response import BoltResponse
from slack_sdk.errors import SlackApiError
from slack_sdk.socket_mode.request import SocketModeRequest
from slack_sdk.socket_mode.response import SocketModeResponse
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.actions import register_actions
from adapters.slack.commands import register_commands
from adapters.slack.dedupe import dedupe_middleware
from adapters.slack.deps import SlackDeps
from adapters.slack.events import register_events
from adapters.slack.ids import PLATFORM
from adapters.slack.logsafe import install as redact_logs
from adapters.slack.options import EVENTS_PATH, SlackOptions
from adapters.slack.outage import follow_up, refusal
from adapters.slack.packs import register_pack_views
from adapters.slack.permissions import AdminPolicy
from adapters.slack.platform import SlackPlatform, make_client
from adapters.slack.reports import register_reports
from adapters.slack.settings import DEFAULT_SLACK_SCOPES, SlackSettings
from adapters.slack.shapes import drop_unreadable
from adapters.slack.signature import UNREADABLE, RequestGuard
from adapters.slack.suggestions import register_suggestions
from bot.features import Features
from bot.kernel.errors import StartupError
from bot.kernel.values import ChannelRef

log = logging.getLogger(__name__)

RETRY_DELAYS = (1.0, 2.0, 5.0, 10.0, 30.0, 60.0)  # seconds between attempts to reach Slack at start


@dataclass(frozen=True)
class OAuthConfig:
    """What "Add to Slack" needs (read from bot/app/config.py's settings; never logged)."""

    client_id: str
    client_secret: str = field(repr=False)
    key: bytes = field(repr=False)  # STUDYBOT_SECRET_KEY, already checked
    scopes: tuple[str, ...] = DEFAULT_SLACK_SCOPES
    redirect_uri: str | None = None


UNINSTALLED_NOTE = "studybot is no longer installed in this workspace. An admin can add it again from the install page."


@dataclass(frozen=True)
class SlackBot:
    app: AsyncApp
    deps: SlackDeps
    guard: RequestGuard


def build_slack_app(
    service: Features,
    *,
    token: str | None = None,
    signing_secret: str = "",
    client: AsyncWebClient | None = None,
    admins: frozenset[str] = frozenset(),
    oauth: OAuthConfig | None = None,
) -> SlackBot:
    """The AsyncApp with every listener registered, and the SlackPlatform added to the service."""
    client = client or make_client(None if oauth else token)
    redact_logs(signing_secret, token or "", oauth.client_secret if oauth else "")
    if oauth is None:
        app = AsyncApp(
            name="studybot", client=client, signing_secret=signing_secret, raise_error_for_unhandled_request=True
        )
        platform = SlackPlatform(client)
    else:
        app, platform = _many_workspaces(service, client, signing_secret, oauth)
    platform.admins = AdminPolicy(admins)  # one rule for commands and the dashboard
    service.context.platforms.add(platform)
    deps = SlackDeps(service, platform, platform.admins)
    app.middleware(drop_unreadable)
    app.middleware(dedupe_middleware(service))
    register_commands(app, deps)
    register_actions(app, deps)
    register_events(app, deps)
    register_pack_views(app, deps)
    register_suggestions(app, deps)
    register_reports(app, deps)
    app.error(error_handler(service))
    return SlackBot(app, deps, RequestGuard(signing_secret, service, EVENTS_PATH))


def _many_workspaces(
    service: Features, client: AsyncWebClient, signing_secret: str, oauth: OAuthConfig
) -> tuple[AsyncApp, SlackPlatform]:
    """bolt's OAuth flow and authorization on our installation and state stores (through the service)."""
    from slack_bolt.authorization.async_authorize import AsyncInstallationStoreAuthorize
    from slack_bolt.oauth.async_oauth_settings import AsyncOAuthSettings

    from adapters.slack.install_pages import INSTALL_PATH, REDIRECT_PATH, callbacks
    from adapters.slack.installations import ServiceInstallationStore, ServiceStateStore, TokenBox
    from adapters.slack.rotation import TokenRotation

    # token rotation: an installation that came with a refresh token is renewed before it expires, by the store
    rotation = TokenRotation(client, oauth.client_id, oauth.client_secret)
    installs = ServiceInstallationStore(service, TokenBox(oauth.key), rotation)
    platform = SlackPlatform(client, tokens=installs.token_for)

    async def welcome(installation: Any) -> None:
        """A new workspace's installer reads the welcome in their DMs with the app, once (bot.installs)."""
        if not installation.user_id or not installation.team_id:
            return
        text = await service.installs.welcome(PLATFORM, installation.team_id)
        if text is not None:
            await platform.send_direct(ChannelRef(PLATFORM, installation.team_id, ""), installation.user_id, text)

    settings = AsyncOAuthSettings(
        client_id=oauth.client_id,
        client_secret=oauth.client_secret,
        scopes=list(oauth.scopes),
        user_scopes=[],
        redirect_uri=oauth.redirect_uri,
        install_path=INSTALL_PATH,
        redirect_uri_path=REDIRECT_PATH,
        callback_options=callbacks(welcome),
        installation_store=installs,
        installation_store_bot_only=True,
        state_store=ServiceStateStore(service),
    )
    authorize = AsyncInstallationStoreAuthorize(
        logger=log,
        installation_store=installs,
        client_id=oauth.client_id,
        client_secret=oauth.client_secret,
        bot_only=True,
        cache_enabled=True,
    )
    app = AsyncApp(
        name="studybot",
        client=client,
        signing_secret=signing_secret,
        oauth_settings=settings,
        installation_store=installs,
        installation_store_bot_only=True,
        authorize=authorize,  # type: ignore[arg-type]  # bolt takes an AsyncAuthorize instance as it is
        user_facing_authorize_error_message=UNINSTALLED_NOTE,
        raise_error_for_unhandled_request=True,
    )
    app.enable_token_revocation_listeners()  # app_uninstalled and tokens_revoked forget the workspace
    return app, platform


def describe(body: dict) -> str:
    """What kind of payload this is, for logs (never the payload itself: it holds URLs and tokens)."""
    raw_event = body.get("event")
    event: dict[str, Any] = raw_event if isinstance(raw_event, dict) else {}
    actions = body.get("actions") if isinstance(body.get("actions"), list) else []
    detail = (
        event.get("type")
        or body.get("command")
        or (actions[0].get("action_id") if actions and isinstance(actions[0], dict) else None)
        or ""
    )
    return f"{body.get('type') or ('slash_command' if 'command' in body else 'unknown')} {detail}".strip()


def error_handler(service: Features) -> Callable[..., Awaitable[BoltResponse | None]]:
    """bolt's error handler for listeners and middleware: payloads with no listener are acknowledged and logged
    at debug; a store outage is told once by the process's StoreOutage (and a request not yet acknowledged
    gets the private "try again"); real failures are logged."""

    async def on_error(error: Exception, body: dict, response: BoltResponse | None = None) -> BoltResponse | None:
        if isinstance(error, BoltUnhandledRequestError):
            log.debug("acknowledged an unhandled Slack payload: %s", describe(body))
            return BoltResponse(status=200, body="")
        if service.context.outage.failed(error):
            if response is None:  # acknowledged already: the listener had its chance to tell the member
                return None
            ack, then = refusal(body, service.context.platforms.get(PLATFORM))
            follow_up(then)
            return BoltResponse(status=200, body=json.dumps(ack) if ack is not None else "")
        log.error("Slack listener failed on %s", describe(body), exc_info=error)
        return None

    return on_error


class GuardedSocketModeHandler(AsyncSocketModeHandler):
    """Socket Mode as bolt does it, except that a payload whose fields bolt cannot read (e.g. "user": 5) is
    acknowledged, logged at INFO once and ignored, as the HTTP edge does (adapters/slack/signature.py)."""

    async def handle(self, client: Any, req: SocketModeRequest) -> None:
        try:
            await super().handle(client, req)
        except (TypeError, AttributeError, KeyError, ValueError, IndexError) as exc:
            log.info(UNREADABLE, type(exc).__name__)
            await client.send_socket_mode_response(SocketModeResponse(envelope_id=req.envelope_id))


def socket_mode_handler(app: AsyncApp, app_token: str) -> AsyncSocketModeHandler:
    """The Socket Mode handler for the same app (connects only when asked)."""
    return GuardedSocketModeHandler(app, app_token)


async def serve_http(bot: SlackBot, host: str, port: int) -> web.AppRunner:
    """Serve the app's aiohttp application (POST /slack/events, signature checked first) until the runner
    is cleaned up."""
    web_app = bot.app.web_app(path=EVENTS_PATH, port=port)
    web_app.middlewares.append(bot.guard.middleware)
    runner = web.AppRunner(web_app)
    await runner.setup()
    try:
        await web.TCPSite(runner, host, port).start()
    except OSError:
        await runner.cleanup()
        raise
    return runner


async def _hold(cleanup: Callable[[], Awaitable[None]]) -> None:
    """Serve until cancelled, then clean up."""
    try:
        await asyncio.Event().wait()
    finally:
        await cleanup()


async def check_token(client: AsyncWebClient, retry_delays: tuple[float, ...] = RETRY_DELAYS) -> None:
    """auth.test; a rejected token stops the start, no network is retried with growing delays (one line each)."""
    attempt = 0
    while True:
        try:
            auth = await client.auth_test()
            break
        except SlackApiError as exc:
            raise StartupError(f"Slack rejected SLACK_BOT_TOKEN: {exc.response.get('error')}") from None
        except (OSError, aiohttp.ClientError, TimeoutError) as exc:  # no network, no DNS, refused, timed out
            delay = retry_delays[min(attempt, len(retry_delays) - 1)]
            attempt += 1
            log.warning(
                "cannot reach Slack (%s); attempt %d failed, retrying in %g s",
                str(exc).splitlines()[0] if str(exc) else type(exc).__name__,
                attempt,
                delay,
            )
            await asyncio.sleep(delay)
    log.info("Slack: signed in as %s in workspace %s (%s)", auth.get("user"), auth.get("team"), auth.get("team_id"))


def oauth_config(settings: SlackSettings) -> OAuthConfig | None:
    """Add to Slack when SLACK_CLIENT_ID and SLACK_CLIENT_SECRET are set; a bad STUDYBOT_SECRET_KEY stops
    the start with one line naming the variable. The install pages need HTTP mode."""
    if not (settings.slack_oauth and settings.slack_client_id and settings.slack_client_secret):
        return None
    try:
        key = settings.token_key()
    except ValueError as exc:
        raise StartupError(str(exc)) from None
    if settings.slack_app_token:
        raise StartupError(
            "SLACK_CLIENT_ID (Add to Slack) runs in HTTP mode, with its install pages: unset SLACK_APP_TOKEN."
        )
    return OAuthConfig(
        settings.slack_client_id,
        settings.slack_client_secret,
        key,
        settings.slack_scopes,
        settings.slack_redirect_uri,
    )


async def start_slack(
    service: Features,
    settings: SlackSettings,
    *,
    client: AsyncWebClient | None = None,
    retry_delays: tuple[float, ...] = RETRY_DELAYS,
) -> asyncio.Task[None]:
    """Start the Slack adapter; the returned task serves until it is cancelled."""
    oauth = oauth_config(settings)
    if oauth is None and not settings.slack_bot_token and client is None:
        raise StartupError("SLACK_BOT_TOKEN is not set.")
    options = SlackOptions.from_settings(settings)
    if not settings.slack_app_token and not settings.slack_signing_secret:
        raise StartupError("Slack HTTP mode needs SLACK_SIGNING_SECRET (or set SLACK_APP_TOKEN for Socket Mode).")
    bot = build_slack_app(
        service,
        token=settings.slack_bot_token,
        signing_secret=settings.slack_signing_secret or "",
        client=client,
        admins=options.admins,
        oauth=oauth,
    )
    if oauth is None:
        await check_token(bot.app.client, retry_delays)
    elif settings.slack_bot_token:
        log.warning("Slack: SLACK_CLIENT_ID is set, so SLACK_BOT_TOKEN is ignored (each workspace uses its own)")
    if settings.slack_app_token:
        handler = socket_mode_handler(bot.app, settings.slack_app_token)
        await handler.connect_async()
        log.info("Slack: Socket Mode connected")
        return asyncio.create_task(_hold(handler.close_async), name="slack-socket-mode")
    try:
        runner = await serve_http(bot, options.http_host, options.http_port)
    except OSError as exc:
        raise StartupError(
            f"STUDYBOT_HTTP_PORT={options.http_port}: cannot listen on {options.http_host}:"
            f"{options.http_port} ({exc.strerror or exc}); choose a free port."
        ) from None
    log.info("Slack: HTTP mode listening on %s (path %s)", runner.addresses, EVENTS_PATH)
    if oauth is not None:
        log.info("Slack: Add to Slack on /slack/install (redirect URL path /slack/oauth_redirect)")
    return asyncio.create_task(_hold(runner.cleanup), name="slack-http")
