"""Slash commands for everyone (/quiz, /review, /plan, /remind, /answer, /leaderboard, /stats, /progress,
/packs, /export, /forget-me), the command list with /quizconfig, and the tree's error reply. Each command parses
its options into core values, calls the service and renders the card; every reply is ephemeral (see
replies.respond)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import discord
from discord import app_commands

from adapters.discord.answers import outcome_reply
from adapters.discord.limits import NO_PINGS, fit_choices, fit_content
from adapters.discord.live import board_embed, live_command
from adapters.discord.markdown import escape
from adapters.discord.mydata import send_export, send_forget_prompt
from adapters.discord.payloads import is_personal_space, unreadable
from adapters.discord.progress import send_progress
from adapters.discord.quizadmin import QuizAdmin
from adapters.discord.quizconfig import QuizConfig
from adapters.discord.render import leaderboard_embed, packs_embed, question_embed, stats_embed
from adapters.discord.replies import GUILD_ONLY, SORRY, Reply, bot_of, learner_ref, quiz_bot, ref_of, respond
from adapters.discord.suggestions import SuggestModal
from adapters.discord.teams import team_board_embed, team_command
from adapters.discord.views import question_view
from bot.daily.past import CHAT_DEFAULT as PAST_DEFAULT
from bot.daily.past import CHAT_MAX as PAST_MAX
from bot.kernel.echo import echo
from bot.kernel.errors import BadSetting
from bot.kernel.outage import STORE_DOWN
from bot.kernel.parsing import parse_choice, parse_period, parse_timezone, suggest_timezones
from bot.kernel.topics import TOPICS
from bot.kernel.values import LETTERS, Difficulty
from bot.practice.cards import ReviewEmpty
from bot.practice.plans import parse_plan_date, parse_plan_topics
from bot.practice.reviews import REVIEW_DEFAULT, REVIEW_MAX
from bot.practice.values import PAUSE_MAX_DAYS, REVIEW_LIMIT_DEFAULT, REVIEW_LIMIT_MAX
from bot.reminders.service import parse_remind_time

log = logging.getLogger(__name__)

Choice = app_commands.Choice
LETTER_CHOICES = [Choice(name=letter, value=letter) for letter in LETTERS]
DIFFICULTY_CHOICES = [Choice(name=d.value, value=d.value) for d in Difficulty]
SEASON_OPTION_MAX = 20  # YYYY-MM is 7; a little room for spaces, and the reply echoes it clipped
REMIND_CHOICES = [Choice(name="on", value="on"), Choice(name="off", value="off")]
BOARD_CHOICES = [
    Choice(name="members", value="members"),
    Choice(name="teams (each team's best three members)", value="teams"),
    Choice(name="live games", value="live"),
]
PERIOD_CHOICES = [
    Choice(name="this week", value="week"),
    Choice(name="this month", value="month"),
    Choice(name="all time", value="all"),
]


def parse_difficulty(raw: str | None) -> Difficulty | None:
    """A difficulty option (Discord offers the three; a stale client may send anything)."""
    if raw is None:
        return None
    try:
        return Difficulty(raw.strip().lower())
    except ValueError:
        raise BadSetting(f"'{echo(raw)}' is not a difficulty: use easy, medium or hard.") from None


def parse_remind_state(raw: str) -> bool:
    """The on/off option of /remind (Discord offers the two; a stale client may send anything)."""
    word = raw.strip().lower()
    if word not in {"on", "off"}:
        raise BadSetting(f"'{echo(raw)}' is not on or off: use /remind on [time] or /remind off. Nothing was changed.")
    return word == "on"


CommandT = TypeVar("CommandT")


def personal(command: CommandT) -> CommandT:
    """A command for private practice anywhere: in servers, in DMs with the bot and in group DMs, for a server
    install and for a member who installs the app for themselves (integration_types 0 and 1, contexts 0, 1, 2).
    Every other command is server-only (QuizTree's defaults); docs/discord.md has the list."""
    command = app_commands.allowed_installs(guilds=True, users=True)(command)
    return app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)(command)


OWN_STATS_ONLY = "Outside a server, /stats shows only your own practice."


async def _run(interaction: discord.Interaction, work: Callable[[], Awaitable[Reply]]) -> None:
    await respond(interaction, work(), defer_after=bot_of(interaction).defer_after)


# ---- everyone ---------------------------------------------------------------------------------------


