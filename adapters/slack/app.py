"""Build the slack-bolt AsyncApp and run it: Socket Mode when SLACK_APP_TOKEN is set, otherwise HTTP mode
(requests on /slack/events, verified with SLACK_SIGNING_SECRET) on STUDYBOT_HTTP_HOST:STUDYBOT_HTTP_PORT."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

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
from adapters.slack.logsafe import install as redact_logs
from adapters.slack.options import EVENTS_PATH, SlackOptions
from adapters.slack.permissions import AdminPolicy
from adapters.slack.platform import SlackPlatform, make_client
from adapters.slack.signature import UNREADABLE, RequestGuard
from bot.config import Settings
from bot.quiz import QuizService

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SlackBot:
    app: AsyncApp
    deps: SlackDeps
    guard: RequestGuard


def build_slack_app(
    service: QuizService,
    *,
    token: str | None = None,
    signing_secret: str = "",
    client: AsyncWebClient | None = None,
    admins: frozenset[str] = frozenset(),
) -> SlackBot:
    """The AsyncApp with every listener registered, and the SlackPlatform added to the service."""
    client = client or make_client(token)
    redact_logs(signing_secret, token or "")
    app = AsyncApp(
        name="studybot", client=client, signing_secret=signing_secret, raise_error_for_unhandled_request=True
    )
    platform = SlackPlatform(client)
    service.add_platform(platform)
    deps = SlackDeps(service, platform, AdminPolicy(admins))
    app.middleware(dedupe_middleware(service))
    register_commands(app, deps)
    register_actions(app, deps)
    register_events(app, deps)
    app.error(on_error)
    return SlackBot(app, deps, RequestGuard(signing_secret, service, EVENTS_PATH))


def describe(body: dict) -> str:
    """What kind of payload this is, for logs (never the payload itself: it holds URLs and tokens)."""
    event = body.get("event") if isinstance(body.get("event"), dict) else {}
    actions = body.get("actions") if isinstance(body.get("actions"), list) else []
    detail = (
        event.get("type")
        or body.get("command")
        or (actions[0].get("action_id") if actions and isinstance(actions[0], dict) else None)
        or ""
    )
    return f"{body.get('type') or ('slash_command' if 'command' in body else 'unknown')} {detail}".strip()


async def on_error(error: Exception, body: dict) -> BoltResponse | None:
    """Payloads with no listener are acknowledged and logged at debug; real failures are logged."""
    if isinstance(error, BoltUnhandledRequestError):
        log.debug("acknowledged an unhandled Slack payload: %s", describe(body))
        return BoltResponse(status=200, body="")
    log.error("Slack listener failed on %s", describe(body), exc_info=error)
    return None


class GuardedSocketModeHandler(AsyncSocketModeHandler):
    """Socket Mode as bolt does it, except that a payload whose fields bolt cannot read (e.g. "user": 5) is
    acknowledged, logged at INFO once and ignored, as the HTTP edge does (adapters/slack/signature.py)."""

    async def handle(self, client: Any, req: SocketModeRequest) -> None:  # type: ignore[override]
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


async def check_token(client: AsyncWebClient) -> None:
    try:
        auth = await client.auth_test()
    except SlackApiError as exc:
        raise SystemExit(f"Slack rejected SLACK_BOT_TOKEN: {exc.response.get('error')}") from None
    log.info("Slack: signed in as %s in workspace %s (%s)", auth.get("user"), auth.get("team"), auth.get("team_id"))


async def start_slack(
    service: QuizService,
    settings: Settings,
    *,
    client: AsyncWebClient | None = None,
    env: Mapping[str, str] | None = None,
) -> asyncio.Task[None]:
    """Start the Slack adapter; the returned task serves until it is cancelled."""
    if not settings.slack_bot_token and client is None:
        raise SystemExit("SLACK_BOT_TOKEN is not set.")
    options = SlackOptions.from_env(env)
    if not settings.slack_app_token and not settings.slack_signing_secret:
        raise SystemExit("Slack HTTP mode needs SLACK_SIGNING_SECRET (or set SLACK_APP_TOKEN for Socket Mode).")
    bot = build_slack_app(
        service, token=settings.slack_bot_token, signing_secret=settings.slack_signing_secret or "",
        client=client, admins=options.admins,
    )
    await check_token(bot.app.client)
    if settings.slack_app_token:
        handler = socket_mode_handler(bot.app, settings.slack_app_token)
        await handler.connect_async()
        log.info("Slack: Socket Mode connected")
        return asyncio.create_task(_hold(handler.close_async), name="slack-socket-mode")
    runner = await serve_http(bot, options.http_host, options.http_port)
    log.info("Slack: HTTP mode listening on %s (path %s)", runner.addresses, EVENTS_PATH)
    return asyncio.create_task(_hold(runner.cleanup), name="slack-http")
