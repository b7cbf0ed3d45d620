"""Fakes for the monthly seasons' tests: a platform with the season card (and Discord's roles), and a
service, store and scheduler on a fixed clock that play daily rounds at a channel's posting time."""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field

from bot.app.bootstrap import bootstrap
from bot.app.scheduler import DailyScheduler
from bot.kernel.timing import post_instant
from bot.kernel.values import Actor, ChannelConfig, ChannelRef
from bot.recap.values import RecapCard
from bot.seasons.values import SeasonCard
from bot.settings import ConfigChange
from bot.store.ports import Store
from tests.support.fakes import FakePlatform, FixedClock, make_bank
from tests.support.memory_store import InMemoryStore

ADMIN = Actor("admin", is_admin=True)


@dataclass
class SeasonFake(FakePlatform):
    """The fake platform with the season card, display names and (roles=True) Discord's champion role."""

    seasons: list[tuple[ChannelRef, SeasonCard]] = field(default_factory=list)
    moves: list[tuple[str, str, str | None]] = field(default_factory=list)
    recaps: list[ChannelRef] = field(default_factory=list)
    fail: int = 0
    problem: str | None = None

    async def post_season(self, ref: ChannelRef, card: SeasonCard) -> str | None:
        if self.fail:
            self.fail -= 1
            raise ConnectionError("platform down")
        self.seasons.append((ref, card))
        return f"season-{len(self.seasons)}"

    async def post_recap(self, ref: ChannelRef, card: RecapCard, png: bytes | None) -> str | None:
        self.recaps.append(ref)  # the weekly recap (it also brings the season card on the 1st)
        return None

    async def display_names(self, ref: ChannelRef, user_ids) -> dict[str, str]:
        return {u: u.title() for u in user_ids}


@dataclass
class RoleFake(SeasonFake):
    async def champion_role_problem(self, ref: ChannelRef, role_id: str) -> str | None:
        return self.problem

    async def move_champion(self, ref: ChannelRef, role_id: str, winner: str, previous: str | None) -> None:
        self.moves.append((role_id, winner, previous))


class Env:
    def __init__(self, store: Store, platform: SeasonFake, clock: FixedClock) -> None:
        self.store, self.platform, self.clock = store, platform, clock
        self.service = bootstrap(store, make_bank(per_topic=12), clock, {"fake": platform}, rng=random.Random(5))
        self.scheduler = DailyScheduler(self.service, clock)

    async def configure(self, ref: ChannelRef, **values: object) -> ChannelConfig:
        await self.service.channels.configure(ADMIN, ref, ConfigChange.of(**values))
        return await self.service.channels.channel_config(ref)

    async def play(self, cfg: ChannelConfig, day: dt.date, answers: list[tuple[str, bool]]) -> None:
        """Tick at the channel's posting time of `day` (it posts, revealing the day before) and answer."""
        self.clock.set(post_instant(cfg, day))
        await self.scheduler.tick()
        round_ = await self.store.latest_daily_round(cfg.ref)
        assert round_ is not None and round_.local_date == day
        right = self.service.context.bank.get(round_.question_id).answer
        for user, ok in answers:
            self.clock.advance(seconds=5)
            await self.service.answers.submit_answer(round_.id, user, right if ok else (right + 1) % 4)

    async def tick_at(self, moment: dt.datetime) -> None:
        self.clock.set(moment)
        await self.scheduler.tick()


async def season_env(platform: SeasonFake | None = None, start: dt.date = dt.date(2026, 11, 28)) -> Env:
    store = InMemoryStore()
    await store.open()
    return Env(store, platform or SeasonFake(), FixedClock(dt.datetime.combine(start, dt.time(0), dt.UTC)))
