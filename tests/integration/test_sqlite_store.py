"""The Store contract on SQLite (a file in WAL mode, as in production), plus SQLite specifics."""

from __future__ import annotations

import sqlite3

import pytest

from bot.store.sqlite import SqliteStore, split_sql
from tests.integration.store_contract import RestartContract, StoreContract


class TestSqliteStore(StoreContract, RestartContract):
    @pytest.fixture
    async def store(self, tmp_path):
        store = SqliteStore(tmp_path / "studybot.db")
        await store.open()
        yield store
        await store.close()

    @pytest.fixture
    async def reopen(self, tmp_path):
        async def _open() -> SqliteStore:
            store = SqliteStore(tmp_path / "restart.db")
            await store.open()
            return store

        return _open


async def test_wal_mode_and_unique_keys_in_the_schema(tmp_path):
    store = SqliteStore(tmp_path / "s.db")
    await store.open()
    await store.close()
    con = sqlite3.connect(tmp_path / "s.db")
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    indexes = {row[1]: row[2] for row in con.execute("SELECT type, name, sql FROM sqlite_master WHERE type='index'")}
    assert "UNIQUE" in indexes["rounds_daily_slot"]
    assert con.execute("SELECT version FROM schema_migrations").fetchall() == [(1,)]
    con.close()


def test_split_sql_keeps_whole_statements():
    script = "-- c\nCREATE TABLE a (x TEXT DEFAULT ';');\n\nCREATE INDEX i ON a (x);\n"
    assert split_sql(script) == ["CREATE TABLE a (x TEXT DEFAULT ';');", "CREATE INDEX i ON a (x);"]
