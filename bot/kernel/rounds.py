"""Rounds this process has just posted or served, kept in memory so an answer needs no trip to the store.

Shared by the features that open, answer and close rounds (one instance per process, handed in by the
composition root). It is only a cache: the store decides; a round missing here is read from it.
"""

from __future__ import annotations

from collections.abc import Iterator

from bot.kernel.values import Round

# the open rounds of a busy community: 10,000 channels' daily rounds and their practice (about 0.8 KB a round,
# some 13 MB when full); when more rounds than this are being answered, an answer to one missing here costs a
# read of the store
ROUND_CACHE_SIZE = 16_384


class RoundCache:
    """A bounded map of round id -> round (the oldest entry goes first); of size 0 it keeps nothing (a process
    that answers no one: bot.app.roles.round_cache_of)."""

    def __init__(self, size: int = ROUND_CACHE_SIZE) -> None:
        self._size = size
        self._rounds: dict[int, Round] = {}

    def get(self, round_id: int) -> Round | None:
        return self._rounds.get(round_id)

    def keep(self, round_: Round) -> None:
        if self._size <= 0:
            return
        if len(self._rounds) >= self._size and round_.id not in self._rounds:
            self._rounds.pop(next(iter(self._rounds)))
        self._rounds[round_.id] = round_

    def drop(self, round_id: int) -> None:
        self._rounds.pop(round_id, None)

    def __iter__(self) -> Iterator[Round]:
        return iter(list(self._rounds.values()))

    def forget_learner(self, platform: str, space_id: str, user_id: str) -> None:
        """A learner's practice rounds (forget-me)."""
        for round_ in self:
            if round_.user_id == user_id and (round_.ref.platform, round_.ref.space_id) == (platform, space_id):
                self.drop(round_.id)
