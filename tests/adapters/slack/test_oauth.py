"""Slack for many workspaces, end to end on the loopback stub: two workspaces install the real app through
bolt's OAuth redirect flow (install page, state cookie, a fake oauth.v2.access), then answer in parallel
with their own tokens and their data never mix; bad states and codes get a clear page and change nothing;
an uninstalled workspace is forgotten and its events are refused; tokens are sealed in the database."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import re
import sqlite3
import time
import urllib.parse
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from cryptography.fernet import Fernet

from adapters.slack.app import (
    UNINSTALLED_NOTE,
    OAuthConfig,
    SlackBot,
    build_slack_app,
    oauth_config,
    serve_http,
    start_slack,
)
from adapters.slack.ids import action_id, parse_message_id
from adapters.slack.platform import make_client
from bot.app.bootstrap import bootstrap
from bot.app.config import Settings
from bot.kernel.errors import StartupError
from bot.kernel.values import Actor, ChannelRef, Period, Round
from bot.store.sqlite import SqliteStore
from tests.adapters.slack.harness import ADMIN, FORM, SECRET, START
from tests.adapters.slack.signing import signed_headers
from tests.adapters.slack.stub import SlackApiStub
from tests.support.fakes import FixedClock, make_bank

KEY = Fernet.generate_key()
ALPHA, BETA = "T0ALPHA", "T0BETA"
TOKENS = {ALPHA: "xoxb-alpha-1111-plaintext", BETA: "xoxb-beta-2222-plaintext"}
CHANNELS = {ALPHA: "C0ALPHA", BETA: "C0BETA"}
PEOPLE = {ALPHA: ("U0ANA", "U0AXEL"), BETA: ("U0BEA", "U0BORIS")}
STATE_COOKIE = "slack-app-oauth-state"


class Browser:
    """One person's browser: keeps the state cookie the install page sets, as a browser would."""

    def __init__(self, session: aiohttp.ClientSession, base: str) -> None:
        self.session, self.base, self.cookie = session, base, ""

    async def open_install_page(self) -> tuple[int, str, str]:
        """GET /slack/install: (status, page, the state in its Add to Slack link)."""
        async with self.session.get(f"{self.base}/slack/install") as resp:
            page = await resp.text()
            for header in resp.headers.getall("Set-Cookie", []):
                if header.startswith(f"{STATE_COOKIE}="):
                    self.cookie = header.split(";", 1)[0]
        found = re.search(r"state=([A-Za-z0-9_\-]+)", page)
        return resp.status, page, found.group(1) if found else ""

    async def come_back(self, **query: str) -> tuple[int, str]:
        """Slack sends the browser back to /slack/oauth_redirect with a code and the state."""
        headers = {"Cookie": self.cookie} if self.cookie else {}
        url = f"{self.base}/slack/oauth_redirect?{urllib.parse.urlencode(query)}"
        async with self.session.get(url, headers=headers, allow_redirects=False) as resp:
            return resp.status, await resp.text()


