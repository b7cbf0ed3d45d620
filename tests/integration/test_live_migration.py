"""Migration 110 on SQLite rebuilds `rounds` so it takes the kind 'live': a database with rounds, answers and
doubts comes through whole, ids and the AUTOINCREMENT high-water mark kept, foreign keys and indexes intact."""

from __future__ import annotations

import datetime as dt
import sqlite3

import pytest

from bot.kernel.values import ChannelRef, RoundKind
from bot.live.values import NewLiveGame
from bot.store.migrations import load_migrations
from bot.store.sqlite import SqliteStore, split_sql

LIVE = 110
T0 = dt.datetime(2026, 11, 30, 9, tzinfo=dt.UTC)


def database_before_live(path) -> sqlite3.Connection:
    con = sqlite3.connect(path)
    con.execute("PRAGMA foreign_keys=ON")
    con.execute(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )
    for version, name, sql in load_migrations("sqlite"):
        if version >= LIVE:
            break
        for statement in split_sql(sql):
            con.execute(statement)
        con.execute("INSERT INTO schema_migrations VALUES (?, ?, ?)", (version, name, "2026-11-01T00:00:00+00:00"))
    con.commit()
    return con


def round_rows(con: sqlite3.Connection) -> list[tuple]:
    return con.execute("SELECT * FROM rounds ORDER BY id").fetchall()


def rounds_indexes(con: sqlite3.Connection) -> set[tuple[str, str]]:
    rows = con.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'rounds'")
    return {(name, " ".join(sql.split())) for name, sql in rows if sql}


async def test_rounds_come_through_the_rebuild_whole_and_take_live_rounds(tmp_path):
    path = tmp_path / "old.db"
    con = database_before_live(path)
    ts = "2026-11-30T09:00:00.000000+00:00"
    con.executemany(
        "INSERT INTO rounds (kind, platform, space_id, channel_id, user_id, question_id, topic, local_date, "
        "opened_at, closes_at, message_id, post_state, reveal_state, learn_pending) "
        "VALUES (?, 't', 's', 'c', ?, ?, 'tensors', ?, ?, ?, ?, ?, 'due', ?)",
        [
            ("daily", None, "q1", "2026-11-30", ts, ts, "m1", "sent", None),
            ("practice", "ann", "q2", None, ts, None, None, "due", 1),
            ("practice", "bob", "q3", None, ts, None, None, "due", None),
        ],
    )
    con.execute("INSERT INTO answers VALUES (1, 'ann', 0, 1, ?, 10)", (ts,))
    con.execute("INSERT INTO answers VALUES (2, 'ann', 1, 0, ?, NULL)", (ts,))
    con.execute("INSERT INTO answer_doubts VALUES (1, 'ann')")
    con.execute("DELETE FROM rounds WHERE id = 3")  # the highest id is gone; it must not be given out again
    con.commit()
    before, indexes = round_rows(con), rounds_indexes(con)
    con.close()

    store = SqliteStore(path)
    await store.open()
    try:
        assert await store.schema_version() >= LIVE
        game = await store.start_live_game(NewLiveGame(ChannelRef("t", "s", "c"), "ann", 3, 20, None, T0))
        live = await store.open_live_question(game.id, 0, "q4", "tensors", T0, T0 + dt.timedelta(seconds=20))
        assert live.kind is RoundKind.LIVE and live.id == 4  # after the deleted 3, never 3 again
        assert [(a.user_id, a.choice, a.points) for a in await store.round_answers(1)] == [("ann", 0, 10)]
    finally:
        await store.close()

    con = sqlite3.connect(path)
    try:
        after, width = round_rows(con)[:2], len(before[0])
        assert [row[:width] for row in after] == before
        assert all(value is None for row in after for value in row[width:])  # the columns added since: unset
        was, now = dict(indexes), dict(rounds_indexes(con))
        assert set(was) <= set(now) and set(now) - set(was) == {"rounds_cards_pending"}
        changed = {name for name in was if was[name] != now[name]}
        assert changed == {"rounds_reveal_due"}  # migration 128 names the id in it; the rebuild kept the rest
        assert con.execute("PRAGMA foreign_key_check").fetchall() == []
        assert con.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert con.execute("SELECT * FROM answer_doubts").fetchall() == [(1, "ann")]
        con.execute("PRAGMA foreign_keys=ON")
        with pytest.raises(sqlite3.IntegrityError):  # the foreign keys still hold
            con.execute("INSERT INTO answers VALUES (99, 'x', 0, 1, '2026', NULL)")
        with pytest.raises(sqlite3.IntegrityError):  # and the kinds are still checked
            con.execute(
                "INSERT INTO rounds (kind, platform, space_id, channel_id, question_id, topic, opened_at) "
                "VALUES ('other', 't', 's', 'c', 'q', 't', '2026')"
            )
    finally:
        con.close()


async def test_a_fresh_database_migrates_and_its_rounds_number_from_one(tmp_path):
    store = SqliteStore(tmp_path / "new.db")
    await store.open()
    try:
        first = await store.create_practice_round(ChannelRef("t", "s", "c"), "ann", "q1", "tensors", T0)
        assert first.id == 1
    finally:
        await store.close()
