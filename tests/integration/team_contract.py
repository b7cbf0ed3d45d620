"""The teams' part of the Store contract (issue 32): every store runs it (SQLite, PostgreSQL, the fake).

The team board is read through the Teams service over the store under test, so what it proves is the board
members see: a team scores the sum of its best three members' daily points, not of all of them."""

from __future__ import annotations

import asyncio
import datetime as dt

from bot.kernel.context import Context
from bot.kernel.values import ChannelConfig, Period
from bot.teams.service import Teams
from bot.teams.values import TeamOutcome, TeamTotal, team_key
from tests.integration.recap_contract import MON, OTHER, REF, T0, _day
from tests.support.fakes import FixedClock, make_bank

NOW = T0 + dt.timedelta(days=2, hours=12)  # Wednesday of MON's week
WEEK = f"{MON.isocalendar().year}-W{MON.isocalendar().week:02d}"


def _teams(store) -> Teams:
    return Teams(Context(clock=FixedClock(NOW), bank=make_bank(), spaces=store), store)


async def _team(store, name: str, *users: str) -> None:
    first, *rest = users
    made = await store.create_team("test", "space", team_key(name), name, first, T0)
    assert made.outcome is TeamOutcome.DONE, made
    for user in rest:
        assert (await store.join_team("test", "space", team_key(name), user, T0)).outcome is TeamOutcome.DONE


