"""A page of one space: the space must be one the session may see (any other id is 404, never another
server's data), and admin pages need the person to be an admin there, as the chat decides."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlencode

from aiohttp import web

from bot.features import Features
from bot.kernel.errors import NotAllowed
from bot.kernel.parsing import parse_number
from bot.kernel.platform import ChannelNamePlatform
from bot.kernel.values import Actor, ChannelConfig, ChannelRef
from bot.web.render import session_of
from bot.web.sessions import Membership
from bot.web.state import STATE

log = logging.getLogger(__name__)

ADMINS_ONLY = "Only members who can manage this server or workspace can open this page."


@dataclass(frozen=True)
class Space:
    """The space a request is about, who asks and with which rights."""

    features: Features
    member: Membership
    actor: Actor

    @property
    def platform(self) -> str:
        return self.member.platform

    @property
    def id(self) -> str:
        return self.member.space_id

    @property
    def base(self) -> str:
        return f"/s/{self.platform}/{self.id}"

    def ref(self, channel_id: str = "dashboard") -> ChannelRef:
        return ChannelRef(self.platform, self.id, channel_id)

    async def channels(self) -> list[ChannelConfig]:
        return await self.features.access.space_channels(self.platform, self.id)

    def pool_ref(self, channels: list[ChannelConfig]) -> ChannelRef:
        """Where a member's practice, reviews and plans draw from: the space's first channel (its packs), else
        the space itself."""
        return channels[0].ref if channels else self.ref()

    async def channel_labels(self, channel_ids: Iterable[str]) -> dict[str, str]:
        """How the pages name each channel: #name where the platform knows it, else its id."""
        ids = list(dict.fromkeys(channel_ids))
        platform = self.features.context.platforms.get(self.platform)
        names: dict[str, str] = {}
        if isinstance(platform, ChannelNamePlatform) and ids:
            try:
                names = await platform.channel_names(self.id, ids)
            except Exception:  # noqa: BLE001 - names are a nicety: ids are shown instead
                log.info("could not name the channels of %s/%s", self.platform, self.id)
        return {cid: f"#{names[cid]}" if names.get(cid) else cid for cid in ids}

    async def channel(self, channel_id: str) -> ChannelConfig:
        """One of the space's channels; 404 for a channel of another space or none at all."""
        try:
            saved = await self.features.channels.saved(self.ref(channel_id))
        except NotAllowed:
            raise web.HTTPNotFound() from None
        if saved is None:
            raise web.HTTPNotFound()
        return saved


def space_of(request: web.Request, *, admin: bool = False) -> Space:
    session = session_of(request)
    if not session.signed_in:  # back to this page once signed in (a page read, never a form's post)
        asked = request.path_qs if request.method == "GET" else ""
        raise web.HTTPSeeOther("/login" + (f"?{urlencode({'next': asked})}" if asked else ""))
    member = session.membership(request.match_info["platform"], request.match_info["space"])
    if member is None:
        raise web.HTTPNotFound()
    if admin and not member.is_admin:
        raise web.HTTPForbidden(text=ADMINS_ONLY)
    assert session.user_id is not None
    features = request.app[STATE].need_features()
    return Space(features, member, Actor(session.user_id, member.is_admin))


PAGE_DIGITS = 6  # ?page= beyond this is no page anyone reaches


def number(request: web.Request, name: str) -> int:
    """A number in the path (ASCII digits: '²' is no number); anything else is 404."""
    found = parse_number(request.match_info[name])
    if found is None:
        raise web.HTTPNotFound()
    return found


def page_number(request: web.Request) -> int:
    """The `page` query as a page number from 1 (anything else, such as '²' or '-1', is the first page)."""
    return max(1, parse_number(request.query.get("page", ""), PAGE_DIGITS) or 1)
