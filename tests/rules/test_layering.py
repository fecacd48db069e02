"""Structure checks: the rules engine imports nothing but the standard library and its own
modules (docs/architecture.md), its modules import each other without a cycle (none hidden
behind TYPE_CHECKING or inside a function), and the protocol layer sees the match only through
the engine's View: it imports neither the match state nor private names."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import arena

ROOT = Path(arena.__file__).parent


def _imports(path: Path, package: str) -> list[tuple[str, list[str], bool]]:
    """(module imported, names, at top level) for every ``from`` import of ``path``."""
    tree = ast.parse(path.read_text())
    top = {id(n) for n in tree.body}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(p for p in (base, node.module or "") if p)
            out.append((module, [a.name for a in node.names], id(node) in top))
    return out


def test_rules_modules_form_no_import_cycle() -> None:
    graph: dict[str, set[str]] = {}
    for path in sorted((ROOT / "rules").glob("*.py")):
        name = f"arena.rules.{path.stem}"
        source = path.read_text()
        assert "TYPE_CHECKING" not in source, name
        deps = set()
        for module, names, at_top in _imports(path, "arena.rules"):
            targets = [module] + [f"{module}.{n}" for n in names]
            for t in targets:
                if t.startswith("arena.rules.") and (ROOT / "rules" / f"{t[12:]}.py").exists():
                    assert at_top, f"{name} imports {t} inside a function"
                    deps.add(t)
        graph[name] = deps
    done: set[str] = set()

    def visit(node: str, path: tuple[str, ...]) -> None:
        assert node not in path, " -> ".join((*path, node))
        if node in done:
            return
        for dep in graph.get(node, ()):
            visit(dep, (*path, node))
        done.add(node)

    for node in graph:
        visit(node, ())
    assert "arena.rules.state" not in graph["arena.rules.exchange"]
    assert "arena.rules.view" not in graph["arena.rules.state"]


def test_protocol_reads_no_match_state_and_no_private_names() -> None:
    for path in sorted((ROOT / "protocol").glob("*.py")):
        package = "arena.protocol"
        for module, names, _ in _imports(path, package):
            assert module != "arena.rules.state", path.name
            assert "MatchState" not in names, path.name
            if module.startswith("arena."):
                private = [n for n in names if n.startswith("_") and n != "__version__"]
                assert not private, (path.name, module, private)


def _all_imports(path: Path) -> list[tuple[str, int, int]]:
    """(module, relative level, line) of every import statement of ``path``, at any depth."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out += [(a.name, 0, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            out.append((node.module or "", node.level, node.lineno))
    return out


def test_rules_engine_imports_only_the_standard_library() -> None:
    """Every import in arena/rules is the standard library or a sibling module of arena/rules
    (``from .cards import ...``): no pydantic, no other arena package."""
    bad = []
    for path in sorted((ROOT / "rules").glob("*.py")):
        for module, level, line in _all_imports(path):
            if level == 1:
                ok = not module or (ROOT / "rules" / f"{module.split('.')[0]}.py").exists()
            elif level == 0:
                top = module.split(".")[0]
                ok = top in sys.stdlib_module_names or top == "__future__" or (
                    module.startswith("arena.rules.")
                    and (ROOT / "rules" / f"{module.split('.')[2]}.py").exists())
            else:
                ok = False   # ``from ..x``: outside the engine
            if not ok:
                bad.append(f"{path.name}:{line}: {'.' * level}{module}")
    assert not bad, "arena/rules imports outside the standard library: " + ", ".join(bad)


def test_importing_the_rules_engine_loads_only_the_standard_library() -> None:
    """At run time too (what a module pulls in indirectly): the modules ``import arena.rules``
    adds to a fresh interpreter are the standard library's and arena.rules's own."""
    code = ("import sys; before = set(sys.modules); import arena.rules; "
            "print('\\n'.join(sorted(set(sys.modules) - before)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT.parent).stdout.split()
    assert "arena.rules.state" in out
    foreign = [m for m in out if m.split(".")[0] not in sys.stdlib_module_names
               and not m.startswith("_sysconfigdata_")   # the standard sysconfig's data
               and m != "arena" and not m.startswith("arena.rules")]
    assert not foreign, f"import arena.rules loads {foreign}"
