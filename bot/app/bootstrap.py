"""The composition root's wiring: a context, then each feature over it with what it names, then the bundle.

Dependencies are handed in by name (cosmicpython's bootstrap); nothing reaches back into a god service.
"""

from __future__ import annotations

import random

from bot.daily.answer_batcher import AnswerBatcher
from bot.daily.answers import AnswerDesk
from bot.daily.boards import Boards
from bot.daily.channels import ChannelSettings
from bot.daily.delivery import Delivery
from bot.daily.outcomes import SendOutcomes
from bot.daily.posting import Posting
from bot.daily.reveals import Reveals
from bot.features import Features
from bot.installs.service import Installs
from bot.kernel.clock import Clock
from bot.kernel.context import Context, QuestionBank
from bot.kernel.metrics import Metrics
from bot.kernel.platform import ChatPlatform, Platforms
from bot.kernel.rounds import RoundCache
from bot.kernel.values import RoundKind
from bot.mydata.service import MyData
from bot.packs.catalog import PackCatalog
from bot.packs.service import PackDesk
from bot.practice.progress_service import Progress
from bot.practice.service import Practice
from bot.recap.service import Recaps
from bot.reminders.service import Reminders
from bot.reports.service import ReportDesk
from bot.seasons.service import Seasons
from bot.store.ports import Store
from bot.suggestions.service import Suggestions


def bootstrap(
    store: Store,
    bank: QuestionBank,
    clock: Clock,
    platforms: dict[str, ChatPlatform] | None = None,
    rng: random.Random | None = None,
    metrics: Metrics | None = None,
    *,
    learning: bool = True,
) -> Features:
    """Every feature of one process over `store`, ready for the adapters (add platforms with
    `features.context.platforms.add`)."""
    ctx = Context(
        clock=clock,
        bank=bank,
        spaces=store,
        platforms=Platforms(platforms),
        metrics=metrics or Metrics(),
        rng=rng or random.Random(),
        learning=learning,
    )
    rounds = RoundCache()
    catalog = PackCatalog(store, lambda: ctx.bank)
    reports = ReportDesk(ctx, store)
    seasons = Seasons(ctx, store)
    recaps = Recaps(ctx, store, seasons)
    channels = ChannelSettings(ctx, store, catalog, seasons)
    outcomes = SendOutcomes(store)
    reveals = Reveals(ctx, store, catalog, rounds, outcomes)
    posting = Posting(ctx, store, catalog, reports, channels, reveals, seasons, rounds, outcomes)
    answers = AnswerDesk(ctx, store, catalog, rounds, AnswerBatcher(store, clock.now))
    boards = Boards(ctx, store)
    practice = Practice(ctx, store, catalog, reports, boards, channels, answers, rounds)
    answers.register(RoundKind.PRACTICE, practice)
    boards.memory = practice
    return Features(
        context=ctx,
        channels=channels,
        posting=posting,
        reveals=reveals,
        delivery=Delivery(ctx, store, channels, posting, reveals, outcomes),
        answers=answers,
        boards=boards,
        practice=practice,
        catalog=catalog,
        packs=PackDesk(ctx, catalog, reports),
        reports=reports,
        suggestions=Suggestions(ctx, store),
        reminders=Reminders(ctx, store),
        seasons=seasons,
        recaps=recaps,
        mydata=MyData(ctx, store, catalog, rounds),
        installs=Installs(ctx, store),
        outcomes=outcomes,
        progress=Progress(ctx, store, practice),
    )
