"""Hostile code-track solutions through `gnncb code judge`: nothing the solution says about
itself is believed, nothing it sends can crash the judge (issue 9).

Each solution attacks on every case of a small lc207 set; the test reads verdicts.jsonl the way
a user would and checks the judge's own figures.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from evaluator import sandbox
from evaluator.cli import main
from tests.helpers.paths import REPO

FULL = sandbox.detect_isolation()
pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    not (FULL.sandboxed and FULL.unprivileged),
    reason=f"needs full sandbox isolation (root + unshare); here: {FULL.level}",
)]
HEADER = "class Solution:\n    def canFinish(self, numCourses, prerequisites):\n"


@pytest.fixture(scope="module")
def case_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("set") / "set"
    assert main(["code", "generate", "--per-cell", "1", "--problems", "lc207", "--out",
                 str(out)]) == 0
    return out


# Shrinking a failure judges up to 16 rounds of candidate inputs, each running the attack again
# (a 256 MB hog, a worker killed per candidate, a 0.2 s busy loop): minutes per test for a search
# whose result these tests do not read. They judge without it; the test that walks what runs
# leave behind keeps it (shrinking's workspaces are among those it checks).
NO_SHRINK = ("--shrink-rounds", "0")


def judge(tmp_path: Path, case_set: Path, code: str, *extra: str,
          shrink: bool = False) -> list[dict]:
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    (solutions / "lc207.py").write_text(code)
    run_dir = tmp_path / "run"
    assert main(["code", "judge", "--solutions", str(solutions), "--cases", str(case_set),
                 "--timeout-floor", "0.5", "--out", str(run_dir), *extra,
                 *(() if shrink else NO_SHRINK)]) == 0
    return [json.loads(line) for line in (run_dir / "verdicts.jsonl").read_text().splitlines()]


def n_cases(case_set: Path) -> int:
    with gzip.open(case_set / "cases" / "lc207.jsonl.gz", "rt") as fh:
        return sum(1 for _ in fh)


def test_switching_off_the_workers_timers_does_not_turn_timeouts_into_passes(
        tmp_path: Path, case_set: Path) -> None:
    """The worker's in-process timer and signals are the candidate's to break; the judge's
    clock and the kernel's CPU count are not."""
    code = (
        "import signal, resource\n"
        "signal.setitimer = lambda *a, **k: (0.0, 0.0)\n"
        "signal.signal(signal.SIGPROF, signal.SIG_IGN)\n"
        "signal.signal = lambda *a, **k: None\n"
        "resource.setrlimit = lambda *a, **k: None\n"
        + HEADER +
        "        sum(range(10**12))  # C code: holds the GIL, never sees a Python signal\n"
        "        return True\n")
    rows = judge(tmp_path, case_set, code, "--no-memory")
    assert rows and all(r["verdict"] == "timeout" for r in rows)
    ran = [r for r in rows if r["ran"]]
    assert ran, "at least the first cases ran"
    for r in ran:  # the judge's own figures, over an allowance, not a forged 0.0: the CPU
        # allowance (0.5 s, the kernel's count) or, on a loaded machine, the wall one (2.5 s)
        assert r["cpu"] is not None and r["wall"] is not None
        assert r["cpu"] >= 0.5 or r["wall"] >= 2.5, r


def test_forged_records_and_figures_are_not_recorded(tmp_path: Path, case_set: Path) -> None:
    """A solution that makes the clocks read 0 and stops tracemalloc during its case: the
    recorded time and memory are the kernel's (50 MB held during the case shows)."""
    code = (
        "import time, tracemalloc\n"
        "clock = time.process_time\n"
        "time.process_time = time.perf_counter = lambda: 0.0  # what an in-process timer reads\n"
        + HEADER +
        "        tracemalloc.stop()  # what an in-process memory tracer reads\n"
        "        hog = bytearray(50 * 1024 * 1024)\n"
        "        for i in range(0, len(hog), 4096): hog[i] = 1\n"
        "        t = clock()\n"
        "        while clock() - t < 0.2: pass\n"
        "        return True\n")
    rows = judge(tmp_path, case_set, code)
    assert all(r["verdict"] in ("pass", "wrong answer") for r in rows)
    for r in rows:
        assert r["memory"] is not None and r["memory"] >= 50 * 1024 * 1024
        assert r["cpu"] >= 0.15  # the kernel saw the busy loop (>= 0.2 s, minus clock ticks)


