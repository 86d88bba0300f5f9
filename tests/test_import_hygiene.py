"""The package's shape, checked statically: core modules never import a track or the CLI, and
no import cycle exists in `evaluator/`.

Why a static AST walk and not `sys.modules` after an import: imports inside functions are how
cycles and core->track dependencies hid here before (`render` imported the code track's board
inside `write_leaderboards`, `baselines` imported the CLI inside `_encrypt`); they only run on
some paths, so only reading every `import` statement finds them all.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "evaluator"
# Modules that may depend on the core but never the reverse: the CLI and its verb modules, the
# tracks (code track, LLM track, GNN baselines runtime) and the GitHub pipeline glue
# (evaluator.ci, and evaluator.reveal, which records and pushes through it like ci.publish).
OUTER = ("evaluator.cli", "evaluator.commands", "evaluator.codetrack", "evaluator.llm",
         "evaluator.gnn", "evaluator.ci", "evaluator.reveal")


def module_names(package: Path) -> dict[str, Path]:
    out = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def imports_of(name: str, path: Path, known: dict[str, Path]) -> list[tuple[str, int]]:
    """(imported module, line) for every import statement of the package's own modules,
    including those inside functions and `from x import submodule` forms."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                if path.name != "__init__.py":
                    base = base[:-1]
                base = base[:len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.append((module, node.lineno))
            found += [(f"{module}.{a.name}", node.lineno) for a in node.names
                      if f"{module}.{a.name}" in known]
    return [(m, line) for m, line in found if m in known and m != name]


def is_outer(module: str) -> bool:
    return any(module == o or module.startswith(o + ".") for o in OUTER)


def core_violations(known: dict[str, Path]) -> list[str]:
    problems = []
    for name, path in known.items():
        if is_outer(name):
            continue
        for target, line in imports_of(name, path, known):
            if is_outer(target):
                problems.append(f"{path.relative_to(ROOT)}:{line}: core module {name} imports "
                                f"{target}; pass the track's object in, or let the track "
                                "register itself (evaluator.boards)")
    return problems


def import_graph(known: dict[str, Path]) -> nx.DiGraph:
    graph = nx.DiGraph()
    graph.add_nodes_from(known)
    for name, path in known.items():
        for target, line in imports_of(name, path, known):
            if not target.startswith(name + "."):  # a package importing its own submodule
                graph.add_edge(name, target, line=line)
    return graph


def cycles(known: dict[str, Path]) -> list[list[str]]:
    graph = import_graph(known)
    return sorted(sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1)


def test_no_core_module_imports_a_track_or_the_cli() -> None:
    assert core_violations(module_names(PACKAGE)) == []


def test_no_import_cycle_in_the_package() -> None:
    assert cycles(module_names(PACKAGE)) == []


def test_the_walk_sees_every_module() -> None:
    known = module_names(PACKAGE)
    assert {"evaluator.render", "evaluator.codetrack.board", "evaluator.boards"} <= set(known)
    edges = import_graph(known).edges
    assert ("evaluator.codetrack.board", "evaluator.boards") in edges  # module level
    assert ("evaluator.codetrack.board", "evaluator.render") in edges  # inside a function


# -- the checks catch what they are meant to catch ---------------------------------------------


@pytest.fixture()
def bad_package(tmp_path: Path) -> Path:
    pkg = tmp_path / "evaluator"
    (pkg / "codetrack").mkdir(parents=True)
    (pkg / "commands").mkdir()
    for f in ("__init__.py", "codetrack/__init__.py", "commands/__init__.py"):
        (pkg / f).write_text("", encoding="utf-8")
    (pkg / "render.py").write_text(
        "def page():\n    from evaluator.codetrack.board import board_page\n", encoding="utf-8")
    (pkg / "codetrack" / "board.py").write_text(
        "from evaluator.render import page\n", encoding="utf-8")
    (pkg / "baselines.py").write_text(
        "from evaluator.commands import competition\n", encoding="utf-8")
    (pkg / "commands" / "competition.py").write_text(
        "from .. import baselines\n", encoding="utf-8")
    return pkg


def test_checks_fail_on_a_bad_package(bad_package: Path, monkeypatch) -> None:
    monkeypatch.setitem(globals(), "ROOT", bad_package.parent)  # messages name paths under it
    known = module_names(bad_package)
    problems = core_violations(known)
    assert any("render.py:2" in p and "evaluator.codetrack.board" in p for p in problems)
    assert any("baselines.py:1" in p and "evaluator.commands.competition" in p for p in problems)
    assert cycles(known) == [["evaluator.baselines", "evaluator.commands.competition"],
                             ["evaluator.codetrack.board", "evaluator.render"]]
