"""docs/operations.md as an operator follows it: a failed `studybot db migrate` is one line and changes nothing,
and the documented SQLite backup (taken while the bot runs) restores to a database the bot starts on."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import asyncpg
import pytest

from tests.integration.test_postgres_store import throwaway_database
from tests.support.fakes import make_bank, write_bank_files

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "operations.md"


def bot_env(tmp_path: Path, url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "SLACK_", "STUDYBOT_"))}
    bank = tmp_path / "bank"
    if not bank.exists():
        write_bank_files(bank, make_bank())
    return env | {"PYTHONPATH": str(ROOT), "STUDYBOT_DATABASE_URL": url, "STUDYBOT_BANK_DIR": str(bank)}


def studybot(tmp_path: Path, url: str, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=bot_env(tmp_path, url),
        timeout=120,
    )


def one_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    [line] = proc.stderr.strip().splitlines()
    return line


def test_a_failed_migration_on_sqlite_is_one_line_and_the_database_stays_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "bot.db"
    url = f"sqlite:///{path}"
    assert studybot(tmp_path, url, "db", "migrate").returncode == 0
    with sqlite3.connect(path) as db:  # as if 001 had never been recorded: applying it again fails
        db.execute("DELETE FROM schema_migrations WHERE version = 1")
        before = db.execute("SELECT version FROM schema_migrations ORDER BY version").fetchall()
    line = one_line(studybot(tmp_path, url, "db", "migrate"))
    latest = before[-1][0]
    assert line == (
        f"studybot: STUDYBOT_DATABASE_URL={url}: a migration failed (table channels already exists); "
        f"the database stays at schema version {latest}."
    )
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT version FROM schema_migrations ORDER BY version").fetchall() == before


async def test_a_failed_migration_on_postgresql_is_one_line_and_the_database_stays_as_it_was(tmp_path: Path) -> None:
    async with throwaway_database("studybot_ops") as url:
        done = await asyncio.to_thread(studybot, tmp_path, url, "db", "migrate")
        assert done.returncode == 0, done.stderr
        conn = await asyncpg.connect(url)
        try:
            await conn.execute("DELETE FROM schema_migrations WHERE version = 1")
            before = await conn.fetch("SELECT version FROM schema_migrations ORDER BY version")
            line = one_line(await asyncio.to_thread(studybot, tmp_path, url, "db", "migrate"))
            assert 'a migration failed (relation "channels" already exists)' in line
            assert line.endswith(f"the database stays at schema version {before[-1]['version']}.")
            assert await conn.fetch("SELECT version FROM schema_migrations ORDER BY version") == before
        finally:
            await conn.close()


def documented_python_backup() -> str:
    """The Python of the documented SQLite backup for the Docker image (no sqlite3 program there)."""
    found = re.search(r'^docker exec CONTAINER python -c "([^"]+)"$', DOCS.read_text(encoding="utf-8"), re.M)
    assert found, "docs/operations.md lost its Python backup command"
    return found.group(1)


def test_the_documented_sqlite_backup_taken_while_the_bot_runs_restores(tmp_path: Path) -> None:
    data = tmp_path / "data"  # the image's /data volume
    data.mkdir()
    path = data / "studybot.db"
    url = f"sqlite:///{path}"
    bot = subprocess.Popen(
        [sys.executable, "-m", "bot"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=bot_env(tmp_path, url),
    )
    try:
        assert bot.stdin is not None
        bot.stdin.write("/quiz answer B\n/quiz as ann\n/quiz answer C\n")
        bot.stdin.flush()
        deadline = time.monotonic() + 30
        while not (path.exists() and _answers(path) == 2):  # both answers committed by the running bot
            assert time.monotonic() < deadline and bot.poll() is None, "the bot did not record the answers"
            time.sleep(0.05)
        backup = subprocess.run(
            [sys.executable, "-c", documented_python_backup().replace("/data/", f"{data}/")],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert backup.returncode == 0, backup.stderr
        assert bot.poll() is None  # taken while the bot runs
        bot.stdin.write("/quiz as bea\n/quiz answer D\n/quit\n")  # after the backup: lost by the restore
        bot.stdin.flush()
        assert bot.wait(30) == 0
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
    copy = data / "studybot-backup.db"
    assert copy.stat().st_mode & 0o077 == 0  # private, like the database
    with sqlite3.connect(copy) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert _answers(path) == 3 and _answers(copy) == 2

    # the restore, as documented: the bot is stopped, the WAL and shared-memory files go, the copy goes in place
    for extra in ("studybot.db-wal", "studybot.db-shm"):
        (data / extra).unlink(missing_ok=True)
    shutil.copy(copy, path)
    migrate = studybot(tmp_path, url, "db", "migrate")
    assert migrate.returncode == 0 and migrate.stdout.strip().endswith("up to date"), migrate.stderr
    again = studybot(tmp_path, url, stdin="/quiz answer A\n/quiz as bea\n/quiz answer A\n/quit\n")
    assert again.returncode == 0, again.stderr
    assert "== Daily PyTorch question" in again.stdout  # the open question, from the restored file
    assert "(private to you) You already answered B" in again.stdout
    assert "(private to bea) Your answer A is locked in" in again.stdout  # her answer came after the backup


def _answers(path: Path) -> int:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return int(db.execute("SELECT count(*) FROM answers").fetchone()[0])
    except sqlite3.OperationalError:  # not created yet
        return -1
    finally:
        db.close()
