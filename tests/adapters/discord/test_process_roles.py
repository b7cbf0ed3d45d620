"""STUDYBOT_ROLE on the real composition root (bot.app.cli.run_bot) over PostgreSQL, with the real discord.py
against the loopback fake Discord and the real Slack Web API client against the stub (issue 34):

- a delivery process posts a due question over REST and never opens the gateway (nor any listener);
- an interactive process is on the gateway and answers, but posts nothing that is due;
- STUDYBOT_SHARD_COUNT=auto takes GET /gateway/bot's count, and shard ids outside it stop the start.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import socket
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import pytest
from cryptography.fernet import Fernet
from slack_sdk.oauth.installation_store import Installation

import adapters.slack.delivery
from adapters.slack.installations import ServiceInstallationStore, TokenBox
from adapters.slack.platform import make_client
from bot.app.bootstrap import bootstrap
from bot.app.cli import run_bot
from bot.app.config import Settings
from bot.kernel.errors import StartupError
from bot.kernel.values import ChannelConfig, ChannelRef
from bot.store.postgres import PostgresStore
from tests.adapters.discord.fake_discord import FakeDiscord, custom_ids
from tests.adapters.slack.stub import SlackApiStub
from tests.integration.test_postgres_store import throwaway_database
from tests.support.fakes import FixedClock, make_bank, write_bank_files

pytestmark = pytest.mark.slow
TOKEN = "fake-bot-token.not-a-secret.really"
WINDOW = dt.timedelta(minutes=10)


@pytest.fixture
async def pg() -> AsyncIterator[str]:
    async with throwaway_database("studybot_roles") as url:
        store = PostgresStore(url)
        await store.open()  # the schema, before the bot and the test write to it
        await store.close()
        yield url


async def due_now(url: str, *refs: ChannelRef) -> None:
    store = PostgresStore(url)
    await store.open()
    try:
        for ref in refs:
            await store.save_channel(ChannelConfig(ref=ref, answer_window=WINDOW))
            await store.set_next_post(ref, dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1))
    finally:
        await store.close()


async def daily_rounds(url: str) -> list[tuple[str, str]]:
    conn = await asyncpg.connect(url)
    try:
        return [
            (r[0], r[1]) for r in await conn.fetch("SELECT channel_id, post_state FROM rounds WHERE kind = 'daily'")
        ]
    finally:
        await conn.close()


def settings(url: str, tmp_path: Path, role: str, **values: Any) -> Settings:
    return Settings(
        database_url=url,
        bank_dir=write_bank_files(tmp_path / "bank", make_bank()),
        role=role,
        tick=dt.timedelta(seconds=1),
        web_port=0,
        **values,
    )


@contextlib.asynccontextmanager
async def running(config: Settings) -> AsyncIterator[asyncio.Task[int]]:
    task = asyncio.create_task(run_bot(config))
    try:
        yield task
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def until(check: Any, task: asyncio.Task[int], within: float = 10.0) -> None:
    deadline = time.monotonic() + within
    while not check():
        if task.done():
            task.result()  # raises what ended it
            raise AssertionError("run_bot ended")
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


async def test_shard_count_auto_without_an_answer_from_discord_stops_the_start(
    fake: FakeDiscord, pg: str, tmp_path: Path
) -> None:
    fake.fail_next("GET", r"/gateway/bot$", status=403)
    config = settings(pg, tmp_path, "interactive", discord_token=TOKEN, shard_auto=True, shard_ids=(0,))
    with pytest.raises(StartupError, match=r"^STUDYBOT_SHARD_COUNT=auto: Discord did not say how many shards"):
        await run_bot(config)
    assert fake.identifies == []


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def healthy(port: int, task: asyncio.Task[int]) -> None:
    """/healthz answers 200 within a few seconds (it says 503 until the process is set up)."""
    statuses: list[int] = []

    async def ask() -> None:
        async with aiohttp.ClientSession() as http, http.get(f"http://127.0.0.1:{port}/healthz") as response:
            statuses.append(response.status)

    deadline = time.monotonic() + 10
    while not statuses or statuses[-1] != 200:
        assert not task.done() and time.monotonic() < deadline, statuses
        await ask()
        await asyncio.sleep(0.05)


def questions(fake: FakeDiscord, channel: str) -> list[dict[str, Any]]:
    return [
        m
        for m in fake.messages.values()
        if m["channel_id"] == channel and any(c.startswith("studybot:answer:") for c in custom_ids(m["components"]))
    ]


async def test_a_delivery_process_posts_over_rest_without_the_gateway(
    fake: FakeDiscord, pg: str, tmp_path: Path
) -> None:
    ref = ChannelRef("discord", fake.guild_id, fake.channel_id)
    await due_now(pg, ref)
    metrics = free_port()
    config = settings(pg, tmp_path, "delivery", discord_token=TOKEN, metrics_port=metrics, metrics_host="127.0.0.1")
    async with running(config) as task:
        await until(lambda: questions(fake, fake.channel_id), task)
        await healthy(metrics, task)  # the probe port stays: its scheduler runs
        await until(lambda: fake.requests_to("PUT", r"/reactions/"), task)  # its choice reactions, over REST too
        assert await daily_rounds(pg) == [(fake.channel_id, "sent")]
        assert fake.identifies == [] and fake.connected == 0  # no gateway connection was made
        assert not fake.requests_to("GET", r"/gateway/bot$")  # nor asked for (no STUDYBOT_SHARD_COUNT=auto)
        assert not fake.requests_to("PUT", r"/commands$")  # slash commands are the interactive processes'
        assert fake.requests_to("GET", r"/users/@me$")  # the REST login
        assert not task.done()


def started_as(caplog: pytest.LogCaptureFixture, role: str) -> bool:
    """run_bot said it runs: by then a process that ticks has run its first tick and scheduled the others."""
    return any(r.getMessage() == f"running as STUDYBOT_ROLE={role}" for r in caplog.records)


def tick_jobs(caplog: pytest.LogCaptureFixture) -> list[str]:
    """APScheduler's own records of the tick job being scheduled (its INFO "Added job ..." line)."""
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("apscheduler")]
    return [line for line in lines if line.startswith("Added job")]


