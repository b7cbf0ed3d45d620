"""The console channel's daily behaviour (issue 10, observation 8), in process with an injected clock: it
obeys pause and weekdays at start, prints each card once, and `config show` names the real next post."""

from __future__ import annotations

import datetime as dt
import io
import random

from adapters.console.channel import CONSOLE_REF, ConsoleChannel
from bot.app.bootstrap import bootstrap
from bot.app.scheduler import DailyScheduler
from bot.features import Features
from bot.kernel.values import Actor
from bot.settings import ConfigChange
from tests.support.fakes import FixedClock, make_bank, store_of
from tests.support.memory_store import InMemoryStore

OWNER = Actor("you", True)


async def console_at(moment: dt.datetime, **settings: object) -> tuple[ConsoleChannel, Features, io.StringIO]:
    store = InMemoryStore()
    await store.open()
    clock = FixedClock(moment)
    service = bootstrap(store, make_bank(), clock, rng=random.Random(7))
    out = io.StringIO()
    console = ConsoleChannel(service, stdin=io.StringIO(""), stdout=out)
    if settings:
        await service.channels.configure(OWNER, CONSOLE_REF, ConfigChange.of(**settings))
    return console, service, out


async def back_online(console: ConsoleChannel, service: Features, out: io.StringIO, at: dt.datetime) -> str:
    """The bot started again at `at`: its catch-up, the console's start and one tick; what the console said."""
    service.context.clock.set(at)
    scheduler = DailyScheduler(service, service.context.clock)
    await scheduler.catch_up()
    await console.start()
    await scheduler.tick()
    return out.getvalue()


async def test_a_paused_console_posts_nothing_at_start():
    console, service, out = await console_at(dt.datetime(2026, 12, 8, 8, 6, tzinfo=dt.UTC), paused=True)
    await DailyScheduler(service, service.context.clock).catch_up()
    await console.start()
    assert "== Daily PyTorch question" not in out.getvalue()
    assert "The daily question is paused here; an admin turns it on with /quiz config resume." in out.getvalue()
    assert await store_of(service).latest_daily_round(CONSOLE_REF) is None
    await console.handle("/quiz config show")
    assert "paused: no daily question is posted here until it is resumed" in out.getvalue()


async def test_a_console_on_a_day_off_posts_nothing_and_says_when(tmp_path):
    saturday = dt.datetime(2026, 12, 12, 8, 6, tzinfo=dt.UTC)
    console, service, out = await console_at(saturday, weekdays=frozenset(range(5)))
    await console.start()
    assert "== Daily PyTorch question" not in out.getvalue()
    assert "No daily question today; the next one comes Mon 14 Dec 09:00 (UTC)." in out.getvalue()


async def test_a_catch_up_card_is_printed_once():
    console, service, out = await console_at(dt.datetime(2026, 12, 8, 8, 0, tzinfo=dt.UTC), timezone="UTC")
    service.context.clock.set(dt.datetime(2026, 12, 8, 9, 30, tzinfo=dt.UTC))  # started 30 min after the post time
    scheduler = DailyScheduler(service, service.context.clock)
    await scheduler.catch_up()
    await console.start()
    assert out.getvalue().count("== Daily PyTorch question") == 1
    await console.handle("/quiz config show")
    assert "next post 2026-12-09 09:00 UTC" in out.getvalue()  # today's is out: tomorrow


async def test_config_show_skips_the_spring_forward_gap():
    # 01:00 in Berlin on the night clocks jump from 02:00 to 03:00
    console, service, out = await console_at(
        dt.datetime(2026, 3, 29, 0, 0, tzinfo=dt.UTC),
        timezone="Europe/Berlin",
        post_time=dt.time(2, 30),
        paused=True,
    )
    await console.handle("/quiz config resume")
    await console.handle("/quiz config show")
    assert "next post 2026-03-29 03:00 CEST" in out.getvalue()
    assert "02:30 CE" not in out.getvalue()


async def test_a_day_missed_while_offline_is_told_in_plain_words_once():
    console, service, out = await console_at(
        dt.datetime(2026, 12, 7, 20, 0, tzinfo=dt.UTC),  # 05:00 in Tokyo
        **{"timezone": "Asia/Tokyo", "post_time": dt.time(9, 0)},
    )
    # back at 12:00:01 in Tokyo: 3 h late
    text = await back_online(console, service, out, dt.datetime(2026, 12, 8, 3, 0, 1, tzinfo=dt.UTC))
    assert text.count("The bot was offline at 09:00 (Asia/Tokyo) on Tue 08 Dec") == 1
    assert "/quiz config post-now" in text
    assert "skipped the daily post" not in text and "WARNING" not in text  # no log lines in the transcript


async def test_several_days_missed_while_offline_are_told_in_one_note_naming_them():
    console, service, out = await console_at(
        dt.datetime(2026, 12, 7, 20, 0, tzinfo=dt.UTC), timezone="UTC", weekdays=frozenset(range(5))
    )
    # back on Monday, within the grace
    text = await back_online(console, service, out, dt.datetime(2026, 12, 14, 9, 30, tzinfo=dt.UTC))
    # Tuesday to Friday missed; the weekend is no posting day; Monday's question goes out
    assert text.count("The bot was offline") == 1
    assert "on 4 days, from Tue 08 Dec to Fri 11 Dec, so their questions were not posted" in text
    assert text.count("== Daily PyTorch question, Mon 14 Dec 2026") == 1


