"""The Store contract: every store implementation runs it unchanged, feature by feature.

Each feature's part of the contract is its own suite in tests/integration/<feature>_contract.py (as the
Store is the composition of the features' Protocols): the daily game's channels, rounds, boards and
delivery are composed here into `StoreContract`; the others (practice, packs, reports, suggestions,
reminders, seasons, recap, learner data, installations, seen-once) are mixed into the store test classes
next to it. A subclass provides a `store` fixture that yields an opened, empty store (and a `reopen`
fixture that opens a second store on the same database, to prove state survives a restart).
"""

from __future__ import annotations

import pytest

from bot.kernel.values import ChannelConfig
from tests.integration.board_contract import BoardContract
from tests.integration.channel_contract import ChannelContract
from tests.integration.contract_values import DAY, REF, T0, ans
from tests.integration.delivery_contract import DeliveryContract
from tests.integration.round_contract import RoundContract


class StoreContract(ChannelContract, RoundContract, BoardContract, DeliveryContract):
    @pytest.fixture
    async def store(self):  # pragma: no cover - replaced by each implementation's test module
        raise NotImplementedError

    # ---- schema ----------------------------------------------------------------------------------

    async def test_migrations_are_recorded_and_idempotent(self, store):
        version = await store.schema_version()
        assert version >= 1
        assert await store.migrate() == []
        assert await store.schema_version() == version


class RestartContract:
    """State survives closing the store and opening a new one on the same database."""

    @pytest.fixture
    async def reopen(self):  # pragma: no cover
        raise NotImplementedError

    async def test_everything_survives_a_restart(self, reopen):
        first = await reopen()
        r = await first.claim_daily_round(REF, DAY, "q1", "tensors", T0, None)
        await first.add_answers([ans(r.id, "ada")], T0)
        await first.save_channel(ChannelConfig(ref=REF, timezone="Asia/Tokyo"))
        await first.close()
        second = await reopen()
        assert (await second.get_round(r.id)).question_id == "q1"
        assert (await second.get_answer(r.id, "ada")).choice == 0
        assert (await second.get_channel(REF)).timezone == "Asia/Tokyo"
        assert await second.claim_daily_round(REF, DAY, "q9", "tensors", T0, None) is None
        await second.close()
