"""Runs one parsed `/quiz ...` command (bot.text.commands) against the Features, for every text-driven
channel (Slack's slash command, the console). It returns cards and small reply values; the adapter lays them
out. What differs per platform (who is an admin, how people and channels are named) comes from the
adapter's TextSource.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass
from typing import Protocol, assert_never

from bot.daily.cards import StatsCard
from bot.features import Features
from bot.kernel.cards import AnswerOutcome, LeaderboardCard, QuestionCard, RevealCard
from bot.kernel.values import Actor, ChannelRef, Round
from bot.live.cards import LiveBoardCard
from bot.mydata.export import MissesExport
from bot.mydata.forget import ForgetDone, ForgetPrompt
from bot.packs.catalog import PackFile, PacksCard
from bot.packs.question_stats import QuestionStatsCard
from bot.practice.cards import ReviewEmpty
from bot.practice.progress_cards import ProgressCard
from bot.reminders.values import RemindCard
from bot.reports.service import ReportsCard
from bot.settings import ConfigCard, ConfigChange
from bot.suggestions.service import HOW_TO, SuggestionsCard, decided_text, suggested_text
from bot.teams.cards import TeamBoardCard
from bot.text.command_values import (
    AnswerDaily,
    Command,
    Configure,
    DecideSuggestion,
    Export,
    ExportPack,
    ForgetMe,
    ImportPack,
    LiveStart,
    LiveStop,
    PlanCommand,
    Practice,
    Remind,
    ReportQuestion,
    ResolveReport,
    Review,
    ReviewSetting,
    ShowDashboard,
    ShowHelp,
    ShowLeaderboard,
    ShowLiveBoard,
    ShowPacks,
    ShowPast,
    ShowProgress,
    ShowQuestionStats,
    ShowReports,
    ShowStats,
    ShowSuggestions,
    ShowTeamBoard,
    ShowTopics,
    Suggest,
    TeamCommand,
)


class TextSource(Protocol):
    """Who typed a command and where, in the platform's own terms (supplied by the adapter)."""

    @property
    def ref(self) -> ChannelRef: ...

    @property
    def user_id(self) -> str: ...

    def person(self, raw: str | None) -> str:
        """The user a command names (`/quiz stats @ann`; None: the one who typed it). Raises BadSetting."""
        ...

    def channel(self, raw: str) -> ChannelRef:
        """The channel a command names (`channel #c`). Raises BadSetting."""
        ...

    async def actor(self, target: ChannelRef) -> Actor:
        """The one who typed it, with admin rights as the platform grants them, about to change `target`."""
        ...

    async def space_actor(self) -> Actor:
        """The one who typed it, with their rights over the whole space (its packs), from any channel."""
        ...


@dataclass(frozen=True)
class HelpReply:
    reason: str | None = None  # set when the input was not understood
    suggestion: str | None = None  # a close command: reply "did you mean ...?" instead of the whole help

    @property
    def did_you_mean(self) -> str | None:
        return f"{self.reason}. Did you mean `{self.suggestion}`?" if self.suggestion else None


@dataclass(frozen=True)
class SettingsReply:
    card: ConfigCard
    changed: bool = False  # the schedule was changed or resumed: the bot should be able to post there


@dataclass(frozen=True)
class PostedReply:
    round: Round
    ref: ChannelRef


@dataclass(frozen=True)
class RevealedReply:
    card: RevealCard


@dataclass(frozen=True)
class TopicsReply:
    lines: tuple[str, ...]


@dataclass(frozen=True)
class ImportAsked:
    """An admin asked to import a pack: the adapter gets the file (the console reads `path`, Slack asks for
    it in a form) and hands it to Features.import_pack with this actor."""

    actor: Actor
    pack: str | None
    replace: bool
    path: str | None


class SuggestFormReply:
    """`/quiz suggest` alone: a platform with forms opens one; the others show `text` (how to suggest)."""

    text: str = HOW_TO


@dataclass(frozen=True)
class NoteReply:
    """A short private note (a suggestion saved, approved or rejected)."""

    text: str


Result = (
    QuestionCard
    | AnswerOutcome
    | LeaderboardCard
    | StatsCard
    | HelpReply
    | SettingsReply
    | PostedReply
    | RevealedReply
    | ReviewEmpty
    | TopicsReply
    | PacksCard
    | QuestionStatsCard
    | SuggestFormReply
    | NoteReply
    | SuggestionsCard
    | RemindCard
    | MissesExport
    | ForgetPrompt
    | ForgetDone
    | ImportAsked
    | PackFile
    | ReportsCard
    | TeamBoardCard
    | LiveBoardCard
    | ProgressCard
)


