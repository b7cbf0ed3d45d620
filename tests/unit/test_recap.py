"""The weekly recap: its data from the store (fake clock, in-memory store), when it is due, that the tick posts
it once per channel and week however many processes tick, the empty week, and the chart itself (Pillow)."""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import random
from dataclasses import dataclass, field

import pytest
from PIL import Image, ImageStat

from bot.app.bootstrap import bootstrap
from bot.app.scheduler import DailyScheduler
from bot.features import Features
from bot.kernel.errors import BadSetting
from bot.kernel.values import Actor, ChannelConfig, ChannelRef
from bot.recap.cards import NOTHING, recap_alt_text, recap_text
from bot.recap.chart import draw_recap
from bot.recap.service import build_recap, next_recap_after, week_before
from bot.recap.values import RecalledMisses, RecapCard
from bot.settings import ConfigChange, lookup
from tests.support.fakes import REF, FakePlatform, FixedClock, make_bank
from tests.support.memory_store import InMemoryStore

ADMIN = Actor("admin", is_admin=True)
MON = dt.datetime(2026, 11, 16, 9, 0, tzinfo=dt.UTC)  # a Monday, the channel's posting time (UTC)
# who answers each day of the week MON..MON+6, and whether right
WEEK = (
    [("ann", True), ("bob", True), ("cy", False)],
    [("ann", True), ("bob", False)],
    [],
    [("ann", False), ("bob", False), ("cy", False), ("dee", False)],
    [("cy", True)],
    [("eve", True), ("fay", True)],
    [],
)


@dataclass
class RecapFake(FakePlatform):
    """The fake platform with the optional recap push and display names."""

    recaps: list[tuple[ChannelRef, RecapCard, bytes | None]] = field(default_factory=list)
    fail: int = 0

    async def post_recap(self, ref: ChannelRef, card: RecapCard, png: bytes | None) -> str | None:
        if self.fail:
            self.fail -= 1
            raise ConnectionError("platform down")
        self.recaps.append((ref, card, png))
        return f"recap-{len(self.recaps)}"

    async def display_names(self, ref: ChannelRef, user_ids) -> dict[str, str]:
        return {u: u.title() for u in user_ids if u != "fay"}  # fay's name is unknown: her id is shown


@pytest.fixture
async def env():
    store = InMemoryStore()
    await store.open()
    clock = FixedClock(MON - dt.timedelta(hours=1))
    platform = RecapFake()
    service = bootstrap(store, make_bank(per_topic=4), clock, {"fake": platform}, rng=random.Random(3))
    await service.channels.configure(ADMIN, REF, ConfigChange.of(timezone="UTC"))
    scheduler = DailyScheduler(service, clock)
    await scheduler.recaps.schedule_unscheduled()
    yield service, store, clock, platform, scheduler
    await service.close()
    await store.close()


async def _play_week(service: Features, store, clock: FixedClock, scheduler: DailyScheduler) -> list[str]:
    """Tick each day of the week at posting time (posting, revealing the day before), answer as WEEK says;
    returns the question ids of the week, day by day."""
    asked = []
    for day, answers in enumerate(WEEK):
        clock.set(MON + dt.timedelta(days=day))
        await scheduler.tick()
        round_ = await store.latest_daily_round(REF)
        assert round_ is not None and round_.local_date == (MON + dt.timedelta(days=day)).date()
        asked.append(round_.question_id)
        right = service.context.bank.get(round_.question_id).answer
        for user, ok in answers:
            clock.advance(seconds=7)
            await service.answers.submit_answer(round_.id, user, right if ok else (right + 1) % 4)
    return asked


def test_the_recap_setting_takes_one_day_or_off() -> None:
    setting = lookup("recap")
    assert setting.key == "recap_day" and setting.default == 0 and setting.render(0) == "mon"
    assert setting.parse("Friday") == 4 and setting.parse("sun") == 6 and setting.parse("off") is None
    for bad in ("mon-fri", "someday", "x" * 6000):
        with pytest.raises(BadSetting) as caught:
            setting.parse(bad)
        assert len(str(caught.value)) < 200  # an echo is clipped


