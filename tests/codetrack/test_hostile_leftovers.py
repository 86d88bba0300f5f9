"""Hostile code-track solutions, third round (issue 23), through `gnncb code judge`: what a
solution leaves in its workspace costs the host at most the quota and ends in verdicts, never
in the judge's exit 2; no process it starts outlives its case, however it patches the worker's
interpreter; a peak it resets is not the one recorded.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator import sandbox
from evaluator.cli import main
from tests.codetrack.test_hostile import (  # noqa: F401 - fixture
    HEADER,
    NO_SHRINK,
    case_set,
    n_cases,
)

FULL = sandbox.detect_isolation()
pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    not (FULL.sandboxed and FULL.unprivileged),
    reason=f"needs full sandbox isolation (root + unshare); here: {FULL.level}",
)]


def judge(tmp_path: Path, case_set: Path, code: str, *extra: str) -> tuple[int, list[dict]]:  # noqa: F811
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    (solutions / "lc207.py").write_text(code)
    run_dir = tmp_path / "run"
    status = main(["code", "judge", "--solutions", str(solutions), "--cases", str(case_set),
                   "--timeout-floor", "0.5", "--out", str(run_dir), *extra, *NO_SHRINK])
    rows = ([json.loads(line) for line in (run_dir / "verdicts.jsonl").read_text().splitlines()]
            if (run_dir / "verdicts.jsonl").exists() else [])
    return status, rows


def test_sparse_files_left_before_a_crash_end_in_verdicts(tmp_path: Path,
                                                          case_set: Path) -> None:  # noqa: F811
    """Three sparse files of just under 1 GiB, then a crash: the worker's restart copies the
    workspace in again. Before, the copy back wrote 3 GiB of zeros and the copy in failed: the
    judge exited 2 with no verdict. Now the holes stay holes and every case has a verdict."""
    code = ("import os\n" + HEADER +
            "        for i in range(3):\n"
            "            with open(f'sparse{i}', 'wb') as fh: fh.truncate((1 << 30) - 4096)\n"
            "        os._exit(3)\n")
    status, rows = judge(tmp_path, case_set, code)
    assert status == 0
    assert len(rows) == n_cases(case_set)
    assert all(r["verdict"] is not None or r.get("published") for r in rows)
    assert {r["verdict"] for r in rows} <= {"runtime error", None}


def test_no_process_outlives_its_case_when_the_worker_cannot_kill(tmp_path: Path,
                                                                  case_set: Path) -> None:  # noqa: F811
    """The solution replaces `os.kill` (the worker's own per-case reaping then does nothing)
    and starts a `setsid` helper in its first case; every later case answers wrongly if the
    helper is still alive. PID 1 kills every process but the worker after each case."""
    code = (
        "import os, time\n"
        "real_kill = os.kill\n"
        "os.kill = lambda *a, **k: None\n"
        "os.killpg = lambda *a, **k: None\n"
        "helper = []\n"
        "def alive(pid):\n"
        "    try:\n"
        "        state = open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()[0]\n"
        "    except OSError:\n"
        "        return False\n"
        "    return state not in ('Z', 'X')\n"
        + HEADER +
        "        if not helper:\n"
        "            pid = os.fork()\n"
        "            if pid == 0:\n"
        "                os.setsid()\n"
        "                if os.fork(): os._exit(0)\n"
        "                while True: time.sleep(0.01)\n"
        "            os.waitpid(pid, 0)\n"
        "            time.sleep(0.2)\n"
        "            helper.extend(int(p) for p in os.listdir('/proc')\n"
        "                          if p.isdigit() and int(p) not in (os.getpid(), 1))\n"
        "            if not any(alive(p) for p in helper): return 'no helper started'\n"
        "            return self.solve(numCourses, prerequisites)\n"
        "        if any(alive(p) for p in helper):\n"
        "            return 'a helper outlived its case'\n"
        "        return self.solve(numCourses, prerequisites)\n"
        "    def solve(self, n, pre):\n"
        "        graph = {i: [] for i in range(n)}\n"
        "        for a, b in pre: graph[b].append(a)\n"
        "        seen, order = [0] * n, []\n"
        "        def visit(u):\n"
        "            if seen[u] == 1: return False\n"
        "            if seen[u] == 2: return True\n"
        "            seen[u] = 1\n"
        "            ok = all(visit(v) for v in graph[u])\n"
        "            seen[u] = 2\n"
        "            return ok\n"
        "        return all(visit(u) for u in range(n))\n")
    status, rows = judge(tmp_path, case_set, code)
    assert status == 0
    assert rows and all(r["verdict"] == "pass" for r in rows), [
        (r["verdict"], r.get("detail", "")[:200]) for r in rows]


def test_a_reset_peak_is_not_recorded(tmp_path: Path, case_set: Path) -> None:  # noqa: F811
    """Every case touches 80 MB, frees it and writes "5" to its clear_refs (which resets the
    peak RSS the kernel reports): the memory recorded for each case is still >= 80 MB."""
    code = ("import os\n" + HEADER +
            "        hog = bytearray(80 << 20)\n"
            "        for i in range(0, len(hog), 4096): hog[i] = 1\n"
            "        del hog\n"
            "        try: open('/proc/self/clear_refs', 'w').write('5')\n"
            "        except OSError: pass\n"
            "        return True\n")
    status, rows = judge(tmp_path, case_set, code, "--timeout-floor", "5")
    assert status == 0
    ran = [r for r in rows if r["ran"]]
    assert ran and all(r["memory"] >= 80 * 1024**2 for r in ran), [r["memory"] for r in ran]
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    hardening = run["problems"]["lc207"]["hardening"]  # what held, recorded with the run
    assert set(hardening) == {"seccomp", "cgroup_namespace", "proc", "landlock"}
