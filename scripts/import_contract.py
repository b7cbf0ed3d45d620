"""The import contract of bot/ and adapters/, checked over every import: at module level, inside functions
and under TYPE_CHECKING alike (an import that only runs later is still a dependency).

1. No import cycle among the modules of bot/ and adapters/.
2. Each part of the core imports only the parts ALLOWED names (its own modules always); a feature imports
   another feature only where the table says so.
3. The store imports a feature's values, store Protocols and pure rules (STORE_READS), never a service;
   adapters never import bot.store or bot.app.

Run: `python scripts/import_contract.py` (scripts/check runs it; so does tests/unit/test_import_contract.py).
Exit 0 and one line when the contract holds; otherwise each violation on its own line, and exit 1.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNEL = "bot.kernel"

# part -> the parts it may import (besides itself and the kernel, which every part of the core may import)
ALLOWED: dict[str, frozenset[str]] = {
    "bot.kernel": frozenset(),
    "bot.bank": frozenset(),
    "bot.settings": frozenset(),
    "bot.packs": frozenset({"bot.bank"}),
    "bot.installs": frozenset(),
    "bot.access": frozenset(),
    "bot.teams": frozenset(),
    "bot.seasons": frozenset({"bot.settings"}),
    "bot.recap": frozenset({"bot.seasons"}),
    "bot.reports": frozenset({"bot.packs"}),
    "bot.suggestions": frozenset({"bot.packs"}),
    "bot.mydata": frozenset({"bot.packs"}),
    "bot.daily": frozenset({"bot.packs", "bot.reports", "bot.seasons", "bot.recap", "bot.settings"}),
    "bot.practice": frozenset({"bot.daily", "bot.packs", "bot.reports"}),
    "bot.reminders": frozenset({"bot.practice"}),
    "bot.live": frozenset({"bot.packs", "bot.practice"}),
}
FEATURES = frozenset(ALLOWED) - {KERNEL, "bot.bank", "bot.settings"}
# the layers above the features: what they may import besides the kernel and the features
ABOVE: dict[str, frozenset[str]] = {
    "bot.features": frozenset({"bot.settings", "bot.bank"}),
    "bot.text": frozenset({"bot.features", "bot.settings", "bot.bank"}),
    "bot.web": frozenset({"bot.features", "bot.text", "bot.settings", "bot.bank"}),
    "bot.store": frozenset({"bot.settings", "bot.bank"}),
}
NEVER_IN_ADAPTERS = ("bot.store", "bot.app")
# what the store may import of a feature: its values, its store Protocols and its pure rules, never a service
STORE_READS = frozenset({"values", "store", "memory", "progress", "export", "forget"})


def modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of bot/ and adapters/ under `root`, by dotted name."""
    found = {}
    for base in ("bot", "adapters"):
        for path in (root / base).rglob("*.py"):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def imported(path: Path, module: str, known: dict[str, Path]) -> Iterator[str]:
    """Every module of bot/ and adapters/ this file imports, wherever the import statement stands."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]

    def resolve(name: str) -> str | None:
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name or None

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                head = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*head, *([node.module] if node.module else [])])
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for name in names:
            target = resolve(name)
            if target is not None and target != module:
                yield target


def graph(root: Path = ROOT) -> dict[str, set[str]]:
    known = modules(root)
    return {name: set(imported(path, name, known)) for name, path in known.items()}


def part_of(module: str) -> str:
    """The part a module belongs to: its feature or layer (bot.daily.posting -> bot.daily)."""
    return ".".join(module.split(".")[:2])


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def may_import(source: str, target: str) -> bool:
    """Whether the contract lets module `source` import module `target` (directions only; cycles apart)."""
    src, dst = part_of(source), part_of(target)
    if src == dst or source.startswith(("bot.app", "bot.__main__")):
        return True
    if source.startswith("adapters."):
        return not target.startswith(NEVER_IN_ADAPTERS)
    if dst == KERNEL:
        return True
    if src in ALLOWED:
        return dst in ALLOWED[src]
    if src == "bot.store":
        return (dst in FEATURES and target.split(".")[-1] in STORE_READS) or dst in ABOVE[src]
    if src in ABOVE:
        return dst in FEATURES or dst in ABOVE[src]
    return False


def violations(edges: dict[str, set[str]]) -> Iterable[str]:
    for component in cycles(edges):
        yield "import cycle: " + " -> ".join(component)
    for source in sorted(edges):
        for target in sorted(edges[source]):
            if not may_import(source, target):
                yield f"{source} imports {target}: {part_of(source)} may not import {part_of(target)}"


def main(root: Path = ROOT) -> int:
    edges = graph(root)
    found = list(violations(edges))
    for line in found:
        print(line)
    if found:
        return 1
    count = sum(len(targets) for targets in edges.values())
    parts = {part_of(name) for name in edges}
    print(f"import contract holds: {len(edges)} modules, {count} imports, {len(parts)} parts, no cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
