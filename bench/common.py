"""Shared set-up for the benchmarks: a temporary SQLite store, a synthetic bank and a service."""

from __future__ import annotations

import contextlib
import datetime as dt
import random
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from bot.app.bootstrap import bootstrap
from bot.bank.load import Bank
from bot.features import Features
from bot.kernel.values import Actor, ChannelRef, Difficulty, Question
from bot.store.ports import Store
from bot.store.sqlite import SqliteStore

REF = ChannelRef("bench", "space", "chan")
Service = tuple[Features, Store]
Factory = Callable[[], contextlib.AbstractAsyncContextManager[Service]]
T0 = dt.datetime(2026, 11, 30, 9, tzinfo=dt.UTC)


class StepClock:
    def __init__(self) -> None:
        self.current = T0

    def now(self) -> dt.datetime:
        return self.current


def synthetic_bank(n: int = 40) -> Bank:
    return Bank(
        tuple(
            Question(
                f"q{i}",
                "tensors",
                Difficulty.EASY,
                f"Question {i}?",
                ("a", "b", "c", "d"),
                i % 4,
                "An explanation long enough.",
                "https://docs.pytorch.org/docs/stable/",
                "original",
            )
            for i in range(n)
        )
    )


class NullPlatform:
    """Accepts posts and drops them (the benchmarks measure the core and the store)."""

    name = REF.platform

    async def post_question(self, ref, card) -> str:  # type: ignore[no-untyped-def]
        return f"m{card.round_id}"

    async def post_reveal(self, ref, card) -> None:  # type: ignore[no-untyped-def]
        return None

    async def send_private(self, ref, user_id, text) -> None:  # type: ignore[no-untyped-def]
        return None


async def sqlite_service(folder: str | None = None) -> tuple[Features, SqliteStore, Path]:
    """A service on a SQLite file in `folder`, or else in a new temporary folder: whoever calls this without a
    folder removes `path.parent` afterwards (sqlite_factory does)."""
    path = Path(folder or tempfile.mkdtemp(prefix="studybot-bench-")) / "bench.db"
    store = SqliteStore(path)
    try:
        await store.open()
        service = bootstrap(store, synthetic_bank(), StepClock(), {REF.platform: NullPlatform()}, rng=random.Random(0))
        await service.channels.configure(Actor("admin", True), REF)
    except BaseException:
        await store.close()
        if folder is None:
            shutil.rmtree(path.parent, ignore_errors=True)
        raise
    return service, store, path


def sqlite_factory() -> Factory:
    """A fresh service on a temporary SQLite file per measurement, closed and removed afterwards."""

    @contextlib.asynccontextmanager
    async def make() -> AsyncIterator[Service]:
        service, store, path = await sqlite_service()
        try:
            yield service, store
        finally:
            try:
                await service.close()
                await store.close()
            finally:
                shutil.rmtree(path.parent, ignore_errors=True)

    return make
