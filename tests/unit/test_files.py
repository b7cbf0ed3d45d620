"""Issue 28: a file the bot writes for a person is created 0600 (whatever the umask) and never over another."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.kernel.files import write_new, write_private


@pytest.fixture
def open_umask() -> Iterator[None]:
    """umask 0: a file gets exactly the mode it is created with (0666 for Path.write_bytes)."""
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_private_file_is_0600_from_its_creation(tmp_path: Path, open_umask: None) -> None:
    write_private(tmp_path / "a.csv", b"x")
    assert mode(tmp_path / "a.csv") == 0o600 and (tmp_path / "a.csv").read_bytes() == b"x"


def test_a_private_file_never_replaces_one_or_follows_a_link(tmp_path: Path) -> None:
    (tmp_path / "mine.yaml").write_bytes(b"mine")
    with pytest.raises(FileExistsError):
        write_private(tmp_path / "mine.yaml", b"theirs")
    (tmp_path / "link.yaml").symlink_to(tmp_path / "elsewhere.yaml")
    with pytest.raises(FileExistsError):
        write_private(tmp_path / "link.yaml", b"theirs")
    assert (tmp_path / "mine.yaml").read_bytes() == b"mine" and not (tmp_path / "elsewhere.yaml").exists()


def test_a_taken_name_gets_the_next_free_number(tmp_path: Path, open_umask: None) -> None:
    (tmp_path / "team.yaml").write_bytes(b"imported")
    assert write_new(tmp_path, "team.yaml", b"one") == tmp_path / "team-2.yaml"
    assert write_new(tmp_path, "team.yaml", b"two") == tmp_path / "team-3.yaml"
    assert write_new(tmp_path, "new.csv", b"three") == tmp_path / "new.csv"
    assert (tmp_path / "team.yaml").read_bytes() == b"imported"
    assert [(tmp_path / n).read_bytes() for n in ("team-2.yaml", "team-3.yaml")] == [b"one", b"two"]
    assert {n.name: mode(n) for n in tmp_path.iterdir() if n.name != "team.yaml"} == {
        "team-2.yaml": 0o600,
        "team-3.yaml": 0o600,
        "new.csv": 0o600,
    }