def test_next_recap_is_the_recap_day_at_the_posting_time_across_dst() -> None:
    ref = ChannelRef("fake", "s", "c")
    berlin = ChannelConfig(ref, post_time=dt.time(9, 0), timezone="Europe/Berlin", weekdays=frozenset({0, 1, 2}))
    # Berlin leaves summer time on Sun 25 Oct 2026: Monday 09:00 is 07:00 UTC before, 08:00 UTC after
    before = dt.datetime(2026, 10, 19, 6, 0, tzinfo=dt.UTC)
    assert next_recap_after(berlin, before) == dt.datetime(2026, 10, 19, 7, 0, tzinfo=dt.UTC)
    assert next_recap_after(berlin, dt.datetime(2026, 10, 19, 7, 0, tzinfo=dt.UTC)) == dt.datetime(
        2026, 10, 26, 8, 0, tzinfo=dt.UTC
    )
    sunday = ChannelConfig(ref, timezone="Asia/Tokyo", recap_day=6, weekdays=frozenset({0}))  # not a posting day
    assert next_recap_after(sunday, before) == dt.datetime(2026, 10, 25, 0, 0, tzinfo=dt.UTC)  # Sun 09:00 JST
    assert next_recap_after(ChannelConfig(ref, recap_day=None), before) is None
    assert next_recap_after(ChannelConfig(ref, paused=True), before) is None
    assert week_before(dt.date(2026, 11, 23)) == (dt.date(2026, 11, 16), dt.date(2026, 11, 22))


async def test_recap_data_of_a_week(env):
    service, store, clock, _, scheduler = env
    asked = await _play_week(service, store, clock, scheduler)
    clock.set(MON + dt.timedelta(days=7))
    await scheduler.tick()  # reveals Sunday's round (and posts Monday's) before the recap is gathered
    card = await build_recap(store, service.context.bank, "fake", REF.space_id, dt.date(2026, 11, 22))
    assert card.start == dt.date(2026, 11, 16) and card.end == dt.date(2026, 11, 22)
    assert [(d.day.day, d.answered, d.correct) for d in card.days] == [
        (16, 3, 2),
        (17, 2, 1),
        (18, 0, 0),
        (19, 4, 0),
        (20, 1, 1),
        (21, 2, 2),
        (22, 0, 0),
    ]
    assert card.answered == 12 and card.correct == 6 and not card.empty
    assert sum(t.answered for t in card.topics) == 12 and sum(t.correct for t in card.topics) == 6
    assert [t.accuracy for t in card.topics] == sorted(t.accuracy for t in card.topics)  # weakest first
    # ann has two right answers; bob, cy, eve and fay one each, in the order they reached their points
    assert [s.user_id for s in card.top] == ["ann", "bob", "cy", "eve", "fay"]
    assert card.top[0].points > card.top[1].points == card.top[4].points > 0
    assert card.hardest is not None and card.hardest.question_id == asked[3]
    assert (card.hardest.answered, card.hardest.correct) == (4, 0)
    assert card.hardest.correct_letter == "ABCD"[service.context.bank.get(asked[3]).answer]
    # Monday's round of the next week is open: none of its answers may show
    assert await build_recap(store, service.context.bank, "fake", REF.space_id, dt.date(2026, 11, 29)) == RecapCard(
        "Weekly recap · 23–29 Nov 2026",
        dt.date(2026, 11, 23),
        dt.date(2026, 11, 29),
        tuple(card.days[0].__class__(dt.date(2026, 11, 23) + dt.timedelta(days=i), 0, 0) for i in range(7)),
        (),
        (),
        None,
        recalled=RecalledMisses(missed=6, came_back=0, right=0),  # space-wide, to date: the six misses
    )
    text, alt = recap_text(card), recap_alt_text(card)
    assert "12 answers, 50% correct" in text and "ann (" in text
    assert "Once-missed questions recalled a week or more later (everyone, so far): none has come back" in text
    assert "Answers per day: Mon 3, Tue 2, Wed 0, Thu 4, Fri 1, Sat 2, Sun 0." in alt
    assert "Hardest question (0% of 4 correct" in alt and len(alt) <= 1000


