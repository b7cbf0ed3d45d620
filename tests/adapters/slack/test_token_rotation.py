"""Slack token rotation with "Add to Slack", end to end on the loopback stub: an install keeps its refresh
token and expiry (sealed, never in the clear in the database or the logs); an expiring token is renewed with
oauth.v2.access (grant_type=refresh_token) once, across processes; requests and pushes after the renewal use
the new token; a slower renewal never overwrites a newer token; a refused renewal is retried after its claim."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import random
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from pathlib import Path

import pytest
from cryptography.fernet import Fernet

from adapters.slack.installations import ServiceInstallationStore, TokenBox
from adapters.slack.platform import make_client
from adapters.slack.rotation import REFRESH_LEASE, TokenRotation
from bot.app.bootstrap import bootstrap
from bot.installs.values import WorkspaceInstall
from bot.store.postgres import PostgresStore
from bot.store.sqlite import SqliteStore
from tests.adapters.slack.stub import SlackApiStub
from tests.adapters.slack.test_oauth import ALPHA, CHANNELS, KEY, PEOPLE, TOKENS, Workspaces
from tests.integration.test_postgres_store import throwaway_database
from tests.support.fakes import FixedClock, make_bank

TWELVE_HOURS = 12 * 3600
T0 = dt.datetime(2026, 5, 4, 8, 0, tzinfo=dt.UTC)


def opened(secret: str | None) -> str:
    assert secret is not None
    return Fernet(KEY).decrypt(secret.encode()).decode()


def refreshes(stub: SlackApiStub) -> list[str]:
    """The refresh tokens of every renewal that reached Slack."""
    return [
        str(c.args["refresh_token"])
        for c in stub.calls_to("oauth.v2.access")
        if c.args.get("grant_type") == "refresh_token"
    ]


@pytest.fixture
async def rotating(tmp_path: Path) -> AsyncIterator[Workspaces]:
    ws = Workspaces(tmp_path)
    ws.stub.expires_in = TWELVE_HOURS  # the app has token rotation switched on
    await ws.start()
    yield ws
    await ws.close()


async def test_an_expiring_token_is_renewed_once_and_everything_after_uses_the_new_one(
    rotating: Workspaces, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    stub = rotating.stub
    assert (await rotating.install(ALPHA))[0] == 200
    [first_refresh] = stub.refresh_tokens
    row = await rotating.store.find_install("slack", ALPHA)
    assert row is not None and row.token_expires_at is not None
    assert opened(row.token_secret) == TOKENS[ALPHA] and opened(row.refresh_secret) == first_refresh
    assert first_refresh not in (row.refresh_secret or "")

    # not due yet: a command is served with the installed token and nothing is renewed
    await rotating.reply_to(await rotating.command(ALPHA, "stats", PEOPLE[ALPHA][0]))
    assert refreshes(stub) == []

    # 90 minutes before expiry (renewals start 2 hours before): four requests at once, one renewal
    rotating.clock.set(row.token_expires_at - dt.timedelta(minutes=90))
    names = await asyncio.gather(*(rotating.command(ALPHA, "stats", user) for user in PEOPLE[ALPHA] * 2))
    names.append(await rotating.command(ALPHA, "leaderboard week", PEOPLE[ALPHA][0]))
    for name in names:
        assert "text" in await rotating.reply_to(name)
    assert refreshes(stub) == [first_refresh]
    new = await rotating.store.find_install("slack", ALPHA)
    assert new is not None and new.token_expires_at == rotating.clock.now() + dt.timedelta(seconds=TWELVE_HOURS)
    new_token, new_refresh = opened(new.token_secret), opened(new.refresh_secret)
    assert new_token.startswith("xoxe.xoxb-t0alpha-renewed") and new_token in stub.workspaces
    assert new_refresh in stub.refresh_tokens and stub.refresh_tokens[new_refresh] == new_token

    # the old token stops working: requests and pushes after the renewal use the new one
    stub.expired.add(TOKENS[ALPHA])
    before = len(stub.calls)
    await rotating.reply_to(await rotating.command(ALPHA, "stats", PEOPLE[ALPHA][1]))
    round_ = await rotating.daily_round(ALPHA)
    await rotating.service.reveals.reveal_round(round_.id)
    later = [c for c in stub.calls[before:] if not c.method.startswith(("respond:", "oauth."))]
    assert {c.method for c in later} >= {"chat.postMessage", "chat.update"}
    assert {c.headers.get("Authorization") for c in later} == {f"Bearer {new_token}"}
    assert stub.refused == [] and refreshes(stub) == [first_refresh]

    # no token, old or new, and no refresh token is in the database files or in any log record
    secrets = (TOKENS[ALPHA], first_refresh, new_token, new_refresh)
    raw = rotating.raw_db_bytes()
    assert not [s for s in secrets if s.encode() in raw or s.split("-plaintext")[0].encode() in raw]
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "renewed the bot token of Slack workspace T0ALPHA" in logged
    assert not [s for s in secrets if s in logged or s.split("-plaintext")[0] in logged]


class Process:
    """One bot process of a cluster: its own store connection, clock, service and installation store."""

    def __init__(self, url_or_path: str | Path, stub: SlackApiStub, start: dt.datetime) -> None:
        self.store: SqliteStore | PostgresStore = (
            PostgresStore(url_or_path) if isinstance(url_or_path, str) else SqliteStore(url_or_path)
        )
        self.clock = FixedClock(start)
        self.service = bootstrap(self.store, make_bank(), self.clock, rng=random.Random(3))
        rotation = TokenRotation(make_client(None, base_url=stub.api_url), stub.client_id, stub.client_secret)
        self.installs = ServiceInstallationStore(self.service, TokenBox(KEY), rotation)

    async def close(self) -> None:
        await self.service.close()
        await self.store.close()


class Cluster:
    def __init__(self, stub: SlackApiStub, processes: list[Process]) -> None:
        self.stub, self.processes = stub, processes

    async def install(self, expires_at: dt.datetime, token: str = TOKENS[ALPHA]) -> str:
        """ALPHA installed with an expiring token; returns its refresh token."""
        self.stub.add_workspace(ALPHA, token)
        refresh = f"xoxe-1-alpha-refresh-{len(self.stub.refresh_tokens)}-plaintext"
        self.stub.refresh_tokens[refresh] = token
        box = TokenBox(KEY)
        await self.processes[0].service.installs.save_install(
            WorkspaceInstall(
                "slack",
                ALPHA,
                "U0BOT",
                box.seal(token),
                T0 - dt.timedelta(hours=11),
                refresh_secret=box.seal(refresh),
                token_expires_at=expires_at,
            )
        )
        return refresh

    def set_clocks(self, now: dt.datetime) -> None:
        for p in self.processes:
            p.clock.set(now)


def database(engine: str, tmp_path: Path) -> AbstractAsyncContextManager[str | Path]:
    """A throwaway PostgreSQL database (its URL) or an SQLite file (its path)."""
    if engine == "postgres":
        return throwaway_database("studybot_test_rotation")

    @contextlib.asynccontextmanager
    async def sqlite_file() -> AsyncIterator[Path]:
        yield tmp_path / "cluster.db"

    return sqlite_file()


@pytest.fixture(params=["sqlite", "postgres"])
async def cluster(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Cluster]:
    """Two processes of one bot on one database (SQLite file or PostgreSQL), and the Web API stub."""
    stub = SlackApiStub()
    stub.strict, stub.expires_in = True, TWELVE_HOURS
    await stub.start()
    async with database(request.param, tmp_path) as where:
        processes = [Process(where, stub, T0) for _ in range(2)]
        for p in processes:
            await p.store.open()
        try:
            yield Cluster(stub, processes)
        finally:
            for p in processes:
                await p.close()
            await stub.close()


async def test_two_processes_renew_an_expiring_token_once(cluster: Cluster) -> None:
    refresh = await cluster.install(T0 + dt.timedelta(minutes=30))
    cluster.stub.delays["oauth.v2.access"] = 0.2  # the renewal is in flight while the others ask
    a, b = cluster.processes
    tokens = await asyncio.gather(*(p.installs.token_for(ALPHA) for p in (a, b, a, b, a, b, a, b)))
    assert refreshes(cluster.stub) == [refresh], "one renewal reached Slack"
    row = await a.service.installs.find_install("slack", ALPHA)
    assert row is not None
    new = opened(row.token_secret)
    assert new != TOKENS[ALPHA] and set(tokens) <= {TOKENS[ALPHA], new}  # the old token was still good
    assert row.token_expires_at == T0 + dt.timedelta(seconds=TWELVE_HOURS)
    assert [await p.installs.token_for(ALPHA) for p in (a, b)] == [new, new]
    bot = await b.installs.async_find_bot(enterprise_id=None, team_id=ALPHA)
    assert bot is not None and bot.bot_token == new
    assert bot.bot_refresh_token is None, "bolt gets nothing to rotate: the store renews"
    assert refreshes(cluster.stub) == [refresh]


async def test_an_expired_token_waits_for_the_renewal_in_flight(cluster: Cluster) -> None:
    refresh = await cluster.install(T0 - dt.timedelta(minutes=5))
    cluster.stub.expired.add(TOKENS[ALPHA])
    cluster.stub.delays["oauth.v2.access"] = 0.3
    a, b = cluster.processes
    tokens = await asyncio.gather(*(p.installs.token_for(ALPHA) for p in (a, b, b, a)))
    assert refreshes(cluster.stub) == [refresh]
    row = await a.service.installs.find_install("slack", ALPHA)
    assert row is not None and set(tokens) == {opened(row.token_secret)}, "nobody used the expired token"


async def test_a_reinstall_during_a_renewal_keeps_the_reinstalled_token(cluster: Cluster) -> None:
    await cluster.install(T0 + dt.timedelta(minutes=30))
    cluster.stub.delays["oauth.v2.access"] = 0.3
    a, b = cluster.processes
    renewing = asyncio.create_task(a.installs.token_for(ALPHA))
    await cluster.stub.wait_for("oauth.v2.access")
    reinstalled = "xoxb-alpha-reinstalled-plaintext"
    cluster.stub.add_workspace(ALPHA, reinstalled)
    await b.service.installs.save_install(
        WorkspaceInstall("slack", ALPHA, "U0BOT", TokenBox(KEY).seal(reinstalled), T0)
    )
    assert await renewing == reinstalled, "the slower renewal does not overwrite the newer token"
    row = await a.service.installs.find_install("slack", ALPHA)
    assert row is not None and opened(row.token_secret) == reinstalled and row.refresh_secret is None


async def test_a_refused_renewal_keeps_the_token_and_is_retried_after_its_claim(
    cluster: Cluster, caplog: pytest.LogCaptureFixture
) -> None:
    refresh = await cluster.install(T0 + dt.timedelta(minutes=30))
    cluster.stub.refresh_tokens.clear()  # Slack no longer knows the refresh token
    a, b = cluster.processes
    caplog.set_level(logging.INFO)
    assert [await p.installs.token_for(ALPHA) for p in (a, b, a)] == [TOKENS[ALPHA]] * 3
    assert refreshes(cluster.stub) == [refresh], "one try per claim, not one per request"
    assert "Slack refused to renew the bot token of workspace T0ALPHA: invalid_refresh_token" in caplog.text
    assert refresh not in caplog.text and "xoxe-1-alpha" not in caplog.text
    cluster.set_clocks(T0 + REFRESH_LEASE)
    assert await b.installs.token_for(ALPHA) == TOKENS[ALPHA]
    assert refreshes(cluster.stub) == [refresh, refresh]  # tried again once the claim lapsed
    cluster.stub.refresh_tokens[refresh] = TOKENS[ALPHA]  # Slack takes it again
    cluster.set_clocks(T0 + 2 * REFRESH_LEASE)
    renewed = await a.installs.token_for(ALPHA)
    assert renewed != TOKENS[ALPHA] and renewed in cluster.stub.workspaces
    assert await b.installs.token_for(ALPHA) == renewed


async def test_an_install_without_rotation_is_never_renewed(rotating: Workspaces) -> None:
    rotating.stub.expires_in = None
    assert (await rotating.install(ALPHA))[0] == 200
    row = await rotating.store.find_install("slack", ALPHA)
    assert row is not None and row.refresh_secret is None and row.token_expires_at is None
    rotating.clock.set(rotating.clock.now() + dt.timedelta(days=400))
    await rotating.reply_to(await rotating.command(ALPHA, "stats", PEOPLE[ALPHA][0]))
    round_ = await rotating.daily_round(ALPHA)
    assert round_.ref.channel_id == CHANNELS[ALPHA]
    assert refreshes(rotating.stub) == [] and rotating.stub.refused == []
