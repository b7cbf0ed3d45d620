"""The pages a person sees at the end of "Add to Slack": plain words, nothing changed on a failure."""

from __future__ import annotations

import html
import logging
from collections.abc import Awaitable, Callable, Sequence

from slack_bolt.oauth.async_callback_options import AsyncCallbackOptions, AsyncFailureArgs, AsyncSuccessArgs
from slack_bolt.response import BoltResponse
from slack_sdk.oauth.installation_store import Installation

log = logging.getLogger(__name__)

INSTALL_PATH = "/slack/install"
REDIRECT_PATH = "/slack/oauth_redirect"

REASONS = {
    "access_denied": "The installation was cancelled in Slack, so nothing was installed.",
    "invalid_browser": "This install link was opened in another browser, or it has expired.",
    "invalid_state": "This install link has expired or was already used.",
    "missing_code": "Slack did not send the approval code, so nothing was installed.",
    "invalid_code": "Slack did not accept the approval code, so nothing was installed.",
    "storage_error": "The installation could not be saved. Nothing was installed.",
}
FALLBACK = "The installation did not finish, so nothing was installed."


def page(title: str, message: str, link: str | None = None, link_text: str = "") -> str:
    more = f'<p><a href="{html.escape(link)}">{html.escape(link_text)}</a></p>' if link else ""
    return (
        '<!doctype html><html><head><meta charset="utf-8"><title>studybot</title>'
        "<style>body{font-family:sans-serif;max-width:36em;margin:3em auto;padding:0 1em;line-height:1.5}</style>"
        f"</head><body><h1>{html.escape(title)}</h1><p>{html.escape(message)}</p>{more}</body></html>"
    )


def failure_page(reason: str) -> str:
    return page(
        "studybot was not installed", REASONS.get(reason, FALLBACK), INSTALL_PATH, "Start the installation again"
    )


Welcome = Callable[[Installation], Awaitable[None]]


async def on_success(args: AsyncSuccessArgs, welcome: Welcome | None = None) -> BoltResponse:
    """The page that ends a successful install; the installer also gets the welcome in their DMs (`welcome`;
    a failure there is logged and the page still says it is installed)."""
    installation = args.installation
    if welcome is not None:
        try:
            await welcome(installation)
        except Exception as exc:  # noqa: BLE001 - the install is done; the welcome is a nicety
            log.info("the install welcome was not sent: %s", type(exc).__name__)
    team = installation.team_name or installation.enterprise_name or "your workspace"
    link = f"slack://app?team={installation.team_id}&id={installation.app_id}" if installation.app_id else None
    body = page(
        "studybot is installed",
        f"studybot is now in {team}. In a channel, type /quiz help to see what it can do, "
        "and /quiz config to set up the daily question (workspace admins).",
        link,
        "Open Slack",
    )
    return BoltResponse(
        status=200, body=body, headers=_headers(args.settings.state_utils.build_set_cookie_for_deletion())
    )


async def on_failure(args: AsyncFailureArgs) -> BoltResponse:
    log.info("Slack install refused: %s", args.reason)  # the reason code only: never the code or state
    return BoltResponse(
        status=args.suggested_status_code,
        body=failure_page(args.reason),
        headers=_headers(args.settings.state_utils.build_set_cookie_for_deletion()),
    )


def _headers(cookie: str) -> dict[str, str | Sequence[str]]:
    return {"Content-Type": "text/html; charset=utf-8", "Set-Cookie": cookie}


def callbacks(welcome: Welcome | None = None) -> AsyncCallbackOptions:
    """The install's end pages; `welcome` greets the installer of a new workspace."""

    async def success(args: AsyncSuccessArgs) -> BoltResponse:
        return await on_success(args, welcome)

    return AsyncCallbackOptions(success=success, failure=on_failure)
