"""Monthly seasons on PostgreSQL with two processes: two services, each with its own store (pool) and platform,
on one database tick at the same instant on the 1st; the season card is posted once per channel, the archive
is stored once, and the champion role moves once."""

from __future__ import annotations

import asyncio
import datetime as dt

from bot.kernel.values import ChannelRef
from bot.store.postgres import PostgresStore
from tests.integration.test_postgres_store import throwaway_database
from tests.support.fakes import FixedClock
from tests.support.seasons import Env, RoleFake

A = ChannelRef("fake", "space-1", "chan-a")
B = ChannelRef("fake", "space-1", "chan-b")
ROLE = "998877665544332211"


async def test_two_services_on_postgres_post_each_channels_season_card_once():
    async with throwaway_database() as url:
        stores = [PostgresStore(url), PostgresStore(url)]
        for store in stores:
            await store.open()
        clock = FixedClock(dt.datetime(2026, 11, 29, 0, 0, tzinfo=dt.UTC))
        one, two = (Env(store, RoleFake(), clock) for store in stores)
        try:
            # A's weekly recap falls on Tue 1 Dec too: its post and its recap may each bring the card
            a = await one.configure(A, timezone="UTC", champion_role=ROLE, recap_day=1)
            await two.configure(B, timezone="UTC", post_time=dt.time(9, 0))
            await one.play(a, dt.date(2026, 11, 30), [("bob", True), ("ann", True)])
            clock.set(dt.datetime(2026, 11, 30, 9, 1, tzinfo=dt.UTC))
            # B posted Nov 30 too (either process may have claimed it); answer it through the other service
            round_b = await stores[1].latest_daily_round(B)
            assert round_b is not None and round_b.local_date == dt.date(2026, 11, 30)
            await two.service.answers.submit_answer(
                round_b.id, "cy", two.service.context.bank.get(round_b.question_id).answer
            )

            clock.set(dt.datetime(2026, 12, 1, 9, 0, tzinfo=dt.UTC))
            await asyncio.gather(*(env.scheduler.tick() for env in (one, two, one, two)))

            assert A in [r for env in (one, two) for r in env.platform.recaps]  # A was recapped on Dec 1
            cards = [(ref, card) for env in (one, two) for ref, card in env.platform.seasons]
            assert sorted(ref.channel_id for ref, _ in cards) == ["chan-a", "chan-b"]  # once per channel
            for _, card in cards:
                assert card.season == "2026-11"
                assert [(r.user_id, r.points) for r in card.rows] == [("bob", 10), ("ann", 10), ("cy", 10)]
            moves = [m for env in (one, two) for m in env.platform.moves]
            assert moves == [(ROLE, "bob", None)]  # only channel A has the role on
            archive = await stores[1].season_archive("fake", "space-1", "2026-11")
            assert archive is not None and archive.champion == "bob"
            await asyncio.gather(*(env.scheduler.tick() for env in (one, two)))  # a later tick: nothing more
            assert sum(len(env.platform.seasons) for env in (one, two)) == 2
        finally:
            for env in (one, two):
                await env.service.close()
            for store in stores:
                await store.close()
