"""The values the Store contract's feature suites share (tests/integration/*_contract.py)."""

from __future__ import annotations

import datetime as dt

from bot.kernel.values import ChannelRef, NewAnswer

T0 = dt.datetime(2026, 11, 30, 9, 0, tzinfo=dt.UTC)
DAY = dt.date(2026, 11, 30)
REF = ChannelRef("test", "space", "chan")
REF2 = ChannelRef("test", "space", "chan-2")


def ans(round_id: int, user: str, choice: int = 0, correct: bool = True, at: dt.datetime = T0) -> NewAnswer:
    return NewAnswer(round_id, user, choice, correct, at)