async def test_a_day_missed_past_the_grace_is_skipped_in_the_console_too():
    """Issue 28 item 8: the console says what the daily loop did (skipped, told) and does not post that day
    by itself; what the note offers (an admin posts it now) then works."""
    console, service, out = await console_at(dt.datetime(2026, 12, 7, 20, 0, tzinfo=dt.UTC), timezone="UTC")
    # back 2 h after 09:00, beyond the grace of 1 h
    text = await back_online(console, service, out, dt.datetime(2026, 12, 8, 11, 0, 1, tzinfo=dt.UTC))
    assert text.count("The bot was offline at 09:00 (UTC) on Tue 08 Dec, so that day's question was not posted") == 1
    assert "No daily question is open; the next one comes Wed 09 Dec 09:00 (UTC)." in text
    assert "== Daily PyTorch question" not in text
    assert await store_of(service).latest_daily_round(CONSOLE_REF) is None
    await console.handle("/quiz config post-now")  # what the note says an admin can do
    posted = await store_of(service).latest_daily_round(CONSOLE_REF)
    assert posted is not None and posted.local_date == dt.date(2026, 12, 8)
    assert out.getvalue().count("== Daily PyTorch question") == 1


async def test_a_post_missed_within_the_grace_goes_out_late_in_the_console():
    console, service, out = await console_at(dt.datetime(2026, 12, 7, 20, 0, tzinfo=dt.UTC), timezone="UTC")
    service.context.clock.set(dt.datetime(2026, 12, 8, 9, 59, tzinfo=dt.UTC))  # 59 min late: within the 1 h grace
    scheduler = DailyScheduler(service, service.context.clock)
    await scheduler.catch_up()
    await console.start()
    text = out.getvalue()
    assert text.count("== Daily PyTorch question") == 1 and "offline" not in text
    posted = await store_of(service).latest_daily_round(CONSOLE_REF)
    assert posted is not None and posted.local_date == dt.date(2026, 12, 8)


async def test_a_console_started_before_the_post_time_waits_for_the_daily_loop():
    console, service, out = await console_at(dt.datetime(2026, 12, 7, 20, 0, tzinfo=dt.UTC), timezone="UTC")
    service.context.clock.set(dt.datetime(2026, 12, 8, 8, 0, tzinfo=dt.UTC))
    scheduler = DailyScheduler(service, service.context.clock)
    await scheduler.catch_up()
    await console.start()
    assert "No daily question is open; the next one comes Tue 08 Dec 09:00 (UTC)." in out.getvalue()
    assert await store_of(service).latest_daily_round(CONSOLE_REF) is None
    service.context.clock.set(dt.datetime(2026, 12, 8, 9, 0, tzinfo=dt.UTC))
    await scheduler.tick()
    assert out.getvalue().count("== Daily PyTorch question") == 1


async def test_a_first_console_start_posts_today_s_question_at_once():
    console, service, out = await console_at(dt.datetime(2026, 12, 8, 15, 0, tzinfo=dt.UTC))  # a new channel
    await DailyScheduler(service, service.context.clock).catch_up()
    await console.start()
    assert out.getvalue().count("== Daily PyTorch question") == 1
    posted = await store_of(service).latest_daily_round(CONSOLE_REF)
    assert posted is not None and posted.local_date == dt.date(2026, 12, 8)


async def test_the_console_prints_the_season_card_and_the_season_board():
    console, service, out = await console_at(dt.datetime(2026, 11, 30, 8, 0, tzinfo=dt.UTC), timezone="UTC")
    scheduler = DailyScheduler(service, service.context.clock)
    await console.start()
    service.context.clock.set(dt.datetime(2026, 11, 30, 9, 0, tzinfo=dt.UTC))
    await scheduler.tick()
    round_ = await store_of(service).latest_daily_round(CONSOLE_REF)
    assert round_ is not None and round_.local_date == dt.date(2026, 11, 30)
    await service.answers.submit_answer(round_.id, "you", service.context.bank.get(round_.question_id).answer)
    service.context.clock.set(dt.datetime(2026, 12, 1, 9, 0, tzinfo=dt.UTC))
    await scheduler.tick()
    assert "🏆 Season November 2026 is over." in out.getvalue()
    assert "Champion: you, 10 points (1 of 1 correct)" in out.getvalue()
    await console.handle("/quiz leaderboard season 2026-11")
    board = out.getvalue().split("/quiz leaderboard season 2026-11")[-1]
    assert "== Season November 2026 ==" in board and "champion  you" in board and "(Archived on 01 December" in board
    await console.handle("/quiz leaderboard season 2026-13")
    assert "'2026-13' is not a season: use a month as YYYY-MM" in out.getvalue()
    await console.handle("/quiz config champion_role 123456789012345678")
    assert "champion_role is a Discord setting: Console has no roles" in out.getvalue()
