"""A channel's daily settings: read them, show them, change them (admins), and keep its next post stored."""

from __future__ import annotations

import datetime as dt
import logging
from typing import Protocol
from zoneinfo import ZoneInfo

from bot.daily.roles import check_roles
from bot.daily.store import ChannelStore
from bot.kernel.context import Context
from bot.kernel.errors import BadSetting, NotAllowed
from bot.kernel.store import RoundReads
from bot.kernel.timing import local_date_of, next_post_after
from bot.kernel.values import Actor, ChannelConfig, ChannelRef, Round
from bot.packs.catalog import PackCatalog, PacksCard
from bot.recap.service import RECAP_KEYS, next_recap_after
from bot.recap.store import RecapStore
from bot.seasons.service import Seasons
from bot.settings import ConfigCard, ConfigChange

log = logging.getLogger(__name__)

OTHER_SPACE = "That channel belongs to another workspace or server; its quiz is managed there."


class ChannelSettingsStore(ChannelStore, RoundReads, RecapStore, Protocol):
    """What channel settings read and write: channels, their latest round, and their recap's due instant."""


class ChannelSettings:
    """Channels' settings (the `/quiz config` family): one place that validates and saves them."""

    def __init__(self, ctx: Context, store: ChannelSettingsStore, packs: PackCatalog, seasons: Seasons) -> None:
        self.ctx = ctx
        self.store = store
        self.packs = packs
        self.seasons = seasons

    async def saved(self, ref: ChannelRef) -> ChannelConfig | None:
        """The channel's saved settings, looked up within the asker's space: a channel id that belongs to
        another workspace or server can be neither read nor changed from this one."""
        cfg = await self.store.get_channel(ref)
        if cfg is not None and cfg.ref.space_id != ref.space_id:
            raise NotAllowed(OTHER_SPACE)
        return cfg

    async def channel_config(self, ref: ChannelRef) -> ChannelConfig:
        return await self.saved(ref) or ChannelConfig(ref=ref, paused=True)

    async def latest_daily_round(self, ref: ChannelRef) -> Round | None:
        """The channel's latest daily round (open or revealed), read within the asker's space."""
        await self.saved(ref)
        return await self.store.latest_daily_round(ref)

    async def is_configured(self, ref: ChannelRef) -> bool:
        """Whether the channel has saved settings (a daily schedule, running or paused)."""
        return await self.saved(ref) is not None

    async def show_config(self, ref: ChannelRef) -> ConfigCard:
        cfg = await self.channel_config(ref)
        configured = await self.saved(ref) is not None
        next_post = None if cfg.paused or not configured else await self.next_due(cfg, self.ctx.now())
        if next_post is not None:
            next_post = next_post.astimezone(ZoneInfo(cfg.timezone))
        return ConfigCard(cfg, next_post)

    async def next_due(
        self, cfg: ChannelConfig, after: dt.datetime, *, taken: dt.date | None = None
    ) -> dt.datetime | None:
        """The channel's next scheduled post after `after` on a local date not taken yet (None: paused).
        `taken`: a local date the caller knows is the channel's latest round (saves reading it)."""
        if cfg.paused:
            return None
        if taken is None:
            latest = await self.store.latest_daily_round(cfg.ref)
            taken = latest.local_date if latest is not None else None
        at = next_post_after(cfg, after)
        for _ in range(10):  # bounded: the latest round is at most a day or two ahead
            if at is None or taken is None or local_date_of(cfg, at) > taken:
                break
            at = next_post_after(cfg, at)
        return at

    async def reschedule(self, cfg: ChannelConfig) -> None:
        """Store the channel's next due post, so every process's tick sees the change."""
        await self.store.set_next_post(cfg.ref, await self.next_due(cfg, self.ctx.now()))

    async def configure(self, actor: Actor, ref: ChannelRef, change: ConfigChange | None = None) -> ConfigCard:
        """Change a channel's daily schedule or rules (values were checked when `change` was made). Only
        admins (as the adapter computed) may.

        A channel configured for the first time is switched on (unpaused) unless `paused` is given."""
        if not actor.is_admin:
            raise NotAllowed("Only members who can manage this server or workspace can change the quiz settings.")
        change = change or ConfigChange()
        existing = await self.saved(ref)
        if existing is None:  # a new channel carries its space's manager role
            existing_or_new = ChannelConfig(
                ref=ref, manager_role=await self.store.manager_role(ref.platform, ref.space_id)
            )
        else:
            existing_or_new = existing
        updated = change.apply(existing_or_new)
        await self.seasons.check_setting(ref, change)
        await check_roles(self.ctx, actor, ref, change)
        if not await self.packs.candidates(updated, strict=True):
            raise BadSetting("No question in the channel's packs matches those topic and difficulty filters.")
        await self.store.save_channel(updated)
        if "manager_role" in change:  # a setting of the whole space: every channel of it carries it
            await self.store.set_manager_role(ref.platform, ref.space_id, updated.manager_role)
        await self.reschedule(updated)
        if existing is None or any(key in change for key in RECAP_KEYS):
            await self.store.set_next_recap(ref, next_recap_after(updated, self.ctx.now()))
        log.info("channel %s/%s configured by %s", ref.platform, ref.channel_id, actor.user_id)
        return await self.show_config(ref)

    async def manager_role(self, platform: str, space_id: str) -> str | None:
        """The space's manager role (Discord's manager_role setting): its members count as admins, beside
        Manage Server (the adapter checks the member's roles against it). None: off."""
        return await self.store.manager_role(platform, space_id)

    async def packs_card(self, ref: ChannelRef) -> PacksCard:
        """The space's question packs with their question counts, marking the ones this channel uses."""
        cfg = await self.channel_config(ref)
        return PacksCard(tuple(await self.packs.list(ref.platform, ref.space_id)), cfg.packs)
