"""The /quizconfig group: a channel's daily question settings. Hidden from members without Manage Server by
default, but the core decides: every call carries an Actor whose is_admin comes from the member's real rights.

`schedule`, `filters` and `rules` are built from the settings table (bot.settings): one optional option per
setting, so a new setting appears here by itself; no option given shows the settings."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Optional

import discord
from discord import app_commands

from adapters.discord.limits import fit_choices
from adapters.discord.render import config_embed
from adapters.discord.replies import PLATFORM, Reply, actor_of, bot_of, channel_ref, ref_of, respond
from bot.kernel.values import ChannelRef
from bot.settings import GROUPS, ConfigChange, Setting, in_group

Choice = app_commands.Choice
ON_OFF = [Choice(name="on", value="on"), Choice(name="off", value="off")]
CHANNEL_HELP = "Which channel (default: this one)"
OPTION_MAX = 100  # characters a setting's option accepts (Discord's own default is 6,000)
WIDER_OPTIONS = {"topics": 300}  # a comma-separated list of every topic fits


async def _run(interaction: discord.Interaction, work: Callable[[], Awaitable[Reply]]) -> None:
    async def settled() -> Reply:  # `work` is called inside respond, so an error it raises gets its reply
        return await work()

    await respond(interaction, settled(), defer_after=bot_of(interaction).defer_after)


def _target(interaction: discord.Interaction, channel: discord.TextChannel | None) -> ChannelRef:
    here = ref_of(interaction)  # a server the bot is installed in, or GUILD_ONLY
    return here if channel is None else channel_ref(interaction.guild_id, channel.id)


async def _configure(interaction: discord.Interaction, ref: ChannelRef, change: ConfigChange) -> Reply:
    service = bot_of(interaction).service
    if not change:  # e.g. /quizconfig filters with no option: nothing to save, show what is set
        return Reply(embeds=(config_embed(await service.channels.show_config(ref)),))
    card = await service.channels.configure(await actor_of(interaction), ref, change)
    return Reply("Saved.", embeds=(config_embed(card),))


class QuizConfig(app_commands.Group):
    """The daily question's settings for a channel."""

    def __init__(self) -> None:
        super().__init__(
            name="quizconfig",
            description="Daily question settings (Manage Server)",
            guild_only=True,
            default_permissions=discord.Permissions(manage_guild=True),
        )
        for group in GROUPS:
            self.add_command(_settings_command(group))

    @app_commands.command(name="pause", description="Stop the daily question (settings are kept)")
    @app_commands.describe(channel=CHANNEL_HELP)
    async def pause(self, interaction: discord.Interaction, channel: discord.TextChannel | None = None) -> None:
        change = ConfigChange.of(paused=True)
        await _run(interaction, lambda: _configure(interaction, _target(interaction, channel), change))

    @app_commands.command(name="resume", description="Start the daily question again")
    @app_commands.describe(channel=CHANNEL_HELP)
    async def resume(self, interaction: discord.Interaction, channel: discord.TextChannel | None = None) -> None:
        change = ConfigChange.of(paused=False)
        await _run(interaction, lambda: _configure(interaction, _target(interaction, channel), change))

    @app_commands.command(name="show", description="Show the daily question settings")
    @app_commands.describe(channel=CHANNEL_HELP)
    async def show(self, interaction: discord.Interaction, channel: discord.TextChannel | None = None) -> None:
        async def work() -> Reply:
            card = await bot_of(interaction).service.channels.show_config(_target(interaction, channel))
            return Reply(embeds=(config_embed(card),))

        await _run(interaction, work)

    @app_commands.command(name="post-now", description="Post today's question now")
    @app_commands.describe(channel=CHANNEL_HELP)
    async def post_now(self, interaction: discord.Interaction, channel: discord.TextChannel | None = None) -> None:
        async def work() -> Reply:
            ref = _target(interaction, channel)
            round_ = await bot_of(interaction).service.posting.post_now(await actor_of(interaction), ref)
            return Reply(f"Posted question #{round_.id} in <#{ref.channel_id}>.")

        await _run(interaction, work)

    @app_commands.command(name="reveal", description="Reveal the open daily question now")
    @app_commands.describe(channel=CHANNEL_HELP)
    async def reveal(self, interaction: discord.Interaction, channel: discord.TextChannel | None = None) -> None:
        async def work() -> Reply:
            card = await bot_of(interaction).service.reveals.reveal_now(
                await actor_of(interaction), _target(interaction, channel)
            )
            return Reply(f"Revealed: the answer was {card.correct_letter}.")

        await _run(interaction, work)

    @app_commands.command(name="reactions", description="Let members answer with 🇦-🇩 reactions too")
    @app_commands.describe(state="on or off (default: show the settings)", channel=CHANNEL_HELP)
    @app_commands.choices(state=ON_OFF)
    async def reactions(
        self, interaction: discord.Interaction, state: str | None = None, channel: discord.TextChannel | None = None
    ) -> None:
        async def work() -> Reply:
            change = ConfigChange.parse([("reactions", state)] if state is not None else [])
            return await _configure(interaction, _target(interaction, channel), change)

        await _run(interaction, work)


def _settings_command(group: str) -> app_commands.Command[Any, ..., None]:
    """`/quizconfig <group>`: one optional string option per setting of the group (Slack's own left out), and
    `channel`."""
    settings = tuple(s for s in in_group(group) if s.applies_to(PLATFORM))

    async def callback(interaction: discord.Interaction, **options: Any) -> None:
        channel = options.pop("channel", None)

        async def work() -> Reply:
            given = [(name, value) for name, value in options.items() if value is not None]
            return await _configure(interaction, _target(interaction, channel), ConfigChange.parse(given))

        await _run(interaction, work)

    keyword = inspect.Parameter.KEYWORD_ONLY
    params = [inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=discord.Interaction)]
    params += [inspect.Parameter(s.option_name, keyword, annotation=_option_type(s), default=None) for s in settings]
    params.append(inspect.Parameter("channel", keyword, annotation=discord.TextChannel | None, default=None))
    # the options are the settings table's: a built signature (inspect reads __signature__), then the same
    # decorators a hand-written command uses for the descriptions and the closed choices
    callback.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    described = app_commands.describe(**{s.option_name: _describe(s) for s in settings}, channel=CHANNEL_HELP)
    callback = described(callback)
    choices = {s.option_name: [Choice(name=c, value=c) for c in s.choices] for s in settings if s.choices}
    if choices:
        callback = app_commands.choices(**choices)(callback)
    command: app_commands.Command[Any, ..., None] = app_commands.Command(
        name=group, description=GROUPS[group][0], callback=callback
    )
    for s in settings:
        if s.suggest is not None:
            command.autocomplete(s.option_name)(_suggester(s))
    return command


def _option_type(setting: Setting) -> Any:
    """An optional string; free text is capped (Discord's client refuses longer values before sending)."""
    if setting.choices:
        return Optional[str]  # noqa: UP045 - discord.py reads typing.Optional in a built signature
    return Optional[app_commands.Range[str, 1, WIDER_OPTIONS.get(setting.key, OPTION_MAX)]]  # noqa: UP045


def _describe(setting: Setting) -> str:
    text = f"{setting.help[:1].upper()}{setting.help[1:]} (default: unchanged)"
    return text if len(text) <= 100 else setting.help[:100]


def _suggester(setting: Setting) -> Callable[[discord.Interaction, str], Coroutine[Any, Any, list[Choice[str]]]]:
    suggest = setting.suggest
    assert suggest is not None

    async def autocomplete(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
        return fit_choices(suggest(current[:OPTION_MAX]))

    return autocomplete
