"""Monthly seasons on the fake clock and the in-memory store: the card with a channel's first post of the
month in its own timezone (America/Los_Angeles on Nov 30 -> Dec 1; the month DST ends in), once however many
processes tick, ties by who reached the score first, deferred while a round of the month is open, no card for
an empty month, a failed card retried, the champion role moved, the season boards and their bad input."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.kernel.errors import BadSetting, NoSeason
from bot.kernel.parsing import parse_season
from bot.kernel.values import ChannelRef
from bot.seasons.service import previous_season, season_label, season_text
from bot.settings import ConfigChange, lookup
from tests.support.seasons import ADMIN, Env, RoleFake, SeasonFake, season_env

LA = ChannelRef("fake", "space-1", "chan-la")
UTC_CHANNEL = ChannelRef("fake", "space-1", "chan-utc")
ROLE = "998877665544332211"


def test_season_ids_and_words() -> None:
    assert previous_season(dt.date(2026, 12, 1)) == "2026-11"
    assert previous_season(dt.date(2027, 1, 3)) == "2026-12"
    assert season_label("2026-11") == "November 2026"
    assert parse_season(" 2026-11 ") == "2026-11"
    for bad in ("2026-13", "2026-00", "26-11", "2026/11", "november", "x" * 6000):
        with pytest.raises(BadSetting) as caught:
            parse_season(bad)
        assert len(str(caught.value)) < 200 and "YYYY-MM" in str(caught.value)


def test_the_champion_role_setting_takes_a_role_mention_an_id_or_off() -> None:
    setting = lookup("champion_role")
    assert setting.default is None and setting.render(None) == "off"
    assert setting.parse(f"<@&{ROLE}>") == ROLE and setting.parse(ROLE) == ROLE and setting.parse("off") is None
    for bad in ("@Champion", "<@123456789012345678>", "12", "x" * 6000):
        with pytest.raises(BadSetting) as caught:
            setting.parse(bad)
        assert len(str(caught.value)) < 200


async def test_los_angeles_gets_novembers_card_on_its_own_december_first() -> None:
    env = await season_env()
    cfg = await env.configure(LA, post_time=dt.time(9, 0), timezone="America/Los_Angeles")
    # ann and bob both reach 10 points; bob answers first on Nov 29, so bob is ahead; cy has 21
    await env.play(cfg, dt.date(2026, 11, 29), [("bob", True), ("ann", True), ("cy", True), ("dee", False)])
    await env.play(cfg, dt.date(2026, 11, 30), [("cy", True)])
    # Dec 1 00:00 UTC is still Nov 30 in Los Angeles: no season yet
    await env.tick_at(dt.datetime(2026, 12, 1, 8, 0, tzinfo=dt.UTC))
    assert env.platform.seasons == []
    # Dec 1 09:00 PST = 17:00 UTC: the day's post reveals Nov 30, then the card names November's top three
    await env.play(cfg, dt.date(2026, 12, 1), [("ann", True)])
    assert env.clock.now() - dt.timedelta(seconds=5) == dt.datetime(2026, 12, 1, 17, 0, tzinfo=dt.UTC)
    [(ref, card)] = env.platform.seasons
    assert ref == LA and card.season == "2026-11" and card.label == "November 2026"
    assert [(r.rank, r.user_id, r.points) for r in card.rows] == [(1, "cy", 21), (2, "bob", 10), (3, "ann", 10)]
    text = season_text(card, "/quiz leaderboard season {season}")
    assert "Season November 2026" in text and "Champion: Cy, 21 points (2 of 2 correct)" in text
    assert "/quiz leaderboard season 2026-11" in text and "Dee" not in text
    archive = await env.store.season_archive("fake", "space-1", "2026-11")
    assert archive is not None and [r.user_id for r in archive.rows] == ["cy", "bob", "ann"]
    # later posts of the month's first week post no second card; December's answers never reach it
    for day in (2, 3):
        await env.play(cfg, dt.date(2026, 12, day), [("ann", True)])
    assert len(env.platform.seasons) == 1


async def test_the_card_comes_at_the_posting_time_of_the_month_dst_ends_in() -> None:
    env = await season_env(start=dt.date(2026, 10, 30))
    cfg = await env.configure(LA, post_time=dt.time(9, 0), timezone="America/Los_Angeles")
    await env.play(cfg, dt.date(2026, 10, 31), [("ann", True)])  # 09:00 PDT = 16:00 UTC
    assert env.clock.now() < dt.datetime(2026, 10, 31, 16, 1, tzinfo=dt.UTC)
    # Los Angeles leaves summer time on Sun 1 Nov 2026 at 02:00: 09:00 PST is 17:00 UTC, not 16:00
    await env.tick_at(dt.datetime(2026, 11, 1, 16, 0, tzinfo=dt.UTC))
    assert env.platform.seasons == []
    await env.tick_at(dt.datetime(2026, 11, 1, 17, 0, tzinfo=dt.UTC))
    [(_, card)] = env.platform.seasons
    assert card.season == "2026-10" and [r.user_id for r in card.rows] == ["ann"]


async def test_two_processes_post_the_card_once() -> None:
    first = await season_env()
    second = Env(first.store, first.platform, first.clock)  # another service on the same store and platform
    cfg = await first.configure(UTC_CHANNEL, timezone="UTC", recap_day=1)  # Tue 1 Dec: a post and a recap
    await first.play(cfg, dt.date(2026, 11, 30), [("ann", True)])
    first.clock.set(dt.datetime(2026, 12, 1, 9, 0, tzinfo=dt.UTC))
    import asyncio

    await asyncio.gather(first.scheduler.tick(), second.scheduler.tick(), first.scheduler.tick())
    assert len(first.platform.seasons) == 1 and first.platform.recaps == [UTC_CHANNEL]


async def test_a_month_without_scores_gets_no_card() -> None:
    env = await season_env()
    cfg = await env.configure(UTC_CHANNEL, timezone="UTC")
    await env.play(cfg, dt.date(2026, 11, 30), [("ann", False)])  # answered, but no points
    await env.play(cfg, dt.date(2026, 12, 1), [])
    assert env.platform.seasons == []
    archive = await env.store.season_archive("fake", "space-1", "2026-11")
    assert archive is not None and archive.rows == ()


async def test_a_round_of_the_month_still_open_elsewhere_in_the_space_defers_the_card() -> None:
    env = await season_env()
    early = await env.configure(UTC_CHANNEL, post_time=dt.time(9, 0), timezone="UTC")
    late = await env.configure(LA, post_time=dt.time(9, 0), timezone="America/Los_Angeles")
    await env.play(early, dt.date(2026, 11, 30), [("ann", True)])
    await env.play(late, dt.date(2026, 11, 30), [("bob", True), ("cy", True)])  # Nov 30 17:00 UTC
    await env.play(early, dt.date(2026, 12, 1), [])  # Dec 1 09:00 UTC: LA's Nov 30 round is still open
    assert env.platform.seasons == []
    assert await env.store.season_archive("fake", "space-1", "2026-11") is None
    await env.play(late, dt.date(2026, 12, 1), [])  # 17:00 UTC: LA's post reveals it, then its card
    [(ref, card)] = env.platform.seasons
    assert ref == LA and [r.user_id for r in card.rows] == ["ann", "bob", "cy"]
    await env.play(early, dt.date(2026, 12, 2), [])  # the UTC channel's next post brings its card
    assert [ref for ref, _ in env.platform.seasons] == [LA, UTC_CHANNEL]
    assert env.platform.seasons[1][1].rows == card.rows


async def test_a_card_that_could_not_be_sent_comes_with_the_next_post() -> None:
    env = await season_env(SeasonFake(fail=1))
    cfg = await env.configure(UTC_CHANNEL, timezone="UTC")
    await env.play(cfg, dt.date(2026, 11, 30), [("ann", True)])
    await env.play(cfg, dt.date(2026, 12, 1), [])
    assert env.platform.seasons == [] and len(env.platform.posted) == 2  # the day's question went out
    await env.play(cfg, dt.date(2026, 12, 2), [])
    assert len(env.platform.seasons) == 1


async def test_the_card_waits_for_no_later_than_the_months_first_week() -> None:
    env = await season_env()
    cfg = await env.configure(UTC_CHANNEL, timezone="UTC", paused=True)
    await env.service.channels.configure(ADMIN, UTC_CHANNEL, ConfigChange.of(paused=False))
    env.clock.set(dt.datetime(2026, 11, 30, 8, 0, tzinfo=dt.UTC))
    await env.play(cfg, dt.date(2026, 11, 30), [("ann", True)])
    await env.service.channels.configure(ADMIN, UTC_CHANNEL, ConfigChange.of(paused=True))
    env.clock.set(dt.datetime(2026, 12, 7, 23, 0, tzinfo=dt.UTC))
    await env.service.channels.configure(ADMIN, UTC_CHANNEL, ConfigChange.of(paused=False))
    await env.play(cfg, dt.date(2026, 12, 8), [])  # back on the 8th: too late for November's card
    assert env.platform.seasons == []


async def test_the_champion_role_moves_from_last_seasons_champion_to_the_new_one() -> None:
    env = await season_env(RoleFake(), start=dt.date(2026, 10, 30))
    cfg = await env.configure(UTC_CHANNEL, timezone="UTC", champion_role=ROLE)
    assert cfg.champion_role == ROLE
    await env.play(cfg, dt.date(2026, 10, 31), [("ann", True)])
    await env.play(cfg, dt.date(2026, 11, 1), [("bob", True)])
    assert env.platform.moves == [(ROLE, "ann", None)]
    await env.play(cfg, dt.date(2026, 11, 30), [("bob", True)])
    await env.play(cfg, dt.date(2026, 12, 1), [])
    assert env.platform.moves == [(ROLE, "ann", None), (ROLE, "bob", "ann")]
    assert env.platform.seasons[-1][1].champion_role == ROLE
    assert "champion role" in season_text(env.platform.seasons[-1][1], "/x {season}")


async def test_a_champion_role_the_bot_cannot_give_is_refused_and_nothing_saved() -> None:
    env = await season_env(RoleFake(problem="I need the Manage Roles permission to give the champion role."))
    await env.configure(UTC_CHANNEL, timezone="UTC")
    with pytest.raises(BadSetting, match="Manage Roles"):
        await env.service.channels.configure(ADMIN, UTC_CHANNEL, ConfigChange.of(champion_role=ROLE))
    assert (await env.service.channels.channel_config(UTC_CHANNEL)).champion_role is None
    env.platform.problem = None
    await env.service.channels.configure(
        ADMIN, UTC_CHANNEL, ConfigChange.parse([("champion_role", "off")])
    )  # always fine


async def test_the_champion_role_is_discord_only() -> None:
    env = await season_env(SeasonFake())  # a platform without roles (Slack, the console)
    await env.configure(UTC_CHANNEL, timezone="UTC")
    for value in (ROLE, "off"):
        with pytest.raises(BadSetting, match="Discord setting: Fake has no roles"):
            await env.service.channels.configure(ADMIN, UTC_CHANNEL, ConfigChange.parse([("champion_role", value)]))
    assert (await env.service.channels.channel_config(UTC_CHANNEL)).champion_role is None


async def test_season_boards_show_the_archive_and_the_month_and_refuse_what_is_not_a_season() -> None:
    env = await season_env()
    cfg = await env.configure(UTC_CHANNEL, timezone="UTC")
    for day, who in ((28, "ann"), (29, "bob"), (30, "cy")):
        await env.play(cfg, dt.date(2026, 11, day), [(who, True), ("dee", day == 30)])
    env.clock.set(dt.datetime(2026, 12, 1, 8, 0, tzinfo=dt.UTC))  # December, before its first post
    board_before = await env.service.seasons.board("fake", "space-1", "2026-11", "dee")
    assert board_before.podium == () and "Not archived yet" in board_before.note
    await env.play(cfg, dt.date(2026, 12, 1), [("ann", True)])
    board = await env.service.seasons.board("fake", "space-1", "2026-11", "dee")
    assert board.title == "Season November 2026"
    assert [r.user_id for r in board.podium] == ["ann", "bob", "cy"]
    assert [r.user_id for r in board.rows] == ["ann", "bob", "cy", "dee"]
    assert board.me is not None and board.me.user_id == "dee" and board.note.startswith("Archived on 01 December")
    with pytest.raises(NoSeason, match="still running"):
        await env.service.seasons.board("fake", "space-1", "2026-12")
    with pytest.raises(NoSeason, match="has not started yet"):
        await env.service.seasons.board("fake", "space-1", "2027-01")
    with pytest.raises(NoSeason, match="No season results for October 2026"):
        await env.service.seasons.board("fake", "space-1", "2026-10")
    with pytest.raises(NoSeason, match="No season results"):
        await env.service.seasons.board("fake", "other-space", "2026-11")
    with pytest.raises(BadSetting) as caught:
        await env.service.seasons.board("fake", "space-1", "<@everyone>" * 600)
    assert len(str(caught.value)) < 200
