"""Numbered SQL migrations, one folder per database (sqlite/, postgres/): NNN_name.sql."""

from __future__ import annotations

import re
from importlib import resources

_NAME = re.compile(r"^(\d{3})_([a-z0-9_]+)\.sql$")


def load_migrations(dialect: str) -> list[tuple[int, str, str]]:
    """(version, name, sql) for every migration of a dialect, in order."""
    folder = resources.files(__package__).joinpath(dialect)
    found = []
    for entry in folder.iterdir():
        m = _NAME.match(entry.name)
        if m:
            found.append((int(m.group(1)), m.group(2), entry.read_text(encoding="utf-8")))
    versions = [v for v, _, _ in found]
    if len(set(versions)) != len(versions):
        raise RuntimeError(f"two {dialect} migrations share a number")
    return sorted(found)
