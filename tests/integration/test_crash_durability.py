"""Kill the bot with SIGKILL in the middle of a burst of answers: after a restart every acknowledged
answer is there with the choice that was acknowledged, and nothing is counted twice."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from bot.app.bootstrap import bootstrap
from bot.kernel.scoring import BASE_POINTS
from bot.kernel.values import Period
from bot.store.sqlite import SqliteStore
from tests.support.fakes import FixedClock, make_bank

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
USERS = 4000


def _worker(db: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.support.crash_worker", str(db), str(USERS)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
    )


async def test_sigkill_mid_burst_loses_no_acknowledged_answer(tmp_path):
    db = tmp_path / "crash.db"
    proc = _worker(db)
    acked: dict[str, str] = {}
    assert proc.stdout is not None
    for line in proc.stdout:
        kind, *rest = line.split()
        if kind == "ACK":
            acked[rest[0]] = rest[1]
        if len(acked) >= 600:
            os.kill(proc.pid, signal.SIGKILL)
            break
    for line in proc.stdout:  # whatever was already written before the kill
        kind, *rest = line.split()
        if kind == "ACK":
            acked[rest[0]] = rest[1]
    assert proc.wait(timeout=30) == -signal.SIGKILL
    assert 600 <= len(acked) < USERS, "the kill must land in the middle of the burst"

    # restart: the same burst again; the acknowledged ones must be refused as duplicates
    proc2 = _worker(db)
    out, _ = proc2.communicate(timeout=120)
    assert proc2.returncode == 0 and out.rstrip().endswith("DONE")
    second = {}
    for line in out.splitlines():
        kind, *rest = line.split()
        if kind in {"ACK", "DUP"}:
            second[rest[0]] = (kind, rest[1])
    assert len(second) == USERS
    for user, letter in acked.items():
        assert second[user] == ("DUP", letter), user

    store = SqliteStore(db)
    await store.open()
    try:
        round_id = int(out.split()[1])
        answers = await store.round_answers(round_id)
        assert len(answers) == USERS == len({a.user_id for a in answers})
        by_user = {a.user_id: "ABCD"[a.choice] for a in answers}
        assert all(by_user[u] == letter for u, letter in acked.items())
        service = bootstrap(store, make_bank(), FixedClock(answers[0].answered_at))
        await service.reveals.reveal_round(round_id)
        board = await store.leaderboard("fake", "space-1", Period.ALL, "all", USERS + 1)
        correct = sum(a.correct for a in answers)
        assert sum(r.points for r in board) == correct * BASE_POINTS
        assert sum(r.answered for r in board) == USERS
        await service.close()
    finally:
        await store.close()
