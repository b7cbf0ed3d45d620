"""One learner's data in a space: their misses and forget-me (bot.mydata.store.MyDataStore)."""

from __future__ import annotations

import dataclasses

from bot.kernel.values import Answer, Round, RoundKind
from bot.mydata.export import Miss
from bot.mydata.forget import Forgotten
from bot.practice.memory import CardKey
from tests.support.memory.tables import MemoryTables, in_space


class MemoryMyData(MemoryTables):
    """A learner's misses, and forgetting every row of theirs in a space at once."""

    async def learner_misses(self, platform: str, space_id: str, user_id: str) -> list[Miss]:
        t = await self._db()
        attempts: dict[str, list[tuple[Answer, Round]]] = {}
        for r in t.rounds.values():
            answer = t.answers.get(r.id, {}).get(user_id)
            if answer is not None and r.revealed_at is not None and in_space(r, platform, space_id):
                attempts.setdefault(r.question_id, []).append((answer, r))
        out: list[Miss] = []
        for question_id, tries in attempts.items():
            misses = sum(1 for a, _ in tries if not a.correct)
            if not misses:
                continue
            last, r = max(tries, key=lambda item: (item[0].answered_at, item[1].id))
            out.append(
                Miss(
                    question_id, r.topic, r.id, r.kind, len(tries), misses, last.answered_at, last.choice, last.correct
                )
            )
        return sorted(out, key=lambda m: (-m.last_answered_at.timestamp(), m.question_id))

    async def forget_learner(self, platform: str, space_id: str, user_id: str) -> Forgotten:
        await self.settle_learner(platform, space_id, user_id)
        t = await self._db()  # no await from here on: one atomic change
        scores = 0
        for key, board in t.scores.items():
            if key[:2] != (platform, space_id) or user_id not in board:
                continue
            points = board.pop(user_id)[0]
            t.reached.get(key, {}).pop(user_id, None)
            buckets = t.buckets.setdefault(key, {})
            buckets[points] = buckets.get(points, 0) - 1
            if buckets[points] <= 0:
                del buckets[points]
            scores += 1
        here = [r for r in t.rounds.values() if in_space(r, platform, space_id)]
        answers = sum(1 for r in here if t.answers.get(r.id, {}).pop(user_id, None) is not None)
        for r in here:
            t.doubts.pop((r.id, user_id), None)
        practice = [r.id for r in here if r.kind is RoundKind.PRACTICE and r.user_id == user_id]
        for round_id in practice:
            t.rounds.pop(round_id)
            t.answers.pop(round_id, None)
            t.round_questions.pop(round_id, None)

        def mine(key: CardKey) -> bool:
            return (key.platform, key.space_id, key.user_id) == (platform, space_id, user_id)

        cards = [k for k in t.cards if mine(k)]
        for k in cards:
            del t.cards[k]
        reviews = [k for k in t.review_log if mine(k[0])]
        for k in reviews:
            del t.review_log[k]
        streak = t.streaks.pop((platform, space_id, user_id), None)
        places = 0
        for key, archive in list(t.seasons.items()):  # their places in archived seasons of the space
            if key[:2] == (platform, space_id):
                kept = tuple(r for r in archive.rows if r.user_id != user_id)
                places += len(archive.rows) - len(kept)
                t.seasons[key] = dataclasses.replace(archive, rows=kept)
        suggested = [
            sid
            for sid, s in t.suggestions.items()
            if (s.ref.platform, s.ref.space_id, s.author_id) == (platform, space_id, user_id)
        ]
        for sid in suggested:
            del t.suggestions[sid]
        reported = [
            rid for rid, x in t.reports.items() if (x.platform, x.space_id, x.reporter) == (platform, space_id, user_id)
        ]
        for rid in reported:
            del t.reports[rid]
        reminders = int(t.reminders.pop((platform, space_id, user_id), None) is not None)
        t.reminder_days = {d for d in t.reminder_days if d[:3] != (platform, space_id, user_id)}
        team = t.team_members.pop((platform, space_id, user_id), None)  # and a team they were the last of
        if team is not None and not any(
            k == team and (p, s) == (platform, space_id) for (p, s, _), k in t.team_members.items()
        ):
            t.teams.pop((platform, space_id, team), None)
        prefs = t.review_prefs.pop((platform, space_id, user_id), None)
        plan = t.plans.pop((platform, space_id, user_id), None)
        t.review_days = {rid: d for rid, d in t.review_days.items() if d[:3] != (platform, space_id, user_id)}
        return Forgotten(
            answers,
            len(practice),
            len(cards),
            len(reviews),
            scores,
            int(streak is not None),
            reminders,
            suggestions=len(suggested),
            reports=len(reported),
            teams=int(team is not None),
            seasons=places,
            review_settings=int(prefs is not None) + int(plan is not None),
        )
