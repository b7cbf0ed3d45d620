"""Two processes on one PostgreSQL database running the same due reminders: one direct message per learner.
(The reminders' Store contract, tests/integration/reminder_contract.py, runs with each store's contract.)"""

from __future__ import annotations

import asyncio
import datetime as dt

from bot.app.bootstrap import bootstrap
from bot.kernel.values import Actor, ChannelRef
from bot.settings import ConfigChange
from bot.store.postgres import PostgresStore
from tests.integration.test_postgres_store import throwaway_database
from tests.support.direct import DirectFakePlatform
from tests.support.fakes import FixedClock, make_bank, store_of

REF = ChannelRef("fake", "space-1", "chan-1")


async def test_two_processes_on_one_postgres_send_one_reminder():
    start = dt.datetime(2026, 12, 1, 6, 0, tzinfo=dt.UTC)
    async with throwaway_database() as url:
        stores = [PostgresStore(url), PostgresStore(url)]
        for s in stores:
            await s.open()
        clocks = [FixedClock(start), FixedClock(start)]
        platforms = [DirectFakePlatform(), DirectFakePlatform()]
        services = [
            bootstrap(s, make_bank(), c, {"fake": p}) for s, c, p in zip(stores, clocks, platforms, strict=True)
        ]
        try:
            first = services[0]
            await first.channels.configure(Actor("admin", True), REF, ConfigChange.of(timezone="Europe/Berlin"))
            users = [f"u{i}" for i in range(20)]
            for user in users:  # a practice miss each: a review due tomorrow
                card = await first.practice.start_practice(REF, user)
                round_ = await store_of(first).get_round(card.round_id)
                question = first.context.bank.get(round_.question_id)
                await first.answers.submit_answer(card.round_id, user, (question.answer + 1) % 4)
                await services[1].reminders.set(REF, user, True, dt.time(8, 30))
            for clock in clocks:
                clock.set(dt.datetime(2026, 12, 2, 7, 31, tzinfo=dt.UTC))
            for _ in range(3):
                await asyncio.gather(*(s.reminders.run_due() for s in services))
            sent = [user for p in platforms for _ref, user, _text in p.direct]
            assert sorted(sent) == sorted(users)  # each learner once, by whichever process won the day
        finally:
            for service in services:
                await service.close()
            for s in stores:
                await s.close()