@pytest.mark.parametrize(("attack", "detail"), [
    ("x = []\n        for _ in range(5000): x = [x]\n        return x", "nested deeper"),
    ("os.write(4, b'{\"i\":0,\"s\":\"ok\",\"o\":\"' + b'x' * (40 * 1024 * 1024))",
     "exceeds"),
    ("os.write(4, b'not json at all\\n'); return True", "unreadable record"),
    # 6 MB of escaped quotes under 65 brackets (issue 23.4: the old depth check was quadratic
    # in them, days for 8 MB): refused in one linear pass
    ("os.write(4, b'{\"i\":0,\"s\":\"ok\",\"o\":' + b'[' * 65 + b'\"' + b'\\\\\"' * 3_000_000"
     " + b'\"' + b']' * 65 + b'}\\n'); return True", "nested deeper"),
    ("os.write(4, b'{\"i\":99999,\"s\":\"ok\",\"o\":true}\\n'); return True",
     "does not belong"),
])
def test_hostile_records_end_in_invalid_output_not_a_crash(tmp_path: Path, case_set: Path,
                                                           attack: str, detail: str) -> None:
    code = "import os, sys\nsys.setrecursionlimit(100000)\n" + HEADER + f"        {attack}\n"
    code += "        return True\n"
    rows = judge(tmp_path, case_set, code, "--no-memory")
    assert len(rows) == n_cases(case_set)
    first = rows[0]
    assert first["verdict"] == "invalid output"
    run = json.loads((tmp_path / "run" / "feedback.json").read_text())["lc207"]
    assert any(detail in item["detail"] for item in run)


# --------------------------------------------------------------------------------------------
# Issue 17.1: a solution sees the standard library and nothing else of the environment
# --------------------------------------------------------------------------------------------

# Every place a library could be on this machine, handed to the solution to put on sys.path.
_PROBE = '''
import importlib, json, sys
sys.path[:0] = {paths!r}
found = {{}}
for name in ("networkx", "numpy", "evaluator", "evaluator.codetrack.problems.directed_lc207",
             "yaml", "heapq"):
    try:
        importlib.import_module(name)
        found[name] = "IMPORTED"
    except Exception as exc:
        found[name] = type(exc).__name__
class Solution:
    def canFinish(self, numCourses, prerequisites):
        raise RuntimeError("PROBE " + json.dumps(found, sort_keys=True))
'''


def _library_paths() -> list[str]:
    import site
    import sys

    repo = str(REPO)
    paths = {repo, *site.getsitepackages(), *[p for p in sys.path if p]}
    paths |= {"/usr/lib/python3/dist-packages", "/usr/local/lib/python3.11/dist-packages",
              f"{sys.base_prefix}/lib/python3.11/site-packages"}
    return sorted(paths)


def _probe_result(feedback: dict) -> dict:
    [detail] = {item["detail"] for item in feedback["lc207"]}
    return json.loads(detail.rsplit("PROBE ", 1)[1].strip())


def test_solution_sees_the_standard_library_only(tmp_path: Path, case_set: Path) -> None:
    rows = judge(tmp_path, case_set, _PROBE.format(paths=_library_paths()), "--no-memory")
    assert {r["verdict"] for r in rows} == {"runtime error"}
    found = _probe_result(json.loads((tmp_path / "run" / "feedback.json").read_text()))
    assert found["heapq"] == "IMPORTED"  # the standard library is there
    for name in ("networkx", "numpy", "evaluator",
                 "evaluator.codetrack.problems.directed_lc207", "yaml"):
        assert found[name] == "ModuleNotFoundError", (name, found)


@pytest.mark.slow
def test_standard_library_only_under_a_non_editable_install(tmp_path: Path,
                                                            case_set: Path) -> None:
    """`pip install .` (as evaluate-code.yml does) puts the project, references included, into
    site-packages; the sandbox must not mount it."""
    import subprocess
    import sys
    import sysconfig

    repo = REPO
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site_dir = venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / (
        "site-packages")
    # dependencies (and the build backend) from this environment; the project itself is not
    # on that path, so the copy pip installs is the only `evaluator`
    (site_dir / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    # build from a copy: pip builds in the source tree, and a test must not write into the repo
    import shutil

    src = tmp_path / "src"
    shutil.copytree(repo / "evaluator", src / "evaluator",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        if (repo / name).is_file():
            shutil.copy(repo / name, src / name)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"),
                    "install", "-q", "--no-deps", "--no-build-isolation", str(src)],
                   check=True, cwd=tmp_path, stdout=subprocess.DEVNULL)
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    installed = site_dir / "evaluator"
    paths = [str(site_dir), *_library_paths()]
    (solutions / "lc207.py").write_text(_PROBE.format(paths=paths))
    script = (
        "import sys, evaluator\n"
        f"assert evaluator.__file__.startswith({str(installed)!r}), evaluator.__file__\n"
        "from evaluator.cli import main\n"
        f"sys.exit(main(['code', 'judge', '--solutions', {str(solutions)!r}, '--cases', "
        f"{str(case_set)!r}, '--no-memory', '--shrink-rounds', '0', '--out', "
        f"{str(tmp_path / 'run')!r}]))\n")
    subprocess.run([str(venv / "bin" / "python"), "-c", script], check=True, cwd=tmp_path,
                   env={"PATH": "/usr/bin:/bin", "GNNCB_CACHE": str(tmp_path / "cache")},
                   stdout=subprocess.DEVNULL)
    found = _probe_result(json.loads((tmp_path / "run" / "feedback.json").read_text()))
    assert found["heapq"] == "IMPORTED"
    for name in ("networkx", "numpy", "evaluator",
                 "evaluator.codetrack.problems.directed_lc207", "yaml"):
        assert found[name] == "ModuleNotFoundError", (name, found)


