"""Loopback fakes of Discord's OAuth2 and Slack's OpenID Connect endpoints (authorize, token, user).

Each authorize call "approves" at once: it redirects back to the given redirect_uri with a code and the
state, remembering the PKCE challenge (and Slack's nonce); the token endpoint checks the client's id and
secret, the code, the redirect_uri and the verifier against that challenge, as the real ones do."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from aiohttp import web


def _challenge(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")


@dataclass
class FakeOAuth:
    client_id: str = "4242"
    client_secret: str = "shh-secret"
    discord_user: dict[str, Any] = field(
        default_factory=lambda: {"id": "1001", "username": "ada", "global_name": "Ada"}
    )
    discord_guilds: list[dict[str, Any]] = field(default_factory=list)
    slack_user: dict[str, Any] = field(default_factory=dict)
    codes: dict[str, dict[str, str]] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)  # access token -> provider
    calls: list[str] = field(default_factory=list)

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/discord/oauth2/authorize", self.authorize)
        app.router.add_get("/slack/openid/connect/authorize", self.authorize)
        app.router.add_post("/discord/api/oauth2/token", self.discord_token)
        app.router.add_get("/discord/api/users/@me", self.discord_me)
        app.router.add_get("/discord/api/users/@me/guilds", self.discord_guilds_list)
        app.router.add_post("/slack/api/openid.connect.token", self.slack_token)
        app.router.add_get("/slack/api/openid.connect.userInfo", self.slack_info)
        return app

    async def authorize(self, request: web.Request) -> web.Response:
        q = request.query
        self.calls.append(f"authorize {request.path.split('/')[1]} {q.get('scope')}")
        if q.get("client_id") != self.client_id or q.get("code_challenge_method") != "S256":
            return web.Response(status=400, text="bad authorize request")
        code = secrets.token_urlsafe(8)
        self.codes[code] = {
            "challenge": q["code_challenge"],
            "redirect_uri": q["redirect_uri"],
            "nonce": q.get("nonce", ""),
        }
        raise web.HTTPFound(f"{q['redirect_uri']}?{urlencode({'code': code, 'state': q['state']})}")

    async def _check(self, request: web.Request) -> tuple[dict[str, str] | None, str]:
        form = await request.post()
        grant = self.codes.pop(str(form.get("code")), None)
        if (
            grant is None
            or form.get("client_id") != self.client_id
            or form.get("client_secret") != self.client_secret
            or form.get("redirect_uri") != grant["redirect_uri"]
            or _challenge(str(form.get("code_verifier", ""))) != grant["challenge"]
        ):
            return None, ""
        token = secrets.token_urlsafe(12)
        return grant, token

    async def discord_token(self, request: web.Request) -> web.Response:
        grant, token = await self._check(request)
        self.calls.append("discord token" + ("" if grant else " refused"))
        if grant is None:
            return web.json_response({"error": "invalid_grant"}, status=400)
        self.tokens[token] = "discord"
        return web.json_response({"access_token": token, "token_type": "Bearer", "scope": "identify guilds"})

    def _bearer(self, request: web.Request, provider: str) -> bool:
        auth = request.headers.get("Authorization", "")
        return auth.startswith("Bearer ") and self.tokens.get(auth[7:]) == provider

    async def discord_me(self, request: web.Request) -> web.Response:
        if not self._bearer(request, "discord"):
            return web.json_response({"message": "401: Unauthorized"}, status=401)
        return web.json_response(self.discord_user)

    async def discord_guilds_list(self, request: web.Request) -> web.Response:
        if not self._bearer(request, "discord"):
            return web.json_response({"message": "401: Unauthorized"}, status=401)
        return web.json_response(self.discord_guilds)

    async def slack_token(self, request: web.Request) -> web.Response:
        grant, token = await self._check(request)
        self.calls.append("slack token" + ("" if grant else " refused"))
        if grant is None:
            return web.json_response({"ok": False, "error": "invalid_code"})
        self.tokens[token] = "slack"
        claims = {"sub": self.slack_user.get("https://slack.com/user_id"), "nonce": grant["nonce"]}
        body = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
        return web.json_response({"ok": True, "access_token": token, "id_token": f"e30.{body}.sig"})

    async def slack_info(self, request: web.Request) -> web.Response:
        if not self._bearer(request, "slack"):
            return web.json_response({"ok": False, "error": "invalid_auth"})
        return web.json_response({"ok": True, **self.slack_user})
