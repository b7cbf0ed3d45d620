"""The daily scheduler with an injected clock: DST keeps local time, the tick posts and reveals from the
store, downtime catch-up posts once within the grace and skips (and says so) after it, and local days roll
over per timezone for streaks. No real sleeping: tests call the tick."""

from __future__ import annotations

import datetime as dt
import logging
import random
from zoneinfo import ZoneInfo

import pytest

from bot.app.bootstrap import bootstrap
from bot.app.scheduler import DailyScheduler
from bot.daily.values import PostFinish
from bot.kernel.errors import RoundClosed
from bot.kernel.timing import last_post_at_or_before, next_post_after
from bot.kernel.values import Actor, ChannelConfig, ChannelRef
from bot.settings import ConfigChange
from bot.store.sqlite import SqliteStore
from tests.support.fakes import REF, FakePlatform, FixedClock, make_bank
from tests.support.memory_store import InMemoryStore

ADMIN = Actor("admin", True)


def cfg(tz: str, hh: int = 9, mm: int = 0, days: frozenset[int] = frozenset(range(7))) -> ChannelConfig:
    return ChannelConfig(ref=REF, post_time=dt.time(hh, mm), timezone=tz, weekdays=days)


def fires(c: ChannelConfig, start: dt.datetime, n: int) -> list[dt.datetime]:
    out, t = [], start
    for _ in range(n):
        t = next_post_after(c, t)
        out.append(t)
    return out


@pytest.mark.parametrize(
    ("tz", "start", "utc_hours"),
    [
        # from a Friday: Sat, Sun, Mon, Tue. Berlin leaves summer time on Sun 25 Oct 2026 (07:00 -> 08:00 UTC)
        ("Europe/Berlin", dt.datetime(2026, 10, 23, 12, tzinfo=dt.UTC), [7, 8, 8, 8]),
        # ... and enters it on Sun 29 Mar 2026
        ("Europe/Berlin", dt.datetime(2026, 3, 27, 12, tzinfo=dt.UTC), [8, 7, 7, 7]),
        # America/New_York leaves it on Sun 1 Nov 2026 (13:00 UTC -> 14:00 UTC) ...
        ("America/New_York", dt.datetime(2026, 10, 30, 18, tzinfo=dt.UTC), [13, 14, 14, 14]),
        # ... and enters it on Sun 8 Mar 2026
        ("America/New_York", dt.datetime(2026, 3, 6, 18, tzinfo=dt.UTC), [14, 13, 13, 13]),
    ],
)
def test_dst_weeks_keep_nine_local(tz, start, utc_hours):
    c = cfg(tz)
    got = fires(c, start, 4)
    assert [t.astimezone(ZoneInfo(tz)).strftime("%H:%M") for t in got] == ["09:00"] * 4
    assert [t.astimezone(dt.UTC).hour for t in got] == utc_hours
    days = [t.astimezone(ZoneInfo(tz)).date() for t in got]
    assert all((b - a).days == 1 for a, b in zip(days, days[1:], strict=False))


def test_weekdays_only_skip_the_weekend():
    c = cfg("Europe/Berlin", days=frozenset(range(5)))
    got = fires(c, dt.datetime(2026, 11, 26, 12, tzinfo=dt.UTC), 3)  # Thursday afternoon
    assert [t.strftime("%a %d") for t in got] == ["Fri 27", "Mon 30", "Tue 01"]


def test_a_time_inside_the_spring_gap_still_posts_that_day():
    # 02:30 does not exist in Berlin on 29 Mar 2026; the post must not be lost for that day
    got = fires(cfg("Europe/Berlin", 2, 30), dt.datetime(2026, 3, 28, 12, tzinfo=dt.UTC), 2)
    assert [t.astimezone(ZoneInfo("Europe/Berlin")).date().day for t in got] == [29, 30]


def test_last_post_at_or_before():
    c = cfg("Asia/Tokyo")
    now = dt.datetime(2026, 11, 30, 0, 30, tzinfo=dt.UTC)  # 09:30 in Tokyo
    assert last_post_at_or_before(c, now) == dt.datetime(2026, 11, 30, 9, tzinfo=ZoneInfo("Asia/Tokyo"))
    assert last_post_at_or_before(c, now).tzinfo is dt.UTC
    assert last_post_at_or_before(c, dt.datetime(2026, 11, 29, 23, 59, tzinfo=dt.UTC)) == dt.datetime(
        2026, 11, 29, 9, tzinfo=ZoneInfo("Asia/Tokyo")
    )


