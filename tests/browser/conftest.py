"""The dashboard in a real browser: Debian's Chromium driven by Playwright (never a browser download), one
browser for the whole session. Each test gets the bot's web application on 127.0.0.1 (port 0) over a fresh
SQLite store, with the console channel on the same features and loopback fakes of Discord's and Slack's
OAuth endpoints; it all runs on an event loop of its own thread, and tests drive it with `dash.run(...)`.
A failing test leaves a screenshot in test-results/browser/."""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import os
import threading
from collections.abc import Coroutine, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

import pytest
from aiohttp import web
from cryptography.fernet import Fernet

from adapters.console.channel import ConsoleChannel
from bot.app.bootstrap import bootstrap
from bot.app.web_cli import CONSOLE_GRANT
from bot.store.sqlite import SqliteStore
from bot.web.app import build_app, features_ready
from bot.web.config import Endpoints, OAuthClient, WebConfig
from bot.web.server import WebServer
from bot.web.state import STATE
from tests.browser.fake_oauth import FakeOAuth
from tests.support.fakes import FixedClock, make_bank

try:
    from playwright.sync_api import Browser, Page, sync_playwright
except ImportError as exc:  # never a silent skip: the test extra installs it
    raise ImportError(f"{exc}: the browser tests need Playwright; pip install -e '.[test]'") from None

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parents[2]
FAILURES = ROOT / "test-results" / "browser"
T = TypeVar("T")
NOW = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC)  # a Monday


class Loop:
    """An event loop on its own thread: the server side of the tests."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="dashboard-loop", daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 30) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()


class Dashboard:
    """The bot's features, the console on them, the dashboard and the OAuth fakes, on loopback."""

    def __init__(self, loop: Loop, tmp: Path) -> None:
        self.loop = loop
        self.tmp = tmp
        self.oauth = FakeOAuth()
        self.out = io.StringIO()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return self.loop.run(coro)

    async def start(self) -> None:
        self.clock = FixedClock(NOW)
        self.store = SqliteStore(self.tmp / "dash.db")
        await self.store.open()
        self.features = bootstrap(self.store, make_bank(), self.clock)
        self.console = ConsoleChannel(self.features, stdin=io.StringIO(), stdout=self.out)
        await self.console.start()  # the console channel: configured, today's question posted
        self.fake_runner = web.AppRunner(self.oauth.app(), access_log=None)
        await self.fake_runner.setup()
        site = web.TCPSite(self.fake_runner, "127.0.0.1", 0)
        await site.start()
        fake = f"http://127.0.0.1:{self.fake_runner.addresses[0][1]}"
        endpoints = Endpoints(
            discord_authorize=f"{fake}/discord/oauth2/authorize",
            discord_api=f"{fake}/discord/api",
            slack_authorize=f"{fake}/slack/openid/connect/authorize",
            slack_api=f"{fake}/slack/api",
        )
        client = OAuthClient(self.oauth.client_id, self.oauth.client_secret)
        config = WebConfig("http://127.0.0.1", Fernet.generate_key(), client, client, endpoints)

        async def healthy() -> bool:
            return True

        app = build_app(config, self.features.context.metrics, healthy)
        self.server = WebServer(app)
        port = await self.server.listen("127.0.0.1", 0)
        app[STATE].config = replace(config, public_url=f"http://127.0.0.1:{port}")
        features_ready(app, self.features)
        self.url = f"http://127.0.0.1:{port}"

    async def stop(self) -> None:
        await self.server.close()
        await self.fake_runner.cleanup()
        await self.features.close()
        await self.store.close()

    def link(self) -> str:
        """A new one-time sign-in link for the console's admin, as `studybot web link` prints it."""
        return f"{self.url}/login/link/{self.run(self.features.access.issue_link(CONSOLE_GRANT))}"

    def console_says(self, line: str) -> str:
        """What the console prints for one typed line."""
        before = len(self.out.getvalue())
        self.run(self.console.handle(line))
        return self.out.getvalue()[before:]


@pytest.fixture(scope="module")
def loop() -> Iterator[Loop]:
    running = Loop()
    yield running
    running.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """One browser for the browser tests (they are one module): Playwright's sync API holds an event loop on
    this thread while it runs, so it stops before the asyncio tests of the other folders start."""
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium
        chromium.close()


@pytest.fixture
def dash(loop: Loop, tmp_path: Path) -> Iterator[Dashboard]:
    board = Dashboard(loop, tmp_path)
    loop.run(board.start())
    yield board
    loop.run(board.stop())


@pytest.fixture
def page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    tab = context.new_page()
    tab.set_default_timeout(10_000)
    yield tab
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        FAILURES.mkdir(parents=True, exist_ok=True)
        tab.screenshot(path=str(FAILURES / f"{request.node.name}.png"), full_page=True)
    context.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if report.when == "call":
        item.rep_call = report  # type: ignore[attr-defined]
    return report


def docs_shot(page: Page, name: str) -> None:
    """With STUDYBOT_DOCS_SCREENSHOTS=DIR, keep this page as DIR/NAME.png for docs/dashboard.md (small:
    a palette of 64 colours)."""
    folder = os.environ.get("STUDYBOT_DOCS_SCREENSHOTS")
    if not folder:
        return
    from PIL import Image

    page.wait_for_function("() => Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)")
    path = Path(folder) / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    data = page.screenshot(full_page=True)
    image = Image.open(io.BytesIO(data)).convert("RGB").quantize(colors=64)
    image.save(path, optimize=True)