async def test_an_interactive_process_answers_but_posts_nothing_that_is_due(
    fake: FakeDiscord, pg: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="apscheduler")
    caplog.set_level(logging.INFO, logger="bot.app.cli")
    ref = ChannelRef("discord", fake.guild_id, fake.channel_id)
    await due_now(pg, ref)
    metrics = free_port()
    config = settings(pg, tmp_path, "interactive", discord_token=TOKEN, metrics_port=metrics, metrics_host="127.0.0.1")
    async with running(config) as task:
        await until(lambda: fake.connected == 1 and fake.commands, task)  # on the gateway, commands synced
        await healthy(metrics, task)  # without a scheduler of its own
        reply = await fake.reply(await fake.slash(fake.alice, "stats"))
        assert reply.ephemeral and reply.text  # it answers
        # started, and no tick was run or scheduled (a ticking process runs its first tick before it says so,
        # which would have posted the due channel): nothing is left that could post later
        await until(lambda: started_as(caplog, "interactive"), task)
        assert tick_jobs(caplog) == []
        assert not questions(fake, fake.channel_id) and await daily_rounds(pg) == []
        assert not task.done()
    # the same channel was due: a delivery process posts it (its first tick, and its tick job is scheduled)
    async with running(settings(pg, tmp_path, "delivery", discord_token=TOKEN)) as task:
        await until(lambda: questions(fake, fake.channel_id), task)
        await until(lambda: started_as(caplog, "delivery"), task)
        assert len(tick_jobs(caplog)) == 1


async def test_shard_count_auto_takes_discord_s_recommended_count(fake: FakeDiscord, pg: str, tmp_path: Path) -> None:
    fake.recommended_shards = 3
    config = settings(pg, tmp_path, "interactive", discord_token=TOKEN, shard_auto=True, shard_ids=(2,))
    async with running(config) as task:
        await until(lambda: fake.connected == 1, task)
    assert fake.requests_to("GET", r"/gateway/bot$")
    assert [i["shard"] for i in fake.identifies] == [[2, 3]]  # shard 2 of the 3 Discord recommends


async def test_shard_ids_outside_the_recommended_count_stop_the_start(
    fake: FakeDiscord, pg: str, tmp_path: Path
) -> None:
    fake.recommended_shards = 2
    config = settings(pg, tmp_path, "interactive", discord_token=TOKEN, shard_auto=True, shard_ids=(0, 1, 2))
    with pytest.raises(StartupError) as exc:
        await run_bot(config)
    assert str(exc.value) == (
        "STUDYBOT_SHARD_IDS=0,1,2 is not accepted: shard 2 is outside 0..1 (STUDYBOT_SHARD_COUNT=auto, and "
        "Discord recommends 2); use shard numbers from 0 to 1, or set STUDYBOT_SHARD_COUNT to the number of "
        "shards the processes split."
    )
    assert fake.identifies == []  # refused before any gateway connection