class TeamContract:
    async def test_a_team_of_ten_does_not_beat_a_stronger_team_of_three_by_size(self, store):
        await store.save_channel(ChannelConfig(ref=REF))
        ten = [f"ten-{i}" for i in range(10)]
        await _team(store, "The Ten", *ten)
        await _team(store, "Trio", "ann", "bob", "cy")
        await _team(store, "Solo", "dee")
        # Monday: everyone right (10 points each); Tuesday: the trio right again (10 + 1 streak bonus)
        await _day(store, REF, 0, [(u, True, 5) for u in [*ten, "ann", "bob", "cy", "dee", "outsider"]])
        await _day(store, REF, 1, [("ann", True, 1), ("bob", True, 2), ("cy", True, 3), ("ten-0", False, 1)])
        board = await _teams(store).board("test", "space", Period.WEEK, "ten-3")
        # the ten together hold 100 points, the trio 63: summed over everyone the ten would win
        assert [(t.rank, t.name, t.points, t.members) for t in board.rows] == [
            (1, "Trio", 63, 3),
            (2, "The Ten", 30, 10),
            (3, "Solo", 10, 1),
        ]
        assert board.mine is not None and board.mine.name == "The Ten"
        assert board.period_label == f"week {WEEK}"

    async def test_member_points_are_the_boards_points_of_team_members_only(self, store):
        await store.save_channel(ChannelConfig(ref=REF))
        await _team(store, "Trio", "ann", "bob")
        await _day(store, REF, 0, [("ann", True, 1), ("bob", False, 1), ("zed", True, 1)])
        await _day(store, OTHER, 0, [("ann", True, 1)])  # another space's points never count here
        assert await store.member_points("test", "space", Period.WEEK, WEEK) == {"ann": 10, "bob": 0}
        assert await store.member_points("test", "space", Period.ALL, "all") == {"ann": 10, "bob": 0}
        assert await store.member_points("test", "space", Period.WEEK, "2020-W01") == {}
        totals = await _teams(store).totals("test", "space", {"ann": 7, "bob": 5, "zed": 100})
        assert totals == [TeamTotal(1, "Trio", 12, 2, "trio")]

    async def test_names_are_unique_in_a_space_whatever_their_case(self, store):
        await _team(store, "Green Tea", "ann")
        taken = await store.create_team("test", "space", team_key("GREEN tea"), "GREEN tea", "bob", T0)
        assert taken.outcome is TeamOutcome.NAME_TAKEN and taken.name == "Green Tea"
        assert await store.team_of("test", "space", "bob") is None  # nothing written for bob
        other = await store.create_team("test", "other-space", team_key("green tea"), "green tea", "bob", T0)
        assert other.outcome is TeamOutcome.DONE  # another space has its own names
        assert [(t.name, t.members) for t in await store.list_teams("test", "space")] == [("Green Tea", 1)]

    async def test_a_member_is_in_one_team_per_space(self, store):
        await _team(store, "Green Tea", "ann")
        await _team(store, "Black Coffee", "bob")
        joined = await store.join_team("test", "space", team_key("Black Coffee"), "ann", T0)
        assert joined.outcome is TeamOutcome.IN_TEAM and joined.name == "Green Tea"
        again = await store.join_team("test", "space", team_key("green tea"), "ann", T0)
        assert again.outcome is TeamOutcome.IN_TEAM and again.name == "Green Tea"
        made = await store.create_team("test", "space", team_key("Mate"), "Mate", "ann", T0)
        assert made.outcome is TeamOutcome.IN_TEAM and made.name == "Green Tea"
        assert (await store.join_team("test", "space", team_key("nope"), "cy", T0)).outcome is TeamOutcome.NO_TEAM
        assert [t.name for t in await store.list_teams("test", "space")] == ["Black Coffee", "Green Tea"]
        mine = await store.team_of("test", "space", "ann")
        assert mine is not None and (mine.name, mine.members) == ("Green Tea", 1)

    async def test_the_last_member_to_leave_takes_the_team_with_them(self, store):
        await _team(store, "Green Tea", "ann", "bob")
        left = await store.leave_team("test", "space", "ann")
        assert left.outcome is TeamOutcome.DONE and left.name == "Green Tea" and not left.emptied
        assert (await store.leave_team("test", "space", "ann")).outcome is TeamOutcome.NOT_IN_TEAM
        last = await store.leave_team("test", "space", "bob")
        assert last.outcome is TeamOutcome.DONE and last.emptied
        assert await store.list_teams("test", "space") == []
        assert (
            await store.create_team("test", "space", "green tea", "green tea", "cy", T0)
        ).outcome is TeamOutcome.DONE

    async def test_rename_keeps_the_members_and_refuses_a_taken_name(self, store):
        await _team(store, "Green Tea", "ann", "bob")
        await _team(store, "Mate", "cy")
        taken = await store.rename_team("test", "space", team_key("Green Tea"), team_key("MATE"), "MATE")
        assert taken.outcome is TeamOutcome.NAME_TAKEN and taken.name == "Mate"
        done = await store.rename_team("test", "space", team_key("green tea"), team_key("Oolong"), "Oolong")
        assert done.outcome is TeamOutcome.DONE and done.name == "Green Tea"
        assert [(m.name, m.user_id) for m in await store.team_roster("test", "space")] == [
            ("Mate", "cy"),
            ("Oolong", "ann"),
            ("Oolong", "bob"),
        ]
        cased = await store.rename_team("test", "space", team_key("oolong"), team_key("OOLONG"), "OOLONG")
        assert cased.outcome is TeamOutcome.DONE and (await store.team_of("test", "space", "ann")).name == "OOLONG"
        missing = await store.rename_team("test", "space", team_key("Green Tea"), "x", "x")
        assert missing.outcome is TeamOutcome.NO_TEAM

    async def test_removing_a_team_frees_its_members(self, store):
        await _team(store, "Green Tea", "ann", "bob")
        assert (await store.remove_team("test", "space", team_key("GREEN TEA"))).name == "Green Tea"
        assert await store.team_of("test", "space", "ann") is None
        assert await store.team_roster("test", "space") == []
        assert (await store.remove_team("test", "space", team_key("Green Tea"))).outcome is TeamOutcome.NO_TEAM
        assert (await store.join_team("test", "space", team_key("Mate"), "ann", T0)).outcome is TeamOutcome.NO_TEAM

    async def test_concurrent_writes_make_one_team_of_a_name_and_one_team_per_member(self, store):
        made = await asyncio.gather(
            *(store.create_team("test", "space", "tea", "Tea", f"user-{i}", T0) for i in range(5)),
            *(store.create_team("test", "space", f"team {i}", f"Team {i}", "ann", T0) for i in range(5)),
        )
        assert sum(w.outcome is TeamOutcome.DONE for w in made[:5]) == 1
        assert sum(w.outcome is TeamOutcome.DONE for w in made[5:]) == 1
        assert sorted(t.members for t in await store.list_teams("test", "space")) == [1, 1]

    async def test_forget_me_takes_the_learner_out_of_their_team(self, store):
        await _team(store, "Green Tea", "ann", "bob")
        await _team(store, "Solo", "ann-2")
        gone = await store.forget_learner("test", "space", "ann")
        assert gone.teams == 1 and gone.anything  # a membership alone is something to delete (and to say so)
        await store.forget_learner("test", "space", "ann-2")
        assert (await store.forget_learner("test", "space", "ann")).teams == 0
        assert [(m.name, m.user_id) for m in await store.team_roster("test", "space")] == [("Green Tea", "bob")]
        assert [t.name for t in await store.list_teams("test", "space")] == ["Green Tea"]  # Solo went with ann-2

    async def test_the_team_of_the_month_is_decided_once(self, store):
        first = await store.claim_season_team("test", "space", "2026-11", TeamTotal(1, "Trio", 63, 3, "trio"), NOW)
        assert first == TeamTotal(1, "Trio", 63, 3)
        later = await store.claim_season_team("test", "space", "2026-11", TeamTotal(1, "Ten", 90, 10, "ten"), NOW)
        assert later == first
        assert await store.claim_season_team("test", "space", "2026-10", None, NOW) is None
        assert await store.claim_season_team("test", "space", "2026-10", TeamTotal(1, "Ten", 9, 1), NOW) is None
        both = await asyncio.gather(
            *(
                store.claim_season_team("test", "other-space", "2026-11", TeamTotal(1, f"T{i}", i, 1), NOW)
                for i in range(4)
            )
        )
        assert len(set(both)) == 1