async def run_command(service: Features, source: TextSource, command: Command) -> Result:
    """One service call per command; core errors (QuizError) are left for the adapter to reply with."""
    ref, user = source.ref, source.user_id
    match command:
        case Practice(topic=topic, difficulty=difficulty):
            return await service.practice.start_practice(ref, user, topic, difficulty)
        case AnswerDaily(choice=choice, sure=sure):
            return await service.answers.answer_in_channel(ref, user, choice, sure=sure)
        case ShowLeaderboard(season=str() as season, public=public):
            return await service.seasons.board(
                ref.platform, ref.space_id, season, None if public else user, public=public
            )
        case ShowLiveBoard(public=public):
            card = await service.live.board(ref.platform, ref.space_id, None if public else user)
            return dataclasses.replace(card, public=True) if public else card
        case LiveStart(questions=questions, topic=topic, seconds=seconds):
            return NoteReply(await service.live.start(ref, user, questions, topic, seconds))
        case LiveStop():
            return NoteReply(await service.live.stop(await source.actor(ref), ref))
        case ShowLeaderboard(period=period, public=True):
            return await service.boards.leaderboard(ref.platform, ref.space_id, period, None, public=True)
        case Review(count=count):
            return await service.practice.start_review(ref, user, count)
        case ReviewSetting(action="limit", value=value):
            return NoteReply((await service.practice.review_limit(ref, user, value)).text)
        case ReviewSetting(action="pause", value=value):
            return NoteReply((await service.practice.pause_reviews(ref, user, value)).text)
        case ReviewSetting():
            return NoteReply((await service.practice.resume_reviews(ref, user)).text)
        case PlanCommand(off=True):
            return NoteReply((await service.practice.plans.off(ref, user)).text)
        case PlanCommand(day=dt.date() as day, topics=topics):
            return NoteReply((await service.practice.plans.set(ref, user, day, topics)).text)
        case PlanCommand():
            return NoteReply((await service.practice.plans.show(ref, user)).text)
        case Remind(on=on, at=at, timezone=zone):
            if on is None:
                return await service.reminders.show(ref, user)
            return await service.reminders.set(ref, user, on, at, zone)
        case ShowTopics():
            return TopicsReply(await service.practice.topics_in(ref))
        case ShowLeaderboard(period=period):
            return await service.boards.leaderboard(ref.platform, ref.space_id, period, user)
        case ShowTeamBoard(period=period, public=public):
            asker = None if public else user
            return await service.teams.board(ref.platform, ref.space_id, period, asker, public=public)
        case TeamCommand():
            return NoteReply(await _team(service, source, command))
        case ShowStats(user=who):
            return await service.boards.stats(ref.platform, ref.space_id, source.person(who))
        case ShowProgress():
            return await service.progress.report(ref, user)
        case ShowHelp(reason=reason, suggestion=suggestion):
            return HelpReply(reason, suggestion)
        case Configure():
            return await _configure(service, source, command)
        case ShowPacks():
            return await service.channels.packs_card(ref)
        case ShowPast(count=count):
            dashboard = service.context.commands_of(ref.platform).dashboard
            return NoteReply(await service.past.recent_text(ref, user, count, dashboard))
        case ShowDashboard():
            return NoteReply(await service.access.dashboard_text(ref.platform))
        case Export():
            return await service.mydata.export_misses(ref.platform, ref.space_id, user)
        case ForgetMe(confirm=False):
            return service.mydata.forget_me_prompt()
        case ForgetMe():
            return await service.mydata.forget_me(ref.platform, ref.space_id, user)
        case ShowQuestionStats(pack=pack):
            return await service.packs.question_stats(await source.space_actor(), ref.platform, ref.space_id, pack)
        case ImportPack(pack=pack, replace=replace, path=path):
            actor = await source.space_actor()
            service.packs.check_import(actor, pack)
            return ImportAsked(actor, pack, replace, path)
        case ExportPack(pack=pack, format=fmt):
            return await service.packs.export_pack(
                await source.space_actor(), ref, pack, "csv" if fmt == "csv" else "yaml"
            )
        case Suggest(form=form):
            if form is None:
                return SuggestFormReply()
            return NoteReply(suggested_text(await service.suggestions.suggest(ref, user, form)))
        case ShowSuggestions():
            return await service.suggestions.pending(await source.actor(ref), ref.platform, ref.space_id)
        case DecideSuggestion(suggestion_id=sid, approve=True):
            actor = await source.actor(ref)
            return NoteReply(decided_text(await service.suggestions.approve(actor, ref.platform, ref.space_id, sid)))
        case DecideSuggestion(suggestion_id=sid, reason=reason):
            actor = await source.actor(ref)
            done = await service.suggestions.reject(actor, ref.platform, ref.space_id, sid, reason)
            return NoteReply(decided_text(done))
        case ReportQuestion(reason=reason, text=text):
            return NoteReply(await service.reports.report_latest(ref, user, reason, text))
        case ShowReports():
            return await service.reports.queue(await source.space_actor(), ref.platform, ref.space_id)
        case ResolveReport(report_id=report_id, action=action):
            actor = await source.space_actor()
            return NoteReply(await service.reports.resolve(actor, ref.platform, ref.space_id, report_id, action))
        case _:
            assert_never(command)


async def _team(service: Features, source: TextSource, command: TeamCommand) -> str:
    """`/quiz team ...`: members manage their own membership; renames and removals take the space's admins."""
    ref, user, teams = source.ref, source.user_id, service.teams
    match command.action:
        case "create":
            return await teams.create(ref, user, command.name)
        case "join":
            return await teams.join(ref, user, command.name)
        case "leave":
            return await teams.leave(ref, user)
        case "list":
            return await teams.list_teams(ref, user)
        case "rename":
            return await teams.rename(await source.space_actor(), ref, command.name, command.new_name)
        case "remove":
            return await teams.remove(await source.space_actor(), ref, command.name)
        case _:
            assert_never(command.action)


async def _configure(service: Features, source: TextSource, command: Configure) -> Result:
    """`/quiz config ...`: the adapter says who is an admin; the core decides what they may do."""
    target = source.ref if command.channel is None else source.channel(command.channel)
    action = command.action
    if action == "show":
        return SettingsReply(await service.channels.show_config(target))
    actor = await source.actor(target)
    match action:
        case "pause" | "resume":
            card = await service.channels.configure(actor, target, ConfigChange.of(paused=action == "pause"))
            return SettingsReply(card, changed=action == "resume")
        case "set":
            return SettingsReply(await service.channels.configure(actor, target, command.change), changed=True)
        case "post-now":
            return PostedReply(await service.posting.post_now(actor, target), target)
        case "reveal":
            return RevealedReply(await service.reveals.reveal_now(actor, target))
        case _:
            assert_never(action)
