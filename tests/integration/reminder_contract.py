"""The reminders' part of the Store contract: every store runs it (SQLite, PostgreSQL, the fake)."""

from __future__ import annotations

import asyncio
import datetime as dt

from bot.kernel.values import SpaceFilter
from bot.reminders.values import Reminder

T0 = dt.datetime(2026, 12, 1, 8, 0, tzinfo=dt.UTC)
DAY = dt.date(2026, 12, 1)


def rem(user: str = "u1", *, space: str = "space", platform: str = "test", at: dt.datetime | None = T0) -> Reminder:
    return Reminder(platform, space, user, "chan", dt.time(9, 0), "Europe/Berlin", True, at)


class ReminderContract:
    async def test_a_reminder_round_trips_and_is_replaced(self, store):
        assert await store.get_reminder("test", "space", "u1") is None
        await store.save_reminder(rem())
        assert await store.get_reminder("test", "space", "u1") == rem()
        changed = Reminder("test", "space", "u1", "chan-2", dt.time(7, 5), "America/New_York", True, T0 + DAY_D)
        await store.save_reminder(changed)
        assert await store.get_reminder("test", "space", "u1") == changed
        assert await store.get_reminder("test", "other", "u1") is None

    async def test_due_reminders_are_the_enabled_ones_due_by_now_earliest_first(self, store):
        await store.save_reminder(rem("late", at=T0 + dt.timedelta(minutes=5)))
        await store.save_reminder(rem("early", at=T0 - dt.timedelta(hours=1)))
        await store.save_reminder(rem("future", at=T0 + dt.timedelta(hours=1)))
        await store.save_reminder(rem("off", at=None))
        due = await store.due_reminders(T0 + dt.timedelta(minutes=5), 10)
        assert [r.user_id for r in due] == ["early", "late"]
        assert [r.user_id for r in await store.due_reminders(T0 + dt.timedelta(minutes=5), 1)] == ["early"]

    async def test_due_reminders_follow_the_space_filter(self, store):
        await store.save_reminder(rem("a", platform="slack"))
        await store.save_reminder(rem("b", platform="discord", space=str(1 << 22)))  # shard 1 of 2
        await store.save_reminder(rem("c", platform="discord", space="0"))  # shard 0
        only_slack = await store.due_reminders(T0, 10, SpaceFilter(platforms=("slack",)))
        assert [r.user_id for r in only_slack] == ["a"]
        shard1 = SpaceFilter(platforms=("discord",), shard_count=2, shard_ids=(1,))
        assert [r.user_id for r in await store.due_reminders(T0, 10, shard1)] == ["b"]

    async def test_advance_moves_the_due_instant_unless_it_changed_meanwhile(self, store):
        await store.save_reminder(rem())
        tomorrow = T0 + DAY_D
        await store.advance_reminder("test", "space", "u1", T0, tomorrow)
        assert (await store.get_reminder("test", "space", "u1")).next_at == tomorrow
        await store.advance_reminder("test", "space", "u1", T0, tomorrow + DAY_D)  # stale: no change
        assert (await store.get_reminder("test", "space", "u1")).next_at == tomorrow
        assert await store.due_reminders(T0, 10) == []

    async def test_a_day_is_claimed_once(self, store):
        assert await store.claim_reminder_day("test", "space", "u1", DAY, T0)
        assert not await store.claim_reminder_day("test", "space", "u1", DAY, T0)
        assert await store.claim_reminder_day("test", "space", "u1", DAY + DAY_D, T0)
        assert await store.claim_reminder_day("test", "space", "u2", DAY, T0)
        assert await store.claim_reminder_day("test", "other", "u1", DAY, T0)

    async def test_concurrent_claims_of_one_day_have_one_winner(self, store):
        won = await asyncio.gather(*(store.claim_reminder_day("test", "space", "u1", DAY, T0) for _ in range(8)))
        assert sorted(won) == [False] * 7 + [True]

    async def test_disable_switches_off_once_and_leaves_nothing_due(self, store):
        await store.save_reminder(rem())
        assert await store.disable_reminder("test", "space", "u1")
        assert not await store.disable_reminder("test", "space", "u1")
        assert not await store.disable_reminder("test", "space", "nobody")
        stored = await store.get_reminder("test", "space", "u1")
        assert stored is not None and not stored.enabled and stored.next_at is None
        assert await store.due_reminders(T0 + DAY_D, 10) == []

    async def test_forget_me_deletes_the_learners_reminder_and_its_days_in_that_space_only(self, store):
        await store.save_reminder(rem())
        await store.save_reminder(rem(space="other"))
        assert await store.claim_reminder_day("test", "space", "u1", DAY, T0)
        gone = await store.forget_learner("test", "space", "u1")
        assert gone.reminders == 1
        assert await store.get_reminder("test", "space", "u1") is None
        assert await store.get_reminder("test", "other", "u1") == rem(space="other")
        assert await store.claim_reminder_day("test", "space", "u1", DAY, T0)  # the day's mark went too
        assert (await store.forget_learner("test", "space", "u1")).reminders == 0


DAY_D = dt.timedelta(days=1)


class ReminderRestartContract:
    async def test_reminders_and_claimed_days_survive_a_restart(self, reopen):
        first = await reopen()
        await first.save_reminder(rem())
        assert await first.claim_reminder_day("test", "space", "u1", DAY, T0)
        await first.close()
        second = await reopen()
        assert await second.get_reminder("test", "space", "u1") == rem()
        assert not await second.claim_reminder_day("test", "space", "u1", DAY, T0)
        await second.close()
