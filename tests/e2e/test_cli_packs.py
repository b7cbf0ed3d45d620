"""`studybot bank import` and `studybot bank export` as an operator runs them (issue 12)."""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

import asyncpg
import pytest

from bot.kernel.errors import PackBusy
from bot.store.postgres import LOCK_PACKS, PostgresStore
from tests.integration.test_postgres_store import throwaway_database
from tests.support.packs import pack_csv, pack_rows

ROOT = Path(__file__).resolve().parents[2]


def studybot(*args: str, db: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, STUDYBOT_DATABASE_URL=db, STUDYBOT_LOG_LEVEL="WARNING", PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "bot", *args], capture_output=True, text=True, env=env, timeout=120)


def test_import_export_and_refusals_on_sqlite(tmp_path):
    db = f"sqlite:///{tmp_path / 's.db'}"
    team = tmp_path / "team.csv"
    team.write_bytes(pack_csv())
    done = studybot("bank", "import", str(team), "--space", "discord:123", "--pack", "team", db=db)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "created pack team in discord:123: 30 question(s) (version 1)\n"
    again = studybot("bank", "import", str(team), "--space", "discord:123", "--pack", "team", db=db)
    assert again.returncode == 1 and "already exists in this space; import with --replace" in again.stderr

    rows = pack_rows()
    rows[3]["answer"] = "E"
    rows[7]["id"] = rows[2]["id"]
    bad = tmp_path / "bad.csv"
    bad.write_bytes(pack_csv(rows))
    refused = studybot("bank", "import", str(bad), "--space", "discord:123", "--pack", "team", "--replace", db=db)
    assert refused.returncode == 1
    lines = refused.stderr.splitlines()
    assert lines[0].startswith("bad.csv: row 5 (question team-3): field answer:")
    assert lines[1].startswith("bad.csv: row 9 (question team-2): field id: duplicate id 'team-2'")
    assert lines[-1] == "2 problem(s); nothing was imported"

    out = tmp_path / "team.yaml"
    wrote = studybot(
        "bank", "export", "--space", "discord:123", "--pack", "team", "--format", "yaml", "-o", str(out), db=db
    )
    assert wrote.returncode == 0 and out.read_bytes().startswith(b"questions:\n- id: team-0\n")
    studybot("bank", "import", str(out), "--space", "slack:T1", "--pack", "copy", db=db)
    same = studybot("bank", "export", "--space", "slack:T1", "--pack", "copy", "--format", "yaml", db=db)
    assert same.stdout.encode() == out.read_bytes()  # byte-identical
    as_csv = studybot("bank", "export", "--space", "discord:123", "--pack", "team", "--format", "csv", db=db)
    assert as_csv.stdout.encode() == pack_csv()  # the bad file changed nothing

    stats = studybot("bank", "question-stats", "--space", "discord:123", "--pack", "team", db=db)
    assert stats.returncode == 0 and stats.stdout == "Question stats (team)\nNo answers yet.\n"
    slash = studybot("bank", "import", str(team), "--space", "discord:123", "--pack", "a/b", db=db)
    assert slash.returncode == 1 and "'a/b' is not a pack name" in slash.stderr
    space = studybot("bank", "import", str(team), "--space", "discord", "--pack", "x", db=db)
    assert space.returncode == 2 and "PLATFORM:SPACE_ID" in space.stderr


