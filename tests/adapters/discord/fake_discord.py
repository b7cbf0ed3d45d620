"""A local fake of Discord's REST API and gateway (aiohttp, 127.0.0.1, port 0), enough to drive the real
discord.py client end to end: login, command sync, HELLO/IDENTIFY/READY/GUILD_CREATE, messages, reactions,
DMs, interaction callbacks and webhook follow-ups. It records every request, can answer one with a 429, and
plays members: slash commands, autocomplete, button clicks and reactions are dispatched over the gateway.

Sharding as Discord does it: GET /gateway/bot recommends a shard count; an IDENTIFY with "shard": [id, count]
gets a READY (carrying "shard") and GUILD_CREATEs for the guilds on that shard only ((guild_id >> 22) % count),
and each guild event goes only to the connections of its guild's shard (events without a guild to shard 0).
More guilds, on a chosen shard, come from add_guild.

Idempotent sends as Discord does them: a message created with `nonce` and `enforce_nonce: true` by the same
author as one created with that nonce within `nonce_window` seconds returns that first message instead of a
second one. GET /channels/{id}/messages reads a channel back (after/before/limit). A reply can be held
(hold_next: the request is done, its answer waits until released) and a call can fail (fail_next), so a test
can kill the bot while a call is at "Discord". Ids and timestamps follow `clock` (default: the wall clock).

See ../../../../shared/platform-testing.md for what discord.py needs from such a fake.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import email.parser
import email.policy
import inspect
import itertools
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from aiohttp import WSMsgType, web

from tests.support.streaming import serve_counted

EPHEMERAL = 64
BODY = web.RequestKey("body", object)  # the parsed JSON body of a request
DISCORD_EPOCH_MS = 1420070400000

# permission bits used below (https://discord.com/developers/docs/topics/permissions)
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
ADD_REACTIONS = 1 << 6
EMBED_LINKS = 1 << 14
READ_HISTORY = 1 << 16
MANAGE_MESSAGES = 1 << 13
MANAGE_GUILD = 1 << 5
MANAGE_ROLES = 1 << 28
MEMBER_PERMS = VIEW_CHANNEL | SEND_MESSAGES | ADD_REACTIONS | READ_HISTORY | EMBED_LINKS | (1 << 31)
BOT_PERMS = VIEW_CHANNEL | SEND_MESSAGES | ADD_REACTIONS | READ_HISTORY | EMBED_LINKS


def _now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat()


@dataclass(frozen=True)
class FakeUser:
    id: str
    name: str
    admin: bool = False
    bot: bool = False

    def json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "username": self.name,
            "global_name": self.name,
            "discriminator": "0",
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
        }


@dataclass(frozen=True)
class UploadedFile:
    """A file part of a multipart/form-data request (discord.File attachments)."""

    field: str
    filename: str
    content_type: str
    data: bytes


def parse_multipart(content_type: str, raw: bytes) -> tuple[dict[str, Any], list[UploadedFile]]:
    """Discord's multipart body: the JSON of `payload_json`, and every file part."""
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + raw
    )
    payload: dict[str, Any] = {}
    files = []
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        data = part.get_payload(decode=True) or b""
        if name == "payload_json":
            payload = json.loads(data)
        else:
            files.append(UploadedFile(str(name), str(part.get_filename() or ""), part.get_content_type(), data))
    return payload, files


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, str]
    body: Any
    headers: dict[str, str]
    at: float
    status: int = 200


@dataclass
class FakeFile:
    """A file a member attaches to a slash command option (size: what Discord reports, default its length)."""

    filename: str
    data: bytes
    size: int | None = None
    chunked: bool = False  # its download comes without a Content-Length (only reading tells its size)


@dataclass
class FakeInteraction:
    id: str
    token: str
    payload: dict[str, Any]
    callback: dict[str, Any] | None = None
    callback_at: float | None = None
    edits: list[dict[str, Any]] = field(default_factory=list)
    followups: list[dict[str, Any]] = field(default_factory=list)
    sent_at: float = 0.0


@dataclass(frozen=True)
class FakeReply:
    """What the member finally sees for an interaction."""

    callback_type: int
    ephemeral: bool
    content: str
    embeds: list[dict[str, Any]]
    components: list[dict[str, Any]]
    message_id: str | None

    @property
    def text(self) -> str:
        parts = [self.content]
        for e in self.embeds:
            parts += [e.get("title", ""), e.get("description", ""), (e.get("footer") or {}).get("text", "")]
            for f in e.get("fields", []):
                parts += [f.get("name", ""), f.get("value", "")]
        return "\n".join(p for p in parts if p)

    @property
    def custom_ids(self) -> list[str]:
        return custom_ids(self.components)


def custom_ids(components: list[dict[str, Any]]) -> list[str]:
    out = []
    for row in components:
        for c in row.get("components", []):
            if "custom_id" in c:
                out.append(c["custom_id"])
    return out


