"""Start and stop of the real `python -m bot` process: every bad setting or unusable resource is one line on
stderr with a non-zero exit and no traceback (and no hang), and SIGTERM/SIGINT stop it cleanly."""

from __future__ import annotations

import datetime as dt
import fcntl
import io
import logging
import os
import pty
import select
import signal
import socket
import sqlite3
import stat
import subprocess
import sys
import termios
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from adapters.console.channel import ConsoleChannel
from bot.app.bootstrap import bootstrap
from bot.app.config import Settings
from bot.kernel.outage import STORE_DOWN
from tests.support.fakes import FixedClock, make_bank, write_bank_files
from tests.support.memory_store import InMemoryStore

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
PG_SERVER = os.environ.get("STUDYBOT_TEST_POSTGRES_URL") or "postgresql://postgres@127.0.0.1:5432/postgres"


@pytest.fixture(scope="module")
def bank_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_bank_files(tmp_path_factory.mktemp("bank"), make_bank())


@pytest.fixture(scope="module")
def python_start() -> float:
    """Seconds this machine needs to start Python and import the bot: the 2 s budget is on top of a busy
    machine's extra start-up time, never below 2 s."""
    began = time.monotonic()
    subprocess.run([sys.executable, "-c", "import bot.app.cli"], cwd=ROOT, check=True, timeout=30)
    return time.monotonic() - began


def bot_env(tmp_path: Path, bank_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "SLACK_", "STUDYBOT_"))}
    env |= {
        "PYTHONPATH": str(ROOT),
        "STUDYBOT_BANK_DIR": str(bank_dir),
        "STUDYBOT_DATABASE_URL": f"sqlite:///{tmp_path / 'bot.db'}",
    }
    return env | extra


def run(
    tmp_path: Path, bank_dir: Path, *args: str, stdin: str | None = "/quit\n", timeout: float = 30, **extra: str
) -> tuple[subprocess.CompletedProcess[str], float]:
    began = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "bot", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=bot_env(tmp_path, bank_dir, **extra),
        timeout=timeout,
        stdin=subprocess.DEVNULL if stdin is None else None,
    )
    return proc, time.monotonic() - began


def one_line(proc: subprocess.CompletedProcess[str], code: int = 2) -> str:
    assert proc.returncode == code, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("studybot: ")
    return lines[0]


