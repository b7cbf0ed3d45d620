"""The operator endpoint, on the bot's one web server (aiohttp, with the dashboard): /healthz reflects the
health check, /metrics counts answers, posts, failures and scheduler lag; the STUDYBOT_METRICS_PORT address
answers only those two."""

from __future__ import annotations

import asyncio
import datetime as dt
import random

import pytest
from cryptography.fernet import Fernet

from bot.app.bootstrap import bootstrap
from bot.app.scheduler import DailyScheduler
from bot.kernel.metrics import Metrics
from bot.kernel.values import Actor
from bot.store.sqlite import SqliteStore
from bot.web.app import build_app
from bot.web.config import WebConfig
from bot.web.server import WebServer
from tests.support.fakes import REF, FakePlatform, FixedClock, make_bank, store_of


class Served:
    """The web server with only its metrics address open (as STUDYBOT_METRICS_PORT alone gives)."""

    def __init__(self, server: WebServer, port: int) -> None:
        self.server, self.port = server, port

    def close(self) -> None:
        asyncio.get_running_loop().create_task(self.server.close())


async def serve_health(host, port, metrics, check) -> Served:  # type: ignore[no-untyped-def]
    server = WebServer(build_app(WebConfig("http://127.0.0.1", Fernet.generate_key()), metrics, check))
    return Served(server, await server.listen(host, port, health=True))


async def http_get(port: int, path: str, method: str = "GET") -> tuple[int, str]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"{method} {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode())
    await writer.drain()
    raw = await reader.read()
    writer.close()
    head, _, body = raw.decode().partition("\r\n\r\n")
    return int(head.split()[1]), body


class BrokenPlatform(FakePlatform):
    async def post_question(self, ref, card):  # type: ignore[no-untyped-def]
        raise ConnectionError("down")


@pytest.fixture
async def service():
    store = SqliteStore(":memory:")
    await store.open()
    clock = FixedClock(dt.datetime(2026, 11, 30, 9, 0, 42, tzinfo=dt.UTC))
    svc = bootstrap(
        store,
        make_bank(),
        clock,
        {"fake": FakePlatform(), "broken": BrokenPlatform("broken")},
        rng=random.Random(0),
        metrics=Metrics(),
    )
    await svc.channels.configure(Actor("a", True), REF)
    yield svc
    await svc.close()
    await store.close()


async def test_metrics_count_answers_posts_failures_and_lag(service):
    DailyScheduler(service, service.context.clock)
    round_ = await service.posting.post_scheduled(REF)
    await service.answers.submit_answer(round_.id, "ada", 0)
    await service.answers.submit_answer(round_.id, "bob", 1)
    await service.practice.start_practice(REF, "ada")
    broken = REF.__class__("broken", "s", "c")
    await service.channels.configure(Actor("a", True), broken)
    failed = await service.posting.post_scheduled(broken)  # logged, counted, retried later, not raised
    assert failed is not None and failed.post_state == "failed"
    server = await serve_health("127.0.0.1", 0, service.context.metrics, lambda: asyncio.sleep(0, True))
    port = server.port
    try:
        status, body = await http_get(port, "/metrics")
        assert status == 200
        assert 'studybot_answers_recorded_total{kind="daily",platform="fake"} 2.0' in body
        assert 'studybot_posts_sent_total{platform="fake"} 1.0' in body
        assert 'studybot_post_failures_total{platform="broken"} 1.0' in body
        assert "studybot_scheduler_lag_seconds_count 2.0" in body
        assert "studybot_scheduler_lag_seconds_sum 84.0" in body  # both started 42 s after 09:00
    finally:
        await server.server.close()


async def test_healthz_follows_the_check_and_other_paths_are_refused(service):
    healthy = True

    async def check() -> bool:
        if not healthy:
            raise RuntimeError("store gone")
        return True

    server = await serve_health("127.0.0.1", 0, service.context.metrics, check)
    port = server.port
    try:
        assert await http_get(port, "/healthz") == (200, "ok\n")
        healthy = False
        assert await http_get(port, "/healthz") == (503, "unhealthy\n")
        assert await http_get(port, "/nope") == (404, "try /healthz or /metrics\n")
        assert (await http_get(port, "/login"))[0] == 404  # the dashboard's pages stay on their own address
        assert (await http_get(port, "/healthz", method="POST"))[0] == 405
    finally:
        await server.server.close()


async def test_healthz_during_a_store_outage_is_unhealthy_and_told_once(service, caplog):
    """Issue 30 item 2: a monitor polling /healthz while the disk is full gets 503 each time, and the log says
    once that the database is down (the process's StoreOutage), not a warning and a traceback per poll."""
    import logging
    import sqlite3

    from bot.app.cli import health_check

    store = store_of(service)
    real = store.schema_version

    async def full() -> int:
        raise sqlite3.OperationalError("database or disk is full")

    scheduler = DailyScheduler(service, service.context.clock)
    scheduler.scheduler.start(paused=True)
    server = await serve_health("127.0.0.1", 0, service.context.metrics, health_check(store, [scheduler]))
    port = server.port
    caplog.set_level(logging.INFO)
    try:
        assert await http_get(port, "/healthz") == (200, "ok\n")
        store.schema_version = full
        for _ in range(5):
            assert await http_get(port, "/healthz") == (503, "unhealthy\n")
        store.schema_version = real
        assert await http_get(port, "/healthz") == (200, "ok\n")
    finally:
        await server.server.close()
        scheduler.scheduler.shutdown(wait=False)
    told = [(r.name, r.levelname) for r in caplog.records if r.levelno >= logging.WARNING]
    assert told == [("bot.kernel.outage", "ERROR")], told