def member_commands() -> list[app_commands.Command]:
    """Fresh command objects per client (a restart in the same process builds a new tree)."""

    @app_commands.command(name="quiz", description="A private practice question (never counts toward the leaderboard)")
    @app_commands.describe(topic="A topic to practise; leave empty for a mix", difficulty="easy, medium or hard")
    @app_commands.choices(difficulty=DIFFICULTY_CHOICES)
    @personal
    async def quiz(
        interaction: discord.Interaction,
        topic: app_commands.Range[str, 1, 40] | None = None,
        difficulty: str | None = None,
    ) -> None:
        async def work() -> Reply:
            ref = learner_ref(interaction)
            level = parse_difficulty(difficulty)
            chosen = topic.strip().lower() if topic else None
            card = await bot_of(interaction).service.practice.start_practice(
                ref, str(interaction.user.id), chosen, level
            )
            return Reply(embeds=(question_embed(card),), view=question_view(card.round_id, unsure=True))

        await _run(interaction, work)

    @quiz.autocomplete("topic")
    async def quiz_topics(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
        """The topics of the channel's packs (the shipped bank's and a server's own), matching what is typed."""
        typed = current.strip().lower()[:40]
        topics = await bot_of(interaction).service.practice.practice_topics(learner_ref(interaction))
        return [
            Choice(name=TOPICS.get(t, t)[:100], value=t)
            for t in topics
            if typed in t or typed in TOPICS.get(t, t).lower()
        ][:25]

    @app_commands.command(name="review", description="Your due reviews: the questions you are about to forget")
    @app_commands.describe(
        count=f"How many questions (1-{REVIEW_MAX}, default {REVIEW_DEFAULT})",
        limit=f"Instead: at most this many reviews a day (1-{REVIEW_LIMIT_MAX}, default {REVIEW_LIMIT_DEFAULT})",
        pause=f"Instead: a vacation hold of this many days (1-{PAUSE_MAX_DAYS}): no reviews, no reminders",
        resume="Instead: end a vacation hold now",
    )
    @personal
    async def review(
        interaction: discord.Interaction,
        count: int = REVIEW_DEFAULT,
        limit: int | None = None,
        pause: int | None = None,
        resume: bool = False,
    ) -> None:
        async def work() -> Reply:
            ref, user = learner_ref(interaction), str(interaction.user.id)
            practice = bot_of(interaction).service.practice
            settings = [
                name for name, given in (("limit", limit), ("pause", pause), ("resume", resume or None)) if given
            ]
            if len(settings) > 1:
                raise BadSetting("Give one of limit, pause or resume at a time. Nothing was changed.")
            if limit is not None:
                return Reply((await practice.review_limit(ref, user, limit)).text)
            if pause is not None:
                return Reply((await practice.pause_reviews(ref, user, pause)).text)
            if resume:
                return Reply((await practice.resume_reviews(ref, user)).text)
            result = await practice.start_review(ref, user, count)
            if isinstance(result, ReviewEmpty):
                return Reply(result.text)
            return Reply(embeds=(question_embed(result),), view=question_view(result.round_id, unsure=True))

        await _run(interaction, work)

    @app_commands.command(name="plan", description="An interview-date plan: every question twice before the date")
    @app_commands.describe(
        date="The interview's date as YYYY-MM-DD, or off to end the plan (leave empty to see it)",
        topics="Topics, comma-separated (default: every topic here)",
    )
    @personal
    async def plan(
        interaction: discord.Interaction,
        date: app_commands.Range[str, 1, 20] | None = None,
        topics: app_commands.Range[str, 1, 200] | None = None,
    ) -> None:
        async def work() -> Reply:
            ref, user = learner_ref(interaction), str(interaction.user.id)
            plans = bot_of(interaction).service.practice.plans
            if date is None:
                if topics is not None:
                    raise BadSetting(
                        "Give the interview's date too: /plan date:YYYY-MM-DD topics:... Nothing was changed."
                    )
                return Reply(escape((await plans.show(ref, user)).text))
            if date.strip().lower() == "off":
                return Reply((await plans.off(ref, user)).text)
            day = parse_plan_date(date)
            card = await plans.set(ref, user, day, parse_plan_topics([topics]) if topics else ())
            return Reply(escape(card.text))

        await _run(interaction, work)

    @app_commands.command(name="remind", description="A private nudge once a day: reviews due, today's question")
    @app_commands.describe(
        state="on: a direct message at most once a day; off: no more reminders; left out: how they are set",
        time="When, as 24-hour HH:MM (default: as before, else 09:00)",
        timezone="The IANA timezone the time is read in (default: as before, else the server's quiz timezone)",
    )
    @app_commands.choices(state=REMIND_CHOICES)
    @personal
    async def remind(
        interaction: discord.Interaction,
        state: str | None = None,
        time: app_commands.Range[str, 1, 20] | None = None,
        timezone: app_commands.Range[str, 1, 60] | None = None,
    ) -> None:
        async def work() -> Reply:
            ref = learner_ref(interaction)  # a server's, or outside one the learner's own space (its reviews)
            reminders, user = bot_of(interaction).service.reminders, str(interaction.user.id)
            if state is None and time is None and timezone is None:
                return Reply((await reminders.show(ref, user)).text)
            on = parse_remind_state(state or "on")
            at = parse_remind_time(time) if on and time else None
            zone = parse_timezone(timezone) if on and timezone else None
            return Reply((await reminders.set(ref, user, on, at, zone)).text)

        await _run(interaction, work)

    @remind.autocomplete("timezone")
    async def remind_zones(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
        return fit_choices(suggest_timezones(current[:60]))

    @app_commands.command(name="answer", description="Answer today's question in this channel")
    @app_commands.describe(
        choice="Your choice: A, B, C or D", not_sure="Mark the answer 'not sure' (it changes no score)"
    )
    @app_commands.choices(choice=LETTER_CHOICES)
    @personal
    async def answer(interaction: discord.Interaction, choice: str, not_sure: bool = False) -> None:
        async def work() -> Reply:
            index = parse_choice(choice)
            ref, user, service = learner_ref(interaction), str(interaction.user.id), bot_of(interaction).service
            if is_personal_space(ref.space_id):  # no daily questions here: your practice question
                outcome = await service.practice.answer_open_practice(ref, user, index, sure=not not_sure)
            else:
                outcome = await service.answers.answer_in_channel(ref, user, index, sure=not not_sure)
            return outcome_reply(outcome)

        await _run(interaction, work)

    @app_commands.command(name="leaderboard", description="Top 10 of this server and your own rank")
    @app_commands.describe(
        period="week (default), month or all time",
        public="post it in this channel for everyone (default: only you see it)",
        season="a month's archived season as YYYY-MM, e.g. 2026-11 (instead of a period)",
        board="members (default), teams (each team's best three members) or live games (points, games won)",
    )
    @app_commands.choices(period=PERIOD_CHOICES, board=BOARD_CHOICES)
    @app_commands.guild_only()
    async def leaderboard(
        interaction: discord.Interaction,
        period: str | None = None,
        public: bool = False,
        season: app_commands.Range[str, 1, SEASON_OPTION_MAX] | None = None,
        board: str | None = None,
    ) -> None:
        async def work() -> Reply:
            ref = ref_of(interaction)
            asker = None if public else str(interaction.user.id)
            service = bot_of(interaction).service
            if board == "live":
                live = await service.live.board(ref.platform, ref.space_id, asker)
                return Reply(embeds=(board_embed(live),), public=public)
            if board not in (None, "members", "daily", "teams"):
                raise BadSetting(f"'{echo(board, 20)}' is not a board: use members, teams or live.")
            if board == "teams":
                if season is not None:
                    raise BadSetting("Seasons are the members' board: leave season out for board:teams.")
                teams = await service.teams.board(
                    ref.platform, ref.space_id, parse_period(period), asker, public=public
                )
                return Reply(embeds=(team_board_embed(teams),), public=public)
            if season is not None:
                card = await service.seasons.board(ref.platform, ref.space_id, season, asker, public=public)
            else:
                card = await service.boards.leaderboard(
                    ref.platform, ref.space_id, parse_period(period), asker, public=public
                )
            return Reply(embeds=(leaderboard_embed(card, asker),), public=public)

        await respond(interaction, work(), defer_after=bot_of(interaction).defer_after, ephemeral=not public)

    @app_commands.command(name="stats", description="Answered, accuracy by topic and streaks")
    @app_commands.describe(member="Whose stats (default: yours)")
    @personal
    async def stats(interaction: discord.Interaction, member: discord.User | None = None) -> None:
        async def work() -> Reply:
            ref = learner_ref(interaction)
            who = str((member or interaction.user).id)
            if is_personal_space(ref.space_id) and who != str(interaction.user.id):
                return Reply(OWN_STATS_ONLY)  # a learner's own space holds nobody else's answers
            card = await bot_of(interaction).service.boards.stats(ref.platform, ref.space_id, who)
            return Reply(embeds=(stats_embed(card),))

        await _run(interaction, work)

    @app_commands.command(name="past", description="The last revealed daily questions here, with their answers")
    @app_commands.describe(questions=f"How many (1-{PAST_MAX}, default {PAST_DEFAULT})")
    @app_commands.guild_only()
    async def past(
        interaction: discord.Interaction, questions: app_commands.Range[int, 1, PAST_MAX] | None = None
    ) -> None:
        async def work() -> Reply:
            ref = ref_of(interaction)
            bot = bot_of(interaction)
            dashboard = bot.service.context.commands_of("discord").dashboard
            text = await bot.service.past.recent_text(ref, str(interaction.user.id), questions, dashboard)
            return Reply(escape(text))

        await _run(interaction, work)

    @app_commands.command(
        name="progress", description="Your learning report: what you remember, by the numbers (only you)"
    )
    @personal
    async def progress(interaction: discord.Interaction) -> None:
        await send_progress(interaction)

    @app_commands.command(name="packs", description="The question packs of this server, with question counts")
    @app_commands.guild_only()
    async def packs(interaction: discord.Interaction) -> None:
        async def work() -> Reply:
            card = await bot_of(interaction).service.channels.packs_card(ref_of(interaction))
            return Reply(embeds=(packs_embed(card),))

        await _run(interaction, work)

    @app_commands.command(
        name="dashboard", description="Where the web dashboard is: your progress and settings, the boards (only you)"
    )
    @personal
    async def dashboard(interaction: discord.Interaction) -> None:
        async def work() -> Reply:  # our own words and the host's address: nothing to escape
            return Reply(await bot_of(interaction).service.access.dashboard_text("discord"))

        await _run(interaction, work)

    @app_commands.command(name="suggest", description="Suggest a question for this server (an admin reviews it)")
    @app_commands.guild_only()
    async def suggest(interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(SuggestModal())

    @app_commands.command(name="export", description="Your missed questions as a CSV and an Anki deck (only you)")
    @app_commands.guild_only()
    async def export(interaction: discord.Interaction) -> None:
        await send_export(interaction)

    @app_commands.command(name="forget-me", description="Delete everything studybot keeps about you here (asks first)")
    @app_commands.guild_only()
    async def forget_me(interaction: discord.Interaction) -> None:
        await send_forget_prompt(interaction)

    return [
        *(quiz, review, plan, remind, answer, leaderboard, stats, progress, packs, export, forget_me, suggest),
        dashboard,
        past,
    ]


def build_commands() -> list[app_commands.Command | app_commands.Group]:
    return [*member_commands(), team_command(), live_command(), QuizConfig(), QuizAdmin()]


UNREADABLE = "I could not read that command's options; please pick them again."


class QuizTree(app_commands.CommandTree):
    """A tree whose errors (stale commands, values Discord let through, anything unforeseen) get a private reply.

    Its defaults make every command server-only (integration_types [0], contexts [0]); `personal` widens one."""

    def __init__(self, client: discord.Client, **options: Any) -> None:
        options.setdefault("allowed_installs", app_commands.AppInstallationType(guild=True, user=False))
        options.setdefault(
            "allowed_contexts", app_commands.AppCommandContext(guild=True, dm_channel=False, private_channel=False)
        )
        super().__init__(client, **options)

    async def interaction_check(self, interaction: discord.Interaction, /) -> bool:
        """Options that hold no valid Discord id (discord.py would raise while reading them) stop here: one
        INFO line and a private reply, nothing run."""
        problem = unreadable(interaction.data)
        if problem is None:
            return True
        data: dict[str, Any] = dict(interaction.data or {})
        name = str(data.get("name", "?"))[:32]
        log.info("ignoring /%s from guild %s: %s", name, interaction.guild_id, problem)
        if interaction.type is discord.InteractionType.application_command:
            try:
                await interaction.response.send_message(UNREADABLE, ephemeral=True, allowed_mentions=NO_PINGS)
            except discord.HTTPException as exc:
                log.info("could not answer interaction %s: %s", interaction.id, exc)
        return False

    async def on_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError, /) -> None:
        if isinstance(error, app_commands.CommandNotFound | app_commands.CommandSignatureMismatch):
            text = "That command has changed; Discord is still updating its list. Try again in a minute."
            log.info("stale command %r from guild %s", echo(getattr(error, "name", "?"), 40), interaction.guild_id)
        elif isinstance(error, app_commands.NoPrivateMessage):
            text = GUILD_ONLY
        elif isinstance(error, app_commands.TransformerError):
            text = f"I could not use {echo(repr(error.value))} there (I may not be able to see that channel)."
            log.info("transformer error: %s", echo(str(error), 300))
        elif quiz_bot(interaction.client).service.context.outage.failed(error):
            text = STORE_DOWN  # told once per outage by the process's StoreOutage
        else:
            text = SORRY
            log.error("command %s failed", interaction.command and interaction.command.qualified_name, exc_info=error)
        text = fit_content(text) or SORRY
        try:
            if interaction.response.is_done():
                await interaction.followup.send(text, ephemeral=True, allowed_mentions=NO_PINGS)
            else:
                await interaction.response.send_message(text, ephemeral=True, allowed_mentions=NO_PINGS)
        except discord.HTTPException as exc:
            log.warning("could not report an error to interaction %s: %s", interaction.id, exc)