async def test_two_processes_importing_into_one_space_on_postgres(tmp_path):
    team = tmp_path / "team.csv"
    team.write_bytes(pack_csv(pack_rows(2000)))
    async with throwaway_database("studybot_cli_packs") as url:
        store = PostgresStore(url)
        await store.open()
        try:
            args = ("bank", "import", str(team), "--space", "discord:9", "--pack", "team")
            first, second = await asyncio.gather(
                asyncio.to_thread(studybot, *args, db=url), asyncio.to_thread(studybot, *args, db=url)
            )
            outcomes = sorted([first, second], key=lambda p: p.returncode)
            assert [p.returncode for p in outcomes] == [0, 1], (first.stderr, second.stderr)
            assert outcomes[0].stdout.startswith("created pack team in discord:9: 2000 question(s)")
            loser = outcomes[1].stderr
            assert ("already exists in this space" in loser) or ("Another import into this space is running" in loser)
            assert await store.list_packs("discord", "9") == [("team", 2000, 1)]

            # while one import holds the space, another is told at once and changes nothing
            conn = await asyncpg.connect(url)
            try:
                async with conn.transaction():
                    await conn.execute("SELECT pg_advisory_xact_lock($1, hashtext($2))", LOCK_PACKS, "discord\x1f9")
                    with pytest.raises(PackBusy, match="Another import into this space is running"):
                        await store.save_pack(
                            "discord",
                            "9",
                            "other",
                            [("q", "{}")],
                            replace=False,
                            max_packs=50,
                            now=dt.datetime.now(dt.UTC),
                        )
            finally:
                await conn.close()
            assert [n for n, _, _ in await store.list_packs("discord", "9")] == ["team"]
        finally:
            await store.close()


def test_the_console_lists_and_uses_an_imported_pack(tmp_path):
    from tests.e2e.test_console import run_console

    team = tmp_path / "team.csv"
    team.write_bytes(pack_csv())
    done = studybot(
        "bank", "import", str(team), "--space", "console:local", "--pack", "team", db=f"sqlite:///{tmp_path / 'bot.db'}"
    )
    assert done.returncode == 0, done.stderr
    out = run_console(
        tmp_path,
        [
            "/quiz config packs pytorch,team",
            "/quiz packs",
            "/quiz config packs nope",
            "/quiz answer A",
            "/quiz question-stats",
            "/quiz config reveal",
            "/quiz question-stats",
        ],
    )
    assert "packs pytorch,team" in out
    assert "Question packs\npytorch: 9 questions (shipped, read-only; this channel)\n" in out
    assert "team: 30 questions (this channel)" in out
    assert "There is no pack nope in this space" in out
    before, after = out.split("Question stats (every pack)")[1:]
    assert before.startswith("\nNo answers yet.")  # today's question stays hidden until its reveal
    assert after.startswith("\nHardest:\n") and ": asked 1, 1 answer," in after


def test_the_console_imports_and_exports_a_pack_and_practises_from_it(tmp_path):
    from tests.e2e.test_console import run_console

    (tmp_path / "team.csv").write_bytes(pack_csv())
    (tmp_path / "bad.csv").write_bytes(pack_csv().replace(b"answer", b"answr", 1))
    (tmp_path / "big.csv").write_bytes(b"x" * (2 * 1024 * 1024))
    out = run_console(
        tmp_path,
        [
            "/quiz as bob",
            "/quiz admin import team.csv",
            "/quiz as you",
            "/quiz admin import bad.csv",
            "/quiz admin import big.csv",
            "/quiz admin import",
            "/quiz admin import team.csv",
            "/quiz admin import team.csv --replace",
            "/quiz admin export team csv",
            "/quiz admin export team",
            "/quiz admin export nope",
            "/quiz config packs team",
            "/quiz topics",
            "/quiz practice team-lore",
            "/quiz admin question-stats team",
        ],
    )
    assert "Only members who can manage this server or workspace can import question packs." in out
    assert "bad.csv: row 1: missing column(s) answer" in out
    assert "big.csv: file too large: 2,097,152 bytes, at most 1 MiB" in out
    assert "Give the file: /quiz admin import PATH [pack]" in out
    assert "Imported pack team: 30 questions. Switch this channel to it with /quiz config packs pytorch,team." in out
    assert "Replaced pack team: 30 questions." in out
    assert f"Exported pack team (csv) to {tmp_path / 'team-2.csv'} (team.csv is there already" in out
    assert (tmp_path / "team-2.csv").read_bytes() == pack_csv()  # the export round-trips the CSV
    assert f"Exported pack team (yaml) to {tmp_path / 'team.yaml'}" in out
    assert "There is no pack nope in this space." in out
    assert "team-lore" in out and "Which number does the team call question" in out
    assert "Question stats (team)\nNo answers yet." in out
