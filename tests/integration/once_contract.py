"""De-duplication of deliveries, decided in the store (the kernel's OnceStore).

Mixed into the store test classes (SQLite, PostgreSQL, the in-memory fake), which give the `store` fixture.
"""

from __future__ import annotations

import asyncio
import datetime as dt

from tests.integration.contract_values import T0


class SeenOnceContract:
    """De-duplication of deliveries (Slack event ids, request signatures), shared through the store."""

    async def test_a_key_is_new_once_per_scope_until_it_expires(self, store):
        keep = dt.timedelta(minutes=5)
        assert await store.remember_once("slack-event", "Ev1", T0, keep) is True
        assert await store.remember_once("slack-event", "Ev1", T0 + dt.timedelta(minutes=4), keep) is False
        assert await store.remember_once("slack-signature", "Ev1", T0, keep) is True  # scopes are apart
        assert await store.remember_once("slack-event", "Ev2", T0, keep) is True
        assert await store.remember_once("slack-event", "Ev1", T0 + dt.timedelta(minutes=5), keep) is True

    async def test_concurrent_deliveries_of_one_key_have_one_winner(self, store):
        keep = dt.timedelta(hours=1)
        results = await asyncio.gather(*(store.remember_once("slack-event", "Ev9", T0, keep) for _ in range(20)))
        assert results.count(True) == 1