class Workspaces:
    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.stub = SlackApiStub()
        self.db = tmp_path / "quiz.db"
        self.store = SqliteStore(self.db)
        self.clock = FixedClock(START)
        self.service = bootstrap(self.store, make_bank(), self.clock, rng=random.Random(7))
        self.names = iter(range(1, 10_000))

    async def start(self) -> None:
        await self.stub.start()
        self.stub.strict = True  # a call without its workspace's token is refused, as Slack does
        for team, token in TOKENS.items():
            self.stub.add_workspace(team, token, name=f"{team} Inc")
        await self.store.open()
        oauth = OAuthConfig(self.stub.client_id, self.stub.client_secret, KEY)
        client = make_client(None, base_url=self.stub.api_url)
        self.bot: SlackBot = build_slack_app(self.service, signing_secret=SECRET, client=client, oauth=oauth)
        self.runner: web.AppRunner = await serve_http(self.bot, "127.0.0.1", 0)
        self.base = f"http://127.0.0.1:{self.runner.addresses[0][1]}"
        self.session = aiohttp.ClientSession()

    async def close(self) -> None:
        await self.session.close()
        await self.runner.cleanup()
        await self.service.close()
        await self.store.close()
        await self.stub.close()

    def browser(self) -> Browser:
        return Browser(self.session, self.base)

    async def install(self, team: str) -> tuple[int, str]:
        code = f"code-{team}-{next(self.names)}"
        self.stub.grant(code, TOKENS[team])
        browser = self.browser()
        status, _, state = await browser.open_install_page()
        assert status == 200 and state and browser.cookie
        return await browser.come_back(code=code, state=state)

    # ---- signed requests from one workspace ------------------------------------------------------

    async def post(self, body: str, content_type: str) -> tuple[int, str]:
        headers = signed_headers(SECRET, body, content_type)
        async with self.session.post(f"{self.base}/slack/events", data=body.encode(), headers=headers) as resp:
            return resp.status, await resp.text()

    async def click(self, team: str, round_id: int, choice: int, user: str) -> str:
        name = f"click{next(self.names)}"
        payload = {
            "type": "block_actions",
            "team": {"id": team, "domain": team.lower()},
            "user": {"id": user, "username": user.lower(), "team_id": team},
            "api_app_id": "A0APP",
            "token": "legacy",
            "trigger_id": "1.2.3",
            "response_url": self.stub.response_url(name),
            "container": {
                "type": "message",
                "message_ts": "1700000000.000001",
                "channel_id": CHANNELS[team],
                "is_ephemeral": False,
            },
            "channel": {"id": CHANNELS[team], "name": "quiz"},
            "actions": [
                {
                    "type": "button",
                    "action_id": action_id(round_id, choice),
                    "block_id": f"studybot.round.{round_id}",
                    "value": f"{round_id}:{choice}",
                    "text": {"type": "plain_text", "text": "ABCD"[choice]},
                    "action_ts": "1700000002.1",
                }
            ],
        }
        status, _ = await self.post("payload=" + urllib.parse.quote(json.dumps(payload)), FORM)
        assert status == 200
        return name

    async def command(self, team: str, text: str, user: str) -> str:
        name = f"cmd{next(self.names)}"
        form = {
            "token": "legacy",
            "team_id": team,
            "team_domain": team.lower(),
            "channel_id": CHANNELS[team],
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
        status, _ = await self.post(urllib.parse.urlencode(form), FORM)
        assert status == 200
        return name

    async def event(self, team: str, event: dict[str, Any], event_id: str) -> tuple[int, str]:
        body = {
            "token": "legacy",
            "team_id": team,
            "api_app_id": "A0APP",
            "event": event,
            "type": "event_callback",
            "event_id": event_id,
            "event_time": int(time.time()),
            "authorizations": [{"team_id": team, "user_id": "U0BOT", "is_bot": True}],
        }
        return await self.post(json.dumps(body), "application/json")

    async def reply_to(self, name: str) -> dict[str, Any]:
        [call] = await self.stub.wait_for(f"respond:{name}", 1, 5.0)
        return call.args

    # ---- the core side ---------------------------------------------------------------------------

    async def daily_round(self, team: str) -> Round:
        ref = ChannelRef("slack", team, CHANNELS[team])
        await self.service.channels.configure(Actor(ADMIN, True), ref)
        round_ = await self.service.posting.post_scheduled(ref)
        assert round_ is not None and round_.message_id
        return round_

    def correct(self, round_: Round) -> int:
        question = self.service.context.bank.get(round_.question_id)
        assert question is not None
        return question.answer

    def raw_db_bytes(self) -> bytes:
        return b"".join(p.read_bytes() for p in self.tmp_path.glob("quiz.db*"))


@pytest.fixture
async def spaces(tmp_path: Path) -> AsyncIterator[Workspaces]:
    ws = Workspaces(tmp_path)
    await ws.start()
    yield ws
    await ws.close()


def calls_with_tokens(stub: SlackApiStub) -> list[tuple[str, str | None, Any]]:
    """(method, workspace of the token used, channel) for every call that posts into a workspace."""
    return [
        (c.method, stub.team_of(c), c.args.get("channel"))
        for c in stub.calls
        if c.method.startswith(("chat.", "users.", "conversations.", "views."))
    ]


async def test_two_workspaces_install_then_answer_in_parallel_with_their_own_tokens_and_apart(
    spaces: Workspaces, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    (status_a, page_a), (status_b, page_b) = await asyncio.gather(spaces.install(ALPHA), spaces.install(BETA))
    assert (status_a, status_b) == (200, 200)
    assert "studybot is installed" in page_a and "T0ALPHA Inc" in page_a and "T0BETA Inc" in page_b
    assert len(spaces.stub.calls_to("oauth.v2.access")) == 2

    # the database holds each workspace once, its token sealed (not the plaintext, anywhere in the files)
    for team, token in TOKENS.items():
        row = await spaces.store.find_install("slack", team)
        assert row is not None and row.bot_user_id == "U0BOT" and row.installed_by == "U0INSTALLER"
        assert row.token_secret != token and token not in row.token_secret
        assert Fernet(KEY).decrypt(row.token_secret.encode()).decode() == token
        assert "chat:write" in row.scopes
    with sqlite3.connect(spaces.db) as raw:
        assert {t for (t,) in raw.execute("SELECT workspace_id FROM installations")} == {ALPHA, BETA}
    assert b"xoxb-alpha" not in spaces.raw_db_bytes() and b"xoxb-beta" not in spaces.raw_db_bytes()

    # each installer got the welcome in their DMs with the app, with their workspace's token
    dms = [(team, ch) for m, team, ch in calls_with_tokens(spaces.stub) if m == "chat.postMessage"]
    assert sorted(dms) == [(ALPHA, "D0INSTALLER"), (BETA, "D0INSTALLER")]
    welcome = spaces.stub.calls_to("chat.postMessage")[0].args["text"]
    assert welcome.startswith("Thanks for adding studybot") and "/quiz config time 09:00" in welcome

    # each workspace's daily question goes out with that workspace's token
    round_a, round_b = await asyncio.gather(spaces.daily_round(ALPHA), spaces.daily_round(BETA))
    posts = [(team, ch) for m, team, ch in calls_with_tokens(spaces.stub) if m == "chat.postMessage"][2:]
    assert sorted(posts) == [(ALPHA, CHANNELS[ALPHA]), (BETA, CHANNELS[BETA])]

    # both workspaces answer at once: buttons, a reaction and a command
    (ana, axel), (bea, boris) = PEOPLE[ALPHA], PEOPLE[BETA]
    right_a, right_b = spaces.correct(round_a), spaces.correct(round_b)
    channel_b, ts_b = parse_message_id(round_b.message_id) or ("", "")
    reaction = {
        "type": "reaction_added",
        "user": boris,
        "reaction": ("one", "two", "three", "four")[right_b],
        "item": {"type": "message", "channel": channel_b, "ts": ts_b},
        "item_user": "U0BOT",
        "event_ts": "1700000003.000001",
    }
    await spaces.service.channels.configure(Actor(ADMIN, True), ChannelRef("slack", BETA, CHANNELS[BETA]))
    names = await asyncio.gather(
        spaces.click(ALPHA, round_a.id, right_a, ana),
        spaces.click(ALPHA, round_a.id, (right_a + 1) % 4, axel),
        spaces.click(BETA, round_b.id, right_b, bea),
    )
    for name in names:
        assert "locked in" in (await spaces.reply_to(name))["text"]
    await spaces.event(BETA, reaction, "Ev0BETA1")
    answers_a = {a.user_id for a in await spaces.store.round_answers(round_a.id)}
    assert answers_a == {ana, axel}
    await spaces.stub.wait_for("chat.postEphemeral", 1)  # the reaction answer is acknowledged privately ...
    [ephemeral] = spaces.stub.calls_to("chat.postEphemeral")
    assert spaces.stub.team_of(ephemeral) == BETA and ephemeral.args["user"] == boris  # ... in its workspace

    # reveals: each round's question is updated and its reveal posted with its own workspace's token
    await asyncio.gather(
        spaces.service.reveals.reveal_round(round_a.id), spaces.service.reveals.reveal_round(round_b.id)
    )
    for method, team, channel in calls_with_tokens(spaces.stub):
        assert team is not None, f"{method} went out without a workspace token"
        if channel is not None and channel != "D0INSTALLER":  # the welcome: the installer's DMs in each
            assert channel == CHANNELS[team], f"{method} to {channel} used the token of {team}"
    assert {spaces.stub.team_of(c) for c in spaces.stub.calls_to("chat.update")} == {ALPHA, BETA}

    # the data never mix: each leaderboard names only its own people
    board_a = await spaces.service.boards.leaderboard("slack", ALPHA, Period.WEEK)
    board_b = await spaces.service.boards.leaderboard("slack", BETA, Period.WEEK)
    assert {r.user_id for r in board_a.rows} == {ana, axel}
    assert {r.user_id for r in board_b.rows} == {bea, boris}
    reply = await spaces.reply_to(await spaces.command(BETA, "leaderboard week", bea))
    shown = json.dumps(reply)
    assert bea in shown and ana not in shown and axel not in shown

    # requests were authorized with the workspace's own token (bolt's auth.test on each)
    assert {spaces.stub.team_of(c) for c in spaces.stub.calls_to("auth.test")} == {ALPHA, BETA}
    # and no token reached a log record
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "xoxb-alpha" not in logged and "xoxb-beta" not in logged and "stub-client-secret" not in logged
    assert "code-T0ALPHA" not in logged and "oauth_redirect?code" not in logged, "install codes stay out of logs"


async def test_a_reinstall_gets_no_second_welcome(spaces: Workspaces) -> None:
    assert (await spaces.install(ALPHA))[0] == 200
    assert (await spaces.install(ALPHA))[0] == 200  # new scopes, say: the same workspace again
    welcomes = [c for c in spaces.stub.calls_to("chat.postMessage") if "Thanks for adding" in c.args.get("text", "")]
    assert len(welcomes) == 1 and welcomes[0].args["channel"] == "D0INSTALLER"


async def test_a_bad_state_or_a_bad_code_gets_a_clear_page_and_changes_nothing(spaces: Workspaces) -> None:
    spaces.stub.grant("good-code", TOKENS[ALPHA])

    # a state this bot never issued (a forged link), with a matching forged cookie
    forged = spaces.browser()
    forged.cookie = f"{STATE_COOKIE}=made-up"
    status, page = await forged.come_back(code="good-code", state="made-up")
    assert status == 401 and "was not installed" in page and "expired or was already used" in page

    # a real state, but the browser that comes back is not the one that opened the install page
    browser = spaces.browser()
    _, _, state = await browser.open_install_page()
    status, page = await spaces.browser().come_back(code="good-code", state=state)
    assert status == 400 and "another browser" in page

    # the right browser and state, but a code Slack does not accept
    browser = spaces.browser()
    _, _, state = await browser.open_install_page()
    status, page = await browser.come_back(code="not-a-code", state=state)
    assert status == 401 and "did not accept" in page and "/slack/install" in page

    # the person cancelled on Slack's page
    status, page = await spaces.browser().come_back(error="access_denied", state="x")
    assert "cancelled" in page

    assert await spaces.store.find_install("slack", ALPHA) is None
    assert [c.args.get("code") for c in spaces.stub.calls_to("oauth.v2.access")] == ["not-a-code"]
    assert spaces.stub.codes == {"good-code": TOKENS[ALPHA]}, "the good code was never spent"

    # a state works once: after a successful install, the same link is refused
    browser = spaces.browser()
    _, _, state = await browser.open_install_page()
    assert (await browser.come_back(code="good-code", state=state))[0] == 200
    spaces.stub.grant("second-code", TOKENS[ALPHA])
    status, page = await browser.come_back(code="second-code", state=state)
    assert status == 401 and "expired or was already used" in page
    assert "second-code" in spaces.stub.codes


async def test_uninstall_and_revoked_tokens_forget_the_workspace_and_its_events_are_refused(
    spaces: Workspaces, caplog: pytest.LogCaptureFixture
) -> None:
    await asyncio.gather(spaces.install(ALPHA), spaces.install(BETA))
    round_a = await spaces.daily_round(ALPHA)

    status, _ = await spaces.event(ALPHA, {"type": "app_uninstalled", "event_ts": "1.2"}, "Ev0GONE1")
    assert status == 200
    revoked = {"type": "tokens_revoked", "tokens": {"oauth": [], "bot": ["U0BOT"]}, "event_ts": "1.3"}
    assert (await spaces.event(BETA, revoked, "Ev0GONE2"))[0] == 200
    for _ in range(50):  # the listeners run after the acknowledgement
        if not (await spaces.store.find_install("slack", ALPHA) or await spaces.store.find_install("slack", BETA)):
            break
        await asyncio.sleep(0.02)
    assert await spaces.store.find_install("slack", ALPHA) is None
    assert await spaces.store.find_install("slack", BETA) is None

    # an event from the uninstalled workspace: refused and logged, nothing recorded, no crash
    caplog.set_level(logging.INFO)
    channel, ts = parse_message_id(round_a.message_id) or ("", "")
    before = len(spaces.stub.calls)
    reaction = {
        "type": "reaction_added",
        "user": PEOPLE[ALPHA][0],
        "reaction": "one",
        "item": {"type": "message", "channel": channel, "ts": ts},
        "item_user": "U0BOT",
        "event_ts": "1.4",
    }
    status, _ = await spaces.event(ALPHA, reaction, "Ev0LATE1")
    assert status == 200
    await asyncio.sleep(0.2)
    assert await spaces.store.round_answers(round_a.id) == []
    assert not [c for c in spaces.stub.calls[before:] if c.method.startswith("chat.")]
    assert any("not found" in r.getMessage() or "authoriz" in r.getMessage().lower() for r in caplog.records)

    # a command from it gets a plain note (from bolt's authorization, before any listener), nothing else
    form = {
        "team_id": ALPHA,
        "channel_id": CHANNELS[ALPHA],
        "user_id": PEOPLE[ALPHA][0],
        "command": "/quiz",
        "text": "stats",
        "response_url": spaces.stub.response_url("late"),
        "trigger_id": "1.2.3",
    }
    status, text = await spaces.post(urllib.parse.urlencode(form), FORM)
    assert status == 200 and text == ""
    assert (await spaces.reply_to("late"))["text"] == UNINSTALLED_NOTE  # said privately, on its response_url

    # the core's own push to that workspace fails quietly (the round stays due), without any token
    pushed = len(spaces.stub.calls_to("chat.postMessage"))
    await spaces.service.reveals.reveal_round(round_a.id)
    assert len(spaces.stub.calls_to("chat.postMessage")) == pushed

    # and a reinstall brings the workspace back
    assert (await spaces.install(ALPHA))[0] == 200
    assert await spaces.store.find_install("slack", ALPHA) is not None


def test_oauth_needs_a_valid_secret_key_and_says_so_in_one_line() -> None:
    base = {"SLACK_CLIENT_ID": "1.2", "SLACK_CLIENT_SECRET": "s3cret-value", "SLACK_SIGNING_SECRET": "x" * 12}
    assert Settings.from_env(base).platforms == ["slack"]
    with pytest.raises(StartupError) as missing:
        oauth_config(Settings.from_env(base))
    assert "STUDYBOT_SECRET_KEY is not set" in str(missing.value) and "Fernet" in str(missing.value)
    for bad in ("short", "x" * 44, KEY.decode()[:-2] + "!!", " "):
        with pytest.raises(StartupError) as wrong:
            oauth_config(Settings.from_env(base | {"STUDYBOT_SECRET_KEY": bad}))
        message = str(wrong.value)
        assert message.startswith("STUDYBOT_SECRET_KEY") and "44 characters" in message
        assert bad.strip() == "" or bad not in message, "the key itself is never echoed"
    good = oauth_config(Settings.from_env(base | {"STUDYBOT_SECRET_KEY": KEY.decode(), "SLACK_SCOPES": "a, b"}))
    assert good is not None and good.key == KEY and good.scopes == ("a", "b") and "s3cret" not in repr(good)
    assert oauth_config(Settings.from_env({"SLACK_CLIENT_ID": "1.2"})) is None  # both are needed
    with pytest.raises(StartupError, match="SLACK_APP_TOKEN"):
        oauth_config(Settings.from_env(base | {"STUDYBOT_SECRET_KEY": KEY.decode(), "SLACK_APP_TOKEN": "xapp-1"}))


async def test_start_slack_with_a_client_id_serves_the_install_page_and_checks_no_single_token(
    spaces: Workspaces, unused_tcp_port: int
) -> None:
    settings = Settings.from_env(
        {
            "SLACK_CLIENT_ID": spaces.stub.client_id,
            "SLACK_CLIENT_SECRET": spaces.stub.client_secret,
            "SLACK_SIGNING_SECRET": SECRET,
            "STUDYBOT_SECRET_KEY": KEY.decode(),
            "SLACK_BOT_TOKEN": "xoxb-ignored-one",
            "STUDYBOT_HTTP_HOST": "127.0.0.1",
            "STUDYBOT_HTTP_PORT": str(unused_tcp_port),
        }
    )
    client = make_client(None, base_url=spaces.stub.api_url)
    task = await start_slack(spaces.service, settings, client=client)
    try:
        assert not spaces.stub.calls_to("auth.test"), "each workspace brings its own token; none to check at start"
        async with spaces.session.get(f"http://127.0.0.1:{unused_tcp_port}/slack/install") as resp:
            page = await resp.text()
        assert resp.status == 200 and "Add to Slack" in page
        link = urllib.parse.unquote(re.search(r'href="([^"]+oauth/v2/authorize[^"]+)"', page).group(1))  # type: ignore[union-attr]
        assert f"client_id={spaces.stub.client_id}" in link
        assert (
            "scope=commands,chat:write,channels:join,reactions:read,users:read,files:write,files:read,im:write" in link
        )
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


async def test_a_stored_token_that_does_not_open_with_the_key_counts_as_not_installed(
    spaces: Workspaces, caplog: pytest.LogCaptureFixture
) -> None:
    from adapters.slack.installations import ServiceInstallationStore, TokenBox

    assert (await spaces.install(ALPHA))[0] == 200
    other_key = ServiceInstallationStore(spaces.service, TokenBox(Fernet.generate_key()))
    right_key = ServiceInstallationStore(spaces.service, TokenBox(KEY))
    assert await right_key.token_for(ALPHA) == TOKENS[ALPHA]
    caplog.set_level(logging.WARNING)
    assert await other_key.token_for(ALPHA) is None
    assert await other_key.async_find_bot(enterprise_id=None, team_id=ALPHA) is None
    assert "does not open with STUDYBOT_SECRET_KEY" in caplog.text and TOKENS[ALPHA] not in caplog.text
    assert await right_key.token_for(BETA) is None  # never installed


async def test_a_revoked_user_token_leaves_the_workspace_installed(spaces: Workspaces) -> None:
    assert (await spaces.install(ALPHA))[0] == 200
    revoked = {"type": "tokens_revoked", "tokens": {"oauth": ["U0INSTALLER"], "bot": []}, "event_ts": "1.5"}
    assert (await spaces.event(ALPHA, revoked, "Ev0USER1"))[0] == 200
    await asyncio.sleep(0.2)  # let a (wrong) deletion show
    assert await spaces.store.find_install("slack", ALPHA) is not None


async def test_the_reveal_s_discussion_thread_goes_out_with_the_workspace_s_token(spaces: Workspaces) -> None:
    from adapters.slack.platform import DISCUSSION
    from bot.settings import ConfigChange

    await asyncio.gather(spaces.install(ALPHA), spaces.install(BETA))
    round_b = await spaces.daily_round(BETA)
    ref = ChannelRef("slack", BETA, CHANNELS[BETA])
    await spaces.service.channels.configure(Actor(ADMIN, True), ref, ConfigChange.parse([("threads", "on")]))
    await spaces.service.reveals.reveal_round(round_b.id)
    _, reveal, reply = spaces.stub.calls_to("chat.postMessage")[2:]  # after the two installers' welcomes
    assert reply.args["text"] == DISCUSSION and reply.args["channel"] == CHANNELS[BETA]
    assert spaces.stub.team_of(reveal) == spaces.stub.team_of(reply) == BETA, "the thread carries BETA's token"
    assert spaces.stub.refused == [], "Slack refused nothing (no not_authed)"


async def test_every_push_the_core_starts_carries_the_workspace_s_token(spaces: Workspaces) -> None:
    import datetime as dt

    from bot.recap.values import RecapCard
    from bot.seasons.values import SeasonCard

    await spaces.install(BETA)
    ref = ChannelRef("slack", BETA, CHANNELS[BETA])
    platform = spaces.bot.deps.platform
    spaces.stub.add_user("U0BEA")
    await platform.post_notice(ref, "a day was skipped")
    await platform.post_season(ref, SeasonCard("2025-02", "February 2025", ()))
    empty_week = RecapCard("Week", dt.date(2025, 3, 1), dt.date(2025, 3, 7), (), (), (), None)
    await platform.post_recap(ref, empty_week, None)
    await platform.post_recap(ref, empty_week, b"\x89PNG-chart")
    await platform.send_private(ref, "U0BEA", "only you")
    await platform.send_direct(ref, "U0BEA", "a reminder")
    await platform.send_file(ref, "U0BEA", b"a,b\n", "misses.csv", "Misses", "your misses")
    assert await platform.display_names(ref, ["U0BEA"]) == {"U0BEA": "u0bea"}
    assert await platform.user_timezone(ref, "U0BOB") is None  # users.info refused the unknown member
    api_calls = [c for c in spaces.stub.calls if not c.method.startswith(("upload:", "oauth.", "auth."))]
    assert len(api_calls) >= 10 and spaces.stub.refused == []
    assert {spaces.stub.team_of(c) for c in api_calls} == {BETA}