@pytest.fixture
async def env(tmp_path):
    store = SqliteStore(tmp_path / "s.db")
    await store.open()
    clock = FixedClock(dt.datetime(2026, 11, 30, 7, 0, tzinfo=dt.UTC))
    platform = FakePlatform()
    service = bootstrap(store, make_bank(), clock, {"fake": platform}, rng=random.Random(1))
    scheduler = DailyScheduler(service, clock, misfire_grace=dt.timedelta(hours=1))
    yield service, store, clock, platform, scheduler
    scheduler.shutdown()
    await service.close()
    await store.close()


async def test_config_changes_move_the_stored_due_instant(env):
    service, store, clock, platform, scheduler = env
    clock.set(dt.datetime(2026, 11, 30, 6, 0, tzinfo=dt.UTC))  # 07:00 Berlin
    await service.channels.configure(ADMIN, REF, ConfigChange.of(timezone="Europe/Berlin"))
    assert await store.get_next_post(REF) == dt.datetime(2026, 11, 30, 8, 0, tzinfo=dt.UTC)
    await service.channels.configure(ADMIN, REF, ConfigChange.of(post_time=dt.time(17, 15), timezone="Asia/Tokyo"))
    assert await store.get_next_post(REF) == dt.datetime(2026, 11, 30, 8, 15, tzinfo=dt.UTC)
    await service.channels.configure(ADMIN, REF, ConfigChange.of(paused=True))
    assert await store.get_next_post(REF) is None
    clock.set(dt.datetime(2026, 11, 30, 9, 0, tzinfo=dt.UTC))
    await scheduler.tick()
    assert platform.posted == []  # paused: nothing due
    await service.channels.configure(ADMIN, REF, ConfigChange.of(paused=False))
    assert await store.get_next_post(REF) == dt.datetime(2026, 12, 1, 8, 15, tzinfo=dt.UTC)


async def test_an_early_post_now_is_revealed_at_the_promised_instant_not_skipped(env):
    # observation 1: post-now at 08:06 for a 09:00 channel
    service, store, clock, platform, scheduler = env
    clock.set(dt.datetime(2026, 12, 8, 8, 0, tzinfo=dt.UTC))
    await service.channels.configure(ADMIN, REF)
    clock.set(dt.datetime(2026, 12, 8, 8, 6, tzinfo=dt.UTC))
    first = await service.posting.post_now(ADMIN, REF)
    card = platform.posted[-1][1]
    assert card.reveal_note.endswith("revealed Wed 09 Dec 09:00 (UTC).")
    assert first.closes_at == dt.datetime(2026, 12, 9, 9, 0, tzinfo=dt.UTC)
    assert await store.get_next_post(REF) == dt.datetime(2026, 12, 9, 9, 0, tzinfo=dt.UTC)
    clock.set(dt.datetime(2026, 12, 8, 9, 0, tzinfo=dt.UTC))
    await scheduler.tick()
    assert len(platform.posted) == 1 and platform.reveals == []  # its promise is tomorrow 09:00
    clock.set(dt.datetime(2026, 12, 9, 9, 0, 10, tzinfo=dt.UTC))
    await scheduler.tick()
    assert [c.round_id for _, c in platform.reveals] == [first.id]
    assert platform.reveals[0][1].note is None  # on time
    assert len(platform.posted) == 2
    clock.set(dt.datetime(2026, 12, 9, 9, 1, tzinfo=dt.UTC))
    answer = service.context.bank.get(first.question_id).answer_letter
    with pytest.raises(RoundClosed) as closed:
        await service.answers.submit_answer(first.id, "ada", 0)
    assert closed.value.message == f"Today's question closed at 09:00 (UTC); the answer was {answer}."


