"""The README opens with the two commands a fresh machine needs, and CI runs the test one verbatim."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    head = text.split("---", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", head)


def test_the_readme_opens_with_two_commands():
    run, test = readme_commands()
    assert run.endswith("pip install . && studybot")
    assert "pip install -e '.[test,verify]'" in test and test.endswith("python -m pytest")


def test_ci_runs_the_readme_test_command_verbatim():
    _, test = readme_commands()
    lines = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line and not line.startswith("#")]
    at = lines.index(test)  # the README's test command, verbatim, then only the static checks
    assert lines[at + 1 :] == ["scripts/check"]


def test_the_extras_the_commands_name_exist_and_pin_torch():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = meta["optional-dependencies"]
    assert {"discord", "slack", "postgres", "test", "verify"} <= set(extras)
    assert "torch==2.13.0" in extras["verify"]
    assert meta["scripts"]["studybot"] == "bot.app.cli:main"
    assert all(re.search(r"(>=|==)", dep) for dep in meta["dependencies"])


def test_a_plain_install_ships_the_question_bank_and_the_migrations(tmp_path):
    """`pip install .` (the README's first command) must carry the bank and SQL, not only the code."""
    import shutil
    import subprocess
    import sys
    import zipfile

    # build from a copy, so the checkout under test gets no build/ or *.egg-info of ours
    source = tmp_path / "source"
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(
            ".git",
            ".venv",
            "venv",
            "build",
            "dist",
            "*.egg-info",
            "__pycache__",
            "*.db*",
            ".pytest_cache",
            ".ruff_cache",
            ".mypy_cache",
        ),
    )
    wheels = tmp_path / "wheels"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(wheels),
            str(source),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = wheels.glob("studybot-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    shipped = {Path(n).name for n in names if "/share/studybot/questions/" in n}
    assert shipped == {p.name for p in (ROOT / "data" / "questions").glob("*.yaml")}
    assert any(n.endswith("bot/store/migrations/sqlite/001_init.sql") for n in names)
    assert any(n.endswith("bot/store/migrations/postgres/001_init.sql") for n in names)
    assert any(n.endswith("bot/web/templates/base.html") for n in names)  # the dashboard's pages
    assert any(n.endswith("bot/web/static/style.css") for n in names)
