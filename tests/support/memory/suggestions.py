"""Members' suggestions and their review (bot.suggestions.store.SuggestionStore)."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

from bot.kernel.values import ChannelRef
from bot.store.rows import approved_question, pack_full
from bot.suggestions.values import Suggestion, SuggestionStatus
from tests.support.memory.tables import MemoryTables, Tables, utc


class MemorySuggestions(MemoryTables):
    """Suggestions with a per-author daily quota; an approval writes into the space's packs."""

    async def add_suggestion(
        self, ref: ChannelRef, author_id: str, body: str, now: dt.datetime, day: dt.date, limit: int
    ) -> Suggestion | None:
        t = await self._db()
        key = (ref.platform, ref.space_id, author_id, day)
        for old in [k for k in t.quota if k[3] < day - dt.timedelta(days=1)]:
            del t.quota[old]
        if t.quota.get(key, 0) >= limit:
            return None
        t.quota[key] = t.quota.get(key, 0) + 1
        sid = max(t.suggestions, default=0) + 1
        t.suggestions[sid] = Suggestion(sid, ref, author_id, body, SuggestionStatus.PENDING, utc(now))
        return t.suggestions[sid]

    async def get_suggestion(self, platform: str, space_id: str, suggestion_id: int) -> Suggestion | None:
        found = (await self._db()).suggestions.get(suggestion_id)
        return found if found is not None and (found.ref.platform, found.ref.space_id) == (platform, space_id) else None

    async def list_suggestions(self, platform: str, space_id: str, status: str, limit: int) -> list[Suggestion]:
        t = await self._db()
        return [
            s
            for s in t.suggestions.values()
            if (s.ref.platform, s.ref.space_id) == (platform, space_id) and s.status == status
        ][:limit]

    @staticmethod
    def _pending(t: Tables, platform: str, space_id: str, suggestion_id: int) -> Suggestion | None:
        found = t.suggestions.get(suggestion_id)
        if found is None or (found.ref.platform, found.ref.space_id) != (platform, space_id):
            return None
        return found if found.status is SuggestionStatus.PENDING else None

    async def approve_suggestion(
        self,
        platform: str,
        space_id: str,
        suggestion_id: int,
        pack: str,
        decided_by: str,
        now: dt.datetime,
        *,
        max_packs: int,
        max_questions: int,
    ) -> Suggestion | None:
        t = await self._db()  # no await below: one decision at a time, as a transaction
        found = self._pending(t, platform, space_id, suggestion_id)
        if found is None:
            return None
        key = (platform, space_id, pack)
        present = t.packs.get(key)
        packs = sum(1 for p, s, _ in t.packs if (p, s) == (platform, space_id))
        pack_full(pack, packs, None if present is None else len(present[1]), max_packs, max_questions)
        version, rows = present or (0, [])
        qid, body = approved_question(suggestion_id, found.body, {q for q, _ in rows})
        t.packs[key] = (version + 1, [*rows, (qid, body)])
        done = replace(
            found, status=SuggestionStatus.APPROVED, decided_by=decided_by, decided_at=utc(now), question_id=qid
        )
        t.suggestions[suggestion_id] = done
        return done

    async def reject_suggestion(
        self, platform: str, space_id: str, suggestion_id: int, reason: str, decided_by: str, now: dt.datetime
    ) -> Suggestion | None:
        t = await self._db()
        found = self._pending(t, platform, space_id, suggestion_id)
        if found is None:
            return None
        done = replace(
            found, status=SuggestionStatus.REJECTED, reason=reason, decided_by=decided_by, decided_at=utc(now)
        )
        t.suggestions[suggestion_id] = done
        return done
