"""Done when (issue 33): `studybot` with no token prints a one-time link that opens the dashboard, and
`studybot web link`, run as another process, prints a new one that the running bot accepts (the link is
decided in the database both share); a dashboard port that cannot be had stops the start in one line."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path
from urllib.parse import urlencode

import pytest

from tests.support.fakes import make_bank, write_bank_files

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"Dashboard: (http://127\.0\.0\.1:\d+/login/link/[A-Za-z0-9_-]+)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def bot_env(tmp_path: Path, port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "SLACK_", "STUDYBOT_"))}
    return env | {
        "PYTHONPATH": str(ROOT),
        "STUDYBOT_DATABASE_URL": f"sqlite:///{tmp_path / 'bot.db'}",
        "STUDYBOT_BANK_DIR": str(write_bank_files(tmp_path / "bank", make_bank())),
        "STUDYBOT_WEB_PORT": str(port),
    }


def sign_in(link: str) -> str:
    """Open the link as a browser would (its page, then its Sign in form); the page it lands on."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
    with opener.open(link, timeout=10) as page:
        html = page.read().decode()
    fields = dict(re.findall(r'name="(csrf|token)" value="([^"]+)"', html))
    base = link.split("/login/")[0]
    with opener.open(base + "/login/link", data=urlencode(fields).encode(), timeout=10) as landed:
        return landed.read().decode()


def test_the_first_command_prints_a_link_that_opens_the_dashboard_and_web_link_prints_another(tmp_path):
    port = free_port()
    env = bot_env(tmp_path, port)
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
        assert proc.stdout is not None and proc.stdin is not None
        printed = ""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not LINK.search(printed):
            printed += proc.stdout.readline()
        found = LINK.search(printed)
        assert found, printed
        assert "works once, within 10 minutes" in proc.stdout.readline()
        page = sign_in(found.group(1))
        assert "<h1>Overview</h1>" in page and "terminal" in page
        with pytest.raises(urllib.error.HTTPError) as used:
            sign_in(found.group(1))
        assert used.value.code == 403
        other = subprocess.run(
            [sys.executable, "-m", "bot", "web", "link"],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=env,
            timeout=60,
        )
        assert other.returncode == 0, other.stderr
        second = LINK.search(other.stdout)
        assert second and second.group(1) != found.group(1)
        assert "<h1>Overview</h1>" in sign_in(second.group(1))
        out, err = proc.communicate("/quit\n", timeout=20)
        assert proc.returncode == 0, err
        assert found.group(1).rsplit("/", 1)[1] not in err  # the token is printed for the admin, never logged
    finally:
        if proc.poll() is None:
            proc.kill()


def test_a_dashboard_port_that_is_taken_stops_the_start_in_one_line(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = subprocess.run(
            [sys.executable, "-m", "bot"],
            input="/quit\n",
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=bot_env(tmp_path, port),
            timeout=60,
        )
    assert proc.returncode == 2, proc.stderr
    [line] = proc.stderr.strip().splitlines()
    assert line.startswith(f"studybot: STUDYBOT_WEB_PORT={port}: cannot listen on 127.0.0.1:{port}")
