"""Live games in tests: a recording platform that has the live pushes, and a driver that moves a fake clock
from one due step to the next (the tick's work, without waiting for any timer)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from bot.features import Features
from bot.kernel.cards import QuestionCard, RevealCard
from bot.kernel.values import ChannelRef
from bot.live.cards import LiveCloseCard, LiveFinalCard
from tests.support.fakes import FixedClock


@dataclass
class LiveRecorder:
    """A ChatPlatform with the live pushes (bot.live.cards.LivePlatform); records each with the clock's time."""

    clock: FixedClock
    name: str = "fake"
    posted: list[tuple[dt.datetime, ChannelRef, QuestionCard]] = field(default_factory=list)
    closed: list[tuple[dt.datetime, ChannelRef, LiveCloseCard]] = field(default_factory=list)
    finals: list[tuple[dt.datetime, ChannelRef, LiveFinalCard]] = field(default_factory=list)
    private: list[tuple[ChannelRef, str, str]] = field(default_factory=list)
    fail_posts: int = 0  # the next posts that raise

    async def post_question(self, ref: ChannelRef, card: QuestionCard) -> str:
        if self.fail_posts:
            self.fail_posts -= 1
            raise ConnectionError("the platform is down")
        self.posted.append((self.clock.now(), ref, card))
        return f"msg-{card.round_id}"

    async def post_reveal(self, ref: ChannelRef, card: RevealCard) -> str | None:
        return None

    async def send_private(self, ref: ChannelRef, user_id: str, text: str) -> None:
        self.private.append((ref, user_id, text))

    async def close_live_question(self, ref: ChannelRef, card: LiveCloseCard) -> None:
        self.closed.append((self.clock.now(), ref, card))

    async def post_live_final(self, ref: ChannelRef, card: LiveFinalCard) -> str | None:
        self.finals.append((self.clock.now(), ref, card))
        return f"final-{card.game_id}"

    def sends(self) -> list[dt.datetime]:
        """When each channel message went out or was edited, in order."""
        return sorted([t for t, _, _ in self.posted] + [t for t, _, _ in self.closed] + [t for t, _, _ in self.finals])


Answering = Callable[[QuestionCard], Awaitable[None]]


async def play(
    service: Features, clock: FixedClock, platform: LiveRecorder, answer: Answering | None = None, *, steps: int = 200
) -> None:
    """Run the games' due steps, moving the clock to each next due instant, until no game runs; `answer` is
    called once for each question as soon as it is posted."""
    answered: set[int] = set()
    for _ in range(steps):
        next_due = await service.live.run_due()
        for _, _, card in platform.posted:
            if card.round_id not in answered:
                answered.add(card.round_id)
                if answer is not None:
                    await answer(card)
        if next_due is None:
            return
        if next_due > clock.now():
            clock.set(next_due)
    raise AssertionError("the games did not end")
