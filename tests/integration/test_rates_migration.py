"""Migration 125 (the daily pick's answer rates kept per question and per channel) starts them from the answer
log a database already has: revealed daily rounds only, on both engines."""

from __future__ import annotations

import sqlite3

import asyncpg

from bot.kernel.selection import SpaceRates
from bot.store.migrations import load_migrations
from bot.store.postgres import PostgresStore
from bot.store.sqlite import SqliteStore, split_sql
from tests.integration.test_postgres_store import throwaway_database

RATES = 125
TS = "2026-11-30T09:00:00.000000+00:00"
# (kind, channel, question, revealed): a revealed daily round of each channel, an open one, a revealed practice
ROUNDS = [
    ("daily", "c1", "q1", True),
    ("daily", "c2", "q1", True),
    ("daily", "c1", "q2", False),
    ("practice", "c1", "q2", True),
]
ANSWERS = [(1, "ann", True), (1, "bob", False), (2, "ann", True), (3, "ann", True), (4, "ann", False)]
WANTED = SpaceRates({"q1": (3, 2)}, {"c1": (2, 1), "c2": (1, 1)})


def before_rates(dialect: str) -> list[str]:
    return [sql for version, _, sql in load_migrations(dialect) if version < RATES]


async def test_sqlite_rates_start_from_the_answer_log(tmp_path):
    path = tmp_path / "old.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT)")
    for version, name, sql in load_migrations("sqlite"):
        if version >= RATES:
            break
        for statement in split_sql(sql):
            con.execute(statement)
        con.execute("INSERT INTO schema_migrations VALUES (?, ?, ?)", (version, name, TS))
    for i, (kind, channel, question, revealed) in enumerate(ROUNDS, start=1):
        con.execute(
            "INSERT INTO rounds (id, kind, platform, space_id, channel_id, user_id, question_id, topic, local_date, "
            "opened_at, revealed_at) VALUES (?, ?, 't', 's', ?, ?, ?, 'tensors', ?, ?, ?)",
            (
                i,
                kind,
                channel,
                "ann" if kind == "practice" else None,
                question,
                f"2026-11-{i:02d}",
                TS,
                TS if revealed else None,
            ),
        )
    con.executemany("INSERT INTO answers VALUES (?, ?, 0, ?, ?, NULL)", [(r, u, int(c), TS) for r, u, c in ANSWERS])
    con.commit()
    con.close()
    store = SqliteStore(path)
    await store.open()
    try:
        assert await store.daily_answer_rates("t", "s") == WANTED
    finally:
        await store.close()


async def test_postgres_rates_start_from_the_answer_log():
    async with throwaway_database() as url:
        con = await asyncpg.connect(url)
        try:
            await con.execute(
                "CREATE TABLE schema_migrations "
                "(version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL)"
            )
            for version, name, sql in load_migrations("postgres"):
                if version >= RATES:
                    break
                await con.execute(sql)
                await con.execute("INSERT INTO schema_migrations VALUES ($1, $2, now())", version, name)
            for i, (kind, channel, question, revealed) in enumerate(ROUNDS, start=1):
                await con.execute(
                    "INSERT INTO rounds (id, kind, platform, space_id, channel_id, user_id, question_id, topic, "
                    "local_date, opened_at, revealed_at) VALUES ($1, $2, 't', 's', $3, $4, $5, 'tensors', "
                    "DATE '2026-11-01' + $7::integer, now(), CASE WHEN $6 THEN now() END)",
                    i,
                    kind,
                    channel,
                    "ann" if kind == "practice" else None,
                    question,
                    revealed,
                    i,
                )
            await con.executemany(
                "INSERT INTO answers VALUES ($1, $2, 0, $3, now(), NULL)", [(r, u, c) for r, u, c in ANSWERS]
            )
        finally:
            await con.close()
        store = PostgresStore(url)
        await store.open()
        try:
            assert await store.daily_answer_rates("t", "s") == WANTED
        finally:
            await store.close()