async def test_a_paused_channel_s_open_round_is_revealed_at_its_promised_instant(env):
    service, store, clock, platform, scheduler = env
    clock.set(dt.datetime(2026, 11, 30, 9, 0, tzinfo=dt.UTC))
    await service.channels.configure(
        ADMIN, REF, ConfigChange.of(timezone="Asia/Tokyo", post_time=dt.time(10, 0))
    )  # 01:00 UTC
    clock.set(dt.datetime(2026, 12, 1, 1, 0, 5, tzinfo=dt.UTC))
    await scheduler.tick()
    (round_,) = await store.open_daily_rounds()
    assert round_.closes_at == dt.datetime(2026, 12, 2, 1, 0, tzinfo=dt.UTC)
    await service.channels.configure(ADMIN, REF, ConfigChange.of(paused=True))
    clock.set(dt.datetime(2026, 12, 2, 1, 0, 5, tzinfo=dt.UTC))
    await scheduler.tick()
    assert [c.round_id for _, c in platform.reveals] == [round_.id] and len(platform.posted) == 1
    with pytest.raises(RoundClosed, match=r"closed at 10:00 \(Asia/Tokyo\); the answer was [ABCD]\.$"):
        await service.answers.submit_answer(round_.id, "late", 1)


async def test_a_round_before_days_off_is_revealed_at_the_next_weekday_post(env):
    service, store, clock, platform, scheduler = env
    clock.set(dt.datetime(2026, 12, 4, 8, 0, tzinfo=dt.UTC))  # Friday
    await service.channels.configure(ADMIN, REF, ConfigChange.of(weekdays=frozenset(range(5))))
    clock.set(dt.datetime(2026, 12, 4, 9, 0, tzinfo=dt.UTC))
    await scheduler.tick()
    (friday,) = await store.open_daily_rounds()
    assert friday.closes_at == dt.datetime(2026, 12, 7, 9, 0, tzinfo=dt.UTC)  # Monday
    for day in (5, 6):
        clock.set(dt.datetime(2026, 12, day, 9, 0, tzinfo=dt.UTC))
        await scheduler.tick()
    assert len(platform.posted) == 1 and platform.reveals == []
    clock.set(dt.datetime(2026, 12, 7, 9, 0, tzinfo=dt.UTC))
    await scheduler.tick()
    assert [c.round_id for _, c in platform.reveals] == [friday.id] and len(platform.posted) == 2


async def test_a_round_open_from_before_promises_gets_one_at_start(env):
    service, store, clock, platform, scheduler = env
    clock.set(dt.datetime(2026, 12, 8, 9, 0, tzinfo=dt.UTC))
    await store.save_channel(ChannelConfig(ref=REF))  # saved the old way: no next post stored
    old = await store.claim_daily_round(REF, dt.date(2026, 12, 8), "tensors-0", "tensors", clock.now(), None)
    await store.finish_posts([PostFinish(old.id, "sent", message_id="m-old")])
    clock.set(dt.datetime(2026, 12, 8, 12, 0, tzinfo=dt.UTC))
    await scheduler.start()
    scheduler.shutdown()
    assert (await store.get_round(old.id)).closes_at == dt.datetime(2026, 12, 9, 9, 0, tzinfo=dt.UTC)
    assert await store.get_next_post(REF) == dt.datetime(2026, 12, 9, 9, 0, tzinfo=dt.UTC)
    clock.set(dt.datetime(2026, 12, 9, 9, 0, tzinfo=dt.UTC))
    await scheduler.tick()
    assert [c.round_id for _, c in platform.reveals] == [old.id] and len(platform.posted) == 1


async def test_an_answer_window_is_the_promise(env):
    service, store, clock, platform, scheduler = env
    await store.save_channel(ChannelConfig(ref=REF, timezone="UTC", answer_window=dt.timedelta(hours=2)))
    clock.set(dt.datetime(2026, 11, 30, 9, 0, tzinfo=dt.UTC))
    round_ = await service.posting.post_scheduled(REF)
    assert round_.closes_at == dt.datetime(2026, 11, 30, 11, 0, tzinfo=dt.UTC)
    clock.set(dt.datetime(2026, 11, 30, 10, 59, tzinfo=dt.UTC))
    await scheduler.tick()
    assert platform.reveals == []
    clock.set(dt.datetime(2026, 11, 30, 11, 0, tzinfo=dt.UTC))
    await scheduler.tick()
    assert [c.round_id for _, c in platform.reveals] == [round_.id]