async def test_the_tick_posts_the_recap_once_a_week_with_names_and_a_chart(env):
    service, store, clock, platform, scheduler = env
    clock.set(MON)
    await scheduler.tick()  # Monday 16th 09:00: the recap of the week before, which had no answers
    assert len(platform.recaps) == 1
    ref, empty, png = platform.recaps[0]
    assert ref == REF and empty.empty and png is None and NOTHING in recap_text(empty)
    await _play_week(service, store, clock, scheduler)
    assert len(platform.recaps) == 1  # nothing more during the week
    clock.set(MON + dt.timedelta(days=7))
    await scheduler.tick()
    assert len(platform.recaps) == 2
    _, card, png = platform.recaps[1]
    assert card.end == dt.date(2026, 11, 22) and card.answered == 12  # Sunday's reveal came first
    assert card.name("ann") == "Ann" and card.name("fay") == "fay"
    assert png is not None and png.startswith(b"\x89PNG")
    await scheduler.tick()
    clock.advance(hours=3)
    await scheduler.tick()
    assert len(platform.recaps) == 2
    assert await store.get_next_recap(REF) == MON + dt.timedelta(days=14)


async def test_two_processes_ticking_together_post_one_recap(env):
    service, store, clock, platform, scheduler = env
    other_platform = RecapFake()
    other = bootstrap(store, service.context.bank, clock, {"fake": other_platform}, rng=random.Random(5))
    other_scheduler = DailyScheduler(other, clock)
    clock.set(MON)
    await asyncio.gather(
        scheduler.tick(), other_scheduler.tick(), scheduler.recaps.run_due(), other_scheduler.recaps.run_due()
    )
    assert len(platform.recaps) + len(other_platform.recaps) == 1
    await other.close()


async def test_moving_the_recap_day_in_a_week_already_recapped_posts_nothing_more(env):
    service, store, clock, platform, scheduler = env
    clock.set(MON)
    await scheduler.tick()
    assert len(platform.recaps) == 1
    clock.set(MON + dt.timedelta(hours=1))
    await service.channels.configure(ADMIN, REF, ConfigChange.parse([("recap", "tue")]))
    assert await store.get_next_recap(REF) == MON + dt.timedelta(days=1)
    clock.set(MON + dt.timedelta(days=1))
    await scheduler.tick()  # Tuesday's recap covers Tue..Mon: a different week, so it is posted
    assert len(platform.recaps) == 2 and platform.recaps[1][1].end == dt.date(2026, 11, 16)
    await service.channels.configure(ADMIN, REF, ConfigChange.parse([("recap", "off")]))
    assert await store.get_next_recap(REF) is None
    clock.set(MON + dt.timedelta(days=8))
    await scheduler.tick()
    assert len(platform.recaps) == 2


async def test_a_failed_recap_is_retried_and_then_posted_once(env):
    service, store, clock, platform, scheduler = env
    platform.fail = 1
    clock.set(MON)
    await scheduler.tick()
    assert platform.recaps == []
    assert await store.get_next_recap(REF) == MON + dt.timedelta(minutes=2)
    clock.advance(minutes=2)
    await scheduler.tick()
    assert len(platform.recaps) == 1 and platform.recaps[0][1].end == dt.date(2026, 11, 15)
    assert await store.get_next_recap(REF) == MON + dt.timedelta(days=7)


