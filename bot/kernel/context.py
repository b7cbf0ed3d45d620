"""What every feature receives instead of a god service: the clock, the bank, the platforms, a space's
day and the grace of late work. Built once by the composition root (bot/app/bootstrap.py)."""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field
from typing import Protocol
from zoneinfo import ZoneInfo

from bot.kernel.clock import Clock
from bot.kernel.metrics import Metrics
from bot.kernel.outage import StoreOutage
from bot.kernel.platform import Platforms
from bot.kernel.store import SpaceStore
from bot.kernel.values import CommandNames, Difficulty, Question

DEFAULT_GRACE = dt.timedelta(hours=1)  # how late a post may still go out, and how long sends are retried
DEFAULT_SEND_LEASE = dt.timedelta(minutes=2)  # a claimed send is this process's until then (then another may retry)


class QuestionBank(Protocol):
    """The shipped questions (the pack `pytorch`), as features read them."""

    @property
    def questions(self) -> tuple[Question, ...]: ...

    def get(self, question_id: str) -> Question | None: ...

    def filtered(self, topics: frozenset[str], difficulties: frozenset[Difficulty]) -> tuple[Question, ...]: ...


@dataclass(eq=False)
class Context:
    """The shared, injected parts of the core. `bank` may be replaced (a reload); features read it here."""

    clock: Clock
    bank: QuestionBank
    spaces: SpaceStore
    platforms: Platforms = field(default_factory=Platforms)
    metrics: Metrics = field(default_factory=Metrics)
    rng: random.Random = field(default_factory=random.Random)
    grace: dt.timedelta = DEFAULT_GRACE  # the scheduler sets the configured misfire grace
    send_lease: dt.timedelta = DEFAULT_SEND_LEASE  # STUDYBOT_SEND_LEASE_SECONDS: how long a claimed send is ours
    learning: bool = True  # answers update the learners' FSRS cards (off only to measure its cost)
    outage: StoreOutage = field(default_factory=StoreOutage)  # the store's outages, told once (bot.kernel.outage)

    def now(self) -> dt.datetime:
        return self.clock.now()

    def commands_of(self, platform: str) -> CommandNames:
        """How members of that platform type the commands messages point to."""
        return self.platforms.commands_of(platform)

    async def space_today(self, platform: str, space_id: str) -> tuple[dt.date, str]:
        """Today's date in the space (its channels' timezone) and that timezone's name."""
        tz = await self.spaces.space_timezone(platform, space_id) or "UTC"
        return self.clock.now().astimezone(ZoneInfo(tz)).date(), tz
