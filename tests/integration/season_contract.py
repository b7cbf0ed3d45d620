"""The monthly seasons' part of the Store contract (issue 13): every store runs it (SQLite, PostgreSQL,
the fake)."""

from __future__ import annotations

import asyncio
import datetime as dt

from bot.kernel.scoring import score_daily_round
from bot.kernel.values import ChannelConfig, ChannelRef
from bot.store.settle import SettlingStore
from tests.integration.recap_contract import MON
from tests.integration.recap_contract import _day as recap_day

NOV = dt.date(2026, 11, 1)
T0 = dt.datetime(2026, 11, 1, 9, 0, tzinfo=dt.UTC)
DEC1 = dt.datetime(2026, 12, 1, 9, 5, tzinfo=dt.UTC)
REF = ChannelRef("test", "space", "chan")
REF2 = ChannelRef("test", "space", "chan-2")
OTHER = ChannelRef("test", "other-space", "chan-9")


async def _day(
    store: SettlingStore, ref: ChannelRef, day: dt.date, answers: list[tuple[str, bool, int]], *, reveal: bool = True
) -> int:
    """A daily round on local date `day` (09:00 UTC) with answers (user, correct, seconds after posting)."""
    return await recap_day(store, ref, (day - MON).days, answers, reveal=reveal)


class SeasonContract:
    async def test_the_champion_role_setting_round_trips_and_defaults_to_off(self, store):
        await store.save_channel(ChannelConfig(ref=REF))
        assert (await store.get_channel(REF)).champion_role is None
        await store.save_channel(ChannelConfig(ref=REF, champion_role="123456789012345678"))
        assert (await store.get_channel(REF)) == ChannelConfig(ref=REF, champion_role="123456789012345678")

    async def test_a_season_archives_the_months_top_three_ties_by_who_got_there_first(self, store):
        await store.save_channel(ChannelConfig(ref=REF))
        # ann and bob tie on 10 points (bob reached them first); cy 20, dee 10 but later still; eve wrong only
        await _day(store, REF, NOV, [("ann", True, 50), ("bob", True, 5), ("cy", True, 1), ("eve", False, 1)])
        await _day(store, REF, NOV + dt.timedelta(days=1), [("cy", True, 1), ("dee", True, 9)])
        await _day(store, REF, dt.date(2026, 10, 31), [("zed", True, 1)])  # October: not in November's season
        await _day(store, OTHER, NOV, [("oz", True, 1)])  # another space
        archive = await store.archive_season("test", "space", "2026-11", DEC1)
        assert archive is not None and archive.season == "2026-11" and archive.champion == "cy"
        assert [(r.rank, r.user_id, r.points, r.answered, r.correct) for r in archive.rows] == [
            (1, "cy", 21, 2, 2),
            (2, "bob", 10, 1, 1),
            (3, "ann", 10, 1, 1),
        ]
        assert await store.season_archive("test", "space", "2026-11") == archive
        assert await store.season_archive("test", "space", "2026-10") is None
        assert (await store.season_archive("test", "other-space", "2026-11")) is None

    async def test_forget_me_takes_the_learner_out_of_archived_seasons_of_that_space_only(self, store):
        await store.save_channel(ChannelConfig(ref=REF))
        await _day(store, REF, NOV, [("ann", True, 1), ("bob", True, 2)])
        await _day(store, OTHER, NOV, [("ann", True, 1)])
        await store.archive_season("test", "space", "2026-11", DEC1)
        await store.archive_season("test", "other-space", "2026-11", DEC1)
        assert (await store.forget_learner("test", "space", "ann")).seasons == 1
        assert [r.user_id for r in (await store.season_archive("test", "space", "2026-11")).rows] == ["bob"]
        assert [r.user_id for r in (await store.season_archive("test", "other-space", "2026-11")).rows] == ["ann"]

    async def test_the_first_archive_decides_and_later_scores_never_change_it(self, store):
        await store.save_channel(ChannelConfig(ref=REF))
        await _day(store, REF, NOV, [("ann", True, 1)])
        first = await store.archive_season("test", "space", "2026-11", DEC1)
        await _day(store, REF2, NOV + dt.timedelta(days=3), [("bob", True, 1), ("cy", True, 2)])  # late scores
        again = await store.archive_season("test", "space", "2026-11", DEC1 + dt.timedelta(hours=1))
        assert again == first and [r.user_id for r in again.rows] == ["ann"]
        assert again.archived_at == DEC1

    async def test_concurrent_archives_store_one_season(self, store):
        await store.save_channel(ChannelConfig(ref=REF))
        await _day(store, REF, NOV, [("ann", True, 1), ("bob", True, 2)])
        results = await asyncio.gather(
            *(store.archive_season("test", "space", "2026-11", DEC1 + dt.timedelta(seconds=i)) for i in range(5))
        )
        assert len({r.archived_at for r in results}) == 1 and all(r == results[0] for r in results)

    async def test_an_open_daily_round_of_the_month_defers_the_archive(self, store):
        await store.save_channel(ChannelConfig(ref=REF))
        await _day(store, REF, NOV, [("ann", True, 1)])
        late = await _day(store, REF2, dt.date(2026, 11, 30), [("bob", True, 1)], reveal=False)
        assert await store.archive_season("test", "space", "2026-11", DEC1) is None
        assert await store.season_archive("test", "space", "2026-11") is None
        assert await store.reveal_round(late, DEC1, score_daily_round)
        archive = await store.archive_season("test", "space", "2026-11", DEC1)
        assert [r.user_id for r in archive.rows] == ["ann", "bob"]  # equal points: ann reached them first

    async def test_an_empty_month_is_archived_with_no_places(self, store):
        archive = await store.archive_season("test", "space", "2026-11", DEC1)
        assert archive is not None and archive.rows == () and archive.champion is None
        assert (await store.season_archive("test", "space", "2026-11")).rows == ()

    async def test_the_champion_before_a_season_is_the_latest_one_with_a_champion(self, store):
        await store.save_channel(ChannelConfig(ref=REF))
        await _day(store, REF, dt.date(2026, 9, 3), [("sep", True, 1)])
        await _day(store, REF, dt.date(2026, 11, 3), [("nov", True, 1)])
        for season in ("2026-09", "2026-10", "2026-11"):  # October had no answers
            await store.archive_season("test", "space", season, DEC1)
        assert await store.champion_before("test", "space", "2026-09") is None
        assert await store.champion_before("test", "space", "2026-11") == "sep"
        assert await store.champion_before("test", "space", "2026-12") == "nov"
        assert await store.champion_before("test", "other-space", "2026-12") is None

    async def test_a_channel_posts_a_seasons_card_once_unless_unmarked(self, store):
        assert await store.mark_season_post(REF, "2026-11", DEC1) is True
        assert await store.mark_season_post(REF, "2026-11", DEC1) is False
        assert await store.mark_season_post(REF2, "2026-11", DEC1) is True
        assert await store.mark_season_post(REF, "2026-12", DEC1) is True
        await store.unmark_season_post(REF, "2026-11")
        assert await store.mark_season_post(REF, "2026-11", DEC1) is True
