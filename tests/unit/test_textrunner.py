"""The shared `/quiz ...` runner (Slack and the console) on the fake store: one service call per command,
cards and reply values back, the platform's people, channels and admin rights asked through its TextSource."""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field, replace

import pytest

from bot.app.bootstrap import bootstrap
from bot.daily.cards import StatsCard
from bot.features import Features
from bot.kernel.cards import AnswerOutcome, LeaderboardCard, QuestionCard
from bot.kernel.errors import AlreadyPosted, BadSetting, NotAllowed, NothingOpen
from bot.kernel.values import Actor, ChannelRef, Period, RoundKind
from bot.text.commands import parse_quiz
from bot.text.runner import HelpReply, PostedReply, RevealedReply, SettingsReply, run_command
from tests.support.fakes import REF, FakePlatform, FixedClock, make_bank
from tests.support.memory_store import InMemoryStore


@dataclass
class Source:
    """A TextSource that records what the runner asked."""

    user_id: str = "ada"
    admin: bool = True
    ref: ChannelRef = REF
    asked: list[str] = field(default_factory=list)

    def person(self, raw: str | None) -> str:
        self.asked.append(f"person {raw}")
        if raw == "nobody":
            raise BadSetting("'nobody' is not a person")
        return raw or self.user_id

    def channel(self, raw: str) -> ChannelRef:
        self.asked.append(f"channel {raw}")
        return replace(self.ref, channel_id=raw.lstrip("#"))

    async def actor(self, target: ChannelRef) -> Actor:
        self.asked.append(f"actor {target.channel_id}")
        return Actor(self.user_id, self.admin)


@pytest.fixture
async def env():
    store = InMemoryStore()
    await store.open()
    platform = FakePlatform()
    service = bootstrap(
        store,
        make_bank(),
        FixedClock(dt.datetime(2026, 11, 30, 9, tzinfo=dt.UTC)),
        {"fake": platform},
        rng=random.Random(3),
    )
    yield service, platform
    await service.close()
    await store.close()


async def run(service: Features, source: Source, text: str):  # type: ignore[no-untyped-def]
    return await run_command(service, source, parse_quiz(text))


async def test_practice_answer_board_stats_and_help(env):
    service, platform = env
    source = Source()
    card = await run(service, source, "/quiz practice autograd")
    assert isinstance(card, QuestionCard) and card.kind is RoundKind.PRACTICE and card.topic == "autograd"
    with pytest.raises(NothingOpen):
        await run(service, source, "/quiz answer B")
    await run(service, source, "/quiz config time 09:00")
    await service.posting.post_scheduled(REF)
    outcome = await run(service, source, "/quiz answer B")
    assert isinstance(outcome, AnswerOutcome) and outcome.chosen_letter == "B" and outcome.verdict is None
    board = await run(service, source, "/quiz leaderboard month")
    assert isinstance(board, LeaderboardCard) and board.period is Period.MONTH
    stats = await run(service, source, "/quiz stats bob")
    assert isinstance(stats, StatsCard) and stats.user_id == "bob" and "person bob" in source.asked
    with pytest.raises(BadSetting):
        await run(service, source, "/quiz stats nobody")
    assert await run(service, source, "/quiz frobnicate") == HelpReply("'frobnicate' is not a /quiz command")
    close = await run(service, source, "/quiz stast")
    assert close == HelpReply("'stast' is not a /quiz command", "/quiz stats")
    assert close.did_you_mean == "'stast' is not a /quiz command. Did you mean `/quiz stats`?"  # type: ignore[union-attr]


async def test_settings_post_now_and_reveal_go_to_the_named_channel_with_the_platforms_admin_rights(env):
    service, platform = env
    source = Source()
    shown = await run(service, source, "/quiz config show")
    assert isinstance(shown, SettingsReply) and not shown.changed and source.asked == []  # no rights needed
    saved = await run(service, source, "/quiz config channel #other time 10:30")
    assert isinstance(saved, SettingsReply) and saved.changed
    assert saved.card.config.ref.channel_id == "other" and saved.card.config.post_time == dt.time(10, 30)
    assert source.asked == ["channel #other", "actor other"]
    paused = await run(service, source, "/quiz config pause")
    resumed = await run(service, source, "/quiz config resume")
    assert paused.card.config.paused and not paused.changed and resumed.changed and not resumed.card.config.paused
    posted = await run(service, source, "/quiz config post-now")
    assert isinstance(posted, PostedReply) and posted.ref == REF and platform.posted[-1][1].round_id == posted.round.id
    with pytest.raises(AlreadyPosted):
        await run(service, source, "/quiz config post-now")
    revealed = await run(service, source, "/quiz reveal")
    assert isinstance(revealed, RevealedReply) and revealed.card.round_id == posted.round.id


async def test_members_without_admin_rights_change_nothing(env):
    service, platform = env
    member = Source(user_id="bob", admin=False)
    for text in ("/quiz config time 07:00", "/quiz config pause", "/quiz config post-now", "/quiz reveal"):
        with pytest.raises(NotAllowed):
            await run(service, member, text)
    assert not await service.channels.is_configured(REF) and platform.posted == []
