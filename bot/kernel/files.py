"""Files the bot writes for a person (a pack export, a learner's misses, a recap chart): created new, readable by
their owner only (0600, from the moment they exist), and never over an existing file."""

from __future__ import annotations

import os
from pathlib import Path

PRIVATE_MODE = 0o600
MAX_NUMBER = 999  # team.yaml, team-2.yaml, ... team-999.yaml


def write_private(path: Path, data: bytes) -> None:
    """Create `path` with mode 0600 and write `data`; FileExistsError when it is there already (O_EXCL: a file
    is never overwritten, nor a link followed). A failed write leaves no partial file."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), PRIVATE_MODE)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
    except BaseException:
        path.unlink(missing_ok=True)
        raise


def write_new(folder: Path, name: str, data: bytes) -> Path:
    """Write `data` to folder/name, or when that exists to the first free NAME-2.EXT, NAME-3.EXT, ... (each
    created with O_EXCL and mode 0600); the path written."""
    base = Path(name)
    stem, suffix = base.name[: len(base.name) - len(base.suffix)], base.suffix
    for number in range(1, MAX_NUMBER + 1):
        path = folder / (name if number == 1 else f"{stem}-{number}{suffix}")
        try:
            write_private(path, data)
        except FileExistsError:
            continue
        return path
    raise FileExistsError(f"{folder / name} and {MAX_NUMBER - 1} numbered copies exist already")
