"""The learning report's reads (bot.practice.progress.ProgressStore, and the recap's recalled misses): the same
rows bot/store/progress_sql.py reads, counted by the same rules (bot.practice.progress)."""

from __future__ import annotations

import datetime as dt

from bot.practice.memory import ReviewEvent
from bot.practice.progress import MissFact, ProgressCounts, count_misses, count_progress
from bot.recap.values import RecalledMisses
from tests.support.memory.tables import MemoryTables, Tables, in_space


def miss_facts(t: Tables, platform: str, space_id: str, user_id: str | None) -> list[MissFact]:
    """Each member's first miss of each daily question (revealed), with each later answer to it (or None)."""
    answered = [
        (user, round_.question_id, answer.answered_at, answer.correct, round_.kind.value)
        for rid, by_user in t.answers.items()
        if (round_ := t.rounds.get(rid)) is not None
        and in_space(round_, platform, space_id)
        and round_.revealed_at is not None
        for user, answer in by_user.items()
        if user_id is None or user == user_id
    ]
    first: dict[tuple[str, str], dt.datetime] = {}
    for user, question, at, correct, kind in answered:
        if kind == "daily" and not correct and ((user, question) not in first or at < first[(user, question)]):
            first[(user, question)] = at
    facts = []
    for (user, question), missed_at in sorted(first.items()):
        later = sorted((at, c) for u, q, at, c, _ in answered if (u, q) == (user, question) and at > missed_at)
        facts.extend(MissFact(user, question, missed_at, at, c) for at, c in later)
        if not later:
            facts.append(MissFact(user, question, missed_at))
    return facts


class MemoryProgress(MemoryTables):
    """Counts from the review log and the answers, as the SQL stores count them."""

    async def review_events(self, platform: str, space_id: str, user_id: str) -> list[ReviewEvent]:
        raise NotImplementedError  # tests/support/memory/practice.py

    async def learner_progress(
        self, platform: str, space_id: str, user_id: str, tz: str, now: dt.datetime
    ) -> ProgressCounts:
        events = await self.review_events(platform, space_id, user_id)
        t = await self._db()
        return count_progress(events, miss_facts(t, platform, space_id, user_id), tz, now)

    async def space_miss_recall(self, platform: str, space_id: str, tz: str, through: dt.date) -> RecalledMisses:
        counted = count_misses(miss_facts(await self._db(), platform, space_id, None), tz, through)
        return RecalledMisses(counted.missed, counted.came_back, counted.right)
