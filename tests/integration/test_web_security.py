"""The dashboard's security, over HTTP on loopback (raw headers, not a browser's view of them): cookies behind
https, the OAuth state and PKCE checks, rate-limited sign-ins, no secret in any log, pages before the bot is
ready, and the pages of someone not signed in."""

from __future__ import annotations

import datetime as dt
import logging
import re
from dataclasses import replace
from urllib.parse import parse_qs, urlsplit

import aiohttp
import pytest
from aiohttp import web
from cryptography.fernet import Fernet
from yarl import URL

from bot.access.values import LinkGrant
from bot.app.bootstrap import bootstrap
from bot.kernel.metrics import Metrics
from bot.web.app import build_app, features_ready
from bot.web.config import Endpoints, OAuthClient, WebConfig
from bot.web.server import WebServer
from bot.web.state import STATE
from tests.browser.fake_oauth import FakeOAuth
from tests.support.fakes import FixedClock, make_bank
from tests.support.memory_store import InMemoryStore

GRANT = LinkGrant("console", "local", "you", True)


async def healthy() -> bool:
    return True


class Site:
    def __init__(self, **config: object) -> None:
        self.config = config
        self.oauth = FakeOAuth()

    async def __aenter__(self) -> Site:
        self.store = InMemoryStore()
        await self.store.open()
        self.clock = FixedClock(dt.datetime(2026, 11, 30, 12, tzinfo=dt.UTC))
        self.features = bootstrap(self.store, make_bank(), self.clock)
        self.fake = web.AppRunner(self.oauth.app(), access_log=None)
        await self.fake.setup()
        await web.TCPSite(self.fake, "127.0.0.1", 0).start()
        base = f"http://127.0.0.1:{self.fake.addresses[0][1]}"
        endpoints = Endpoints(
            f"{base}/discord/oauth2/authorize",
            f"{base}/discord/api",
            f"{base}/slack/openid/connect/authorize",
            f"{base}/slack/api",
        )
        client = OAuthClient(self.oauth.client_id, self.oauth.client_secret)
        config = WebConfig("http://127.0.0.1", Fernet.generate_key(), client, client, endpoints)
        self.app = build_app(config, Metrics(), healthy)
        self.server = WebServer(self.app)
        self.port = await self.server.listen("127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self.port}"
        self.app[STATE].config = replace(
            config,
            public_url=self.config.get("public_url", self.url),
            **{k: v for k, v in self.config.items() if k != "public_url"},
        )
        features_ready(self.app, self.features)
        self.http = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.http.close()
        await self.server.close()
        await self.fake.cleanup()
        await self.features.close()
        await self.store.close()

    async def csrf(self, path: str = "/login") -> str:
        async with self.http.get(self.url + path) as resp:
            text = await resp.text()
        found = re.search(r'name="csrf" value="([^"]+)"', text)
        assert found, text
        return found.group(1)

    async def link_sign_in(self, token: str) -> aiohttp.ClientResponse:
        csrf = await self.csrf(f"/login/link/{token}")
        async with self.http.post(
            self.url + "/login/link", data={"csrf": csrf, "token": token}, allow_redirects=False
        ) as r:
            await r.read()
            return r


async def test_behind_https_the_session_cookie_is_secure_httponly_lax_and_host_only():
    async with Site(public_url="https://quiz.example.com") as site:
        async with site.http.get(site.url + "/login") as resp:
            cookie = resp.headers["Set-Cookie"]
            csp = resp.headers["Content-Security-Policy"]
    assert cookie.startswith("__Host-studybot_session=")
    assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Path=/" in cookie
    assert "Domain" not in cookie
    assert "script-src 'none'" in csp and "unsafe-inline" not in csp


async def test_a_link_expires_after_10_minutes_and_a_tampered_cookie_is_a_new_anonymous_session():
    async with Site() as site:
        token = await site.features.access.issue_link(GRANT)
        site.clock.advance(minutes=10)
        assert (await site.link_sign_in(token)).status == 403
        fresh = await site.features.access.issue_link(GRANT)
        assert (await site.link_sign_in(fresh)).status == 303
        async with site.http.get(site.url + "/s/console/local", allow_redirects=False) as resp:
            assert resp.status == 200
        site.http.cookie_jar.clear()
        site.http.cookie_jar.update_cookies({"studybot_session": "forged" + "A" * 40}, response_url=URL(site.url))
        async with site.http.get(site.url + "/s/console/local", allow_redirects=False) as resp:
            assert resp.status == 303 and resp.headers["Location"] == "/login?next=/s/console/local"  # back after


async def test_sign_ins_are_rate_limited_per_client():
    async with Site(attempt_limit=3) as site:
        statuses = [(await site.link_sign_in("x" * 43)).status for _ in range(4)]
        assert statuses == [403, 403, 403, 429]
        async with site.http.get(site.url + "/login/discord", allow_redirects=False) as resp:
            assert resp.status == 429 and resp.headers["Retry-After"] == "600"


async def _authorize(site: Site, provider: str) -> tuple[str, str]:
    """Start a sign-in here and let the fake approve it: (code, state) of its redirect back."""
    async with site.http.get(f"{site.url}/login/{provider}", allow_redirects=False) as start:
        assert start.status == 302
        where = start.headers["Location"]
    assert "code_challenge=" in where and "code_challenge_method=S256" in where and "state=" in where
    async with site.http.get(where, allow_redirects=False) as approved:
        back = parse_qs(urlsplit(approved.headers["Location"]).query)
    return back["code"][0], back["state"][0]


async def test_the_oauth_state_and_the_pkce_verifier_are_checked(caplog):
    async with Site() as site:
        code_a, _state_a = await _authorize(site, "discord")
        code_b, state_b = await _authorize(site, "discord")  # this browser's flow is now the second one
        async with site.http.get(f"{site.url}/login/discord/callback", params={"code": code_b, "state": "forged"}) as r:
            assert r.status == 403 and "state does not match" in await r.text()
        _, state_c = await _authorize(site, "discord")
        # the first flow's code under the latest flow's state: its PKCE verifier does not match the code's challenge
        async with site.http.get(f"{site.url}/login/discord/callback", params={"code": code_a, "state": state_c}) as r:
            assert r.status == 403 and "Sign-in failed" in await r.text()
        assert "discord token refused" in site.oauth.calls
        assert state_b != state_c


async def test_no_token_code_or_secret_reaches_a_log(caplog):
    caplog.set_level(logging.DEBUG)
    async with Site() as site:
        token = await site.features.access.issue_link(GRANT)
        assert (await site.link_sign_in(token)).status == 303
        site.oauth.discord_guilds = []
        code, state = await _authorize(site, "discord")
        async with site.http.get(f"{site.url}/login/discord/callback", params={"code": code, "state": state}) as r:
            assert r.status == 200  # signed in: no server shared with the bot yet
        issued = list(site.oauth.tokens)
    text = caplog.text
    assert "signed in to the dashboard" in text
    for secret in (token, code, site.oauth.client_secret, *issued):
        assert secret not in text


async def test_pages_wait_for_the_bot_and_ask_strangers_to_sign_in():
    async with Site() as site:
        site.app[STATE].features = None
        async with site.http.get(site.url + "/login/discord", allow_redirects=False) as resp:
            assert resp.status == 503
        features_ready(site.app, site.features)
        async with site.http.get(site.url + "/s/console/local/packs", allow_redirects=False) as resp:
            assert resp.status == 303 and resp.headers["Location"] == "/login?next=/s/console/local/packs"
        async with site.http.post(site.url + "/s/console/local/today", allow_redirects=False) as resp:
            assert resp.status in (303, 403) and "next=" not in resp.headers.get("Location", "")  # a form: no way back
        async with site.http.get(site.url + "/", allow_redirects=False) as resp:
            assert resp.status == 303


@pytest.mark.parametrize("path", ["/s/console/local", "/login", "/static/style.css"])
async def test_every_answer_carries_the_security_headers(path):
    async with Site() as site:
        async with site.http.get(site.url + path) as resp:
            assert resp.headers["X-Content-Type-Options"] == "nosniff"
            assert resp.headers["Referrer-Policy"] == "no-referrer"
            assert "frame-ancestors 'none'" in resp.headers["Content-Security-Policy"]
