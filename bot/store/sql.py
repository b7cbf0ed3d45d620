"""Every feature's SQL mixin in one class: what both engines inherit (each adds its engine below it)."""

from __future__ import annotations

from bot.store.access_sql import AccessSql
from bot.store.aim_sql import AimSql
from bot.store.boards_sql import BoardSql
from bot.store.channels_sql import ChannelSql
from bot.store.delivery_sql import DeliverySql
from bot.store.installs_sql import InstallSql
from bot.store.learner_sql import LearnerSql
from bot.store.live_sql import LiveSql
from bot.store.packs_sql import PackSql
from bot.store.progress_sql import ProgressSql
from bot.store.recap_sql import RecapSql
from bot.store.reminders_sql import ReminderSql
from bot.store.reports_sql import ReportSql
from bot.store.reviews_sql import ReviewSql
from bot.store.rounds_sql import RoundSql
from bot.store.seasons_sql import SeasonSql
from bot.store.settle import SettlingStore
from bot.store.suggestions_sql import SuggestionSql
from bot.store.teams_sql import TeamSql
from bot.store.uptime_sql import UptimeSql


class FeatureSql(
    SettlingStore,
    ChannelSql,
    DeliverySql,
    RoundSql,
    BoardSql,
    LearnerSql,
    PackSql,
    RecapSql,
    SeasonSql,
    ReminderSql,
    ReportSql,
    InstallSql,
    SuggestionSql,
    UptimeSql,
    AccessSql,
    TeamSql,
    LiveSql,
    ReviewSql,
    AimSql,
    ProgressSql,  # last: its review_events stub gives way to LearnerSql's
):
    """The Store's methods written once (feature by feature) and the reveal written once (SettlingStore)."""
