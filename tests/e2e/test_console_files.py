"""Issue 28: files in the console and the CLI. An import refuses a FIFO, a directory or a device without blocking
on it; an export is a new file, 0600, and never replaces one (team.yaml stays, team-2.yaml is written)."""

from __future__ import annotations

import io
import os
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from adapters.console.channel import CONSOLE_REF, ConsoleChannel
from bot.features import Features
from bot.kernel.errors import PackError
from bot.kernel.values import LETTERS
from bot.packs.files import read_upload_file
from tests.e2e import test_console_review
from tests.e2e.test_console import run_console
from tests.support.fakes import store_of
from tests.support.packs import pack_csv, pack_rows

service = test_console_review.service  # a SQLite store, its clock at Monday 2026-12-07 09:00
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def usual_umask() -> Iterator[None]:
    """umask 022, as most shells have it: a file written with Path.write_bytes would be 0644."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# ---- import: only regular files, never a wait ------------------------------------------------------------


def test_the_console_refuses_a_fifo_a_directory_and_a_device_and_goes_on(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.csv")
    (tmp_path / "folder.csv").mkdir()
    (tmp_path / "null.csv").symlink_to("/dev/null")
    (tmp_path / "team.csv").write_bytes(pack_csv(pack_rows(3)))
    # run_console's timeout (60 s) kills a console blocked in open() and fails the test
    out = run_console(
        tmp_path,
        [
            "/quiz admin import pipe.csv",
            "/quiz admin import folder.csv",
            "/quiz admin import null.csv",
            "/quiz admin import team.csv",
            "/quiz packs",
            "/quit",
        ],
    )
    assert "pipe.csv: a named pipe (FIFO), not a file; give the path of a .yaml, .yml or .csv file" in out
    assert "folder.csv: a directory, not a file;" in out
    assert "null.csv: a character device, not a file;" in out
    assert "Imported pack team: 3 questions." in out and "team: 3 questions" in out
    assert "pipe" not in out.split("Question packs")[1] and out.rstrip().endswith("Bye.")


def test_the_cli_refuses_a_fifo_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.csv")
    env = dict(os.environ, STUDYBOT_DATABASE_URL=f"sqlite:///{tmp_path / 's.db'}", PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-m", "bot", "bank", "import", str(tmp_path / "pipe.csv"), "--space", "discord:1"]
        + ["--pack", "team"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 1 and "pipe.csv: a named pipe (FIFO), not a file" in done.stderr


def test_a_fifo_swapped_in_after_the_check_does_not_block_the_open(tmp_path: Path, monkeypatch) -> None:
    pipe = tmp_path / "swapped.csv"
    os.mkfifo(pipe)
    regular = os.stat(__file__)
    real_stat = os.stat
    monkeypatch.setattr(os, "stat", lambda p, *a, **k: regular if Path(p) == pipe else real_stat(p, *a, **k))
    outcome: list[BaseException | bytes] = []

    def read() -> None:
        try:
            outcome.append(read_upload_file(pipe))
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            outcome.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(10)
    if reader.is_alive():  # blocked in open(): a writer lets it go, and the test fails instead of hanging
        os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(10)
        pytest.fail("read_upload_file blocked opening a FIFO")
    [result] = outcome
    assert isinstance(result, PackError) and "a named pipe (FIFO), not a file" in result.message


# ---- export: new files, 0600, never over another ---------------------------------------------------------


async def test_exports_are_private_new_files_and_never_replace_one(
    service: Features, tmp_path: Path, usual_umask: None
) -> None:
    tmp_path = tmp_path / "files"  # (the database is in tmp_path)
    tmp_path.mkdir()
    out = io.StringIO()
    console = ConsoleChannel(service, stdout=out)
    console.export_dir = console.platform.recap_dir = tmp_path
    await console.start()
    team = tmp_path / "team.csv"
    mine = pack_csv() + b"\n"  # the admin's own file (an export of it would have no blank line at the end)
    team.write_bytes(mine)
    await console.handle(f"/quiz admin import {team}")
    await console.handle("/quiz admin export team csv")  # beside the file it was imported from
    await console.handle("/quiz admin export team")
    await console.handle("/quiz admin export team")
    text = out.getvalue()
    assert team.read_bytes() == mine  # the admin's file is left as it was
    assert (tmp_path / "team-2.csv").read_bytes() == pack_csv()  # the export round-trips the CSV
    assert (
        f"Exported pack team (csv) to {tmp_path / 'team-2.csv'} (team.csv is there already and was left as it was)"
        in text
    )
    assert f"Exported pack team (yaml) to {tmp_path / 'team.yaml'}\n" in text
    assert f"Exported pack team (yaml) to {tmp_path / 'team-2.yaml'} (team.yaml is there" in text
    assert (tmp_path / "team.yaml").read_bytes() == (tmp_path / "team-2.yaml").read_bytes()

    round_ = await store_of(service).latest_daily_round(CONSOLE_REF)
    assert round_ is not None
    question = service.context.bank.get(round_.question_id)
    assert question is not None
    await console.handle(f"/quiz answer {LETTERS[(question.answer + 1) % 4]}")
    assert await service.reveals.reveal_round(round_.id) is not None
    await console.handle("/quiz export")
    await console.handle("/quiz export")  # the same day again: new files beside the first ones
    written = {p.name: mode(p) for p in tmp_path.iterdir() if p.is_file() and p.name not in ("team.csv",)}
    assert written == {
        "team-2.csv": 0o600,
        "team.yaml": 0o600,
        "team-2.yaml": 0o600,
        "you-studybot-misses-2026-12-07.csv": 0o600,
        "you-studybot-misses-2026-12-07-anki.tsv": 0o600,
        "you-studybot-misses-2026-12-07-2.csv": 0o600,
        "you-studybot-misses-2026-12-07-anki-2.tsv": 0o600,
    }


def test_the_cli_export_is_0600_and_never_replaces_a_file(tmp_path: Path, usual_umask: None) -> None:
    env = dict(os.environ, STUDYBOT_DATABASE_URL=f"sqlite:///{tmp_path / 's.db'}", PYTHONPATH=str(ROOT))

    def studybot(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "bot", "bank", *args], capture_output=True, text=True, env=env, timeout=60
        )

    team = tmp_path / "team.csv"
    mine = pack_csv(pack_rows(3)) + b"\n"  # an export of it would have no blank line at the end
    team.write_bytes(mine)
    assert studybot("import", str(team), "--space", "discord:1", "--pack", "team").returncode == 0
    refused = studybot("export", "--space", "discord:1", "--pack", "team", "--format", "csv", "-o", str(team))
    assert refused.returncode == 1
    assert f"{team} exists already; give a new file name (an export never overwrites a file)" in refused.stderr
    assert team.read_bytes() == mine
    new = tmp_path / "out.yaml"
    wrote = studybot("export", "--space", "discord:1", "--pack", "team", "--format", "yaml", "-o", str(new))
    assert wrote.returncode == 0 and mode(new) == 0o600 and new.read_bytes().startswith(b"questions:\n")