def buttons(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [c for row in components for c in row.get("components", []) if c.get("type") == 2]


@dataclass(frozen=True)
class FakeGuild:
    id: str
    name: str
    channel_id: str  # "daily-pytorch"
    other_channel_id: str  # "general"
    bot_role_id: str


def shard_of(guild_id: str | int, shard_count: int) -> int:
    """Discord's rule: a guild is on shard (guild_id >> 22) % shard_count."""
    return (int(guild_id) >> 22) % shard_count


@dataclass
class Fault:
    method: str
    pattern: re.Pattern[str]
    retry_after: float
    times: int = 1


@dataclass
class Hold:
    """A request whose answer is held: it is done (a message is created), then waits for release()."""

    method: str
    pattern: re.Pattern[str]
    when: Callable[[Recorded], bool] | None
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    released: asyncio.Event = field(default_factory=asyncio.Event)
    request: Recorded | None = None

    def release(self) -> None:
        self.released.set()


@dataclass
class Failure:
    """The next matching request fails with `status`: before it is done, or (`after`) once it is done."""

    method: str
    pattern: re.Pattern[str]
    status: int
    after: bool
    when: Callable[[Recorded], bool] | None


class FakeDiscord:
    """One application with one guild of two text channels (more with add_guild); members alice, bob (plain) and
    ada (Manage Server), who belong to every guild. The main guild's roles: Champion, Moderators (above the
    bot's), Quizmasters and Learners (anyone may mention it); a member holds the roles member_roles gives them."""

    def __init__(
        self,
        *,
        bot_can_manage_messages: bool = True,
        clock: Callable[[], float] = time.time,
        nonce_window: float = 300.0,
    ) -> None:
        self.clock = clock  # epoch seconds: message ids and timestamps
        self.nonce_window = nonce_window  # seconds a nonce with enforce_nonce returns its first message
        self._nonces: dict[tuple[str, str], tuple[str, float]] = {}  # (author, nonce) -> (message id, at)
        self._ids = itertools.count(1)
        self.bot = FakeUser(self.snowflake(), "studybot", bot=True)
        self.app_id = self.bot.id
        self.owner = FakeUser(self.snowflake(), "owner")
        self.guild_id = self.snowflake()
        self.channel_id = self.snowflake()
        self.other_channel_id = self.snowflake()
        self.bot_role_id = self.snowflake()
        self.champion_role_id = self.snowflake()  # "Champion", below the bot's role (the main guild only)
        self.high_role_id = self.snowflake()  # "Moderators", above the bot's role
        self.manager_role_id = self.snowflake()  # "Quizmasters", no permissions (the main guild only)
        self.ping_role_id = self.snowflake()  # "Learners", anyone may mention it (the main guild only)
        self.guilds: dict[str, FakeGuild] = {}  # id -> guild, in the order they were made
        self._channel_guild: dict[str, str] = {}  # guild channel id -> guild id
        self._register(
            FakeGuild(self.guild_id, "PyTorch study group", self.channel_id, self.other_channel_id, self.bot_role_id)
        )
        self.alice = FakeUser(self.snowflake(), "alice")
        self.bob = FakeUser(self.snowflake(), "bob")
        self.ada = FakeUser(self.snowflake(), "ada", admin=True)
        self.bot_perms = BOT_PERMS | (MANAGE_MESSAGES if bot_can_manage_messages else 0)
        self.requests: list[Recorded] = []
        self.messages: dict[str, dict[str, Any]] = {}
        self.files: dict[str, list[UploadedFile]] = {}  # message id -> the files attached to it
        self.threads: dict[str, dict[str, Any]] = {}  # message id -> the thread started on it
        self.no_threads: set[str] = set()  # channels where the bot may not create public threads
        self.edits: list[tuple[str, dict[str, Any]]] = []  # (message id, PATCH body)
        self.reactions_added: list[tuple[str, str, str]] = []  # (message id, emoji, user id)
        self.reactions_removed: list[tuple[str, str, str]] = []
        self.dm_channels: dict[str, str] = {}  # dm channel id -> user id
        self.dms_closed: set[str] = set()  # users who do not accept DMs from the bot
        self.forbidden_channels: set[str] = set()  # channels the bot may not post in
        self.no_attach: set[str] = set()  # channels where the bot may not attach files
        self.member_roles: dict[tuple[str, str], set[str]] = {}  # (guild, user) -> roles given over REST
        self.accept_token: str | None = None  # None: any token logs in
        self.commands: dict[str | None, list[dict[str, Any]]] = {}  # guild id (None: global) -> synced commands
        self.identifies: list[dict[str, Any]] = []
        self.readies: list[dict[str, Any]] = []  # the READY payloads sent, in order
        self.recommended_shards = 1  # what GET /gateway/bot answers
        self.interactions: dict[str, FakeInteraction] = {}
        self.uploads: dict[str, bytes] = {}  # attachment id -> bytes, served at /attachments/{id}/{name}
        self.downloads: list[tuple[str, int]] = []  # (attachment id, bytes sent) per download of an attachment
        self.chunked: set[str] = set()  # attachment ids served without a Content-Length
        self._faults: list[Fault] = []
        self._holds: list[Hold] = []
        self._failures: list[Failure] = []
        self._sockets: list[web.WebSocketResponse] = []
        self._seq: dict[int, int] = {}
        self._shard: dict[int, tuple[int, int]] = {}  # id(ws) -> (shard id, shard count) once identified
        self._runner: web.AppRunner | None = None
        self.port = 0

    # ---- lifecycle --------------------------------------------------------------------------------

    def snowflake(self, shard: tuple[int, int] | None = None) -> str:
        """A fresh id; with shard=(id, count), one whose guild would be on that shard."""
        ms = int(self.clock() * 1000) - DISCORD_EPOCH_MS
        if shard is not None:
            ms -= (ms - shard[0]) % shard[1]
        return str((ms << 22) | next(self._ids))

    def _register(self, guild: FakeGuild) -> FakeGuild:
        self.guilds[guild.id] = guild
        self._channel_guild[guild.channel_id] = guild.id
        self._channel_guild[guild.other_channel_id] = guild.id
        return guild

    def add_guild(self, name: str, *, shard: tuple[int, int] | None = None) -> FakeGuild:
        """Another guild the bot is in (two text channels, same members); shard=(id, count) places it."""
        return self._register(
            FakeGuild(self.snowflake(shard), name, self.snowflake(), self.snowflake(), self.snowflake())
        )

    def guild_of(self, channel_id: str) -> FakeGuild:
        return self.guilds[self._channel_guild.get(channel_id, self.guild_id)]

    def guilds_on(self, shard_id: int, shard_count: int) -> list[FakeGuild]:
        return [g for g in self.guilds.values() if shard_of(g.id, shard_count) == shard_id]

    async def start(self) -> None:
        app = web.Application(middlewares=[self._record])
        r = app.router
        r.add_get("/gateway", self._gateway)
        r.add_get("/api/v10/users/@me", self._me)
        r.add_get("/api/v10/oauth2/applications/@me", self._application)
        r.add_get("/api/v10/gateway/bot", self._gateway_bot)
        r.add_put("/api/v10/applications/{app}/commands", self._sync)
        r.add_put("/api/v10/applications/{app}/guilds/{guild}/commands", self._sync)
        r.add_post("/api/v10/channels/{channel}/messages", self._create_message)
        r.add_get("/api/v10/channels/{channel}/messages", self._channel_history)
        r.add_patch("/api/v10/channels/{channel}/messages/{message}", self._edit_message)
        r.add_put("/api/v10/channels/{channel}/messages/{message}/reactions/{emoji}/@me", self._add_reaction)
        r.add_delete("/api/v10/channels/{channel}/messages/{message}/reactions/{emoji}/{user}", self._remove_reaction)
        r.add_post("/api/v10/users/@me/channels", self._create_dm)
        r.add_get("/api/v10/guilds/{guild}/members/{user}", self._get_member)
        r.add_put("/api/v10/guilds/{guild}/members/{user}/roles/{role}", self._member_role)
        r.add_delete("/api/v10/guilds/{guild}/members/{user}/roles/{role}", self._member_role)
        r.add_post("/api/v10/channels/{channel}/messages/{message}/threads", self._start_thread)
        r.add_post("/api/v10/interactions/{id}/{token}/callback", self._callback)
        r.add_patch("/api/v10/webhooks/{app}/{token}/messages/@original", self._edit_original)
        r.add_post("/api/v10/webhooks/{app}/{token}", self._followup)
        r.add_get("/attachments/{id}/{name}", self._attachment)
        self._runner = web.AppRunner(app, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    async def stop(self) -> None:
        for ws in list(self._sockets):
            await ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    # ---- plumbing ---------------------------------------------------------------------------------

    @staticmethod
    def _json(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
        # exactly "application/json": discord.py treats a body with a charset suffix as text
        return web.Response(
            body=json.dumps(data).encode(),
            status=status,
            headers={"Content-Type": "application/json", **(headers or {})},
        )

    def rate_limit_next(self, method: str, path_regex: str, retry_after: float, times: int = 1) -> None:
        """Answer the next matching request(s) with 429 and a retry_after, as Discord does."""
        self._faults.append(Fault(method, re.compile(path_regex), retry_after, times))

    def hold_next(self, method: str, path_regex: str, when: Callable[[Recorded], bool] | None = None) -> Hold:
        """Hold the answer of the next matching request (method "*": any; `when`: a further test of it): the
        request is done (a message is created and recorded), then its answer waits until the Hold is released."""
        hold = Hold(method, re.compile(path_regex), when)
        self._holds.append(hold)
        return hold

    def fail_next(
        self,
        method: str,
        path_regex: str,
        status: int = 503,
        *,
        after: bool = False,
        when: Callable[[Recorded], bool] | None = None,
    ) -> None:
        """Fail the next matching request with `status` (503: discord.py does not retry it); `after`: once
        it is done (a message created all the same, as when Discord's answer is lost on the way)."""
        self._failures.append(Failure(method, re.compile(path_regex), status, after, when))

    def _take(self, items: list[Any], rec: Recorded) -> Any:
        for item in items:
            if item.method not in ("*", rec.method) or not item.pattern.search(rec.path):
                continue
            if item.when is None or item.when(rec):
                items.remove(item)
                return item
        return None

    @web.middleware
    async def _record(self, request: web.Request, handler: Callable[..., Any]) -> web.StreamResponse:
        body: Any = None
        if request.can_read_body:
            raw = await request.read()
            if request.content_type == "multipart/form-data":
                body, files = parse_multipart(request.headers["Content-Type"], raw)
                body["_files"] = files
            else:
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode(errors="replace")
        rec = Recorded(request.method, request.path, dict(request.query), body, dict(request.headers), time.monotonic())
        request[BODY] = body
        if request.path != "/gateway":
            self.requests.append(rec)
        for fault in self._faults:
            if fault.method == request.method and fault.pattern.search(request.path):
                fault.times -= 1
                if fault.times <= 0:
                    self._faults.remove(fault)
                rec.status = 429
                return self._json(
                    {"message": "You are being rate limited.", "retry_after": fault.retry_after, "global": False},
                    status=429,
                    headers={"Via": "1.1 google", "Retry-After": str(fault.retry_after), "X-RateLimit-Scope": "user"},
                )
        failure = self._take(self._failures, rec)
        if failure is not None and not failure.after:
            rec.status = failure.status
            return self._json({"message": "Service Unavailable", "code": 0}, status=failure.status)
        response = await handler(request)
        rec.status = response.status
        hold = self._take(self._holds, rec)
        if hold is not None:
            hold.request = rec
            hold.arrived.set()
            await hold.released.wait()
        if failure is not None:
            rec.status = failure.status
            return self._json({"message": "Service Unavailable", "code": 0}, status=failure.status)
        return response

    def requests_to(self, method: str, path_regex: str) -> list[Recorded]:
        pattern = re.compile(path_regex)
        return [r for r in self.requests if r.method == method and pattern.search(r.path)]

    async def wait_for(self, predicate: Callable[[], Any], what: str = "condition", within: float = 5.0) -> Any:
        """Poll until the predicate holds (returns its value) or fail the test after `within` seconds; an async
        predicate is awaited (a coroutine object is no answer: it would always look true)."""
        deadline = time.monotonic() + within
        while True:
            value = predicate()
            if inspect.isawaitable(value):
                value = await value
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}")
            await asyncio.sleep(0.01)

    # ---- REST: login and commands -----------------------------------------------------------------

    async def _me(self, request: web.Request) -> web.Response:
        if self.accept_token is not None and request.headers.get("Authorization") != f"Bot {self.accept_token}":
            return self._json({"message": "401: Unauthorized", "code": 0}, status=401)
        return self._json({**self.bot.json(), "verified": True, "mfa_enabled": False, "flags": 0})

    async def _application(self, request: web.Request) -> web.Response:
        return self._json(
            {
                "id": self.app_id,
                "name": "studybot",
                "description": "",
                "icon": None,
                "bot_public": True,
                "bot_require_code_grant": False,
                "owner": self.owner.json(),
                "verify_key": "00" * 32,
                "interactions_endpoint_url": None,
                "flags": 0,
                "team": None,
            }
        )

    async def _gateway_bot(self, request: web.Request) -> web.Response:
        return self._json(
            {
                "url": self.gateway_url,
                "shards": self.recommended_shards,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 1000 - len(self.identifies),
                    "reset_after": 86_400_000,
                    "max_concurrency": 1,
                },
            }
        )

    async def _sync(self, request: web.Request) -> web.Response:
        guild = request.match_info.get("guild")
        out = []
        for cmd in request[BODY] or []:
            out.append(
                {
                    **cmd,
                    "id": self.snowflake(),
                    "application_id": self.app_id,
                    "version": self.snowflake(),
                    **({"guild_id": guild} if guild else {}),
                }
            )
        self.commands[guild] = out
        return self._json(out)

    def command(self, name: str) -> dict[str, Any]:
        for cmds in self.commands.values():
            for c in cmds:
                if c["name"] == name:
                    return c
        raise AssertionError(f"command {name!r} was never synced")

    # ---- REST: messages, reactions, DMs -------------------------------------------------------------

    def _message(
        self,
        channel_id: str,
        body: dict[str, Any],
        *,
        flags: int = 0,
        author: FakeUser | None = None,
        interaction: bool = False,
    ) -> dict[str, Any]:
        msg = {
            "id": self.snowflake(),
            "channel_id": channel_id,
            "author": (author or self.bot).json(),
            "content": body.get("content") or "",
            "embeds": body.get("embeds") or [],
            "components": body.get("components") or [],
            "type": 20 if interaction else (19 if body.get("message_reference") else 0),
            "timestamp": dt.datetime.fromtimestamp(self.clock(), dt.UTC).isoformat(),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [],
            "pinned": False,
            "flags": flags | int(body.get("flags") or 0),
            "message_reference": body.get("message_reference"),
        }
        if msg["message_reference"] is None:
            del msg["message_reference"]
        files: list[UploadedFile] = body.get("_files") or []
        if files:
            described = {str(a.get("id")): a for a in body.get("attachments") or []}
            for i, f in enumerate(files):
                meta = described.get(str(i), {})
                url = f"https://cdn.example.invalid/attachments/{channel_id}/{msg['id']}/{f.filename}"
                msg["attachments"].append(
                    {
                        "id": self.snowflake(),
                        "filename": f.filename,
                        "size": len(f.data),
                        "url": url,
                        "proxy_url": url,
                        "content_type": f.content_type,
                        "description": meta.get("description"),
                    }
                )
            self.files[msg["id"]] = files
        self.messages[msg["id"]] = msg
        return msg

    async def _create_message(self, request: web.Request) -> web.Response:
        if self.dm_channels.get(request.match_info["channel"]) in self.dms_closed:
            return self._json({"message": "Cannot send messages to this user", "code": 50007}, status=403)
        if request.match_info["channel"] in self.forbidden_channels:
            return self._json({"message": "Missing Permissions", "code": 50013}, status=403)
        body = request[BODY] or {}
        if request.match_info["channel"] in self.no_attach and body.get("_files"):
            return self._json({"message": "Missing Permissions", "code": 50013}, status=403)
        nonce = body.get("nonce")
        key = (self.bot.id, str(nonce))
        if nonce is not None and body.get("enforce_nonce"):
            first = self._nonces.get(key)
            if first is not None and self.clock() - first[1] <= self.nonce_window and first[0] in self.messages:
                return self._json({**self.messages[first[0]], "nonce": str(nonce)})  # the message it already made
        msg = self._message(request.match_info["channel"], body)
        if nonce is not None and body.get("enforce_nonce"):
            self._nonces[key] = (msg["id"], self.clock())
        return self._json({**msg, "nonce": nonce} if nonce is not None else msg)

    async def _channel_history(self, request: web.Request) -> web.Response:
        """GET /channels/{channel}/messages: up to `limit` messages after `after` (the oldest ones after it)
        or before `before` (the newest ones before it), newest first, as Discord answers."""
        cid = request.match_info["channel"]
        if cid in self.forbidden_channels:
            return self._json({"message": "Missing Access", "code": 50001}, status=403)
        query = request.query
        limit = max(1, min(int(query.get("limit", "50")), 100))
        mine = sorted(
            (m for m in self.messages.values() if m["channel_id"] == cid and not m["flags"] & EPHEMERAL),
            key=lambda m: int(m["id"]),
        )
        if "after" in query:
            page = [m for m in mine if int(m["id"]) > int(query["after"])][:limit]
        else:
            before = int(query["before"]) if "before" in query else None
            page = [m for m in mine if before is None or int(m["id"]) < before][-limit:]
        return self._json(list(reversed(page)))

    async def _edit_message(self, request: web.Request) -> web.Response:
        mid = request.match_info["message"]
        body = request[BODY] or {}
        msg = self.messages.get(mid)
        if msg is None:
            return self._json({"message": "Unknown Message", "code": 10008}, status=404)
        self.edits.append((mid, body))
        msg.update({k: v for k, v in body.items() if k in ("content", "embeds", "components")})
        msg["edited_timestamp"] = _now_iso()
        return self._json(msg)

    async def _add_reaction(self, request: web.Request) -> web.Response:
        mid, emoji = request.match_info["message"], unquote(request.match_info["emoji"])
        self.reactions_added.append((mid, emoji, self.bot.id))
        # like Discord, tell every connected client (the bot included) that the bot reacted
        await self.dispatch("MESSAGE_REACTION_ADD", self._reaction_payload(mid, emoji, self.bot))
        return web.Response(status=204)

    async def _remove_reaction(self, request: web.Request) -> web.Response:
        if not self.bot_perms & MANAGE_MESSAGES:
            return self._json({"message": "Missing Permissions", "code": 50013}, status=403)
        mid, emoji, user = (
            request.match_info["message"],
            unquote(request.match_info["emoji"]),
            request.match_info["user"],
        )
        self.reactions_removed.append((mid, emoji, user))
        data = self._reaction_payload(mid, emoji, FakeUser(user, "?"))
        data.pop("member")
        await self.dispatch("MESSAGE_REACTION_REMOVE", data)
        return web.Response(status=204)

    async def _start_thread(self, request: web.Request) -> web.Response:
        channel, mid = request.match_info["channel"], request.match_info["message"]
        if channel in self.no_threads:
            return self._json({"message": "Missing Permissions", "code": 50013}, status=403)
        if mid not in self.messages:
            return self._json({"message": "Unknown Message", "code": 10008}, status=404)
        if mid in self.threads:
            return self._json(
                {"message": "A thread has already been created for this message", "code": 160004}, status=400
            )
        body = request[BODY] or {}
        name = str(body.get("name", ""))
        if not 1 <= len(name) <= 100:
            return self._json({"message": "Invalid Form Body", "code": 50035}, status=400)
        thread = {
            "id": mid,
            "type": 11,
            "guild_id": self.guild_of(channel).id,
            "name": name,
            "parent_id": channel,
            "owner_id": self.bot.id,
            "message_count": 0,
            "member_count": 1,
            "rate_limit_per_user": 0,
            "flags": 0,
            "thread_metadata": {
                "archived": False,
                "auto_archive_duration": body.get("auto_archive_duration", 1440),
                "archive_timestamp": _now_iso(),
                "locked": False,
            },
        }
        self.threads[mid] = thread
        return self._json(thread, status=201)

    async def _get_member(self, request: web.Request) -> web.Response:
        users = {u.id: u for u in (self.alice, self.bob, self.ada, self.owner, self.bot)}
        user = users.get(request.match_info["user"])
        if user is None or request.match_info["guild"] not in self.guilds:
            return self._json({"message": "Unknown Member", "code": 10007}, status=404)
        return self._json(self._member(user, request.match_info["guild"]))

    async def _member_role(self, request: web.Request) -> web.Response:
        """PUT/DELETE /guilds/{guild}/members/{user}/roles/{role}: 204, or 403 without Manage Roles."""
        if not self.bot_perms & MANAGE_ROLES:
            return self._json({"message": "Missing Permissions", "code": 50013}, status=403)
        info = request.match_info
        roles = self.member_roles.setdefault((info["guild"], info["user"]), set())
        if request.method == "PUT":
            roles.add(info["role"])
        else:
            roles.discard(info["role"])
        return web.Response(status=204)

    async def set_bot_perms(self, perms: int) -> None:
        """Change the bot role's permissions in the main guild (GUILD_ROLE_UPDATE on the gateway)."""
        self.bot_perms = perms
        [bot_role] = [r for r in self.guild_payload()["roles"] if r["id"] == self.bot_role_id]
        await self.dispatch("GUILD_ROLE_UPDATE", {"guild_id": self.guild_id, "role": bot_role})

    async def _create_dm(self, request: web.Request) -> web.Response:
        user_id = str((request[BODY] or {})["recipient_id"])
        dm_id = next((c for c, u in self.dm_channels.items() if u == user_id), None) or self.snowflake()
        self.dm_channels[dm_id] = user_id
        return self._json(
            {
                "id": dm_id,
                "type": 1,
                "last_message_id": None,
                "recipients": [FakeUser(user_id, f"user{user_id[-4:]}").json()],
            }
        )

    def channel_messages(self, channel_id: str | None = None) -> list[dict[str, Any]]:
        """What everyone in the channel sees (ephemeral interaction replies left out), oldest first."""
        cid = channel_id or self.channel_id
        return [m for m in self.messages.values() if m["channel_id"] == cid and not m["flags"] & EPHEMERAL]

    def dms(self, user: FakeUser) -> list[str]:
        return [m["content"] for m in self.messages.values() if self.dm_channels.get(m["channel_id"]) == user.id]

    async def _attachment(self, request: web.Request) -> web.StreamResponse:
        """The CDN: an attachment streamed in chunks, counting what the client took (tests.support.streaming)."""
        data = self.uploads.get(request.match_info["id"])
        if data is None:
            return web.Response(status=404)
        resp, sent = await serve_counted(request, data, chunked=request.match_info["id"] in self.chunked)
        self.downloads.append((request.match_info["id"], sent))
        return resp

    # ---- REST: interaction responses ----------------------------------------------------------------

    async def _callback(self, request: web.Request) -> web.Response:
        inter = self.interactions.get(request.match_info["id"])
        if inter is None or inter.token != request.match_info["token"]:
            return self._json({"message": "Unknown interaction", "code": 10062}, status=404)
        if inter.callback is not None:
            return self._json({"message": "Interaction has already been acknowledged.", "code": 40060}, status=400)
        body = request[BODY] or {}
        inter.callback, inter.callback_at = body, time.monotonic()
        ctype, data = body.get("type"), body.get("data") or {}
        out: dict[str, Any] = {
            "interaction": {
                "id": inter.id,
                "type": inter.payload["type"],
                "response_message_loading": ctype == 5,
                "response_message_ephemeral": bool(data.get("flags", 0) & EPHEMERAL),
            }
        }
        if ctype in (4, 5):
            msg = self._message(inter.payload["channel_id"], data, interaction=True, flags=128 if ctype == 5 else 0)
            out["interaction"]["response_message_id"] = msg["id"]
            out["resource"] = {"type": ctype, "message": msg}
            inter.payload["_response_message_id"] = msg["id"]
        else:
            out["resource"] = {"type": ctype}
        return self._json(out)

    def _by_token(self, token: str) -> FakeInteraction | None:
        return next((i for i in self.interactions.values() if i.token == token), None)

    async def _edit_original(self, request: web.Request) -> web.Response:
        inter = self._by_token(request.match_info["token"])
        if inter is None or inter.callback is None:
            return self._json({"message": "Unknown Webhook", "code": 10015}, status=404)
        body = request[BODY] or {}
        inter.edits.append(body)
        mid = inter.payload.get("_response_message_id")
        msg = self.messages.get(mid) if mid else None
        if msg is None:
            msg = self._message(inter.payload["channel_id"], body, interaction=True)
        msg.update({k: v for k, v in body.items() if k in ("content", "embeds", "components")})
        return self._json(msg)

    async def _followup(self, request: web.Request) -> web.Response:
        inter = self._by_token(request.match_info["token"])
        if inter is None or inter.callback is None:
            return self._json({"message": "Unknown Webhook", "code": 10015}, status=404)
        body = request[BODY] or {}
        inter.followups.append(body)
        return self._json(self._message(inter.payload["channel_id"], body, interaction=True))

    async def reply(self, inter: FakeInteraction, within: float = 5.0) -> FakeReply:
        """The reply the member sees: the callback's message, or the deferred message once it is filled in."""
        await self.wait_for(lambda: inter.callback is not None, f"a callback to interaction {inter.id}", within)
        cb = inter.callback or {}
        data = cb.get("data") or {}
        ephemeral = bool(data.get("flags", 0) & EPHEMERAL)
        if cb.get("type") == 5:
            await self.wait_for(lambda: inter.edits or inter.followups, "the deferred reply", within)
            data = (inter.edits or inter.followups)[0]
        return FakeReply(
            cb.get("type", 0),
            ephemeral,
            data.get("content") or "",
            data.get("embeds") or [],
            data.get("components") or [],
            inter.payload.get("_response_message_id"),
        )

    # ---- gateway ------------------------------------------------------------------------------------

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        self._seq[id(ws)] = 0
        await ws.send_json({"op": 10, "d": {"heartbeat_interval": 41250}, "s": None, "t": None})
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                frame = json.loads(msg.data)
                if frame.get("op") == 1:
                    await ws.send_json({"op": 11, "d": None, "s": None, "t": None})
                elif frame.get("op") == 2:
                    self.identifies.append(frame["d"])
                    shard = frame["d"].get("shard")
                    sid, count = (int(shard[0]), int(shard[1])) if shard else (0, 1)
                    if not 0 <= sid < count:
                        await ws.close(code=4010, message=b"Invalid shard")
                        break
                    self._shard[id(ws)] = (sid, count)
                    guilds = self.guilds_on(sid, count)
                    ready = self._ready(guilds, [sid, count] if shard else None)
                    self.readies.append(ready)
                    await self._send(ws, "READY", ready)
                    for guild in guilds:
                        await self._send(ws, "GUILD_CREATE", self.guild_payload(guild.id))
                    self._sockets.append(ws)
                elif frame.get("op") == 6:  # resume: not supported, start a new session
                    await ws.send_json({"op": 9, "d": False, "s": None, "t": None})
        finally:
            if ws in self._sockets:
                self._sockets.remove(ws)
        return ws

    async def _send(self, ws: web.WebSocketResponse, event: str, data: dict[str, Any]) -> None:
        self._seq[id(ws)] += 1
        await ws.send_json({"op": 0, "t": event, "s": self._seq[id(ws)], "d": data})

    def _receives(self, ws: web.WebSocketResponse, data: dict[str, Any]) -> bool:
        """Whether this connection's shard gets an event: its guild's shard, or shard 0 for one without a guild."""
        sid, count = self._shard.get(id(ws), (0, 1))
        guild_id = data.get("guild_id") if isinstance(data, dict) else None
        return sid == (0 if guild_id is None else shard_of(guild_id, count))

    async def dispatch(self, event: str, data: dict[str, Any]) -> None:
        for ws in list(self._sockets):
            if not ws.closed and self._receives(ws, data):
                await self._send(ws, event, data)

    @property
    def connected(self) -> int:
        return len(self._sockets)

    def _ready(self, guilds: list[FakeGuild], shard: list[int] | None) -> dict[str, Any]:
        ready = {
            "v": 10,
            "user": {**self.bot.json(), "verified": True, "mfa_enabled": False, "flags": 0},
            "guilds": [{"id": g.id, "unavailable": True} for g in guilds],
            "session_id": f"session-{self.snowflake()}",
            "resume_gateway_url": self.gateway_url,
            "application": {"id": self.app_id, "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
        }
        if shard is not None:
            ready["shard"] = shard
        return ready

    def _member(self, user: FakeUser, guild_id: str | None = None) -> dict[str, Any]:
        """A member's payload: the bot has its own role; the others the roles member_roles gives them."""
        guild = guild_id or self.guild_id
        roles = [self.guilds[guild].bot_role_id] if user.bot else sorted(self.member_roles.get((guild, user.id), ()))
        return {
            "user": user.json(),
            "roles": roles,
            "joined_at": _now_iso(),
            "deaf": False,
            "mute": False,
            "flags": 0,
            "nick": None,
            "avatar": None,
            "pending": False,
            "communication_disabled_until": None,
        }

    def _channel(self, cid: str, name: str, position: int) -> dict[str, Any]:
        return {
            "id": cid,
            "type": 0,
            "guild_id": self.guild_of(cid).id,
            "name": name,
            "position": position,
            "permission_overwrites": [],
            "nsfw": False,
            "parent_id": None,
            "topic": None,
            "last_message_id": None,
            "rate_limit_per_user": 0,
        }

    def guild_payload(self, guild_id: str | None = None) -> dict[str, Any]:
        guild = self.guilds[guild_id or self.guild_id]
        role = {
            "color": 0,
            "hoist": False,
            "managed": False,
            "mentionable": False,
            "flags": 0,
            "icon": None,
            "unicode_emoji": None,
        }
        return {
            "id": guild.id,
            "name": guild.name,
            "icon": None,
            "owner_id": self.owner.id,
            "unavailable": False,
            "member_count": 5,
            "large": False,
            "features": [],
            "emojis": [],
            "stickers": [],
            "roles": [
                {**role, "id": guild.id, "name": "@everyone", "permissions": str(MEMBER_PERMS), "position": 0},
                {
                    **role,
                    "id": guild.bot_role_id,
                    "name": "studybot",
                    "permissions": str(self.bot_perms),
                    "position": 2,
                    "managed": True,
                },
                *(
                    [
                        {**role, "id": self.champion_role_id, "name": "Champion", "permissions": "0", "position": 1},
                        {**role, "id": self.high_role_id, "name": "Moderators", "permissions": "0", "position": 3},
                        {**role, "id": self.manager_role_id, "name": "Quizmasters", "permissions": "0", "position": 1},
                        {
                            **role,
                            "id": self.ping_role_id,
                            "name": "Learners",
                            "permissions": "0",
                            "position": 1,
                            "mentionable": True,
                        },
                    ]
                    if guild.id == self.guild_id
                    else []
                ),
            ],
            "channels": [
                self._channel(guild.channel_id, "daily-pytorch", 0),
                self._channel(guild.other_channel_id, "general", 1),
            ],
            "members": [self._member(self.bot, guild.id)],
            "threads": [],
            "voice_states": [],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": "en-US",
            "system_channel_id": None,
            "afk_channel_id": None,
            "afk_timeout": 300,
            "application_id": None,
            "vanity_url_code": None,
            "banner": None,
            "splash": None,
            "description": None,
            "discovery_splash": None,
            "max_members": 500000,
            "joined_at": _now_iso(),
        }

    # ---- members act --------------------------------------------------------------------------------

    def _permissions(self, user: FakeUser) -> int:
        return MEMBER_PERMS | (MANAGE_GUILD if user.admin else 0)

    async def _interact(
        self,
        itype: int,
        user: FakeUser,
        data: dict[str, Any],
        *,
        channel_id: str | None = None,
        message: dict[str, Any] | None = None,
        context: int = 0,
        owners: dict[str, str] | None = None,
    ) -> FakeInteraction:
        """context 0: in a guild channel; 1: in the user's DM with the bot; 2: in a group DM (channel_id is then
        the DM's id). `owners`: authorizing_integration_owners (default: the guild's install, or in a DM the
        user's install)."""
        iid = self.snowflake()
        cid = channel_id or self.channel_id
        guild = self.guild_of(cid)
        payload: dict[str, Any] = {
            "id": iid,
            "application_id": self.app_id,
            "type": itype,
            "data": data,
            "guild_id": guild.id,
            "channel_id": cid,
            "channel": self._channel(cid, "daily-pytorch" if cid == guild.channel_id else "general", 0),
            "member": {**self._member(user, guild.id), "permissions": str(self._permissions(user))},
            "token": f"token-{iid}",
            "version": 1,
            "app_permissions": str(self.bot_perms),
            "locale": "en-US",
            "guild_locale": "en-US",
            "entitlements": [],
            "authorizing_integration_owners": {"0": guild.id},
            "context": 0,
            "attachment_size_limit": 8 * 1024 * 1024,
        }
        if context != 0:  # a DM or group DM: no guild, a user instead of a member
            for key in ("guild_id", "member", "guild_locale"):
                del payload[key]
            payload["user"] = user.json()
            payload["channel"] = {"id": cid, "type": 1 if context == 1 else 3, "recipients": [user.json()]}
            payload["authorizing_integration_owners"] = {"1": user.id}
        payload["context"] = context
        if owners is not None:
            payload["authorizing_integration_owners"] = owners
        if message is not None:
            payload["message"] = message
        inter = FakeInteraction(iid, payload["token"], payload, sent_at=time.monotonic())
        self.interactions[iid] = inter
        await self.dispatch("INTERACTION_CREATE", payload)
        return inter

    def _options(
        self, schema: list[dict[str, Any]], values: dict[str, Any], resolved: dict[str, Any], focused: str | None = None
    ) -> list[dict[str, Any]]:
        by_name = {o["name"]: o for o in schema}
        out = []
        for name, value in values.items():
            otype = by_name[name]["type"] if name in by_name else 3
            if isinstance(value, FakeFile):  # an attachment option: Discord uploads it and resolves it
                aid = self.snowflake()
                self.uploads[aid] = value.data
                if value.chunked:
                    self.chunked.add(aid)
                resolved.setdefault("attachments", {})[aid] = {
                    "id": aid,
                    "filename": value.filename,
                    "size": value.size or len(value.data),
                    "url": f"http://127.0.0.1:{self.port}/attachments/{aid}/{value.filename}",
                    "proxy_url": f"http://127.0.0.1:{self.port}/attachments/{aid}/{value.filename}",
                    "content_type": "text/plain",
                }
                value = aid
            elif isinstance(value, FakeUser):
                resolved.setdefault("users", {})[value.id] = value.json()
                resolved.setdefault("members", {})[value.id] = {
                    k: v for k, v in self._member(value).items() if k != "user"
                } | {"permissions": "0"}
                value = value.id
            elif otype == 7:
                resolved.setdefault("channels", {})[value] = {
                    "id": value,
                    "type": 0,
                    "name": "x",
                    "permissions": str(self.bot_perms),
                }
            opt = {"name": name, "type": otype, "value": value}
            if name == focused:
                opt["focused"] = True
            out.append(opt)
        return out

    def _command_data(
        self,
        name: str,
        sub: str | None,
        values: dict[str, Any],
        focused: str | None = None,
        *,
        channel_id: str | None = None,
        context: int = 0,
    ) -> dict[str, Any]:
        cmd = self.command(name)
        resolved: dict[str, Any] = {}
        if sub is None:
            options = self._options(cmd.get("options", []), values, resolved, focused)
        else:
            sub_schema = next((o for o in cmd.get("options", []) if o["name"] == sub), {"options": []})
            options = [
                {
                    "name": sub,
                    "type": 1,
                    "options": self._options(sub_schema.get("options", []), values, resolved, focused),
                }
            ]
        data = {"id": cmd["id"], "name": name, "type": 1, "options": options}
        if context == 0:
            data["guild_id"] = self.guild_of(channel_id or self.channel_id).id
        if resolved:
            data["resolved"] = resolved
        return data

    async def slash(
        self,
        user: FakeUser,
        name: str,
        sub: str | None = None,
        /,
        *,
        channel_id: str | None = None,
        context: int = 0,
        owners: dict[str, str] | None = None,
        **values: Any,
    ) -> FakeInteraction:
        """A member runs /name [sub] option:value ... (context and owners: see _interact)"""
        data = self._command_data(name, sub, values, channel_id=channel_id, context=context)
        return await self._interact(2, user, data, channel_id=channel_id, context=context, owners=owners)

    def dm_channel(self, user: FakeUser) -> str:
        """The id of the user's DM channel with the bot (made on first use)."""
        for cid, uid in self.dm_channels.items():
            if uid == user.id:
                return cid
        cid = self.snowflake()
        self.dm_channels[cid] = user.id
        return cid

    async def autocomplete(
        self, user: FakeUser, name: str, sub: str | None, focused: str, **values: Any
    ) -> FakeInteraction:
        return await self._interact(4, user, self._command_data(name, sub, values, focused))

    async def click(
        self,
        user: FakeUser,
        message: dict[str, Any],
        custom_id: str,
        *,
        context: int = 0,
        owners: dict[str, str] | None = None,
    ) -> FakeInteraction:
        """A member clicks the button with this custom_id on a message (a stored one or a hand-made one)."""
        data = {"custom_id": custom_id, "component_type": 2}
        return await self._interact(
            3, user, data, channel_id=message["channel_id"], message=message, context=context, owners=owners
        )

    def modal_of(self, inter: FakeInteraction) -> dict[str, Any]:
        """The modal the bot answered an interaction with (callback type 9 MODAL)."""
        cb = inter.callback or {}
        assert cb.get("type") == 9, cb
        return cb["data"]

    async def submit_modal(
        self, user: FakeUser, modal: dict[str, Any], values: dict[str, Any], *, channel_id: str | None = None
    ) -> FakeInteraction:
        """A member submits a modal (interaction type 5 MODAL_SUBMIT): each Label (type 18) returns its
        component's custom_id with `values` (a select) or `value` (a text input), as Discord sends them."""
        rows = []
        for label in modal["components"]:
            component = label["component"]
            got = values.get(component["custom_id"])
            answer: dict[str, Any] = {"type": component["type"], "custom_id": component["custom_id"]}
            if component["type"] == 4:
                answer["value"] = got or ""
            else:
                answer["values"] = list(got or [])
            rows.append({"type": 18, "id": label.get("id", 0), "component": answer})
        data = {"custom_id": modal["custom_id"], "components": rows}
        return await self._interact(5, user, data, channel_id=channel_id)

    def _reaction_payload(self, message_id: str, emoji: str, user: FakeUser) -> dict[str, Any]:
        msg = self.messages.get(message_id, {})
        channel_id = msg.get("channel_id", self.channel_id)
        guild_id = self.guild_of(channel_id).id
        return {
            "user_id": user.id,
            "channel_id": channel_id,
            "message_id": message_id,
            "guild_id": guild_id,
            "member": self._member(user, guild_id),
            "emoji": {"id": None, "name": emoji},
            "type": 0,
            "burst": False,
            "burst_colors": [],
            "message_author_id": self.bot.id,
        }

    async def react(self, user: FakeUser, message_id: str, emoji: str, *, with_member: bool = True) -> None:
        """A user adds a reaction (without `member`, the event carries only the user id)."""
        self.reactions_added.append((message_id, emoji, user.id))
        data = self._reaction_payload(message_id, emoji, user)
        if not with_member:
            data.pop("member")
        await self.dispatch("MESSAGE_REACTION_ADD", data)