async def test_a_slack_delivery_process_posts_with_each_workspace_s_token_and_listens_nowhere(
    pg: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Add to Slack: the installation store's token of the channel's workspace, through the Web API; no
    events server on STUDYBOT_HTTP_PORT."""
    stub = SlackApiStub()
    await stub.start()
    stub.strict = True  # every call needs a live workspace token
    stub.add_workspace("T0WS1", "xoxb-ws1")
    monkeypatch.setattr(adapters.slack.delivery, "make_client", lambda token: make_client(token, stub.api_url))
    key = Fernet.generate_key()
    store = PostgresStore(pg)
    await store.open()
    service = bootstrap(store, make_bank(), FixedClock(dt.datetime.now(dt.UTC)))
    installation = Installation(
        app_id="A1", team_id="T0WS1", bot_token="xoxb-ws1", bot_id="B1", bot_user_id="U0BOT", user_id="U1"
    )
    await ServiceInstallationStore(service, TokenBox(key)).async_save(installation)
    await service.close()
    await store.close()
    await due_now(pg, ChannelRef("slack", "T0WS1", "C0QUIZ"))
    port = free_port()
    config = settings(
        pg,
        tmp_path,
        "delivery",
        slack_client_id=stub.client_id,
        slack_client_secret=stub.client_secret,
        secret_key=key.decode(),
        slack_signing_secret="not-needed-here",
        http_host="127.0.0.1",
        http_port=port,
    )
    try:
        async with running(config) as task:
            await until(lambda: stub.messages["C0QUIZ"], task)
            [post] = stub.calls_to("chat.postMessage")
            assert stub.team_of(post) == "T0WS1" and not stub.refused
            with pytest.raises(OSError):  # nothing listens for Slack's events
                await asyncio.open_connection("127.0.0.1", port)
            assert not task.done()
    finally:
        await stub.close()


async def test_a_live_game_starts_at_once_on_an_interactive_process_and_a_delivery_process_runs_its_steps(
    fake: FakeDiscord, pg: str, tmp_path: Path
) -> None:
    """The command's own step (the first question) is the interactive process's reply; the question's close,
    a deadline, is the delivery process's (it is made due now here instead of waiting its 10 s)."""

    def live_posts() -> list[str]:
        bodies = [r.body or {} for r in fake.requests_to("POST", rf"/channels/{fake.channel_id}/messages$")]
        return [e["title"] for b in bodies for e in b.get("embeds") or [] if e.get("title", "").startswith("Live")]

    def closes() -> list[Any]:
        return fake.requests_to("PATCH", rf"/channels/{fake.channel_id}/messages/\d+$")

    async with running(settings(pg, tmp_path, "interactive", discord_token=TOKEN)) as task:
        await until(lambda: fake.connected == 1 and fake.commands, task)
        started = await fake.reply(await fake.slash(fake.alice, "live", questions=3, seconds=10))
        assert started.ephemeral and "Live game on: 3 questions, 10 seconds each" in started.text
        await until(lambda: live_posts(), task)
        assert live_posts() == ["Live question 1 of 3"] and closes() == []
        # the question is out; the game's next step (its close) is saved once Discord's answer is back: stop the
        # process after that, not between the two (a crash there is another test's)
        conn = await asyncpg.connect(pg)
        try:
            deadline = time.monotonic() + 10.0
            while await conn.fetchval("SELECT step FROM live_games") != "close":
                assert not task.done() and time.monotonic() < deadline, "the game's next step was not saved"
                await asyncio.sleep(0.05)
        finally:
            await conn.close()
    conn = await asyncpg.connect(pg)
    try:
        assert await conn.fetchval("SELECT step FROM live_games") == "close"
        await conn.execute("UPDATE live_games SET due_at = now() - interval '1 second'")
    finally:
        await conn.close()
    async with running(settings(pg, tmp_path, "delivery", discord_token=TOKEN)) as task:
        await until(lambda: closes(), task)
        assert fake.identifies[1:] == []  # the delivery process closed it over REST, without the gateway