async def test_a_recap_missed_by_hours_is_skipped(env):
    service, store, clock, platform, scheduler = env
    clock.set(MON + dt.timedelta(hours=7))  # the bot was offline at the recap's time
    await scheduler.tick()
    assert platform.recaps == []
    assert await store.get_next_recap(REF) == MON + dt.timedelta(days=7)


async def test_the_chart_is_a_readable_png(env):
    service, store, clock, _, scheduler = env
    await _play_week(service, store, clock, scheduler)
    clock.set(MON + dt.timedelta(days=7))
    await scheduler.tick()
    card = await scheduler.recaps.card("fake", REF.space_id, dt.date(2026, 11, 22))
    png = draw_recap(card)
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG" and image.size == (1200, 900)
    stats = ImageStat.Stat(image.convert("L"))
    assert stats.var[0] > 500  # not blank: dark text and coloured bars on white
    colours = image.convert("RGB").getcolors(maxcolors=1 << 20) or []
    present = {rgb for _, rgb in colours}
    assert {(0, 114, 178), (230, 159, 0), (0, 158, 115)} <= present  # the Okabe-Ito blue, orange, green bars
    empty = await build_recap(store, service.context.bank, "fake", REF.space_id, dt.date(2026, 12, 20))
    with pytest.raises(ValueError, match="nothing to chart"):
        draw_recap(empty)


def test_text_from_questions_and_names_is_drawn_literally() -> None:
    """A `$` in a name or prompt would start matplotlib's mathtext: it must not break the chart."""
    from bot.kernel.values import TopicStats
    from bot.recap.values import HardestQuestion, RecapDay, RecapScorer

    start = dt.date(2026, 11, 16)
    card = RecapCard(
        "Weekly recap · 16–22 Nov 2026",
        start,
        start + dt.timedelta(days=6),
        tuple(RecapDay(start + dt.timedelta(days=i), 2, 1) for i in range(7)),
        (TopicStats("tensors", 14, 7),),
        (RecapScorer("u1", 30, 3, 3, dt.datetime(2026, 11, 20, tzinfo=dt.UTC)),),
        HardestQuestion("q", "Why is $x_1$ \\frac{a}{b} a `$`? " + "long " * 200, "B", start, 4, 1),
        names=(("u1", "$\\alpha$ $$ {odd}"),),
    )
    image = Image.open(io.BytesIO(draw_recap(card)))
    assert image.size == (1200, 900)


async def test_after_weeks_offline_the_recap_due_now_still_goes_out(env):
    service, store, clock, platform, scheduler = env
    clock.set(MON + dt.timedelta(days=14))  # two recaps missed; the third is due this very instant
    await scheduler.recaps.run_due()
    assert [card.end for _, card, _ in platform.recaps] == [dt.date(2026, 11, 29)]
    assert await store.get_next_recap(REF) == MON + dt.timedelta(days=21)


async def test_the_console_writes_the_chart_and_prints_its_path(env, tmp_path):
    from adapters.console.channel import ConsolePlatform

    service, store, clock, _, scheduler = env
    await _play_week(service, store, clock, scheduler)
    clock.set(MON + dt.timedelta(days=7))
    await scheduler.tick()
    lines: list[str] = []
    console = ConsolePlatform(lines.append, recap_dir=tmp_path)
    card = await scheduler.recaps.card("fake", REF.space_id, dt.date(2026, 11, 22))
    path = await console.post_recap(REF, card, draw_recap(card))
    assert path == str(tmp_path / "studybot-recap-2026-11-22.png")
    assert Image.open(path).size == (1200, 900)
    assert lines[-1].endswith(f"Chart: {path}") and "12 answers, 50% correct" in lines[-1]
    empty = await build_recap(store, service.context.bank, "fake", REF.space_id, dt.date(2026, 12, 20))
    assert await console.post_recap(REF, empty, None) is None
    assert NOTHING in lines[-1] and len(list(tmp_path.iterdir())) == 1
