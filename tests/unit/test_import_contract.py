"""The import contract (scripts/import_contract.py) holds for the tree, and it catches what it must: cycles
through imports inside functions and under TYPE_CHECKING too, and imports against the allowed directions."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "import_contract.py"
spec = importlib.util.spec_from_file_location("import_contract", SCRIPT)
assert spec is not None and spec.loader is not None
contract = importlib.util.module_from_spec(spec)
sys.modules["import_contract"] = contract
spec.loader.exec_module(contract)


def tree(root: Path, files: dict[str, str]) -> dict[str, set[str]]:
    """A small bot/ and adapters/ tree under `root`, and its import graph."""
    for name, body in {"bot/__init__.py": "", "adapters/__init__.py": "", **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)
        init = path.parent / "__init__.py"
        if not init.exists():
            init.write_text("")
    return contract.graph(root)


def test_the_tree_keeps_the_contract() -> None:
    assert list(contract.violations(contract.graph())) == []


def test_a_cycle_through_a_function_level_import_is_found(tmp_path: Path) -> None:
    edges = tree(
        tmp_path,
        {
            "bot/daily/posting.py": "from bot.daily import reveals\n",
            "bot/daily/reveals.py": "def later():\n    from bot.daily.posting import Posting\n",
        },
    )
    assert contract.cycles(edges) == [["bot.daily.posting", "bot.daily.reveals"]]


def test_a_cycle_under_type_checking_is_found(tmp_path: Path) -> None:
    edges = tree(
        tmp_path,
        {
            "bot/packs/catalog.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from bot.packs.service import X\n"
            ),
            "bot/packs/service.py": "from bot.packs.catalog import Y\n",
        },
    )
    assert contract.cycles(edges) == [["bot.packs.catalog", "bot.packs.service"]]


@pytest.mark.parametrize(
    ("source", "target"),
    [
        ("bot.kernel.values", "bot.daily.cards"),  # the kernel imports nothing else in bot/
        ("bot.packs.catalog", "bot.reports.service"),  # a feature the table does not name
        ("bot.seasons.service", "bot.daily.store"),  # seasons come before the daily game
        ("bot.store.sql", "bot.daily.posting"),  # the store never imports a service module
        ("adapters.slack.app", "bot.store.sqlite"),  # adapters never reach the store
        ("adapters.discord.app", "bot.app.config"),  # nor the composition root
        ("bot.text.runner", "bot.app.cli"),
    ],
)
def test_imports_against_the_directions_are_refused(source: str, target: str) -> None:
    assert not contract.may_import(source, target)


@pytest.mark.parametrize(
    ("source", "target"),
    [
        ("bot.daily.posting", "bot.reports.service"),  # named in the table
        ("bot.practice.service", "bot.daily.answers"),
        ("bot.store.sql", "bot.daily.store"),  # a feature's Protocol
        ("adapters.console.channel", "bot.features"),
        ("bot.app.bootstrap", "bot.store.ports"),
    ],
)
def test_imports_along_the_directions_are_allowed(source: str, target: str) -> None:
    assert contract.may_import(source, target)


def test_the_command_says_what_is_wrong_and_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tree(tmp_path, {"bot/kernel/values.py": "from bot.daily import cards\n", "bot/daily/cards.py": ""})
    assert contract.main(tmp_path) == 1
    assert "bot.kernel.values imports bot.daily.cards" in capsys.readouterr().out
