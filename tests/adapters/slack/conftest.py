"""Fixtures for the Slack end-to-end tests: a running app, its Web API stub and a real SQLite store."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from tests.adapters.slack.harness import SlackHarness


@pytest.fixture
async def slack_factory(tmp_path: Path) -> AsyncIterator[Callable[..., Awaitable[SlackHarness]]]:
    started: list[SlackHarness] = []

    async def make(admins: frozenset[str] = frozenset()) -> SlackHarness:
        harness = await SlackHarness.start(tmp_path / f"h{len(started)}", admins)
        started.append(harness)
        return harness

    yield make
    for harness in started:
        await harness.close()


@pytest.fixture
async def slack(slack_factory: Callable[..., Awaitable[SlackHarness]]) -> SlackHarness:
    return await slack_factory()
