"""What a reference solution costs to load in the judge's worker: its problem module without
NetworkX, NumPy or SciPy.

Why: the judge starts one sandboxed worker per problem (39 for the published GraphEval36K set)
and the reference wrapper (`judge.reference_solution`) imports its problem's module there.
Importing NetworkX and NumPy at module level cost ~0.5 s CPU per worker, over a quarter of the
whole run, for nothing a reference computes with: those imports now sit inside the functions
that build or inspect graphs (case builders, input graphs, contract checks), which run on the
judge's side. The one exception is a reference that computes with NumPy (`NEEDED`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from evaluator import sandbox
from evaluator.codetrack.judge import reference_solution
from evaluator.codetrack.problem import all_problems

pytestmark = pytest.mark.slow  # ~1 s: copies the package, imports 40 modules in a child

HEAVY = ("networkx", "numpy", "scipy")
NEEDED = {"lc3017": ["numpy"]}  # its reference is vectorised with NumPy

# Loads each wrapper the way worker.py does (importlib, module name "solution") and reports the
# heavy packages that were imported by that load (a package loaded earlier is reported there).
LOADER = """
import importlib.util, json, sys
heavy = {heavy!r}
found = {{}}
for name in sys.argv[1:]:
    before = set(sys.modules)
    spec = importlib.util.spec_from_file_location("solution", name)
    module = importlib.util.module_from_spec(spec)
    sys.modules["solution"] = module
    spec.loader.exec_module(module)
    new = set(sys.modules) - before
    found[name[:-3]] = sorted(h for h in heavy if h in new)
print(json.dumps(found))
"""


def test_reference_wrappers_load_without_heavy_packages(tmp_path: Path) -> None:
    problems = all_problems()
    files: dict[str, Path] = {}
    extra: dict[str, Path] = {}
    for pid, problem in problems.items():
        files[f"{pid}.py"], extra = reference_solution(problem, tmp_path / "ref")
    workspace = sandbox.prepare_workspace(tmp_path / "workspace", {**files, **extra})
    # lc3017 last: what it needs must not hide what another module would import
    order = sorted(files, key=lambda name: name[:-3] in NEEDED)
    out = subprocess.run([sys.executable, "-I", "-c", LOADER.format(heavy=HEAVY), *order],
                         cwd=workspace, capture_output=True, text=True, check=True)
    found = json.loads(out.stdout)
    assert set(found) == set(problems)
    assert {pid: mods for pid, mods in found.items() if mods} == NEEDED
