"""The composition root's wiring: a context, then each feature over it with what it names, then the bundle.

Dependencies are handed in by name (cosmicpython's bootstrap); nothing reaches back into a god service.
"""

from __future__ import annotations

import datetime as dt
import random
import secrets

from bot.access.service import Access
from bot.daily.answer_batcher import AnswerBatcher
from bot.daily.answers import AnswerDesk
from bot.daily.boards import Boards
from bot.daily.channels import ChannelSettings
from bot.daily.delivery import ANSWERING_BATCHES, Batching, Delivery
from bot.daily.outcomes import SendOutcomes
from bot.daily.past import PastQuestions
from bot.daily.posting import Posting
from bot.daily.reveals import Reveals
from bot.features import Features
from bot.installs.service import Installs
from bot.kernel.clock import Clock
from bot.kernel.context import DEFAULT_SEND_LEASE, Context, QuestionBank
from bot.kernel.metrics import Metrics
from bot.kernel.outage import StoreOutage
from bot.kernel.platform import ChatPlatform, Platforms
from bot.kernel.rounds import ROUND_CACHE_SIZE, RoundCache
from bot.kernel.values import RoundKind
from bot.live.service import LiveGames
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
from bot.teams.service import Teams

OUTAGE_PROBE = "outage-probe"  # the scope of the small writes that tell a store that was down is back
PROBE_KEEP = dt.timedelta(seconds=1)


def bootstrap(
    store: Store,
    bank: QuestionBank,
    clock: Clock,
    platforms: dict[str, ChatPlatform] | None = None,
    rng: random.Random | None = None,
    metrics: Metrics | None = None,
    *,
    learning: bool = True,
    send_lease: dt.timedelta = DEFAULT_SEND_LEASE,
    batching: Batching = ANSWERING_BATCHES,
    round_cache: int = ROUND_CACHE_SIZE,
) -> Features:
    """Every feature of one process over `store`, ready for the adapters (add platforms with
    `features.context.platforms.add`). `send_lease`: how long a claimed post or reveal is this process's
    (STUDYBOT_SEND_LEASE_SECONDS) before another process may take it up; `batching`: how the tick cuts its
    reveals and posts (bot.app.roles.batching_of); `round_cache`: how many open rounds the process keeps in
    memory for its answers (bot.app.roles.round_cache_of: none in a process that answers no one)."""
    ctx = Context(
        clock=clock,
        bank=bank,
        spaces=store,
        platforms=Platforms(platforms),
        metrics=metrics or Metrics(),
        rng=rng or random.Random(),
        learning=learning,
        send_lease=send_lease,
        outage=StoreOutage(
            probe=lambda: store.remember_once(OUTAGE_PROBE, secrets.token_hex(8), clock.now(), PROBE_KEEP)
        ),
    )
    rounds = RoundCache(round_cache)
    catalog = PackCatalog(store, lambda: ctx.bank)
    reports = ReportDesk(ctx, store, catalog)
    seasons = Seasons(ctx, store)
    recaps = Recaps(ctx, store, seasons)
    channels = ChannelSettings(ctx, store, catalog, seasons)
    outcomes = SendOutcomes(store, ctx.outage)
    reveals = Reveals(ctx, store, catalog, rounds, outcomes)
    posting = Posting(ctx, store, catalog, reports, channels, reveals, seasons, rounds, outcomes)
    answers = AnswerDesk(ctx, store, catalog, rounds, AnswerBatcher(store, clock.now, outage=ctx.outage))
    boards = Boards(ctx, store)
    practice = Practice(ctx, store, catalog, reports, boards, channels, answers, rounds)
    answers.register(RoundKind.PRACTICE, practice)
    boards.memory = practice
    teams = Teams(ctx, store)
    seasons.teams = teams
    live = LiveGames(ctx, store, catalog, practice, rounds)
    answers.register(RoundKind.LIVE, live)
    live.teams = teams  # a live game's final table adds team totals (teams' best-three rule)
    progress = Progress(ctx, store, practice)
    progress.plan = practice.plans  # the learning report shows a running interview-date plan
    access = Access(ctx, store)
    return Features(
        context=ctx,
        channels=channels,
        posting=posting,
        reveals=reveals,
        delivery=Delivery(ctx, store, channels, posting, reveals, outcomes, batching),
        answers=answers,
        boards=boards,
        practice=practice,
        catalog=catalog,
        packs=PackDesk(ctx, catalog, reports, store),
        reports=reports,
        suggestions=Suggestions(ctx, store),
        reminders=Reminders(ctx, store, practice, lambda platform, space: access.page_url(platform, space, "review")),
        seasons=seasons,
        recaps=recaps,
        mydata=MyData(ctx, store, catalog, rounds),
        past=PastQuestions(store, catalog),
        installs=Installs(ctx, store),
        outcomes=outcomes,
        access=access,
        teams=teams,
        live=live,
        progress=progress,
    )