# --------------------------------------------------------------------------------------------
# Issue 9: shared-memory hogs and what a solution leaves behind, through `gnncb code judge`
# --------------------------------------------------------------------------------------------

_GROW = (
    "        maps = []\n"
    "        for i in range(128):  # 16 MiB at a time, up to 2 GiB, every page touched\n"
    "{map}"
    "            m.write(b'\\1' * (16 << 20))\n"
    "            maps.append(m)\n"
    "        return True\n")
_HOGS = {
    "mmap-shared": "            m = mmap.mmap(-1, 16 << 20, flags=mmap.MAP_SHARED)\n",
    "memfd": ("            os.ftruncate(fd, (i + 1) << 24)\n"
              "            m = mmap.mmap(fd, 16 << 20, offset=i << 24)\n"),
}


@pytest.mark.parametrize("kind", sorted(_HOGS))
def test_shared_memory_hogs_are_stopped_at_the_limit(tmp_path: Path, case_set: Path,
                                                     kind: str) -> None:
    """MAP_SHARED anonymous memory and memfd pages (which RLIMIT_DATA does not count) under
    --memory-mb 256: every case ends `memory` (the peak RSS PID 1 measured is at the limit, or
    the cgroup OOM-killed it), and what was recorded never exceeds the limit."""
    code = ("import mmap, os\nfd = os.memfd_create('hog')\n" + HEADER
            + _GROW.format(map=_HOGS[kind]))
    rows = judge(tmp_path, case_set, code, "--memory-mb", "256", "--timeout-floor", "5")
    ran = [r for r in rows if r["ran"]]
    assert ran and all(r["verdict"] == "memory" for r in ran), {r["verdict"] for r in rows}
    for r in ran:
        assert r["memory"] is None or r["memory"] <= 256 * 1024**2, r
    feedback = json.loads((tmp_path / "run" / "feedback.json").read_text())["lc207"]
    assert "the judge's measurement" in feedback[0]["detail"]
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["memory_mechanism"] in (["cgroup-v2"], ["rlimit-as+tmpfs"])


def test_nothing_a_solution_leaves_is_owned_by_a_sandbox_uid(tmp_path: Path, case_set: Path,
                                                             monkeypatch) -> None:
    """Files, directories, a symlink to a host file and a FIFO written into the workspace by
    every case: the workspace the judge hands back (kept here instead of deleted) holds only
    entries of the judge's own uid, the link is a link, the FIFO is gone; the run directory
    likewise."""
    import os
    import stat

    from evaluator.codetrack import judge as judge_module
    from evaluator.sandbox.fs import remove_tree, walk

    kept: list[Path] = []
    monkeypatch.setattr(judge_module.sandbox, "remove_tree", kept.append)
    code = (
        "import os\n" + HEADER +
        "        os.makedirs('left/deeper', exist_ok=True)\n"
        "        open('left/deeper/file.txt', 'w').write('x')\n"
        "        os.chmod('left/deeper/file.txt', 0o4755)  # setuid bit: dropped on the way\n"
        "        if not os.path.lexists('passwd'): os.symlink('/etc/passwd', 'passwd')\n"
        "        if not os.path.lexists('fifo'): os.mkfifo('fifo')\n"
        "        return True\n")
    try:
        rows = judge(tmp_path, case_set, code, "--no-memory", shrink=True)
        assert rows and all(r["ran"] for r in rows)
        assert kept  # the solution's workspace, and those of calibration and shrinking runs
        seen: dict[str, os.stat_result] = {}

        def visit(fd: int, name: str, info: os.stat_result) -> None:
            seen[name] = info

        for top in (*kept, tmp_path / "run"):
            walk(top, visit)
        me = os.geteuid()
        assert {"left", "deeper", "file.txt", "passwd"} <= set(seen)
        assert {name for name, info in seen.items() if info.st_uid != me} == set()
        assert "fifo" not in seen
        assert stat.S_ISLNK(seen["passwd"].st_mode)
        assert not seen["file.txt"].st_mode & stat.S_ISUID
    finally:
        for path in kept:
            remove_tree(path)
