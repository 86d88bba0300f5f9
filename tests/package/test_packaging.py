"""A wheel is a tool: built from the checkout, installed into a fresh venv, `gnncb demo` runs
from an empty folder outside any checkout and writes nothing into it.

Why: the package reads files at run time that live outside Python modules (the top-level
`templates/`, the reference tables under `render/results/reference/`); a wheel without them
installs cleanly and fails on first use. Nothing may be downloaded here, so the wheel is built
without build isolation, installed with `--no-deps --no-index`, and the fresh venv sees this
interpreter's installed dependencies through a `.pth` file.
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.helpers.paths import REPO

pytestmark = pytest.mark.slow

SOURCES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "evaluator", "templates")
JUNK = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build")


def _run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=900, **kw)
    assert done.returncode == 0, f"{cmd}\n{done.stdout}\n{done.stderr}"
    return done


def _files(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts}


def _checkout_state() -> str:
    """Everything git sees in the checkout, ignored files included (bytecode aside: this
    test's own imports may write some)."""
    try:
        out = subprocess.run(["git", "status", "--porcelain", "--ignored", "--untracked-files=all"],
                             cwd=REPO, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: cannot tell what a run wrote into it")
    return "\n".join(line for line in out.splitlines()
                     if "__pycache__" not in line and not line.endswith(".pyc"))


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built from a copy of the sources (the build's own build/ and egg-info then
    land in the copy, not in the checkout)."""
    src = tmp_path_factory.mktemp("src")
    for name in SOURCES:
        path = REPO / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=JUNK)
        else:
            shutil.copy2(path, src / name)
    out = tmp_path_factory.mktemp("wheels")
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
          "--no-index", "--disable-pip-version-check", "-w", str(out), str(src)])
    [built] = out.glob("gnncb-*.whl")
    return built


def test_the_wheel_holds_the_package_and_the_templates_whole(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    package = {f"evaluator/{name}" for name in _files(REPO / "evaluator")}
    templates = {f"evaluator/_templates/{name}" for name in _files(REPO / "templates")}
    assert "evaluator/_templates/leaderboard_competition.md.j2" in templates
    assert "evaluator/render/results/reference/gnncb_table3.csv" in package
    assert not package - names, sorted(package - names)
    assert not templates - names, sorted(templates - names)


def test_an_installed_wheel_runs_the_demo_outside_any_checkout(wheel: Path,
                                                               tmp_path: Path) -> None:
    before = _checkout_state()
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    purelib = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                         "['purelib'])"]).stdout.strip())
    # this interpreter's dependencies (numpy, pandas, ...), after the venv's own site-packages
    (purelib / "gnncb_test_dependencies.pth").write_text(
        "".join(f"{p}\n" for p in site.getsitepackages()), encoding="utf-8")
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
          "--no-index", "--disable-pip-version-check", str(wheel)])

    empty = tmp_path / "elsewhere"
    empty.mkdir()
    temp = tmp_path / "temp"
    temp.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GNNCB_ROOT")}
    env["TMPDIR"] = str(temp)  # the demo's own work folder lands here
    where = _run([str(python), "-c", "import evaluator, evaluator.paths as p; "
                  "print(evaluator.__file__); print(p.templates_dir())"],
                 cwd=empty, env=env).stdout.split()
    assert Path(where[0]).is_relative_to(purelib), where
    assert Path(where[1]) == purelib / "evaluator" / "_templates", where

    done = subprocess.run([str(venv / "bin" / "gnncb"), "demo"], cwd=empty, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "[6/6] leaderboard" in done.stdout and "REJECTED mallory" in done.stdout
    assert "Traceback" not in done.stderr, done.stderr
    board = Path(done.stdout.split("markdown: ", 1)[1].split()[0])
    assert board.is_relative_to(temp) and board.is_file(), done.stdout
    assert "alice" in board.read_text(encoding="utf-8")
    assert not any(empty.iterdir())
    assert _checkout_state() == before
