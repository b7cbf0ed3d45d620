"""The bundle of feature services a process runs: what adapters, the `/quiz` text runner, the scheduler and
the dashboard are handed by the composition root (bot/app/bootstrap.py), each calling the feature it means."""

from __future__ import annotations

from dataclasses import dataclass

from bot.access.service import Access
from bot.daily.answers import AnswerDesk
from bot.daily.boards import Boards
from bot.daily.channels import ChannelSettings
from bot.daily.delivery import Delivery
from bot.daily.outcomes import SendOutcomes
from bot.daily.past import PastQuestions
from bot.daily.posting import Posting
from bot.daily.reveals import Reveals
from bot.installs.service import Installs
from bot.kernel.context import Context
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
from bot.suggestions.service import Suggestions
from bot.teams.service import Teams


@dataclass(frozen=True, eq=False)
class Features:
    """Every feature service of one process, over one context."""

    context: Context
    channels: ChannelSettings  # a channel's settings (/quiz config)
    posting: Posting  # daily posts, post-now
    reveals: Reveals  # reveals, reveal-now
    delivery: Delivery  # the tick's durable daily work
    answers: AnswerDesk  # every answer (button, reaction, typed)
    boards: Boards  # leaderboards and stats
    practice: Practice  # practice, reviews and the learners' memory
    catalog: PackCatalog  # a space's packs as questions
    packs: PackDesk  # pack imports, exports and question statistics
    reports: ReportDesk
    suggestions: Suggestions
    reminders: Reminders
    seasons: Seasons
    recaps: Recaps
    mydata: MyData
    installs: Installs
    outcomes: SendOutcomes
    access: Access  # who may open the dashboard (one-time links, sign-in attempts, the spaces served)
    teams: Teams  # teams and the team board
    live: LiveGames  # live games in a channel (their steps run on the tick)
    progress: Progress  # a learner's learning report (/quiz progress)
    past: PastQuestions  # the revealed daily questions, to look up again (/quiz past)

    async def close(self) -> None:
        """Write what is queued (answers, practice reveals, send outcomes), then stop the workers."""
        await self.answers.close()
        await self.practice.close()
        await self.outcomes.close()
        await self.context.outage.close()
