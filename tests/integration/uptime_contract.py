"""When the bot was running (bot.daily.uptime): each process's running spans, shared through the store.

Mixed into the store test classes (SQLite, PostgreSQL, the in-memory fake), which give the `store` fixture.
"""

from __future__ import annotations

import asyncio
import datetime as dt

from tests.integration.contract_values import T0

MIN = dt.timedelta(minutes=1)


class UptimeContract:
    """Running spans: from a run's first beat to its latest, per platform; any run covering an instant counts."""

    async def test_a_span_covers_the_instants_from_its_first_beat_to_its_latest(self, store):
        assert await store.running_at("slack", T0) is False
        await store.note_running("run-a", "slack", T0, T0)
        await store.note_running("run-a", "slack", T0, T0 + 180 * MIN)  # the clock stepped 3 h on: one span
        assert await store.running_at("slack", T0) is True
        assert await store.running_at("slack", T0 + 90 * MIN) is True
        assert await store.running_at("slack", T0 + 180 * MIN) is True
        assert await store.running_at("slack", T0 - dt.timedelta(microseconds=1)) is False
        assert await store.running_at("slack", T0 + 181 * MIN) is False
        assert await store.running_at("discord", T0 + 90 * MIN) is False  # another platform's process was not

    async def test_a_span_only_grows_and_keeps_where_it_began(self, store):
        await store.note_running("run-a", "slack", T0, T0 + 10 * MIN)
        await store.note_running("run-a", "slack", T0, T0 + 5 * MIN)  # an earlier beat (the clock stepped back)
        assert await store.running_at("slack", T0 + 10 * MIN) is True
        await store.note_running("run-a", "slack", T0 + 20 * MIN, T0 + 20 * MIN)  # the since of the first beat stays
        assert await store.running_at("slack", T0 + MIN) is True

    async def test_downtime_between_two_runs_is_covered_by_neither_unless_another_process_ran(self, store):
        await store.note_running("run-a", "discord", T0, T0 + 10 * MIN)
        await store.note_running("run-b", "discord", T0 + 60 * MIN, T0 + 70 * MIN)  # a restart after 50 min
        assert await store.running_at("discord", T0 + 30 * MIN) is False
        await store.note_running("run-c", "discord", T0 + 20 * MIN, T0 + 40 * MIN)  # another process, meanwhile
        assert await store.running_at("discord", T0 + 30 * MIN) is True

    async def test_a_new_span_forgets_spans_not_seen_since_the_cutoff(self, store):
        await store.note_running("old", "slack", T0, T0 + MIN)
        await store.note_running("kept", "slack", T0 + 2 * MIN, T0 + 3 * MIN)
        await store.note_running("new", "slack", T0 + 30 * MIN, T0 + 30 * MIN, forget_before=T0 + 2 * MIN)
        assert await store.running_at("slack", T0 + MIN) is False
        assert await store.running_at("slack", T0 + 2 * MIN) is True
        assert await store.running_at("slack", T0 + 30 * MIN) is True

    async def test_processes_beating_at_once_each_keep_their_span(self, store):
        await asyncio.gather(
            *(store.note_running(f"run-{i}", "slack", T0 + i * MIN, T0 + (i + 1) * MIN) for i in range(0, 20, 2))
        )
        covered = [await store.running_at("slack", T0 + i * MIN + dt.timedelta(seconds=30)) for i in range(20)]
        assert covered == [i % 2 == 0 for i in range(20)]
