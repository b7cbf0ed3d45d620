"""Reminders: due instants across both DST changes, the once-a-day send, what the message says, bad input
and a blocked DM, on the in-memory store with a fixed clock."""

from __future__ import annotations

import datetime as dt
import logging

import pytest

from bot.access.values import DashboardLink
from bot.app.bootstrap import bootstrap
from bot.features import Features
from bot.kernel.errors import BadSetting
from bot.kernel.values import Actor, ChannelRef
from bot.reminders.service import DEFAULT_TIME, next_reminder_at, parse_remind_time
from bot.reminders.values import Reminder
from bot.settings import ConfigChange
from bot.text.command_values import Remind
from bot.text.commands import parse_quiz
from tests.support.direct import DirectFakePlatform
from tests.support.fakes import FakePlatform, FixedClock, make_bank, store_of
from tests.support.memory_store import InMemoryStore

BERLIN = "Europe/Berlin"
REF = ChannelRef("fake", "space-1", "chan-1")
ADMIN = Actor("admin", is_admin=True)


def utc(*args: int) -> dt.datetime:
    return dt.datetime(*args, tzinfo=dt.UTC)


# ---- due instants ----------------------------------------------------------------------------------


def test_next_reminder_is_the_next_wall_time_in_the_zone():
    assert next_reminder_at(dt.time(9, 0), BERLIN, utc(2026, 12, 1, 7, 59)) == utc(2026, 12, 1, 8, 0)
    assert next_reminder_at(dt.time(9, 0), BERLIN, utc(2026, 12, 1, 8, 0)) == utc(2026, 12, 2, 8, 0)  # strictly after
    assert next_reminder_at(dt.time(0, 30), "Pacific/Kiritimati", utc(2026, 12, 1, 12, 0)) == utc(2026, 12, 2, 10, 30)


def test_spring_forward_keeps_the_wall_time_and_a_time_in_the_gap_moves_to_its_end():
    # Berlin 2026-03-29: 02:00 CET jumps to 03:00 CEST
    before = next_reminder_at(dt.time(9, 0), BERLIN, utc(2026, 3, 28, 9, 0))
    assert before == utc(2026, 3, 29, 7, 0)  # 09:00 CEST is 07:00 UTC (a day earlier it was 08:00 UTC)
    assert next_reminder_at(dt.time(9, 0), BERLIN, utc(2026, 3, 27, 9, 0)) == utc(2026, 3, 28, 8, 0)
    gap = next_reminder_at(dt.time(2, 30), BERLIN, utc(2026, 3, 28, 12, 0))
    assert gap == utc(2026, 3, 29, 1, 0)  # 03:00 CEST, the end of the gap
    assert next_reminder_at(dt.time(2, 30), BERLIN, gap) == utc(2026, 3, 30, 0, 30)


def test_fall_back_keeps_the_wall_time_and_a_repeated_time_comes_once_at_its_first_occurrence():
    # Berlin 2026-10-25: 03:00 CEST goes back to 02:00 CET
    assert next_reminder_at(dt.time(9, 0), BERLIN, utc(2026, 10, 24, 8, 0)) == utc(2026, 10, 25, 8, 0)
    assert next_reminder_at(dt.time(9, 0), BERLIN, utc(2026, 10, 23, 8, 0)) == utc(2026, 10, 24, 7, 0)
    first = next_reminder_at(dt.time(2, 30), BERLIN, utc(2026, 10, 24, 12, 0))
    assert first == utc(2026, 10, 25, 0, 30)  # 02:30 CEST
    assert next_reminder_at(dt.time(2, 30), BERLIN, first) == utc(2026, 10, 26, 1, 30)  # not 01:30 UTC (CET) too


def test_reminder_times_parse_and_bad_ones_say_what_is_accepted():
    assert parse_remind_time(None) == DEFAULT_TIME == dt.time(9, 0)
    assert parse_remind_time("8:30") == dt.time(8, 30)
    for bad in ("25:00", "9", "09:60", "noon", "09:00:00"):
        with pytest.raises(BadSetting, match="not a reminder time.*HH:MM"):
            parse_remind_time(bad)


