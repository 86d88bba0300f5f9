"""`gnncb competition new --task T` for every task type the spec supports (issue 25, point 5):
a scaffold whose competition.yaml loads as that task, and whose test skeleton passes on the
scaffold itself, run as a maintainer runs it (pytest in a separate process)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from evaluator.authoring.folders import TASK_LAYOUTS
from evaluator.competition.spec import TASKS, load_spec
from tests.cli.helpers import run
from tests.helpers.paths import REPO


def test_every_task_type_has_a_layout():
    assert set(TASK_LAYOUTS) == set(TASKS)


@pytest.mark.slow
@pytest.mark.parametrize("task", TASKS)
def test_new_scaffolds_each_task_with_a_passing_test_skeleton(task, tmp_path, capsys):
    slug = f"toy-{task}"
    code, out, err = run(["competition", "new", slug, "--task", task, "--root", tmp_path],
                         capsys)
    assert code == 0, err
    folder = tmp_path / "competitions" / slug
    spec = load_spec(folder)
    layout = TASK_LAYOUTS[task]
    assert spec.task == task and spec.id_column == layout["id"]
    assert [(t.name, t.type) for t in spec.targets] == [(layout["target"], layout["type"])]
    assert list(spec.metrics) == [layout["metric"]]
    skeleton = folder / "tests" / f"test_{slug.replace('-', '_')}.py"
    assert skeleton.is_file() and f"tests/{skeleton.name}" in out
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                           str(folder / "tests")], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert " passed" in done.stdout and "failed" not in done.stdout
    ruff = subprocess.run([sys.executable, "-m", "ruff", "check", "--config",
                           str(REPO / "pyproject.toml"), str(folder)], capture_output=True,
                          text=True, check=False)
    assert ruff.returncode == 0, ruff.stdout  # what maintainers copy passes the repo's lint
    # lint knows the scaffold's placeholders for this task too
    code, out, _ = run(["competition", "lint", folder, "--root", tmp_path], capsys)
    assert code == 1 and "still the scaffold's placeholder" in out
    assert "unexpected top-level entry" not in out
