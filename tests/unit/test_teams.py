"""Teams on the in-memory store and a fixed clock: names checked (length, mentions, markup, case), one team per
member, the last member takes the team along, admins rename and remove, the team board (best three members'
daily points, the space's local week across both DST changes), a live game's totals by the same rule, the team
of the month on the season card, and the `/quiz team` grammar."""

from __future__ import annotations

import datetime as dt
import random
from zoneinfo import ZoneInfo

import pytest

from bot.app.bootstrap import bootstrap
from bot.kernel.errors import BadSetting, NotAllowed
from bot.kernel.values import Actor, ChannelConfig, ChannelRef, Period
from bot.seasons.service import season_text
from bot.teams.values import TeamMember, TeamRefused, TeamTotal, team_name, team_totals
from bot.text.command_values import ShowLeaderboard, ShowTeamBoard, TeamCommand
from bot.text.commands import parse_quiz
from tests.support.fakes import FixedClock, make_bank, store_of
from tests.support.memory_store import InMemoryStore
from tests.support.seasons import season_env

REF = ChannelRef("fake", "space-1", "chan-1")
OTHER_SPACE = ChannelRef("fake", "space-2", "chan-9")
ADMIN = Actor("admin", is_admin=True)
MEMBER = Actor("ann")
T0 = dt.datetime(2026, 6, 3, 12, 0, tzinfo=dt.UTC)  # a Wednesday
ZONE = ZoneInfo("Europe/Berlin")


async def teams_env(start: dt.datetime = T0, timezone: str = "UTC"):
    store = InMemoryStore()
    await store.open()
    clock = FixedClock(start)
    service = bootstrap(store, make_bank(), clock, rng=random.Random(1))
    await store.save_channel(ChannelConfig(ref=REF, timezone=timezone))
    return service, clock


# ---- names ---------------------------------------------------------------------------------------


def test_a_team_name_is_2_to_32_letters_digits_spaces_and_a_little_punctuation() -> None:
    assert team_name("  Green   Tea ") == "Green Tea"
    assert team_name("O'Neill's 2nd-Team.") == "O'Neill's 2nd-Team."
    assert team_name("Équipe Été") == "Équipe Été" and team_name("学习小组") == "学习小组"
    for bad, why in (
        ("", "Give the team a name"),
        ("x", "2 to 32 characters"),
        ("x" * 33, "2 to 32 characters"),
        ("<@123456789012345678>", "no mentions"),
        ("@everyone", "no mentions"),
        ("<!subteam^S0123ABC|@all>", "no mentions"),
        ("**bold**", "markup"),
        ("__init__", "markup"),
        ("a`b`", "markup"),
        ("[link](https://x.y)", "markup"),
        ("team 🚀", "emoji"),
        ("a\u202eb", "letters, digits"),  # a right-to-left override
        ("--", "a letter or a digit"),
        ("x" * 6000, "2 to 32 characters"),
    ):
        with pytest.raises(BadSetting, match=why) as caught:
            team_name(bad)
        assert len(caught.value.message) < 200


async def test_names_are_unique_whatever_their_case_and_each_space_has_its_own() -> None:
    service, _ = await teams_env()
    teams = service.teams
    assert "Team Green Tea is created" in await teams.create(REF, "ann", "Green Tea")
    with pytest.raises(TeamRefused, match="There is a team called Green Tea here already"):
        await teams.create(REF, "bob", "GREEN  tea")
    assert "Team green tea is created" in await teams.create(OTHER_SPACE, "bob", "green tea")
    assert "You joined team Green Tea" in await teams.join(REF, "bob", "green TEA")


async def test_one_team_per_member_per_space() -> None:
    service, _ = await teams_env()
    teams = service.teams
    await teams.create(REF, "ann", "Green Tea")
    await teams.create(REF, "bob", "Mate")
    with pytest.raises(TeamRefused, match="You are in team Green Tea already: one team per member"):
        await teams.join(REF, "ann", "Mate")
    with pytest.raises(TeamRefused, match="You are in team Green Tea already\\.$"):
        await teams.join(REF, "ann", "green tea")
    with pytest.raises(TeamRefused, match="You are in team Green Tea already: one team per member"):
        await teams.create(REF, "ann", "Oolong")
    with pytest.raises(TeamRefused, match="There is no team called Oolong here: /quiz team list shows them"):
        await teams.join(REF, "cy", "Oolong")
    listing = await teams.list_teams(REF, "ann")
    assert listing.splitlines() == [
        "Teams here (2):",
        "- Green Tea: 1 member",
        "- Mate: 1 member",
        "You are in Green Tea.",
    ]


async def test_the_last_member_to_leave_takes_the_team_and_frees_its_name() -> None:
    service, _ = await teams_env()
    teams = service.teams
    await teams.create(REF, "ann", "Green Tea")
    await teams.join(REF, "bob", "Green Tea")
    assert await teams.leave(REF, "ann") == "You left team Green Tea."
    with pytest.raises(TeamRefused, match="You are not in a team here"):
        await teams.leave(REF, "ann")
    assert "the team is gone" in await teams.leave(REF, "bob")
    assert (await teams.list_teams(REF, "bob")).startswith("No teams here yet. Create one with /quiz team create")
    assert "is created" in await teams.create(REF, "cy", "green tea")