def test_a_reminder_refuses_a_naive_instant():
    with pytest.raises(ValueError):
        Reminder("p", "s", "u", "c", dt.time(9, 0), BERLIN, True, dt.datetime(2026, 12, 1, 9, 0))


def test_the_text_grammar_of_remind():
    assert parse_quiz("/quiz remind on") == Remind(True, None)
    assert parse_quiz("remind on 08:30") == Remind(True, dt.time(8, 30))
    assert parse_quiz("remind OFF") == Remind(False, None)
    assert parse_quiz("remind") == parse_quiz("/quiz remind status") == Remind(None)  # show it
    assert parse_quiz("remind on america/new_york 07:15") == Remind(True, dt.time(7, 15), "America/New_York")
    assert parse_quiz("remind on UTC") == Remind(True, None, "UTC")
    for bad, says in (
        ("remind on 8h", "not a reminder time"),
        ("remind on 08:00 Mars/Base", "'Mars/Base' is not an IANA timezone"),
        ("remind on UTC Europe/Paris", "remind on"),
        ("remind maybe", "remind on"),
        ("remind off 09:00", "remind off"),
        ("remind on 09:00 10:00", "remind on"),
    ):
        with pytest.raises(BadSetting, match=says):
            parse_quiz(bad)


# ---- the service -----------------------------------------------------------------------------------


@pytest.fixture
async def env():
    store = InMemoryStore()
    await store.open()
    clock = FixedClock(utc(2026, 12, 1, 6, 0))  # Tuesday 07:00 in Berlin
    platform = DirectFakePlatform()
    service = bootstrap(store, make_bank(), clock, {"fake": platform})
    await service.channels.configure(ADMIN, REF, ConfigChange.of(post_time=dt.time(10, 0), timezone=BERLIN))
    yield service, store, clock, platform
    await service.close()
    await store.close()


async def _miss_one(service: Features, clock: FixedClock, user: str) -> None:
    """A practice miss: a card due again a day later."""
    card = await service.practice.start_practice(REF, user)
    round_ = await store_of(service).get_round(card.round_id)
    question = service.context.bank.get(round_.question_id)
    await service.answers.submit_answer(card.round_id, user, (question.answer + 1) % 4)


async def test_reviews_due_are_nudged_once_a_day_at_the_learners_time_in_the_channel_zone(env):
    service, store, clock, platform = env
    await _miss_one(service, clock, "ann")
    card = await service.reminders.set(REF, "ann", True, dt.time(8, 30))
    assert card.enabled and "08:30 (Europe/Berlin)" in card.text and "/quiz remind off" in card.text
    clock.set(utc(2026, 12, 2, 7, 29))  # Wednesday 08:29 Berlin: the miss is due, the reminder not yet
    await service.reminders.run_due()
    assert platform.direct == []
    clock.set(utc(2026, 12, 2, 7, 30))
    await service.reminders.run_due()
    await service.reminders.run_due()
    assert len(platform.direct) == 1
    ref, user, text = platform.direct[0]
    assert (ref, user) == (REF, "ann") and "1 review today: start with /quiz review." in text
    assert "Today's question" not in text and "dashboard" not in text  # this bot runs none
    clock.set(utc(2026, 12, 2, 12, 0))
    await service.reminders.run_due()
    assert len(platform.direct) == 1  # once a day
    clock.set(utc(2026, 12, 3, 7, 30))
    await service.reminders.run_due()
    assert len(platform.direct) == 2  # still due the next day


async def test_where_a_dashboard_signs_members_in_the_nudge_links_its_review_page(env):
    service, _store, clock, platform = env
    await _miss_one(service, clock, "ann")
    await service.reminders.set(REF, "ann", True, dt.time(8, 30))
    service.access.dashboard = DashboardLink("https://quiz.example.com", frozenset({REF.platform}))
    clock.set(utc(2026, 12, 2, 7, 30))
    await service.reminders.run_due()
    [(_ref, _user, text)] = platform.direct
    page = f"https://quiz.example.com/s/{REF.platform}/{REF.space_id}/review"
    assert f"1 review today: start with /quiz review, or on the dashboard: {page}." in text
    service.access.dashboard = DashboardLink("https://quiz.example.com", frozenset({"slack"}))  # not this platform's
    assert service.access.page_url(REF.platform, REF.space_id, "review") is None
    assert service.access.page_url("console", "local", "review") is None  # the console signs in by one-time link


