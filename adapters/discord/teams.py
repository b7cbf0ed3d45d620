"""/team (create, join, leave, list; admins rename and remove) and the team board's embed. Team names are
plain text (escaped); the core checks them and decides who may do what."""

from __future__ import annotations

import discord
from discord import app_commands

from adapters.discord.markdown import escape
from adapters.discord.render import COLOUR, DESCRIPTION_MAX, FOOTER_MAX, TITLE_MAX, clip
from adapters.discord.replies import Reply, actor_of, bot_of, ref_of, respond
from bot.kernel.echo import echo
from bot.kernel.errors import BadSetting
from bot.teams.cards import TeamBoardCard

Choice = app_commands.Choice
ACTIONS = [
    Choice(name="create a team (you join it)", value="create"),
    Choice(name="join a team", value="join"),
    Choice(name="leave your team", value="leave"),
    Choice(name="list the teams", value="list"),
    Choice(name="rename a team (admins)", value="rename"),
    Choice(name="remove a team (admins)", value="remove"),
]
NAME_OPTION_MAX = 64  # names are 2-32 characters; the core says so about a longer one
NEEDS_NAME = {"create", "join", "rename", "remove"}


def team_board_embed(card: TeamBoardCard) -> discord.Embed:
    embed = discord.Embed(
        title=clip(card.title, TITLE_MAX),
        description=clip(escape("\n".join(card.lines)), DESCRIPTION_MAX),
        colour=COLOUR,
    )
    embed.set_footer(text=clip(card.note, FOOTER_MAX))
    return embed


def team_command() -> app_commands.Command:
    @app_commands.command(name="team", description="Teams of this server: create, join, leave or list them")
    @app_commands.describe(
        action="What to do (none: list the teams, with yours)",
        name="The team's name (create, join, rename, remove)",
        new_name="The new name (rename)",
    )
    @app_commands.choices(action=ACTIONS)
    @app_commands.guild_only()
    async def team(
        interaction: discord.Interaction,
        action: str | None = None,
        name: app_commands.Range[str, 1, NAME_OPTION_MAX] | None = None,
        new_name: app_commands.Range[str, 1, NAME_OPTION_MAX] | None = None,
    ) -> None:
        async def work() -> Reply:
            ref, user = ref_of(interaction), str(interaction.user.id)
            teams = bot_of(interaction).service.teams
            if action in NEEDS_NAME and not name:
                raise BadSetting(f"/team action:{echo(action, 20)} needs the team's name: add name:NAME.")
            match action or "list":
                case "create":
                    text = await teams.create(ref, user, name or "")
                case "join":
                    text = await teams.join(ref, user, name or "")
                case "leave":
                    text = await teams.leave(ref, user)
                case "list":
                    text = await teams.list_teams(ref, user)
                case "rename":
                    if not new_name:
                        raise BadSetting("/team action:rename needs the new name too: add new_name:NAME.")
                    text = await teams.rename(await actor_of(interaction), ref, name or "", new_name)
                case "remove":
                    text = await teams.remove(await actor_of(interaction), ref, name or "")
                case _:
                    raise BadSetting(
                        f"'{echo(action, 20)}' is not a /team action: create, join, leave, list, rename or remove."
                    )
            return Reply(escape(text))

        await respond(interaction, work(), defer_after=bot_of(interaction).defer_after)

    return team