async def test_only_admins_rename_or_remove_a_team_and_nothing_changes_otherwise() -> None:
    service, _ = await teams_env()
    teams = service.teams
    await teams.create(REF, "ann", "Green Tea")
    await teams.create(REF, "bob", "Mate")
    with pytest.raises(NotAllowed, match="can rename a team"):
        await teams.rename(MEMBER, REF, "Green Tea", "Oolong")
    with pytest.raises(NotAllowed, match="can remove a team"):
        await teams.remove(MEMBER, REF, "Green Tea")
    with pytest.raises(TeamRefused, match="There is a team called Mate here already"):
        await teams.rename(ADMIN, REF, "Green Tea", "MATE")
    with pytest.raises(BadSetting, match="no mentions"):
        await teams.rename(ADMIN, REF, "Green Tea", "<@1234567890123456>")
    assert await teams.rename(ADMIN, REF, "green tea", "Oolong") == "Team Green Tea is now called Oolong."
    assert (await store_of(service).team_of("fake", "space-1", "ann")).name == "Oolong"
    assert "is removed" in await teams.remove(ADMIN, REF, "oolong")
    assert await store_of(service).team_of("fake", "space-1", "ann") is None
    with pytest.raises(TeamRefused, match="There is no team called Oolong here"):
        await teams.remove(ADMIN, REF, "Oolong")


# ---- boards --------------------------------------------------------------------------------------


def test_the_rule_sums_the_best_three_and_ranks_ties_together() -> None:
    roster = (
        [TeamMember("big", "Big", f"b{i}") for i in range(10)]
        + [TeamMember("small", "Small", u) for u in ("s1", "s2", "s3")]
        + [TeamMember("tie", "Tie", "t1")]
    )
    points = {**{f"b{i}": 10 for i in range(10)}, "s1": 20, "s2": 15, "s3": 12, "t1": 30, "outsider": 99}
    assert team_totals(roster, points) == [
        TeamTotal(1, "Small", 47, 3, "small"),
        TeamTotal(2, "Big", 30, 10, "big"),
        TeamTotal(2, "Tie", 30, 1, "tie"),
    ]


async def play(service, clock: FixedClock, day: dt.date, answers: dict[str, bool]) -> None:
    """A daily round of REF dated `day`, answered and revealed at once."""
    store = store_of(service)
    round_ = await store.claim_daily_round(REF, day, f"tensors-{day.day % 3}", "tensors", clock.now(), None)
    assert round_ is not None
    right = service.context.bank.get(round_.question_id).answer
    for user, ok in answers.items():
        await service.answers.submit_answer(round_.id, user, right if ok else (right + 1) % 4)
    await service.reveals.reveal_round(round_.id)


async def test_the_team_board_ranks_by_the_best_three_not_by_size() -> None:
    service, clock = await teams_env()
    teams = service.teams
    await teams.create(REF, "m0", "Many")
    for i in range(1, 10):
        await teams.join(REF, f"m{i}", "Many")
    await teams.create(REF, "ann", "Trio")
    await teams.join(REF, "bob", "Trio")
    await teams.join(REF, "cy", "Trio")
    await play(service, clock, dt.date(2026, 6, 1), {**{f"m{i}": True for i in range(10)}, "ann": True, "bob": True})
    await play(service, clock, dt.date(2026, 6, 2), {"ann": True, "bob": True, "cy": True})
    board = await teams.board("fake", "space-1", Period.WEEK, "m4")
    # Many holds 100 points in all and Trio 52: summed over every member, Many would lead
    assert board.lines == ("1. Trio: 52 pts (best 3 of 3 members)", "2. Many: 30 pts (best 3 of 10 members)")
    assert [(t.rank, t.name, t.points, t.members) for t in board.rows] == [(1, "Trio", 52, 3), (2, "Many", 30, 10)]
    assert board.mine is not None and board.mine.name == "Many" and board.title == "Team board: week 2026-W23"
    assert "best 3 members" in board.text
    public = await teams.board("fake", "space-1", Period.WEEK, "m4", public=True)
    assert public.public and public.mine is None
    empty = await teams.board("fake", "space-9", Period.ALL, "x")
    assert empty.lines == ("No teams here yet: create one with /quiz team create NAME.",)


