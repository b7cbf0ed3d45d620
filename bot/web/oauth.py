"""Sign-in with the platforms: Discord OAuth2 (scopes identify and guilds) and Sign in with Slack (OpenID
Connect), each with a `state` and PKCE (S256) checked, and Slack's `nonce`. Only the codes travel through the
browser; tokens are used once here and never kept or logged."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import aiohttp

from bot.web.config import Endpoints, OAuthClient

TIMEOUT = aiohttp.ClientTimeout(total=15)
ADMINISTRATOR = 1 << 3
MANAGE_GUILD = 1 << 5


class SignInFailed(Exception):
    """The provider refused or answered something we cannot use (the message names no token)."""


@dataclass(frozen=True)
class Flow:
    """An OAuth sign-in in flight, kept in its own sealed cookie until the callback."""

    provider: str
    state: str
    verifier: str
    nonce: str
    next: str = ""  # the dashboard page asked for before signing in ("": the member's home)

    @classmethod
    def start(cls, provider: str, next_page: str = "") -> Flow:
        return cls(provider, secrets.token_urlsafe(24), secrets.token_urlsafe(48), secrets.token_urlsafe(16), next_page)

    @property
    def challenge(self) -> str:
        digest = hashlib.sha256(self.verifier.encode("ascii")).digest()
        return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


@dataclass(frozen=True)
class Guild:
    id: str
    name: str
    is_admin: bool  # Manage Server or Administrator (or the owner): the chat's rule for quiz admins


@dataclass(frozen=True)
class DiscordUser:
    id: str
    name: str
    guilds: tuple[Guild, ...]


@dataclass(frozen=True)
class SlackUser:
    id: str
    name: str
    team_id: str
    team_name: str


def guild_admin(guild: dict[str, Any]) -> bool:
    """The chat's rule (adapters/discord/replies.actor_of): Manage Server or Administrator; the owner has all."""
    try:
        bits = int(guild.get("permissions") or 0)
    except (TypeError, ValueError):
        bits = 0
    return bool(guild.get("owner")) or bool(bits & (ADMINISTRATOR | MANAGE_GUILD))


def discord_authorize_url(endpoints: Endpoints, client: OAuthClient, redirect_uri: str, flow: Flow) -> str:
    query = {
        "response_type": "code",
        "client_id": client.client_id,
        "scope": "identify guilds",
        "redirect_uri": redirect_uri,
        "state": flow.state,
        "code_challenge": flow.challenge,
        "code_challenge_method": "S256",
        "prompt": "none",
    }
    return f"{endpoints.discord_authorize}?{urlencode(query)}"


def slack_authorize_url(endpoints: Endpoints, client: OAuthClient, redirect_uri: str, flow: Flow) -> str:
    query = {
        "response_type": "code",
        "client_id": client.client_id,
        "scope": "openid profile",
        "redirect_uri": redirect_uri,
        "state": flow.state,
        "nonce": flow.nonce,
        "code_challenge": flow.challenge,
        "code_challenge_method": "S256",
    }
    return f"{endpoints.slack_authorize}?{urlencode(query)}"


async def _json(response: aiohttp.ClientResponse, what: str) -> Any:
    if response.status != 200:
        raise SignInFailed(f"{what} answered HTTP {response.status}")
    try:
        return await response.json(content_type=None)
    except (ValueError, aiohttp.ContentTypeError):
        raise SignInFailed(f"{what} answered something that is not JSON") from None


async def discord_user(
    endpoints: Endpoints, client: OAuthClient, code: str, redirect_uri: str, flow: Flow
) -> DiscordUser:
    """Exchange the code (with the PKCE verifier), then read the member and their servers."""
    form = {
        "client_id": client.client_id,
        "client_secret": client.client_secret,
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": redirect_uri,
        "code_verifier": flow.verifier,
    }
    async with aiohttp.ClientSession(timeout=TIMEOUT) as http:
        async with http.post(f"{endpoints.discord_api}/oauth2/token", data=form) as resp:
            token = await _json(resp, "Discord's token endpoint")
        access = token.get("access_token") if isinstance(token, dict) else None
        if not isinstance(access, str) or not access:
            raise SignInFailed("Discord gave no access token")
        headers = {"Authorization": f"Bearer {access}"}
        async with http.get(f"{endpoints.discord_api}/users/@me", headers=headers) as resp:
            me = await _json(resp, "Discord's user endpoint")
        async with http.get(f"{endpoints.discord_api}/users/@me/guilds", headers=headers) as resp:
            guilds = await _json(resp, "Discord's servers endpoint")
    if not isinstance(me, dict) or not str(me.get("id", "")).isdigit() or not isinstance(guilds, list):
        raise SignInFailed("Discord's answer has no member id or server list")
    found = tuple(
        Guild(str(g["id"]), str(g.get("name") or g["id"])[:100], guild_admin(g))
        for g in guilds
        if isinstance(g, dict) and str(g.get("id", "")).isdigit()
    )
    name = str(me.get("global_name") or me.get("username") or me["id"])[:100]
    return DiscordUser(str(me["id"]), name, found)


def _id_token_claims(id_token: object) -> dict[str, Any]:
    """The claims of the ID token Slack's token endpoint returned over TLS to us (OpenID Connect Core
    3.1.3.7: the TLS exchange itself authenticates it here)."""
    if not isinstance(id_token, str) or id_token.count(".") != 2:
        return {}
    payload = id_token.split(".")[1]
    try:
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except ValueError:
        return {}
    return claims if isinstance(claims, dict) else {}


async def slack_user(endpoints: Endpoints, client: OAuthClient, code: str, redirect_uri: str, flow: Flow) -> SlackUser:
    """Exchange the code, check the nonce, then read who signed in and in which workspace."""
    form = {
        "client_id": client.client_id,
        "client_secret": client.client_secret,
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": redirect_uri,
        "code_verifier": flow.verifier,
    }
    async with aiohttp.ClientSession(timeout=TIMEOUT) as http:
        async with http.post(f"{endpoints.slack_api}/openid.connect.token", data=form) as resp:
            token = await _json(resp, "Slack's token endpoint")
        if not isinstance(token, dict) or not token.get("ok") or not isinstance(token.get("access_token"), str):
            error = str(token.get("error", "no token"))[:60] if isinstance(token, dict) else "no token"
            raise SignInFailed(f"Slack refused the sign-in ({error})")
        claims = _id_token_claims(token.get("id_token"))
        if claims.get("nonce") != flow.nonce:
            raise SignInFailed("Slack's ID token does not carry this sign-in's nonce")
        headers = {"Authorization": f"Bearer {token['access_token']}"}
        async with http.get(f"{endpoints.slack_api}/openid.connect.userInfo", headers=headers) as resp:
            info = await _json(resp, "Slack's userInfo endpoint")
    if not isinstance(info, dict) or not info.get("ok"):
        raise SignInFailed("Slack's userInfo refused")
    user = str(info.get("https://slack.com/user_id") or "")
    team = str(info.get("https://slack.com/team_id") or "")
    if not user or not team:
        raise SignInFailed("Slack's userInfo names no member or workspace")
    name = str(info.get("name") or user)[:100]
    return SlackUser(user, name, team, str(info.get("https://slack.com/team_name") or team)[:100])