async def test_todays_unanswered_question_is_mentioned_until_answered(env):
    service, store, clock, platform = env
    await service.reminders.set(REF, "bob", True, dt.time(12, 0))
    await service.reminders.set(REF, "cy", True, dt.time(12, 0))
    clock.set(utc(2026, 12, 1, 9, 0))  # 10:00 Berlin: the daily question goes out
    round_ = await service.posting.post_scheduled(REF)
    assert round_ is not None
    await service.answers.answer_in_channel(REF, "cy", 0)
    clock.set(utc(2026, 12, 1, 11, 0))  # 12:00 Berlin
    await service.reminders.run_due()
    assert [(u, "Today's question is still waiting" in t) for _r, u, t in platform.direct] == [("bob", True)]
    assert "revealed Wed 02 Dec 10:00 (Europe/Berlin)" in platform.direct[0][2]


async def test_nothing_to_say_sends_nothing_but_the_day_is_done(env):
    service, store, clock, platform = env
    await service.reminders.set(REF, "dee", True)  # default 09:00
    clock.set(utc(2026, 12, 1, 8, 0))
    await service.reminders.run_due()
    assert platform.direct == []
    assert not await store.claim_reminder_day("fake", "space-1", "dee", dt.date(2026, 12, 1), clock.now())
    assert (await store.get_reminder("fake", "space-1", "dee")).next_at == utc(2026, 12, 2, 8, 0)


async def test_the_learners_own_timezone_wins_over_the_channels(env):
    service, store, clock, platform = env
    platform.timezones["eve"] = "America/New_York"
    card = await service.reminders.set(REF, "eve", True, dt.time(9, 0))
    assert "(America/New_York)" in card.text
    stored = await store.get_reminder("fake", "space-1", "eve")
    assert stored.timezone == "America/New_York" and stored.next_at == utc(2026, 12, 1, 14, 0)
    platform.timezones["fay"] = "Mars/Olympus"  # not a zone: the channel's is used
    assert "(Europe/Berlin)" in (await service.reminders.set(REF, "fay", True)).text


async def test_off_stops_them_and_on_again_restarts_them(env):
    service, store, clock, platform = env
    await _miss_one(service, clock, "gus")
    await service.reminders.set(REF, "gus", True, dt.time(9, 0))
    off = await service.reminders.set(REF, "gus", False)
    assert not off.enabled and "/quiz remind on" in off.text
    clock.set(utc(2026, 12, 2, 8, 0))
    await service.reminders.run_due()
    assert platform.direct == []
    await service.reminders.set(REF, "gus", True, dt.time(10, 0))
    clock.set(utc(2026, 12, 2, 9, 0))
    await service.reminders.run_due()
    assert len(platform.direct) == 1


async def test_a_blocked_dm_switches_reminders_off_logged_once(env, caplog):
    service, store, clock, platform = env
    await _miss_one(service, clock, "hal")
    await service.reminders.set(REF, "hal", True, dt.time(9, 0))
    platform.blocked.add("hal")
    caplog.set_level(logging.INFO, logger="bot.reminders.service")
    for day in (2, 3, 4):
        clock.set(utc(2026, 12, day, 8, 0))
        await service.reminders.run_due()
    assert platform.direct == [] and platform.attempts == 1
    assert not (await store.get_reminder("fake", "space-1", "hal")).enabled
    assert sum("switched off" in r.getMessage() for r in caplog.records) == 1


async def test_a_reminder_missed_by_hours_is_skipped_for_that_day(env):
    service, store, clock, platform = env
    await _miss_one(service, clock, "ivy")
    await service.reminders.set(REF, "ivy", True, dt.time(9, 0))
    clock.set(utc(2026, 12, 4, 20, 0))  # offline since Wednesday morning
    await service.reminders.run_due()
    assert platform.direct == []
    assert (await store.get_reminder("fake", "space-1", "ivy")).next_at == utc(2026, 12, 5, 8, 0)
    clock.set(utc(2026, 12, 5, 8, 1))
    await service.reminders.run_due()
    assert len(platform.direct) == 1


