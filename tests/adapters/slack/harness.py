"""Drive the real slack-bolt app end to end: it is served on 127.0.0.1 (port 0) by the adapter's own
serve_http, talks to the Web API stub, and receives real signed HTTP requests shaped like Slack's."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import random
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

from adapters.slack.app import SlackBot, build_slack_app, serve_http
from adapters.slack.ids import action_id as make_action_id
from adapters.slack.ids import parse_message_id
from adapters.slack.platform import make_client
from bot.app.bootstrap import bootstrap
from bot.features import Features
from bot.kernel.values import Actor, ChannelRef, Round
from bot.store.ports import Store
from bot.store.sqlite import SqliteStore
from tests.adapters.slack.signing import signed_headers
from tests.adapters.slack.stub import BOT_USER_ID, TEAM_ID, Call, SlackApiStub
from tests.support.fakes import FixedClock, make_bank

SECRET = "test-signing-secret"
CHANNEL = "C0QUIZ"
ADMIN = "U0ADMIN"
OWNER = "U0OWNER"
ANN = "U0ANN"
BOB = "U0BOB"
START = dt.datetime(2025, 3, 5, 8, 0, tzinfo=dt.UTC)  # a Wednesday
FORM = "application/x-www-form-urlencoded"


@dataclass
class Sent:
    status: int
    text: str
    seconds: float
    reply_to: str | None = None  # the response_url name of a command or click


class SlackHarness:
    def __init__(
        self,
        stub: SlackApiStub,
        store: Store,
        service: Features,
        clock: FixedClock,
        bot: SlackBot,
        runner: web.AppRunner,
        session: aiohttp.ClientSession,
    ) -> None:
        self.stub, self.store, self.service, self.clock = stub, store, service, clock
        self.bot, self.runner, self.session = bot, runner, session
        self.url = f"http://127.0.0.1:{runner.addresses[0][1]}/slack/events"
        self.ref = ChannelRef("slack", TEAM_ID, CHANNEL)
        self._names = itertools.count(1)

    @classmethod
    async def start(
        cls, tmp_path: Path, admins: frozenset[str] = frozenset(), *, store: Store | None = None
    ) -> SlackHarness:
        """`store`: an opened store to run over (default: SQLite in tmp_path); the harness closes it."""
        stub = SlackApiStub()
        await stub.start()
        stub.add_user(ADMIN, admin=True)
        stub.add_user(OWNER, owner=True)
        stub.add_user(ANN)
        stub.add_user(BOB)
        if store is None:
            store = SqliteStore(tmp_path / "quiz.db")
            await store.open()
        clock = FixedClock(START)
        service = bootstrap(store, make_bank(), clock, rng=random.Random(7))
        client = make_client("xoxb-test-token", base_url=stub.api_url)
        bot = build_slack_app(service, signing_secret=SECRET, client=client, admins=admins)
        runner = await serve_http(bot, "127.0.0.1", 0)
        return cls(stub, store, service, clock, bot, runner, aiohttp.ClientSession())

    async def close(self) -> None:
        await self.session.close()
        await self.runner.cleanup()
        await self.service.close()
        await self.store.close()
        await self.stub.close()

    # ---- raw requests ----------------------------------------------------------------------------

    async def post(
        self,
        body: str,
        content_type: str,
        *,
        secret: str = SECRET,
        timestamp: int | None = None,
        extra: dict[str, str] | None = None,
        reply_to: str | None = None,
    ) -> Sent:
        headers = signed_headers(secret, body, content_type, timestamp) | (extra or {})
        began = time.monotonic()
        async with self.session.post(self.url, data=body.encode(), headers=headers) as resp:
            text = await resp.text()
        return Sent(resp.status, text, time.monotonic() - began, reply_to)

    # ---- Slack-shaped requests -------------------------------------------------------------------

    async def command(self, text: str, user: str = ANN, channel: str = CHANNEL, **kw: Any) -> Sent:
        name = f"cmd{next(self._names)}"
        form = {
            "token": "legacy-verification-token",
            "team_id": TEAM_ID,
            "team_domain": "example",
            "channel_id": channel,
            "channel_name": "quiz",
            "user_id": user,
            "user_name": user.lower(),
            "command": "/quiz",
            "text": text,
            "api_app_id": "A0APP",
            "is_enterprise_install": "false",
            "response_url": self.stub.response_url(name),
            "trigger_id": "1.2.3",
        }
        return await self.post(urllib.parse.urlencode(form), FORM, reply_to=name, **kw)

    async def click(
        self,
        round_id: int,
        choice: int,
        user: str = ANN,
        *,
        ephemeral: bool = False,
        action_id: str | None = None,
        **kw: Any,
    ) -> Sent:
        body, name = self.click_body(round_id, choice, user, ephemeral=ephemeral, action_id=action_id)
        return await self.post(body, FORM, reply_to=name, **kw)

    def click_body(
        self, round_id: int, choice: int, user: str = ANN, *, ephemeral: bool = False, action_id: str | None = None
    ) -> tuple[str, str]:
        """An answer button's block_actions request body, and the name of its response_url."""
        name = f"click{next(self._names)}"
        payload = {
            "type": "block_actions",
            "team": {"id": TEAM_ID, "domain": "example"},
            "user": {"id": user, "username": user.lower(), "team_id": TEAM_ID},
            "api_app_id": "A0APP",
            "token": "legacy-verification-token",
            "container": {
                "type": "message",
                "message_ts": "1700000000.000001",
                "channel_id": CHANNEL,
                "is_ephemeral": ephemeral,
            },
            "trigger_id": "1.2.3",
            "channel": {"id": CHANNEL, "name": "quiz"},
            "response_url": self.stub.response_url(name),
            "actions": [
                {
                    "type": "button",
                    "action_id": action_id or make_action_id(round_id, choice),
                    "block_id": f"studybot.round.{round_id}",
                    "value": f"{round_id}:{choice}",
                    "text": {"type": "plain_text", "text": "ABCD"[choice]},
                    "action_ts": "1700000002.000001",
                }
            ],
        }
        return "payload=" + urllib.parse.quote(json.dumps(payload)), name

    async def submit_view(
        self,
        callback_id: str,
        values: dict[str, Any],
        *,
        user: str = ANN,
        private_metadata: str = "",
        view_id: str = "V0MODAL",
        blocks: list[dict[str, Any]] | None = None,
    ) -> Sent:
        """A modal submitted as Slack sends a view_submission (signed; each one differs, as Slack's do)."""
        payload = {
            "type": "view_submission",
            "team": {"id": TEAM_ID, "domain": "example"},
            "user": {"id": user, "username": user.lower(), "team_id": TEAM_ID},
            "api_app_id": "A0APP",
            "token": "legacy-verification-token",
            "trigger_id": "1.2.4",
            "view": {
                "id": view_id,
                "team_id": TEAM_ID,
                "type": "modal",
                "callback_id": callback_id,
                "private_metadata": private_metadata,
                "state": {"values": values},
                "hash": f"1.{next(self._names)}",
                "blocks": blocks or [],
            },
            "response_urls": [],
        }
        return await self.post("payload=" + urllib.parse.quote(json.dumps(payload)), FORM)

    async def event(self, event: dict[str, Any], event_id: str, *, retry: int | None = None, **kw: Any) -> Sent:
        body = {
            "token": "legacy-verification-token",
            "team_id": TEAM_ID,
            "api_app_id": "A0APP",
            "event": event,
            "type": "event_callback",
            "event_id": event_id,
            "event_time": int(time.time()),
            "authorizations": [{"team_id": TEAM_ID, "user_id": BOT_USER_ID, "is_bot": True}],
        }
        extra = {"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_timeout"} if retry else None
        return await self.post(json.dumps(body), "application/json", extra=extra, **kw)

    async def react(
        self, round_: Round, reaction: str, user: str = ANN, event_id: str = "Ev0REACT1", **kw: Any
    ) -> Sent:
        posted = parse_message_id(round_.message_id)
        assert posted is not None, round_
        channel, ts = posted
        event = {
            "type": "reaction_added",
            "user": user,
            "reaction": reaction,
            "item": {"type": "message", "channel": channel, "ts": ts},
            "item_user": BOT_USER_ID,
            "event_ts": "1700000003.000001",
        }
        return await self.event(event, event_id, **kw)

    # ---- results ---------------------------------------------------------------------------------

    async def reply(self, sent: Sent, within: float = 5.0) -> Call:
        """The response_url post that answered a command or click."""
        assert sent.status == 200, sent
        method = f"respond:{sent.reply_to}"
        calls = await self.stub.wait_for(method, 1, within)
        return calls[0]

    async def daily_round(self) -> Round:
        """Configure the channel (as an admin would) and post today's question, as the scheduler does."""
        await self.service.channels.configure(Actor(ADMIN, True), self.ref)
        round_ = await self.service.posting.post_scheduled(self.ref)
        assert round_ is not None and round_.message_id
        return round_


def texts(call: Call) -> str:
    """Everything a person would read in a message: its text and the text of all its blocks."""
    parts = [str(call.args.get("text", ""))]
    blocks = call.args.get("blocks") or (call.args.get("view") or {}).get("blocks") or []
    for block in blocks:
        for key in ("text",):
            if isinstance(block.get(key), dict):
                parts.append(block[key]["text"])
        for element in block.get("elements", []):
            if isinstance(element.get("text"), str):
                parts.append(element["text"])
    return "\n".join(parts)


def buttons(call: Call) -> list[str]:
    """The action ids of every button in a message."""
    blocks = call.args.get("blocks") or []
    return [e["action_id"] for b in blocks if b.get("type") == "actions" for e in b["elements"]]
