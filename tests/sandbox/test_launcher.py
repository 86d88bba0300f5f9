"""PID 1 of the sandbox loads the standard library and its own three modules, nothing else.

Why: the launcher runs as root next to untrusted code. Before the split it was a function of the
1,577-line sandbox module, so PID 1 imported the whole judge side (and through `evaluator`'s
errors, the package face). Two checks hold the line: statically, every import statement of the
launcher and of the two modules it may use names the standard library; dynamically, the very
program the judge starts (`launcher.LOAD`, under `python -I -S`: no site-packages, no
environment) loads only those modules.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

from evaluator.sandbox import launcher

SANDBOX = Path(launcher.__file__).resolve().parent
REPO = SANDBOX.parents[1]
# The launcher's own modules: what it may import besides the standard library.
PID1_MODULES = ("evaluator.sandbox.launcher", "evaluator.sandbox.channel",
                "evaluator.sandbox.fdtree", "evaluator.sandbox.syscalls")


def foreign_imports(source: str) -> list[str]:
    """Every module an import statement of `source` names (function-local ones included)
    that is neither the standard library nor one of PID1_MODULES."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = ["." * node.level + (node.module or "")]
        else:
            continue
        found += [name for name in names
                  if name not in PID1_MODULES
                  and name.split(".")[0] not in sys.stdlib_module_names]
    return found


def test_the_check_sees_foreign_imports() -> None:
    source = ("import os\nfrom evaluator.errors import ConfigError\n"
              "def f():\n    import yaml\n    from . import fs\n")
    assert foreign_imports(source) == ["evaluator.errors", "yaml", "."]


def test_pid1_modules_import_only_the_standard_library() -> None:
    for module in PID1_MODULES:
        path = SANDBOX / f"{module.rsplit('.', 1)[1]}.py"
        assert foreign_imports(path.read_text(encoding="utf-8")) == [], path


def test_pid1_loads_no_site_packages_and_no_judge_side() -> None:
    """The judge's own loader program, run as PID 1 runs it, then a report of what it loaded."""
    report = "import json\nprint(json.dumps([sorted(sys.modules), sys.path, main.__module__]))\n"
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", launcher.LOAD + report, str(REPO)],
        capture_output=True, text=True, check=True, cwd="/", env={},
    )
    modules, path, main_module = json.loads(done.stdout)
    assert main_module == "evaluator.sandbox.launcher"
    ours = sorted(m for m in modules if m.split(".")[0] == "evaluator")
    assert ours == sorted(["evaluator", "evaluator.sandbox", *PID1_MODULES])
    foreign = [m for m in modules if m.split(".")[0] not in sys.stdlib_module_names
               and m.split(".")[0] not in ("evaluator", "__main__")]
    assert foreign == []
    assert "site" not in modules
    assert not [p for p in path if "-packages" in p]
