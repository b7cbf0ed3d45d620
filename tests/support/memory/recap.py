"""Each channel's weekly recap: when it is due, its marks, the week's figures
(bot.recap.store.RecapStore)."""

from __future__ import annotations

import datetime as dt

from bot.kernel.values import Answer, ChannelConfig, ChannelRef, DueChannel, Round, RoundKind, SpaceFilter
from bot.recap.values import RecapRound, RecapScorer
from tests.support.memory.tables import MemoryTables, Tables, add_once, in_space, utc


class MemoryRecap(MemoryTables):
    """The recap's due instants and leases per channel, as the daily posts have theirs."""

    async def set_next_recap(self, ref: ChannelRef, at: dt.datetime | None) -> None:
        t = await self._db()
        key = (ref.platform, ref.channel_id)
        if key not in t.channels:
            return
        t.recap_claimed.pop(key, None)
        if at is None:
            t.next_recap.pop(key, None)
        else:
            t.next_recap[key] = utc(at)

    async def get_next_recap(self, ref: ChannelRef) -> dt.datetime | None:
        return (await self._db()).next_recap.get((ref.platform, ref.channel_id))

    async def unscheduled_recaps(self, spaces: SpaceFilter | None = None) -> list[ChannelConfig]:
        t = await self._db()
        return [
            t.channels[k]
            for k in sorted(t.channels)
            if not t.channels[k].paused
            and t.channels[k].recap_day is not None
            and k not in t.next_recap
            and (spaces is None or spaces(t.channels[k].ref))
        ]

    async def claim_due_recaps(
        self, now: dt.datetime, lease_until: dt.datetime, limit: int, spaces: SpaceFilter | None = None
    ) -> list[DueChannel]:
        t = await self._db()
        due = sorted(
            (at, key[0], t.channels[key].ref.space_id, key[1], key)
            for key, at in t.next_recap.items()
            if at <= now
            and not t.channels[key].paused
            and (key not in t.recap_claimed or t.recap_claimed[key] <= now)
            and (spaces is None or spaces(t.channels[key].ref))
        )[: max(limit, 0)]
        for *_, key in due:
            t.recap_claimed[key] = utc(lease_until)
        return [DueChannel(t.channels[key].ref, at) for at, *_, key in due]

    async def finish_due_recap(self, ref: ChannelRef, due_at: dt.datetime, next_at: dt.datetime | None) -> None:
        t = await self._db()
        key = (ref.platform, ref.channel_id)
        t.recap_claimed.pop(key, None)
        if t.next_recap.get(key) == due_at:
            if next_at is None:
                t.next_recap.pop(key)
            else:
                t.next_recap[key] = utc(next_at)

    async def mark_recap(self, ref: ChannelRef, week_end: dt.date, now: dt.datetime) -> bool:
        t = await self._db()
        utc(now)
        return add_once(t.recaps, (ref.platform, ref.channel_id, week_end))

    async def unmark_recap(self, ref: ChannelRef, week_end: dt.date) -> None:
        (await self._db()).recaps.discard((ref.platform, ref.channel_id, week_end))

    def _recap_rounds(
        self, t: Tables, platform: str, space_id: str, start: dt.date, end: dt.date, channel_id: str | None
    ) -> list[Round]:
        return [
            r
            for r in t.rounds.values()
            if in_space(r, platform, space_id)
            and r.kind is RoundKind.DAILY
            and r.revealed_at is not None
            and r.local_date is not None
            and start <= r.local_date <= end
            and (channel_id is None or r.ref.channel_id == channel_id)
        ]

    async def recap_rounds(
        self, platform: str, space_id: str, start: dt.date, end: dt.date, channel_id: str | None = None
    ) -> list[RecapRound]:
        t = await self._db()
        out = []
        for r in self._recap_rounds(t, platform, space_id, start, end, channel_id):
            answers = t.answers.get(r.id, {}).values()
            assert r.local_date is not None
            out.append(
                RecapRound(r.id, r.local_date, r.question_id, r.topic, len(answers), sum(a.correct for a in answers))
            )
        return sorted(out, key=lambda x: (x.local_date, x.round_id))

    async def recap_scorers(
        self, platform: str, space_id: str, start: dt.date, end: dt.date, limit: int, channel_id: str | None = None
    ) -> list[RecapScorer]:
        t = await self._db()
        mine: dict[str, list[Answer]] = {}
        for r in self._recap_rounds(t, platform, space_id, start, end, channel_id):
            for a in t.answers.get(r.id, {}).values():
                mine.setdefault(a.user_id, []).append(a)
        rows = []
        for uid, answers in mine.items():
            scoring = [a.answered_at for a in answers if (a.points or 0) > 0]
            reached = max(scoring) if scoring else min(a.answered_at for a in answers)
            rows.append(
                RecapScorer(
                    uid, sum(a.points or 0 for a in answers), sum(a.correct for a in answers), len(answers), reached
                )
            )
        rows.sort(key=lambda x: (-x.points, x.reached_at, x.user_id))
        return rows[: max(limit, 0)]
