"""The console channel, driven through stdin of a real `studybot` subprocess (no tokens, SQLite)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.fakes import make_bank, write_bank_files

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def run_console(tmp_path: Path, lines: list[str], db: str = "bot.db") -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "SLACK_", "STUDYBOT_"))}
    env["STUDYBOT_DATABASE_URL"] = f"sqlite:///{tmp_path / db}"
    env["STUDYBOT_BANK_DIR"] = str(write_bank_files(tmp_path / "bank", make_bank()))
    env["PYTHONPATH"] = str(ROOT)  # this checkout's code, not whichever one the venv has installed
    proc = subprocess.run(
        [sys.executable, "-m", "bot"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def correct_letter(out: str) -> str:
    return re.search(r"Reveal #\d+: Answer: ([ABCD])", out).group(1)


def test_a_session_in_the_console(tmp_path):
    out = run_console(
        tmp_path,
        [
            "/quiz answer B",
            "/quiz answer C",
            "/quiz as alice",
            "/quiz answer A",
            "/quiz config time 10:00",
            "/quiz reveal",
            "/quiz as you",
            "/quiz reveal",
            "/leaderboard week",  # Discord's own commands work here too
            "/quiz stats",
            "/Stats",
            "/quit",
        ],
    )
    first_line = out.splitlines()[0]
    assert first_line.startswith("No DISCORD_TOKEN or SLACK_BOT_TOKEN set: starting the local console channel")
    assert "== Daily PyTorch question" in out and "  A) " in out and "  D) " in out
    assert "(private to you) Your answer B is locked in" in out
    assert "(private to you) You already answered B" in out
    assert "(private to alice) Your answer A is locked in" in out
    assert out.count("Only members who can manage") == 2  # alice may neither configure nor reveal
    right = correct_letter(out)
    points = {"you": 10 if right == "B" else 0, "alice": 10 if right == "A" else 0}
    board = out[out.index("== Leaderboard") :]
    for user, pts in points.items():
        assert re.search(rf"{user}\s+{pts} pts", board), board
    assert out.count("== Stats for you ==") == 2 and out.count("answered 1 (1 daily, 0 practice)") == 2
    assert out.rstrip().endswith("Bye.")


def test_practice_and_bad_input(tmp_path):
    out = run_console(
        tmp_path,
        [
            "/quiz practice autograd",
            "A",
            "B",
            "/quiz practice astrology",
            "/quiz practice autgrad",
            "/quiz config time 25:00",
            "/quiz config tz Mars/Base",
            "/quiz config days someday",
            "/quiz answer E",
            "hello",
            "/quiz frobnicate",
            "/quiz leaderbord",
            "/quiz as",
            "/as",
            "/quiz config show",
            "/help",
        ],
    )
    assert "== Practice: Autograd" in out
    assert re.search(r"\(private to you\) (Correct!|Not quite: the answer is [ABCD]\.)", out)
    assert "You have no open practice question" in out
    assert "'astrology' is not a topic here; topics: " in out  # nothing close: no guess
    assert "'autgrad' is not a topic here (did you mean autograd?); topics: " in out  # a typo: the closest topic
    assert "'25:00' is not a time: use 24-hour HH:MM" in out
    assert "'Mars/Base' is not an IANA timezone" in out
    assert "'someday' is not a list of days" in out
    assert "'E' is not a choice: answer with A, B, C or D." in out
    assert "Not a command: 'hello'" in out
    assert "'frobnicate' is not a /quiz command" in out
    assert "'leaderbord' is not a /quiz command. Did you mean `/quiz leaderboard`?" in out
    usage = "Usage: /quiz as NAME [admin]\nAct as another person here (with admin, one who may change the settings)."
    assert out.count(usage) == 2 and "'as' is not a /quiz command" not in out  # /quiz as and /as with no name
    assert "time 09:00 tz UTC days daily" in out  # the bad settings changed nothing
    assert "/quiz as NAME [admin]" in out  # /help; and EOF ends the session cleanly


def test_a_restart_keeps_the_open_question_and_the_answers(tmp_path):
    first = run_console(tmp_path, ["/quiz answer D", "/quit"])
    prompt = first.splitlines()[1]
    second = run_console(tmp_path, ["/quiz answer A", "/quit"])
    assert prompt in second  # the open question is shown again, not a new one
    assert second.count("== Daily PyTorch question") == 1
    assert "You already answered D" in second


def test_the_bot_process_serves_healthz_and_metrics_when_asked(tmp_path):
    import socket
    import time
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "SLACK_", "STUDYBOT_"))}
    env |= {
        "PYTHONPATH": str(ROOT),
        "STUDYBOT_DATABASE_URL": f"sqlite:///{tmp_path / 'bot.db'}",
        "STUDYBOT_BANK_DIR": str(write_bank_files(tmp_path / "bank", make_bank())),
        "STUDYBOT_METRICS_PORT": str(port),
        "STUDYBOT_METRICS_HOST": "127.0.0.1",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    try:
        assert proc.stdin is not None
        proc.stdin.write("/quiz answer A\n")
        proc.stdin.flush()
        deadline = time.monotonic() + 20
        body = ""
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2) as r:
                    body = r.read().decode()
                if 'studybot_answers_recorded_total{kind="daily",platform="console"} 1.0' in body:
                    break
            except OSError:
                pass
            time.sleep(0.2)
        assert 'studybot_answers_recorded_total{kind="daily",platform="console"} 1.0' in body, body
        assert 'studybot_posts_sent_total{platform="console"} 1.0' in body
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
            assert r.status == 200 and r.read() == b"ok\n"
        out, _ = proc.communicate("/quit\n", timeout=20)
        assert proc.returncode == 0 and out.rstrip().endswith("Bye.")
    finally:
        if proc.poll() is None:
            proc.kill()


def test_suggestions_in_the_console(tmp_path):
    line = (
        "/quiz suggest lore | easy | What is our mascot called? | Ada | Bob | Cy | Dee | A | "
        "The team named the mascot Ada in 2020."
    )
    out = run_console(
        tmp_path,
        [
            "/quiz as ann",
            "/quiz suggest",
            "/quiz suggest lore | easy | What is our mascot called? | Ada | Bob | Cy | Dee | F | Because.",
            line,
            line.replace("mascot", "cat"),
            "/quiz admin approve 1",
            "/quiz as you",
            "/quiz admin suggestions",
            "/quiz admin approve 1",
            "/quiz admin reject 2 We have no cat.",
            "/quiz packs",
            "/quit",
        ],
    )
    assert "/quiz suggest topic | difficulty | prompt | A | B | C | D | answer | explanation" in out
    assert "answer: 'F' is not a choice" in out
    assert "Your question is suggestion #1" in out and "suggestion #2" in out
    assert "Only members who can manage this server or workspace can approve or reject" in out
    assert "#1 [lore, easy] What is our mascot called?" in out
    assert "Approved suggestion #1: it is question suggestion-1 of the pack suggestions" in out
    assert "(direct message to ann) Your suggested question #1" in out
    assert "(direct message to ann) Your suggested question #2" in out and "Reason: We have no cat." in out
    assert "suggestions: 1 question" in out