async def test_reminders_are_per_space(env):
    service, store, clock, platform = env
    await _miss_one(service, clock, "jo")
    other = ChannelRef("fake", "space-2", "chan-9")
    clock.set(utc(2026, 12, 2, 7, 0))
    await service.reminders.set(REF, "jo", True, dt.time(9, 0))
    await service.reminders.set(other, "jo", True, dt.time(9, 0))  # nothing due in space-2
    clock.set(utc(2026, 12, 2, 9, 0))
    await service.reminders.run_due()
    assert [r.space_id for r, _u, _t in platform.direct] == ["space-1"]


async def test_a_platform_not_running_here_is_left_alone_and_one_without_dms_sends_nothing(env):
    service, store, clock, platform = env
    await _miss_one(service, clock, "kim")
    await service.reminders.set(REF, "kim", True, dt.time(9, 0))
    due_at = (await store.get_reminder("fake", "space-1", "kim")).next_at
    service.context.platforms.remove("fake")  # this process does not run the platform: another one sends it
    clock.set(due_at)
    await service.reminders.run_due()
    assert (await store.get_reminder("fake", "space-1", "kim")).next_at == due_at
    service.context.platforms.add(FakePlatform())  # running, but with no direct messages
    await service.reminders.run_due()
    assert (await store.get_reminder("fake", "space-1", "kim")).next_at == due_at + dt.timedelta(days=1)
    assert await store.claim_reminder_day("fake", "space-1", "kim", due_at.date(), clock.now())  # not used up


async def test_a_failed_send_is_logged_not_retried_that_day_and_reminders_stay_on(env, caplog):
    service, store, clock, platform = env
    await _miss_one(service, clock, "lu")
    clock.set(utc(2026, 12, 2, 7, 0))
    await service.reminders.set(REF, "lu", True, dt.time(9, 0))
    platform.failing.add("lu")
    clock.set(utc(2026, 12, 2, 8, 0))
    await service.reminders.run_due()
    clock.set(utc(2026, 12, 2, 8, 30))
    await service.reminders.run_due()
    assert platform.attempts == 1 and platform.direct == []
    assert any("ConnectionError: the platform is down" in r.getMessage() for r in caplog.records)
    assert (await store.get_reminder("fake", "space-1", "lu")).enabled
    platform.failing.clear()
    clock.set(utc(2026, 12, 3, 8, 0))
    await service.reminders.run_due()
    assert len(platform.direct) == 1


async def test_a_timezone_given_is_kept_and_remind_alone_shows_the_reminder(env):
    service, store, clock, platform = env
    shown = await service.reminders.show(REF, "max")
    assert (
        not shown.enabled
        and "Reminders are off" in shown.text
        and "/quiz remind on 07:30 Europe/Berlin sets the time" in shown.text
    )
    card = await service.reminders.set(REF, "max", True, dt.time(7, 30), "America/New_York")
    assert "07:30 (America/New_York)" in card.text
    assert (await store.get_reminder("fake", "space-1", "max")).next_at == utc(2026, 12, 1, 12, 30)
    await service.reminders.set(REF, "max", False)
    off = await service.reminders.show(REF, "max")
    assert not off.enabled and "/quiz remind on sends you a private message at 07:30 (America/New_York)" in off.text
    again = await service.reminders.set(REF, "max", True)  # on again: its own time and zone, not 09:00 Berlin
    assert "07:30 (America/New_York)" in again.text
    shown = await service.reminders.show(REF, "max")
    assert shown.enabled and "at 07:30 (America/New_York), the next one Tue 01 Dec 07:30" in shown.text
    moved = await service.reminders.set(REF, "max", True, dt.time(6, 0))  # a new time, the same zone
    assert "06:00 (America/New_York)" in moved.text
    platform.timezones["max"] = "Asia/Tokyo"  # a platform that knows the member's own zone: it wins
    assert "06:00 (Asia/Tokyo)" in (await service.reminders.set(REF, "max", True)).text
