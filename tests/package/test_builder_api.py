"""The builder API competition scripts import keeps working: every `from evaluator... import`
in `competitions/*/` (build scripts and baselines) resolves to the names it asks for.

Why a test: those scripts are the contract with competition authors (the issue that moved the
package into layer folders promised their import paths stay), and they only run when a
competition is rebuilt or a baseline retrained, so a broken import would surface months later.
`evaluator.build` and `evaluator.spec` are the faces they should use; `evaluator.gnn` is the GNN
runtime the baselines share.
"""

from __future__ import annotations

import ast
import importlib

import pytest

from tests.helpers.paths import REPO

ROOT = REPO


def imports_in_competition_scripts() -> dict[tuple[str, str], list[str]]:
    """{(module, name): [script:line, ...]} for every `from evaluator... import name`."""
    found: dict[tuple[str, str], list[str]] = {}
    for path in sorted((ROOT / "competitions").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("evaluator"):
                for alias in node.names:
                    where = f"{path.relative_to(ROOT)}:{node.lineno}"
                    found.setdefault((node.module or "", alias.name), []).append(where)
    return found


IMPORTS = imports_in_competition_scripts()


def test_competition_scripts_use_the_builder_faces() -> None:
    modules = {module for module, _ in IMPORTS}
    assert {"evaluator.build", "evaluator.spec"} <= modules
    inner = sorted(m for m in modules if m.split(".")[1] in {"authoring", "competition"})
    assert inner == [], f"scripts reach past the faces into {inner}"


# importing torch and torch-geometric takes seconds: the GNN runtime's names are slow tests
CASES = [pytest.param(m, n, id=f"{m}:{n}",
                      marks=[pytest.mark.slow] if m.startswith("evaluator.gnn") else [])
         for m, n in sorted(IMPORTS)]


@pytest.mark.parametrize(("module", "name"), CASES)
def test_every_imported_name_resolves(module: str, name: str) -> None:
    if module.startswith("evaluator.gnn"):
        pytest.importorskip("torch_geometric")
    if name in {"MolGraph", "featurize", "graph_tables", "murcko_scaffold", "permute_nodes"}:
        pytest.importorskip("rdkit")
    mod = importlib.import_module(module)
    assert hasattr(mod, name), f"{module} has no {name} (used at {IMPORTS[(module, name)]})"
