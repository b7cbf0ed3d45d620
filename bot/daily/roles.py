"""The role settings of a channel: Discord's manager_role (members with it run the quiz like Manage Server,
in the whole server) and ping_role, Slack's ping_group (whom the daily question mentions). Each is refused
where the platform has no such thing, and checked by the platform where it has."""

from __future__ import annotations

from typing import Literal, Protocol, runtime_checkable

from bot.kernel.context import Context
from bot.kernel.echo import echo
from bot.kernel.errors import BadSetting, NotAllowed
from bot.kernel.values import Actor, ChannelRef
from bot.settings import ConfigChange

RoleUse = Literal["manager", "ping"]
ROLE_KEYS: tuple[tuple[str, RoleUse], ...] = (("manager_role", "manager"), ("ping_role", "ping"))
NO_ROLES = "{word} is a Discord setting: {platform} has no roles, so it stays off here."
NO_GROUPS = "ping_group is a Slack setting: {platform} has no user groups, so it stays off here."
MANAGER_ONLY = "Only members with Manage Server can change the manager role (holding it is not enough)."


@runtime_checkable
class RolePlatform(Protocol):
    """Has roles (Discord): whether a role can be the quiz's manager role or be mentioned by the daily question."""

    async def role_problem(self, ref: ChannelRef, role_id: str, use: RoleUse) -> str | None:
        """Why this role cannot serve (no such role, @everyone, an integration's role, one the bot may not
        mention), or None when it can."""
        ...


@runtime_checkable
class GroupPlatform(Protocol):
    """Has user groups (Slack): whether a group can be mentioned by the daily question."""

    async def group_problem(self, ref: ChannelRef, group_id: str) -> str | None:
        """Why this user group cannot be mentioned, or None when it can."""
        ...


async def check_roles(ctx: Context, actor: Actor, ref: ChannelRef, change: ConfigChange) -> None:
    """Refuse a role setting the channel's platform cannot have, a manager_role change by a member who is an
    admin only through the manager role, and a role or group the platform says cannot serve. Raises
    BadSetting or NotAllowed; nothing is saved then."""
    platform = ctx.platforms.get(ref.platform)
    where = echo(ref.platform.capitalize(), 20)
    for key, use in ROLE_KEYS:
        if key not in change:
            continue
        if not isinstance(platform, RolePlatform):
            raise BadSetting(NO_ROLES.format(word=key, platform=where))
        if use == "manager" and actor.via_role:
            raise NotAllowed(MANAGER_ONLY)
        role = change.get(key)
        why = None if role is None else await platform.role_problem(ref, role, use)
        if why:
            raise BadSetting(why)
    if "ping_group" in change:
        if not isinstance(platform, GroupPlatform):
            raise BadSetting(NO_GROUPS.format(platform=where))
        group = change.get("ping_group")
        why = None if group is None else await platform.group_problem(ref, group)
        if why:
            raise BadSetting(why)