BAD_SETTINGS = [
    ({"STUDYBOT_MISFIRE_GRACE_SECONDS": "1h"}, "STUDYBOT_MISFIRE_GRACE_SECONDS=1h", "whole number of seconds"),
    ({"STUDYBOT_MISFIRE_GRACE_SECONDS": "-5"}, "STUDYBOT_MISFIRE_GRACE_SECONDS=-5", "0 or more"),
    # issue 30 item 5: the send lease and the tick
    ({"STUDYBOT_SEND_LEASE_SECONDS": "2m"}, "STUDYBOT_SEND_LEASE_SECONDS=2m", "whole number of seconds, 1 or more"),
    ({"STUDYBOT_SEND_LEASE_SECONDS": "0"}, "STUDYBOT_SEND_LEASE_SECONDS=0", "whole number of seconds, 1 or more"),
    ({"STUDYBOT_TICK_SECONDS": "1.5"}, "STUDYBOT_TICK_SECONDS=1.5", "whole number of seconds from 1 to 300"),
    ({"STUDYBOT_TICK_SECONDS": "0"}, "STUDYBOT_TICK_SECONDS=0", "whole number of seconds from 1 to 300"),
    ({"STUDYBOT_TICK_SECONDS": "301"}, "STUDYBOT_TICK_SECONDS=301", "whole number of seconds from 1 to 300"),
    ({"STUDYBOT_METRICS_PORT": "abc"}, "STUDYBOT_METRICS_PORT=abc", "port number from 0 to 65535"),
    ({"STUDYBOT_METRICS_PORT": "70000"}, "STUDYBOT_METRICS_PORT=70000", "port number from 0 to 65535"),
    ({"STUDYBOT_SHARD_COUNT": "abc"}, "STUDYBOT_SHARD_COUNT=abc", "1 or more"),
    ({"STUDYBOT_SHARD_COUNT": "0"}, "STUDYBOT_SHARD_COUNT=0", "1 or more"),
    (
        {"STUDYBOT_SHARD_IDS": "5", "STUDYBOT_SHARD_COUNT": "2", "DISCORD_TOKEN": "not.a.token"},
        "STUDYBOT_SHARD_IDS=5",
        "outside 0..1",
    ),
    # issue 28 item 9: refused in every mode, not only when Discord runs (the console, Slack)
    ({"STUDYBOT_SHARD_COUNT": "2", "STUDYBOT_SHARD_IDS": "5"}, "STUDYBOT_SHARD_IDS=5", "use shard numbers from 0 to 1"),
    (
        {"STUDYBOT_SHARD_IDS": "2-4", "STUDYBOT_SHARD_COUNT": "4", "SLACK_BOT_TOKEN": "not.a.token"}
        | {"SLACK_SIGNING_SECRET": "not.a.token", "STUDYBOT_HTTP_PORT": "0"},
        "STUDYBOT_SHARD_IDS=2-4",
        "shard 4 is outside 0..3",
    ),
    ({"STUDYBOT_SHARD_IDS": "1"}, "STUDYBOT_SHARD_IDS=1", "without STUDYBOT_SHARD_COUNT"),
    # issue 34: process roles; split roles only on PostgreSQL, and with a platform
    (
        {"STUDYBOT_ROLE": "worker"},
        "STUDYBOT_ROLE=worker",
        "all (the default: one process does everything), interactive",
    ),
    (
        {"STUDYBOT_ROLE": "delivery"},
        "STUDYBOT_ROLE=delivery is not accepted with a SQLite database",
        "STUDYBOT_ROLE=all",
    ),
    (
        {"STUDYBOT_ROLE": "interactive", "DISCORD_TOKEN": "not.a.token"},
        "STUDYBOT_ROLE=interactive is not accepted with a SQLite database (STUDYBOT_DATABASE_URL=sqlite:///",
        "split the roles on PostgreSQL",
    ),
    (
        {"STUDYBOT_ROLE": "delivery", "STUDYBOT_DATABASE_URL": "postgresql://u:secret@127.0.0.1:1/db"},
        "STUDYBOT_ROLE=delivery needs a platform",
        "the local console runs as one process, STUDYBOT_ROLE=all",
    ),
    ({"STUDYBOT_SHARD_COUNT": "automatic"}, "STUDYBOT_SHARD_COUNT=automatic", "or auto (Discord's recommended count)"),
    ({"STUDYBOT_CONSOLE_TZ": "Mars/Olympus"}, "STUDYBOT_CONSOLE_TZ=Mars/Olympus", "IANA timezone"),
    ({"STUDYBOT_LOG_LEVEL": "verbose"}, "STUDYBOT_LOG_LEVEL=verbose", "DEBUG, INFO, WARNING, ERROR"),
    ({"STUDYBOT_DATABASE_URL": "sqlite://x.db"}, "STUDYBOT_DATABASE_URL=sqlite://x.db", "sqlite:///file.db"),
    (
        {"STUDYBOT_DATABASE_URL": "postgresql://u:secret@bad_host!/db"},
        "STUDYBOT_DATABASE_URL=postgresql://u:***@",
        "postgresql://user:password@host:5432/dbname",
    ),
    ({"STUDYBOT_DATABASE_URL": "postgresql://u:secret@127.0.0.1:99999/db"}, "127.0.0.1:99999/db", "postgresql://"),
    ({"STUDYBOT_DATABASE_URL": "postgresql://u:secret@127.0.0.1:abc/db"}, "127.0.0.1:abc/db", "postgresql://"),
    ({"STUDYBOT_METRICS_HOST": "999.1.1.1"}, "STUDYBOT_METRICS_HOST=999.1.1.1", "IP address or host name"),
    ({"DISCORD_GUILD_ID": "my-server", "DISCORD_TOKEN": "x"}, "DISCORD_GUILD_ID=my-server", "server id"),
    ({"STUDYBOT_HTTP_PORT": "http"}, "STUDYBOT_HTTP_PORT=http", "port number"),
]


@pytest.fixture(scope="module")
def bad_setting_runs(
    tmp_path_factory: pytest.TempPathFactory, bank_dir: Path
) -> dict[int, tuple[subprocess.CompletedProcess[str], Path]]:
    """Every case of BAD_SETTINGS run once, two processes at a time (each is a separate `python -m bot`). The
    30 s timeout only catches a hang; these fail in about a second on an idle machine."""

    def one(index: int) -> tuple[subprocess.CompletedProcess[str], Path]:
        folder = tmp_path_factory.mktemp(f"bad{index}")
        return run(folder, bank_dir, **BAD_SETTINGS[index][0])[0], folder

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(enumerate(pool.map(one, range(len(BAD_SETTINGS)))))


