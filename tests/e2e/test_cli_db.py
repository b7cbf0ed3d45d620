"""`studybot db migrate` and `studybot db copy` as a user runs them."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

from bot.store.migrations import load_migrations
from tests.integration.test_postgres_store import throwaway_database


def studybot(*args: str, db: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if db:
        env["STUDYBOT_DATABASE_URL"] = db
    return subprocess.run([sys.executable, "-m", "bot", *args], capture_output=True, text=True, env=env, timeout=120)


def test_db_migrate_is_idempotent(tmp_path):
    url = f"sqlite:///{tmp_path / 's.db'}"
    versions = [version for version, _, _ in load_migrations("sqlite")]
    latest = versions[-1]
    first = studybot("db", "migrate", db=url)
    applied = ", ".join(str(v) for v in versions)
    assert first.returncode == 0 and first.stdout.strip() == f"schema at version {latest}; applied {applied}"
    again = studybot("db", "migrate", db=url)
    assert again.returncode == 0 and again.stdout.strip() == f"schema at version {latest}; up to date"


async def test_db_copy_to_postgres_and_refusal_of_a_non_empty_destination(tmp_path):
    src = f"sqlite:///{tmp_path / 's.db'}"
    env = dict(os.environ, STUDYBOT_DATABASE_URL=src)
    console = await asyncio.to_thread(  # some real data: a channel, a round, an answer
        subprocess.run,
        [sys.executable, "-m", "bot"],
        input="/quiz answer A\n/quit\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert console.returncode == 0 and "locked in" in console.stdout
    async with throwaway_database("studybot_cli") as dst:
        done = await asyncio.to_thread(studybot, "db", "copy", "--from", src, "--to", dst)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip().endswith("copied; row counts match")
        counts = dict(line.split() for line in done.stdout.splitlines()[:-1])
        assert counts["channels"] == "1" and counts["rounds"] == "1" and counts["answers"] == "1"
        again = await asyncio.to_thread(studybot, "db", "copy", "--from", src, "--to", dst)
        assert again.returncode == 1 and again.stderr.startswith("copy failed:")
        assert "empty" in again.stderr