@pytest.mark.parametrize("tz", ["Asia/Tokyo", "Europe/Berlin", "America/New_York"])
@pytest.mark.parametrize("down", [dt.timedelta(minutes=30), dt.timedelta(hours=3), dt.timedelta(hours=25)])
async def test_downtime_catch_up(env, tz, down, caplog):
    # observation 2: quit after Tuesday's post, start again `down` after Wednesday's post time
    service, store, clock, platform, scheduler = env
    zone = ZoneInfo(tz)
    tuesday = dt.datetime(2026, 12, 8, 9, 0, tzinfo=zone).astimezone(dt.UTC)
    clock.set(tuesday - dt.timedelta(hours=1))
    await service.channels.configure(ADMIN, REF, ConfigChange.of(timezone=tz))
    clock.set(tuesday)
    await scheduler.tick()
    (first,) = await store.open_daily_rounds()
    await service.answers.submit_answer(first.id, "ada", 0)
    # ... the process is down; a new one starts:
    clock.set(tuesday + dt.timedelta(days=1) + down)
    again = DailyScheduler(service, clock, misfire_grace=dt.timedelta(hours=1))
    with caplog.at_level(logging.INFO):
        await again.start()
    again.shutdown()
    reveals = [c for _, c in platform.reveals]
    assert [c.round_id for c in reveals] == [first.id]
    with pytest.raises(RoundClosed, match=rf"closed at 09:00 \({tz}\)"):  # Tuesday's takes no more answers
        await service.answers.submit_answer(first.id, "bob", 1)
    assert reveals[0].note == "Revealed late: the bot was offline."
    posted_days = [c.title for _, c in platform.posted]
    notices = [text for _, text in platform.notices]
    if down <= dt.timedelta(hours=1):
        assert len(posted_days) == 2 and "Wed 09 Dec 2026" in posted_days[1] and notices == []
    else:
        assert len(notices) == 1 and "Wed 09 Dec" in notices[0] and "/quiz config post-now" in notices[0]
        assert any("skipped the daily post" in r.getMessage() for r in caplog.records)
        if down == dt.timedelta(hours=25):  # Thursday's post is 1 h late: within the grace
            assert len(posted_days) == 2 and "Thu 10 Dec 2026" in posted_days[1]
        else:
            assert len(posted_days) == 1
    # the next start or tick changes nothing
    await scheduler.tick()
    assert len(platform.reveals) == 1 and len(platform.notices) == len(notices)
    assert len(platform.posted) == len(posted_days)


@pytest.mark.parametrize(
    ("tz", "hhmm", "first", "days"),
    [
        ("Europe/Berlin", (2, 30), dt.date(2026, 10, 1), 31),
        ("Europe/Berlin", (2, 30), dt.date(2026, 3, 1), 31),
        ("America/New_York", (1, 30), dt.date(2026, 10, 15), 31),
        ("America/New_York", (2, 30), dt.date(2026, 3, 1), 31),
    ],
)
async def test_a_month_of_ticks_in_the_shifted_hours_posts_and_reveals_every_day_once(tz, hhmm, first, days):
    # observation 3 on the scheduler: ticks every 30 minutes through a transition month never hang
    store = InMemoryStore()
    await store.open()
    zone = ZoneInfo(tz)
    clock = FixedClock(dt.datetime.combine(first, dt.time(0, 0), tzinfo=zone) - dt.timedelta(hours=1))
    platform = FakePlatform()
    service = bootstrap(store, make_bank(), clock, {"fake": platform}, rng=random.Random(3))
    scheduler = DailyScheduler(service, clock)
    await service.channels.configure(ADMIN, REF, ConfigChange.of(timezone=tz, post_time=dt.time(*hhmm)))
    end = clock.now() + dt.timedelta(days=days)
    while clock.now() < end:
        clock.advance(minutes=30)
        await scheduler.tick()
    titles = [c.title for _, c in platform.posted]
    dates = [first + dt.timedelta(days=i) for i in range(days)]
    assert titles == [f"Daily PyTorch question, {d:%a %d %b %Y}" for d in dates]
    revealed = [c.round_id for _, c in platform.reveals]
    assert revealed == sorted(set(revealed)) and len(revealed) == days - 1
    await service.close()