@pytest.mark.parametrize("index", range(len(BAD_SETTINGS)), ids=[next(iter(c[0].values())) for c in BAD_SETTINGS])
def test_a_bad_setting_is_one_line_naming_it(bad_setting_runs, index):
    proc, folder = bad_setting_runs[index]
    _, names, accepted = BAD_SETTINGS[index]
    line = one_line(proc)
    assert names in line and accepted in line, line
    assert "secret" not in proc.stderr and "not.a.token" not in proc.stderr
    assert not (folder / "bot.db").exists()  # nothing was opened


def pg_url(**parts: object) -> str:
    split = urlsplit(PG_SERVER)
    user = parts.get("user", split.username)
    host = parts.get("host", split.hostname)
    port = parts.get("port", split.port or 5432)
    path = parts.get("path", split.path)
    return urlunsplit(split._replace(netloc=f"{user}@{host}:{port}", path=str(path)))


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("postgresql://postgres@127.0.0.1:1/postgres", "Connect call failed"),  # nothing listens on port 1
        (pg_url(user="no_such_role"), "no_such_role"),
        (pg_url(path="/no_such_database"), "no_such_database"),
    ],
    ids=["port", "user", "database"],
)
def test_a_postgresql_server_that_refuses_is_one_line(tmp_path, bank_dir, url, reason):
    proc, _ = run(tmp_path, bank_dir, STUDYBOT_DATABASE_URL=url)
    line = one_line(proc)
    assert line.startswith("studybot: STUDYBOT_DATABASE_URL: cannot connect to PostgreSQL at") and reason in line


def test_db_migrate_against_an_unreachable_server(tmp_path, bank_dir):
    proc, _ = run(tmp_path, bank_dir, "db", "migrate", STUDYBOT_DATABASE_URL=pg_url(port=1))
    assert "cannot connect to PostgreSQL" in one_line(proc)


def blocked(tmp_path: Path, *modules: str) -> str:
    """A PYTHONPATH on which importing `modules` fails, as it does when an extra is not installed."""
    folder = tmp_path / "without"
    for name in modules:
        (folder / name).mkdir(parents=True)
        (folder / name / "__init__.py").write_text(f"raise ImportError({f'No module named {name!r}'!r})\n")
    return f"{folder}{os.pathsep}{ROOT}"


@pytest.mark.parametrize(
    ("env", "module", "line"),
    [
        ({"DISCORD_TOKEN": "t"}, "discord", "DISCORD_TOKEN is set but the discord adapter cannot be imported"),
        (
            {"SLACK_BOT_TOKEN": "t", "SLACK_APP_TOKEN": "a"},
            "slack_bolt",
            "SLACK_BOT_TOKEN is set but the slack adapter",
        ),
        ({"STUDYBOT_DATABASE_URL": "postgresql://u@127.0.0.1/db"}, "asyncpg", "asyncpg is not installed"),
    ],
    ids=["discord", "slack", "postgres"],
)
def test_a_missing_extra_names_the_pip_line(tmp_path, bank_dir, env, module, line):
    extra = {"discord": "discord", "slack_bolt": "slack", "asyncpg": "postgres"}[module]
    proc, _ = run(tmp_path, bank_dir, PYTHONPATH=blocked(tmp_path, module), **env)
    got = one_line(proc)
    assert line in got and got.endswith(f"pip install 'studybot[{extra}]'"), got


