"""A learner's own data: their misses as files they can keep, and forget-me."""

from __future__ import annotations

import logging
from typing import Protocol

from bot.kernel.context import Context
from bot.kernel.errors import NothingToExport
from bot.kernel.rounds import RoundCache
from bot.kernel.store import RoundReads
from bot.kernel.values import Question
from bot.mydata.export import NOTHING_TO_EXPORT, Miss, MissesExport, build_export
from bot.mydata.forget import FORGET_WHAT, ForgetDone, ForgetPrompt, forgotten_text
from bot.mydata.store import MyDataStore
from bot.packs.catalog import PackCatalog

log = logging.getLogger(__name__)


class MyDataServiceStore(MyDataStore, RoundReads, Protocol):
    """What export and forget-me read and write."""


class MyData:
    """Export of a learner's misses, and forget-me; only ever the asker's own (adapters pass their id)."""

    def __init__(self, ctx: Context, store: MyDataServiceStore, packs: PackCatalog, rounds: RoundCache) -> None:
        self.ctx = ctx
        self.store = store
        self.packs = packs
        self.rounds = rounds

    async def export_misses(self, platform: str, space_id: str, user_id: str) -> MissesExport:
        """The learner's own misses in the space (revealed rounds, daily or practice) as a CSV and an
        Anki-importable TSV; NothingToExport when there is none."""
        items: list[tuple[Miss, Question]] = []
        for miss in await self.store.learner_misses(platform, space_id, user_id):
            question = self.ctx.bank.get(miss.question_id)
            if question is None:  # a pack question: the text its round was asked with
                round_ = await self.store.get_round(miss.round_id)
                if round_ is not None:
                    await self.packs.prime(round_)
                    question = self.packs.posted(round_)
            if question is not None:
                items.append((miss, question))
        if not items:
            raise NothingToExport(NOTHING_TO_EXPORT)
        today, _tz = await self.ctx.space_today(platform, space_id)
        return build_export(items, today)

    def forget_me_prompt(self) -> ForgetPrompt:
        """forget-me before its confirmation: what would be deleted (nothing is changed)."""
        return ForgetPrompt(FORGET_WHAT)

    async def forget_me(self, platform: str, space_id: str, user_id: str) -> ForgetDone:
        """Confirmed forget-me: delete the learner's answers, practice rounds, memory cards, review log,
        streak and leaderboard rows in this space, in one transaction; leaderboards recount without them."""
        forgotten = await self.store.forget_learner(platform, space_id, user_id)
        self.rounds.forget_learner(platform, space_id, user_id)  # their cached practice rounds are gone too
        log.info(
            "forget-me in %s/%s: %d answers, %d cards deleted", platform, space_id, forgotten.answers, forgotten.cards
        )
        return ForgetDone(forgotten, forgotten_text(forgotten))
