"""Rounds, their answers and the questions each space has been asked (bot.daily.store.RoundStore,
with the kernel's RoundReads): the in-memory part of bot.store.rounds_sql. Answer batches are written by
bot.store.settle (MemoryTables)."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from bot.daily.values import PastRound
from bot.kernel.values import Answer, ChannelRef, Round, RoundKind
from tests.support.memory.tables import MemoryTables, Tables, in_space, utc

_CHANNEL_KINDS = (RoundKind.DAILY, RoundKind.LIVE)  # rounds asked in a channel, not privately


def _posted_as(t: Tables, platform: str, message_id: str) -> Round | None:
    """The latest round posted as this message."""
    return next(
        (r for r in reversed(t.rounds.values()) if r.ref.platform == platform and r.message_id == message_id), None
    )


def _same_channel(a: ChannelRef, b: ChannelRef) -> bool:
    """Channels are keyed by (platform, channel id), as in SQLite: the space id plays no part."""
    return (a.platform, a.channel_id) == (b.platform, b.channel_id)


def _asked(rounds: dict[int, Round], platform: str, space_id: str, kind: RoundKind, user_id: str | None) -> list[Round]:
    """The rounds of a kind in a space (and for a user, if given), oldest first."""
    return [
        r
        for r in rounds.values()
        if in_space(r, platform, space_id) and r.kind == kind and (user_id is None or r.user_id == user_id)
    ]


class MemoryRounds(MemoryTables):
    """Daily and practice rounds share one id sequence; a lost daily claim still uses up its id."""

    async def past_daily_rounds(
        self, platform: str, space_id: str, user_id: str, *, limit: int, offset: int = 0, channel_id: str | None = None
    ) -> list[PastRound]:
        t = await self._db()
        shown = [
            r
            for r in _asked(t.rounds, platform, space_id, RoundKind.DAILY, None)
            if r.revealed_at is not None and r.post_state == "sent" and channel_id in (None, r.ref.channel_id)
        ]
        shown.sort(key=lambda r: (r.local_date or dt.date.min, r.id), reverse=True)
        out = []
        for r in shown[offset : offset + limit]:
            answers = t.answers.get(r.id, {})
            mine = answers.get(user_id)
            chosen = Counter(a.choice for a in answers.values())
            out.append(PastRound(r, dict(chosen), None if mine is None else mine.choice))
        return out

    async def claim_daily_round(
        self,
        ref: ChannelRef,
        local_date: dt.date,
        question_id: str,
        topic: str,
        opened_at: dt.datetime,
        closes_at: dt.datetime | None,
        *,
        lease_until: dt.datetime | None = None,
    ) -> Round | None:
        t = await self._db()
        round_ = Round(
            id=t.last_id + 1,
            kind=RoundKind.DAILY,
            ref=ref,
            question_id=question_id,
            topic=topic,
            opened_at=utc(opened_at),
            local_date=local_date,
            closes_at=utc(closes_at) if closes_at else None,
            post_state="sending" if lease_until else "due",
        )
        t.last_id = round_.id  # like SQLite's AUTOINCREMENT, a lost claim uses up its id too
        slot = (ref.platform, ref.channel_id, local_date)
        if slot in t.daily_slots:
            return None
        t.daily_slots.add(slot)
        t.rounds[round_.id] = round_
        if lease_until:
            t.delivery[(round_.id, "post")] = ["sending", 1, utc(lease_until), 0]
        return round_

    async def get_round(self, round_id: int) -> Round | None:
        return (await self._db()).rounds.get(round_id)

    async def get_rounds(self, round_ids: Sequence[int]) -> list[Round | None]:
        t = await self._db()
        return [t.rounds.get(rid) for rid in round_ids]

    async def open_daily_rounds(self, ref: ChannelRef | None = None, *, unpromised: bool = False) -> list[Round]:
        t = await self._db()
        return [
            r
            for r in t.rounds.values()
            if r.kind is RoundKind.DAILY
            and r.revealed_at is None
            and (ref is None or _same_channel(r.ref, ref))
            and not (unpromised and r.closes_at is not None)
        ]

    async def latest_daily_round(self, ref: ChannelRef) -> Round | None:
        t = await self._db()
        mine = [r for r in t.rounds.values() if r.kind is RoundKind.DAILY and _same_channel(r.ref, ref)]
        return max(mine, key=lambda r: r.local_date or dt.date.min, default=None)

    async def set_message_id(self, round_id: int, message_id: str) -> None:
        t = await self._db()
        if round_id in t.rounds:
            t.rounds[round_id] = replace(t.rounds[round_id], message_id=message_id)

    async def round_by_message(self, platform: str, message_id: str) -> Round | None:
        return _posted_as(await self._db(), platform, message_id)

    async def reaction_rounds(self, messages: Sequence[tuple[str, str]]) -> list[tuple[Round, bool] | None]:
        t = await self._db()
        found: list[tuple[Round, bool] | None] = []
        for platform, message_id in messages:
            round_ = _posted_as(t, platform, message_id)
            cfg = t.channels.get((round_.ref.platform, round_.ref.channel_id)) if round_ else None
            found.append((round_, cfg is None or cfg.reactions) if round_ else None)
        return found

    async def question_counts(
        self, platform: str, space_id: str, kind: RoundKind, user_id: str | None = None
    ) -> dict[str, int]:
        t = await self._db()
        counts = Counter(r.question_id for r in _asked(t.rounds, platform, space_id, kind, user_id))
        return dict(sorted(counts.items()))

    async def last_question_id(
        self, platform: str, space_id: str, kind: RoundKind, user_id: str | None = None
    ) -> str | None:
        t = await self._db()
        asked = _asked(t.rounds, platform, space_id, kind, user_id)
        return asked[-1].question_id if asked else None

    async def question_history(
        self, platform: str, space_id: str, kind: RoundKind, user_id: str | None = None
    ) -> tuple[dict[str, int], str | None]:
        counts = await self.question_counts(platform, space_id, kind, user_id)
        return counts, await self.last_question_id(platform, space_id, kind, user_id)

    async def open_channel_question_ids(self, platform: str, space_id: str) -> set[str]:
        t = await self._db()
        return {
            r.question_id
            for r in t.rounds.values()
            if r.kind in _CHANNEL_KINDS and r.revealed_at is None and in_space(r, platform, space_id)
        }

    async def latest_practice_round(self, platform: str, space_id: str, user_id: str) -> Round | None:
        t = await self._db()
        mine = _asked(t.rounds, platform, space_id, RoundKind.PRACTICE, user_id)
        return mine[-1] if mine else None

    async def get_answer(self, round_id: int, user_id: str) -> Answer | None:
        return (await self._db()).answers.get(round_id, {}).get(user_id)

    async def round_answers(self, round_id: int) -> list[Answer]:
        t = await self._db()
        return sorted(t.answers.get(round_id, {}).values(), key=lambda a: (a.answered_at, a.user_id))

    async def set_reveal_at(self, round_id: int, at: dt.datetime) -> None:
        t = await self._db()
        r = t.rounds.get(round_id)
        if r is not None and r.closes_at is None and r.revealed_at is None:
            t.rounds[round_id] = replace(r, closes_at=utc(at))

    async def mark_unsure(self, round_id: int, user_id: str) -> None:
        t = await self._db()
        if round_id not in t.rounds:  # SQLite's foreign key
            raise ValueError(f"no round {round_id}")
        t.doubts[(round_id, user_id)] = True
