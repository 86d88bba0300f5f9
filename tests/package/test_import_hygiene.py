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

from tests.helpers.paths import REPO

ROOT = REPO
PACKAGE = ROOT / "evaluator"
# The layers, from the ground up: a part (a top-level folder or module of `evaluator/`) imports
# only parts below it. `build` and `spec` are the builder API's stable faces for competition
# scripts; nothing inside the package imports them. docs/design.md draws this map.
LAYERS = ("evaluator", "errors", "settings", "util", "paths", "metrics", "competition", "sandbox",
          "submission", "scoring", "ledger", "pipeline", "render", "repo", "authoring", "llm",
          "codetrack", "gnn", "ci", "commands", "cli")
FACES = ("build", "spec")


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


def part_of(module: str) -> str:
    """`evaluator.ledger.store` -> `ledger`; the package itself -> `evaluator`."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "evaluator"


def layer_violations(known: dict[str, Path]) -> list[str]:
    """Every import that runs upward (or sideways between parts), into a face, or into the
    CLI from anywhere but `cli.py` and `commands/`."""
    rank = {name: i for i, name in enumerate(LAYERS)}
    problems = []
    for name, path in known.items():
        mine = part_of(name)
        seen: set[int] = set()  # `from evaluator.commands import x` is one problem, not two
        for target, line in imports_of(name, path, known):
            theirs = part_of(target)
            if line in seen:
                continue
            where = f"{path.relative_to(ROOT)}:{line}: {name} imports {target}"
            if theirs == mine:
                continue
            if mine in FACES:
                continue
            if theirs in FACES:
                problems.append(f"{where}; import the layer itself, not the builders' face")
            elif theirs in ("cli", "commands") and mine not in ("cli", "commands"):
                problems.append(f"{where}; the library never drives its own CLI: call the "
                                "library function the verb calls")
            elif mine not in rank or theirs not in rank:
                problems.append(f"{where}; {mine if mine not in rank else theirs} is in no "
                                "layer: add it to LAYERS (and docs/design.md)")
            elif rank[theirs] > rank[mine]:
                problems.append(f"{where}; {theirs} is above {mine}: move the helper down or "
                                "pass it in")
            else:
                continue
            seen.add(line)
    return problems


def part_cycles(known: dict[str, Path]) -> list[list[str]]:
    """Circles among the top-level parts, function-local imports included."""
    graph = nx.DiGraph()
    for name, path in known.items():
        for target, _ in imports_of(name, path, known):
            if part_of(target) != part_of(name):
                graph.add_edge(part_of(name), part_of(target))
    return sorted(sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1)


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


def test_every_import_runs_down_the_layers() -> None:
    assert layer_violations(module_names(PACKAGE)) == []


def test_no_circle_between_top_level_parts() -> None:
    assert part_cycles(module_names(PACKAGE)) == []


def test_the_top_level_is_the_map() -> None:
    """At most 8 top-level modules; every folder is a layer."""
    modules = sorted(p.stem for p in PACKAGE.glob("*.py"))
    folders = sorted(p.name for p in PACKAGE.iterdir()
                     if p.is_dir() and (p / "__init__.py").is_file())
    assert len(modules) <= 8, modules
    assert set(modules) - {"__init__"} <= set(LAYERS) | set(FACES), modules
    assert set(folders) <= set(LAYERS), folders


def test_no_module_is_longer_than_800_lines() -> None:
    long = {str(p.relative_to(ROOT)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 800}
    assert long == {}


def test_no_import_cycle_in_the_package() -> None:
    assert cycles(module_names(PACKAGE)) == []


def test_the_walk_sees_every_module() -> None:
    known = module_names(PACKAGE)
    assert {"evaluator.render.boards", "evaluator.codetrack.board",
            "evaluator.competition.boards"} <= set(known)
    edges = import_graph(known).edges
    assert ("evaluator.codetrack.board", "evaluator.competition.boards") in edges  # module level
    assert ("evaluator.codetrack.board", "evaluator.render.boards") in edges  # inside a function


# -- the checks catch what they are meant to catch ---------------------------------------------


@pytest.fixture()
def bad_package(tmp_path: Path) -> Path:
    """A package with each kind of defect: an upward import hidden in a function (render ->
    codetrack), the library driving the CLI (authoring -> commands), a circle between two
    parts, and an import of a builders' face from inside."""
    pkg = tmp_path / "evaluator"
    for folder in ("codetrack", "commands", "render", "authoring"):
        (pkg / folder).mkdir(parents=True)
        (pkg / folder / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "build.py").write_text("from evaluator.authoring.kit import x\n", encoding="utf-8")
    (pkg / "render" / "boards.py").write_text(
        "def page():\n    from evaluator.codetrack.board import board_page\n", encoding="utf-8")
    (pkg / "codetrack" / "board.py").write_text(
        "from evaluator.render.boards import page\nfrom evaluator.build import x\n",
        encoding="utf-8")
    (pkg / "authoring" / "kit.py").write_text(
        "from evaluator.commands import competition\nx = 1\n", encoding="utf-8")
    (pkg / "commands" / "competition.py").write_text(
        "from evaluator.authoring import kit\n", encoding="utf-8")
    return pkg


def test_checks_fail_on_a_bad_package(bad_package: Path, monkeypatch) -> None:
    monkeypatch.setitem(globals(), "ROOT", bad_package.parent)  # messages name paths under it
    known = module_names(bad_package)
    problems = layer_violations(known)
    assert any("render/boards.py:2" in p and "codetrack is above render" in p for p in problems)
    assert any("authoring/kit.py:1" in p and "never drives its own CLI" in p for p in problems)
    assert any("codetrack/board.py:2" in p and "builders' face" in p for p in problems)
    assert len(problems) == 3
    assert part_cycles(known) == [["authoring", "commands"], ["codetrack", "render"]]
    assert cycles(known) == [["evaluator.authoring.kit", "evaluator.commands.competition"],
                             ["evaluator.codetrack.board", "evaluator.render.boards"]]
