"""The architecture of docs/architecture.md holds: every import runs down its layers (the
import-linter contract in pyproject.toml, ``lint-imports``, also a gate in .ci/run) and no two
modules import each other, directly or around a loop (a circle makes two files one, whatever
the folders say)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_every_import_runs_down_the_layers() -> None:
    tool = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    if not Path(tool).exists():
        pytest.skip("import-linter is not installed (it is in the dev extra)")
    done = subprocess.run([tool, "--no-cache"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "Contracts: 1 kept, 0 broken." in done.stdout


def _cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Every loop of direct imports among the modules (one per strongly connected group of
    two or more modules, Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.find_modules_directly_imported_by(v)):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


def test_no_modules_import_each_other() -> None:
    graph = grimp.build_graph("arena", cache_dir=None)
    # a package's __init__ only hands its modules' names on: not a room of its own (a
    # module importing a sibling through it would otherwise always close a loop)
    for package in [m for m in graph.modules if (ROOT / Path(*m.split("."))).is_dir()]:
        graph.remove_module(package)
    assert _cycles(graph) == []


def test_the_loop_finder_finds_loops() -> None:
    graph = grimp.ImportGraph()
    for a, b in [("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.c", "p.d"),
                 ("p.e", "p.f"), ("p.f", "p.e")]:
        graph.add_import(importer=a, imported=b)
    assert sorted(_cycles(graph)) == [["p.a", "p.b", "p.c"], ["p.e", "p.f"]]