@pytest.mark.parametrize(
    ("sunday", "label"),
    [(dt.date(2026, 3, 29), "spring forward"), (dt.date(2026, 10, 25), "fall back")],
)
async def test_the_team_board_week_follows_the_spaces_local_date_across_dst(sunday: dt.date, label: str) -> None:
    # a DST change in Berlin falls on these Sundays: 23:30 local is still that week, 00:30 Monday the next
    late_sunday = dt.datetime.combine(sunday, dt.time(23, 30), tzinfo=ZONE).astimezone(dt.UTC)
    service, clock = await teams_env(late_sunday, "Europe/Berlin")
    await service.teams.create(REF, "ann", "Trio")
    await play(service, clock, sunday, {"ann": True})
    this_week = await service.teams.board("fake", "space-1", Period.WEEK, "ann")
    iso = sunday.isocalendar()
    assert this_week.period_label == f"week {iso.year}-W{iso.week:02d}" and this_week.rows[0].points == 10, label
    clock.advance(hours=1)  # 00:30 on Monday in Berlin (still Sunday in UTC)
    assert clock.now().date() == sunday
    next_week = await service.teams.board("fake", "space-1", Period.WEEK, "ann")
    assert next_week.period_label == f"week {iso.year}-W{iso.week + 1:02d}" and next_week.rows[0].points == 0, label


async def test_a_live_games_totals_use_the_same_rule() -> None:
    service, _ = await teams_env()
    await service.teams.create(REF, "ann", "Trio")
    for user in ("bob", "cy", "dee"):
        await service.teams.join(REF, user, "Trio")
    await service.teams.create(REF, "eve", "Solo")
    totals = await service.teams.totals("fake", "space-1", {"ann": 900, "bob": 700, "cy": 500, "dee": 990, "zed": 1000})
    assert [(t.rank, t.name, t.points, t.members) for t in totals] == [(1, "Trio", 2590, 4), (2, "Solo", 0, 1)]


async def test_the_season_card_names_the_team_of_the_month_once() -> None:
    env = await season_env()
    utc = ChannelRef("fake", "space-1", "chan-utc")
    cfg = await env.configure(utc, post_time=dt.time(9, 0), timezone="UTC")
    teams = env.service.teams
    await teams.create(utc, "ann", "Trio")
    await teams.join(utc, "bob", "Trio")
    await teams.create(utc, "cy", "Solo")
    await env.play(cfg, dt.date(2026, 11, 29), [("ann", True), ("bob", True), ("cy", True)])
    await env.play(cfg, dt.date(2026, 11, 30), [("ann", True)])
    await env.play(cfg, dt.date(2026, 12, 1), [])
    [(_, card)] = env.platform.seasons
    assert card.team is not None and (card.team.name, card.team.points, card.team.members) == ("Trio", 31, 2)
    text = season_text(card, "/quiz leaderboard season {season}")
    assert "Team of the month: Trio, 31 points (its best three of 2 members)" in text
    # later changes never move the decided team (another channel's card names the same one)
    await teams.join(utc, "dee", "Solo")
    again = await teams.team_of_month("fake", "space-1", "2026-11")
    assert again is not None and again.name == "Trio"


async def test_a_month_without_teams_has_no_team_line() -> None:
    env = await season_env()
    utc = ChannelRef("fake", "space-1", "chan-utc")
    cfg = await env.configure(utc, post_time=dt.time(9, 0), timezone="UTC")
    await env.play(cfg, dt.date(2026, 11, 30), [("ann", True)])
    await env.play(cfg, dt.date(2026, 12, 1), [])
    [(_, card)] = env.platform.seasons
    assert card.team is None and "Team of the month" not in season_text(card, "/x {season}")


# ---- the grammar ---------------------------------------------------------------------------------


def test_the_team_grammar() -> None:
    assert parse_quiz("/quiz team create Green Tea") == TeamCommand("create", "Green Tea")
    assert parse_quiz("/quiz team join  green   tea") == TeamCommand("join", "green tea")
    assert parse_quiz("/quiz team leave") == TeamCommand("leave")
    assert parse_quiz("/quiz teams list") == TeamCommand("list")
    assert parse_quiz("/quiz team") == TeamCommand("list")  # alone: shows your team and the others
    assert parse_quiz("/quiz team rename Green Tea to Oolong Tea") == TeamCommand("rename", "Green Tea", "Oolong Tea")
    assert parse_quiz("/quiz team rename Back to Basics | Basics") == TeamCommand("rename", "Back to Basics", "Basics")
    assert parse_quiz("/quiz team remove Mate") == TeamCommand("remove", "Mate")
    assert parse_quiz("/quiz leaderboard teams") == ShowTeamBoard(Period.WEEK)
    assert parse_quiz("/quiz leaderboard teams month public") == ShowTeamBoard(Period.MONTH, public=True)
    assert parse_quiz("/quiz lb public teams all") == ShowTeamBoard(Period.ALL, public=True)
    assert parse_quiz("/quiz leaderboard month") == ShowLeaderboard(Period.MONTH)
    for bad in (
        "/quiz team create",
        "/quiz team leave now",
        "/quiz team rename Green Tea",
        "/quiz team rename a to b to c",
        "/quiz team frobnicate x",
        "/quiz leaderboard teams week month",
        "/quiz leaderboard teams fortnight",
    ):
        with pytest.raises(BadSetting) as caught:
            parse_quiz(bad)
        assert len(caught.value.message) < 300, bad