@pytest.mark.parametrize(
    ("tz", "utc_post"),
    [("Asia/Tokyo", dt.time(0, 0)), ("Pacific/Kiritimati", dt.time(19, 0))],  # 09:00 local in UTC
)
async def test_local_days_roll_over_for_streaks(env, tz, utc_post):
    service, store, clock, platform, scheduler = env
    await service.channels.configure(ADMIN, REF, ConfigChange.of(timezone=tz))
    # Kiritimati (UTC+14) starts its 09:00 the previous UTC evening
    first_utc = dt.datetime.combine(dt.date(2026, 11, 30), utc_post, tzinfo=dt.UTC)
    if utc_post.hour >= 14:
        first_utc -= dt.timedelta(days=1)
    dates = []
    for day in range(4):
        clock.set(first_utc + dt.timedelta(days=day, minutes=1))
        round_ = await service.posting.post_scheduled(REF)
        assert round_ is not None
        dates.append(round_.local_date)
        right = service.context.bank.get(round_.question_id).answer
        clock.advance(hours=12)  # answer late in the local day: still that day's round
        await service.answers.submit_answer(round_.id, "ada", right)
    clock.advance(hours=12)
    await service.reveals.reveal_round(round_.id)
    assert dates == [dt.date(2026, 11, 30) + dt.timedelta(days=i) for i in range(4)]
    stats = await service.boards.stats("fake", "space-1", "ada")
    assert stats.current_streak == 4 and stats.points == 10 + 11 + 12 + 13


async def test_a_schedule_moved_earlier_keeps_the_open_round_s_promise(env):
    service, store, clock, platform, scheduler = env
    clock.set(dt.datetime(2026, 12, 1, 14, 0, tzinfo=dt.UTC))
    await service.channels.configure(ADMIN, REF)
    first = await service.posting.post_now(ADMIN, REF)  # promised for Wed 09:00
    await service.channels.configure(
        ADMIN, REF, ConfigChange.of(post_time=dt.time(2, 30))
    )  # the next post is Wed 02:30 now
    clock.set(dt.datetime(2026, 12, 2, 2, 30, tzinfo=dt.UTC))
    await scheduler.tick()
    assert len(platform.posted) == 2 and platform.reveals == []
    assert (await service.answers.submit_answer(first.id, "ada", 0)).chosen_letter == "A"  # still open, as promised
    clock.set(dt.datetime(2026, 12, 2, 9, 0, tzinfo=dt.UTC))
    await scheduler.tick()
    assert [c.round_id for _, c in platform.reveals] == [first.id]


async def test_a_space_s_channels_due_together_pick_as_one_after_another_and_a_taken_slot_is_skipped(env):
    """The tick claims a batch of due channels and their day's slots together: channels of one space still
    get different questions (each pick sees the ones before it), and a slot already taken is skipped
    without a second round (its own send goes out once)."""
    service, store, clock, platform, scheduler = env
    refs = [ChannelRef("fake", "space-1", f"chan-{i}") for i in range(1, 7)]
    clock.set(dt.datetime(2026, 11, 30, 7, 0, tzinfo=dt.UTC))
    for ref in refs:
        await service.channels.configure(ADMIN, ref)
    clock.set(dt.datetime(2026, 11, 30, 8, 0, tzinfo=dt.UTC))  # another process took one slot (not sent yet)
    early = await store.claim_daily_round(refs[2], dt.date(2026, 11, 30), "tensors-0", "tensors", clock.now(), None)
    clock.set(dt.datetime(2026, 11, 30, 9, 0, tzinfo=dt.UTC))
    await scheduler.tick()
    rounds = [await store.latest_daily_round(ref) for ref in refs]
    assert rounds[2].id == early.id  # the slot taken before: no second round
    assert sorted(card.round_id for _, card in platform.posted) == sorted(r.id for r in rounds)  # once each
    assert len({r.question_id for r in rounds}) == len(refs)  # nine questions: no space repeats one
    assert all(r.post_state == "sent" for r in rounds)
    for ref in refs:
        assert await store.get_next_post(ref) == dt.datetime(2026, 12, 1, 9, 0, tzinfo=dt.UTC)