def ro_run(tmp_path: Path, bank_dir: Path, db: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    """Run the bot on `db` in a folder it may only read: a read-only bind mount as root (root ignores file
    modes), file modes otherwise."""
    folder = db.parent
    if os.geteuid() != 0:
        db.chmod(0o444)
        folder.chmod(0o555)
        return run(tmp_path, bank_dir, STUDYBOT_DATABASE_URL=f"sqlite:///{db}")
    env = bot_env(tmp_path, bank_dir, STUDYBOT_DATABASE_URL=f"sqlite:///{db}")
    script = f'mount --bind "{folder}" "{folder}" && mount -o remount,bind,ro "{folder}" && exec "$@"'
    began = time.monotonic()
    proc = subprocess.run(
        ["unshare", "--mount", "sh", "-c", script, "sh", sys.executable, "-m", "bot"],
        input="/quit\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=30,
    )
    return proc, time.monotonic() - began


def make_db(tmp_path: Path, bank_dir: Path, name: str) -> Path:
    db = tmp_path / "data" / name
    proc, _ = run(tmp_path, bank_dir, STUDYBOT_DATABASE_URL=f"sqlite:///{db}")
    assert proc.returncode == 0, proc.stderr
    return db


@pytest.mark.parametrize("case", ["corrupt", "truncated", "read-only", "port in use"])
def test_an_unusable_resource_stops_within_two_seconds(tmp_path, bank_dir, python_start, case):
    if case == "corrupt":
        db = tmp_path / "x.db"
        db.write_bytes(os.urandom(100_000))
        proc, took = run(tmp_path, bank_dir, STUDYBOT_DATABASE_URL=f"sqlite:///{db}")
        expected = "file is not a database"
    elif case == "truncated":
        db = make_db(tmp_path, bank_dir, "full.db")
        cut = tmp_path / "cut.db"
        cut.write_bytes(db.read_bytes()[:5000])
        proc, took = run(tmp_path, bank_dir, STUDYBOT_DATABASE_URL=f"sqlite:///{cut}")
        expected = "malformed"
    elif case == "read-only":
        proc, took = ro_run(tmp_path, bank_dir, make_db(tmp_path, bank_dir, "ro.db"))
        expected = "cannot open the database"
    else:
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            port = str(taken.getsockname()[1])
            proc, took = run(tmp_path, bank_dir, STUDYBOT_METRICS_PORT=port, STUDYBOT_METRICS_HOST="127.0.0.1")
        expected = f"STUDYBOT_METRICS_PORT={port}: cannot listen on 127.0.0.1:{port} (Address already in use)"
    line = one_line(proc)
    assert expected in line, line
    assert took < max(2.0, python_start + 1.5), f"{case}: {took:.2f} s"


def test_closed_standard_input_without_a_token_says_which_tokens_start_what(tmp_path, bank_dir):
    proc, _ = run(tmp_path, bank_dir, stdin=None)  # studybot </dev/null, as in a container
    line = one_line(proc)
    assert "DISCORD_TOKEN (Discord)" in line and "SLACK_BOT_TOKEN" in line and "console" in line
    assert not (tmp_path / "bot.db").exists()


def test_piped_commands_still_drive_the_console(tmp_path, bank_dir):
    proc, _ = run(tmp_path, bank_dir, stdin="/quiz\n/quit\n")
    assert proc.returncode == 0, proc.stderr
    assert "== Practice" in proc.stdout and proc.stdout.rstrip().endswith("Bye.")


def test_the_database_and_its_wal_and_shm_are_private(tmp_path, bank_dir):
    db = tmp_path / "bot.db"
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=bot_env(tmp_path, bank_dir),
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("/quiz answer A\n")
        proc.stdin.flush()
        wait_for_line(proc, "(private to you)")
        files = [db, Path(f"{db}-wal"), Path(f"{db}-shm")]
        modes = {f.name: stat.S_IMODE(f.stat().st_mode) for f in files}
        assert modes == {f.name: 0o600 for f in files}
        proc.communicate("/quit\n", timeout=10)
        assert proc.returncode == 0
    finally:
        if proc.poll() is None:
            proc.kill()


def wait_for_line(proc: subprocess.Popen[str], text: str, timeout: float = 15) -> str:
    """Read the process's stdout (at the file descriptor, so no buffer hides a line) until `text` shows."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    deadline = time.monotonic() + timeout
    seen = b""
    while text.encode() not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            seen += chunk
    assert text.encode() in seen, f"{text!r} not seen in {seen!r}"
    return seen.decode()


def unshare_works() -> bool:
    try:
        return (
            subprocess.run(
                ["unshare", "--pid", "--fork", "--mount-proc", "true"], timeout=10, capture_output=True
            ).returncode
            == 0
        )
    except (OSError, subprocess.TimeoutExpired):
        return False


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("as_pid_1", [False, True], ids=["child", "pid-1"])
def test_a_signal_stops_the_console_gracefully(tmp_path, bank_dir, sig, as_pid_1):
    """The answer sent just before the signal is committed; exit 0 within 10 s, also as PID 1 of a PID
    namespace (as in Docker, where a signal without a handler is ignored)."""
    if as_pid_1:
        assert sys.platform != "linux" or os.geteuid() != 0 or unshare_works()
        as_pid_1 = unshare_works()  # elsewhere the same test runs as a plain child
    prefix = ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child"] if as_pid_1 else []
    env = bot_env(tmp_path, bank_dir)
    proc = subprocess.Popen(
        [*prefix, sys.executable, "-m", "bot"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    try:
        assert proc.stdin is not None
        proc.stdin.write("/quiz answer B\n")
        proc.stdin.flush()
        wait_for_line(proc, "(private to you)")
        target = proc.pid
        if as_pid_1:
            target = int(Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()[0])
            ns_pids = Path(f"/proc/{target}/status").read_text().split("NSpid:")[1].splitlines()[0].split()
            assert ns_pids[-1] == "1"
        began = time.monotonic()
        os.kill(target, sig)
        out, err = proc.communicate(timeout=10)
        assert proc.returncode == 0, err
        assert time.monotonic() - began < 10
        assert "Traceback" not in err
    finally:
        if proc.poll() is None:
            proc.kill()
    with sqlite3.connect(tmp_path / "bot.db") as con:
        assert con.execute("SELECT count(*) FROM answers WHERE user_id = 'you'").fetchone() == (1,)


def test_ctrl_c_in_a_terminal_quits_at_once_and_lines_have_history(tmp_path, bank_dir):
    """On a terminal (a pty here) input goes through readline: the up arrow brings back the last line; and
    Ctrl-C ends the session without waiting for Enter."""
    main, child = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot"],
        stdin=child,
        stdout=child,
        stderr=child,
        cwd=tmp_path,
        env=bot_env(tmp_path, bank_dir, TERM="dumb"),
        start_new_session=True,
        preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0),
    )  # the pty is its terminal
    os.close(child)
    seen = b""

    def read_until(text: bytes, timeout: float = 15) -> None:
        nonlocal seen
        deadline = time.monotonic() + timeout
        while text not in seen and time.monotonic() < deadline:
            ready, _, _ = select.select([main], [], [], 0.2)
            if ready:
                try:
                    seen += os.read(main, 4096)
                except OSError:
                    break
        assert text in seen, seen.decode(errors="replace")

    try:
        read_until(b"Type /help")
        os.write(main, b"/quiz answer C\r")
        read_until(b"is locked in")
        os.write(main, b"\x1b[A\r")  # up arrow: the same line again
        read_until(b"You already answered C")
        began = time.monotonic()
        os.write(main, b"\x03")  # Ctrl-C, no Enter
        assert proc.wait(timeout=5) == 0
        assert time.monotonic() - began < 5
        assert b"Traceback" not in seen
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(main)


class FlakyStore(InMemoryStore):
    """An in-memory store whose answer writes and leaderboard reads fail while `down` is set."""

    down = False

    async def add_answers(self, answers, now):  # type: ignore[no-untyped-def]
        if self.down:
            raise sqlite3.OperationalError("disk I/O error")
        return await super().add_answers(answers, now)

    async def leaderboard(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        if self.down:
            raise sqlite3.OperationalError("disk I/O error")
        return await super().leaderboard(*args, **kwargs)


async def test_a_store_error_never_ends_the_console(caplog):
    store = FlakyStore()
    await store.open()
    service = bootstrap(store, make_bank(), FixedClock(dt.datetime(2026, 3, 2, 8, 0, tzinfo=dt.UTC)))
    out = io.StringIO()
    console = ConsoleChannel(service, stdin=io.StringIO(""), stdout=out)
    await console.start()
    caplog.set_level(logging.DEBUG)
    store.down = True
    for line in ("/quiz answer A", "/quiz answer B", "/quiz leaderboard", "/quiz leaderboard"):
        assert await console.handle(line) is True
    text = out.getvalue()
    assert text.count(f"(private to you) {STORE_DOWN}") == 4  # answers and reads alike
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert [r.name for r in errors] == ["bot.kernel.outage"]  # once per outage, by the one shared reporter
    store.down = False
    assert await console.handle("/quiz answer C")
    assert "Your answer C is locked in" in out.getvalue()  # the database is back: so is the console
    assert [r.getMessage()[:27] for r in caplog.records if r.levelno == logging.WARNING] == [
        "the database is back after "
    ]
    await service.close()
    await store.close()


def test_settings_are_read_only_by_from_env(monkeypatch):
    monkeypatch.setenv("STUDYBOT_METRICS_PORT", "not-a-port")
    assert Settings().metrics_port is None  # Settings(...) never looks at the environment
    assert Settings.from_env({"STUDYBOT_METRICS_PORT": "9100"}).metrics_port == 9100
