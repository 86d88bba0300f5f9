"""The sandboxed batch judge: verdicts, crash resume, hostile solutions, references, baselines.

Hostile solutions must end with their documented verdict (docs/codetrack.md) and never take the
judge down; each test also checks that the cases after the hostile one still run (resume).
Small tiny-problem tests use a problem defined here, so they do not depend on the 40 problems.
"""

from __future__ import annotations

import os
from pathlib import Path

import networkx as nx
import pytest

from evaluator import sandbox
from evaluator.codetrack.cases import Case, generate_case_set, make_plan
from evaluator.codetrack.checkers import exact
from evaluator.codetrack.judge import (
    INVALID,
    MEMORY,
    PASS,
    RUNTIME,
    TIMEOUT,
    WRONG,
    JudgeConfig,
    judge_problem,
    reference_solution,
)
from evaluator.codetrack.problem import Problem, all_problems

pytestmark = pytest.mark.slow

FULL = sandbox.detect_isolation()
needs_isolation = pytest.mark.skipif(
    not (FULL.sandboxed and FULL.unprivileged),
    reason=f"needs full sandbox isolation (root + unshare); here: {FULL.level}",
)

TOTAL = Problem(
    id="t-sum",
    title="Sum of a list",
    statement="Return the sum of `xs`.",
    signature="class Solution:\n    def total(self, xs): ...\n",
    method="total",
    arg_names=("xs",),
    concept="general graph",
    difficulty="easy",
    directed=False,
    input_contract="a list of ints",
    reference=lambda xs: sum(xs),
    checker=exact,
    build_case=lambda G, rng: None,
    mutants={},
    published_cells=(),
    input_graph=lambda args: nx.Graph(),
)
# Fast limits for tests: 0.3 CPU-second per case, no memory pass unless a test wants it.
FAST = JudgeConfig(timeout_floor=0.3, measure_memory=False)


def cases(*firsts: int) -> list[Case]:
    """One case per value: xs = [first, 1, 2, 3]; the solution under test keys off `first`."""
    out = []
    for i, first in enumerate(firsts):
        xs = [first, 1, 2, 3]
        out.append(Case(id=f"t-sum/sparse/connected/{i}", problem="t-sum",
                        direction="undirected", category="sparse", subcategory="connected",
                        index=i, args={"xs": xs}, expected=sum(xs),
                        cell="sparse/connected", ref_seconds=0.00001))
    return out


def solution(tmp_path: Path, body: str, header: str = "") -> Path:
    """A solution whose method runs `body` (indented 8) when xs[0] == 1, else returns the sum."""
    lines = "\n".join("            " + line for line in body.strip().splitlines())
    text = (f"{header}\nclass Solution:\n    def total(self, xs):\n        if xs[0] == 1:\n"
            f"{lines}\n        return sum(xs)\n")
    path = tmp_path / "solution.py"
    path.write_text(text)
    return path


def judge(tmp_path: Path, body: str, *firsts: int, config: JudgeConfig = FAST, header: str = ""):
    return judge_problem(TOTAL, solution(tmp_path, body, header), cases(*firsts), config=config)


def verdicts(j) -> list[str]:
    return [v.verdict for v in j.verdicts]


# --------------------------------------------------------------------------------------------
# Plain verdicts
# --------------------------------------------------------------------------------------------


def test_pass_wrong_error_invalid_and_feedback(tmp_path: Path) -> None:
    sol = tmp_path / "solution.py"
    sol.write_text(
        "class Solution:\n"
        "    def total(self, xs):\n"
        "        if xs[0] == 1: return sum(xs) + 1\n"
        "        if xs[0] == 2: raise ValueError('boom')\n"
        "        if xs[0] == 3: return {1, 2}\n"
        "        if xs[0] == 4: return True\n"
        "        print('debug line')\n"
        "        return sum(xs)\n"
    )
    j = judge_problem(TOTAL, sol, cases(0, 1, 2, 3, 4, 0), config=FAST)
    assert verdicts(j) == [PASS, WRONG, RUNTIME, INVALID, WRONG, PASS]
    assert j.processes == 1  # nothing here needs a fresh process
    assert "ValueError: boom" in j.verdicts[2].detail
    assert "not plain JSON" in j.verdicts[3].detail
    assert all(v.wall is not None and v.cpu is not None for v in j.verdicts)
    first = j.feedback[0]
    assert first["case"] == "t-sum/sparse/connected/1"
    assert (first["verdict"], first["input"], first["expected"], first["actual"]) == (
        WRONG, '{"xs":[1,1,2,3]}', "7", "8")
    assert len(j.feedback) == 3  # the first three failing cases, as configured


def test_inputs_are_fresh_per_case(tmp_path: Path) -> None:
    """A solution that mutates its input and keeps a reference cannot affect later cases."""
    sol = tmp_path / "solution.py"
    sol.write_text(
        "SEEN = []\n"
        "class Solution:\n"
        "    def total(self, xs):\n"
        "        assert all(s is not xs for s in SEEN)\n"
        "        SEEN.append(xs)\n"
        "        total = sum(xs)\n"
        "        xs.append(100)\n"
        "        return total\n"
    )
    j = judge_problem(TOTAL, sol, cases(5, 5, 5), config=FAST)
    assert verdicts(j) == [PASS] * 3


def test_load_failures_mark_every_case(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("class Solution:\n    def total(self, xs)\n        return 1\n")
    j = judge_problem(TOTAL, broken, cases(0, 0), config=FAST)
    assert verdicts(j) == [RUNTIME, RUNTIME]
    assert not any(v.ran for v in j.verdicts)
    assert "SyntaxError" in j.load_error
    wrong_name = tmp_path / "wrong_name.py"
    wrong_name.write_text("class Solution:\n    def add(self, xs):\n        return 1\n")
    j = judge_problem(TOTAL, wrong_name, cases(0), config=FAST)
    assert verdicts(j) == [RUNTIME] and "no method `total`" in j.verdicts[0].detail


def test_solutions_get_the_standard_library_only(tmp_path: Path) -> None:
    sol = tmp_path / "solution.py"
    sol.write_text("import heapq, collections\nimport networkx\n"
                   "class Solution:\n    def total(self, xs):\n        return sum(xs)\n")
    j = judge_problem(TOTAL, sol, cases(0), config=FAST)
    assert verdicts(j) == [RUNTIME] and "No module named 'networkx'" in j.load_error
    j = judge_problem(TOTAL, sol, cases(0), config=FAST, site_packages=True)
    assert verdicts(j) == [PASS]


def test_case_seconds_calibrated_from_reference() -> None:
    config = JudgeConfig(timeout_factor=10, timeout_floor=1.0, timeout_cap=20.0)
    base = cases(0)[0]
    assert config.case_seconds(base) == 1.0  # 10 x 10 us is below the floor
    base.ref_seconds = 0.5
    assert config.case_seconds(base) == 5.0
    base.ref_seconds = 7.0
    assert config.case_seconds(base) == 20.0
    base.ref_seconds = None
    assert config.case_seconds(base) == 1.0


# --------------------------------------------------------------------------------------------
# Hostile solutions: documented verdict, the judge survives, later cases still run
# --------------------------------------------------------------------------------------------


def test_python_loop_times_out_in_process(tmp_path: Path) -> None:
    j = judge(tmp_path, "while True:\n    pass", 0, 1, 0)
    assert verdicts(j) == [PASS, TIMEOUT, PASS]
    assert j.processes == 1  # the in-process timer ended the case; no restart needed


def test_catching_the_timeout_does_not_help(tmp_path: Path) -> None:
    body = "try:\n    while True:\n        pass\nexcept BaseException:\n    time.sleep(3600)"
    j = judge(tmp_path, body, 0, 1, 0, header="import time")
    assert verdicts(j) == [PASS, TIMEOUT, PASS]


def test_c_level_loop_is_killed_and_the_batch_resumes(tmp_path: Path) -> None:
    j = judge(tmp_path, "return sum(range(10**12))", 0, 1, 0)
    assert verdicts(j) == [PASS, TIMEOUT, PASS]
    assert j.processes == 2 and j.restarts == 1
    assert "CPU time" in j.verdicts[1].detail


def test_memory_hog(tmp_path: Path) -> None:
    config = JudgeConfig(timeout_floor=5.0, measure_memory=False, memory_bytes=256 * 1024**2)
    j = judge(tmp_path, "hog = []\nwhile True:\n    hog.append(bytearray(10**7))", 0, 1, 0,
              config=config)
    assert verdicts(j) == [PASS, MEMORY, PASS]


def test_huge_output_is_dropped(tmp_path: Path) -> None:
    body = "import os\nprint('x' * 20_000_000)\nos.write(1, b'y' * 5_000_000)\nreturn sum(xs)"
    j = judge(tmp_path, body, 1, 0)
    assert verdicts(j) == [PASS, PASS]


def test_exiting_the_worker_is_a_runtime_error(tmp_path: Path) -> None:
    j = judge(tmp_path, "import os\nos._exit(0)", 0, 1, 0)
    assert verdicts(j) == [PASS, RUNTIME, PASS]
    assert j.processes == 2


def test_timeout_budget_stops_hopeless_solutions(tmp_path: Path) -> None:
    config = JudgeConfig(timeout_floor=0.2, measure_memory=False, max_timeouts=2)
    j = judge(tmp_path, "while True:\n    pass", 1, 1, 1, 1, 1, config=config)
    assert verdicts(j) == [TIMEOUT] * 5
    assert [v.ran for v in j.verdicts] == [True, True, False, False, False]
    assert "timed out 2 times" in j.verdicts[4].detail


@needs_isolation
def test_fork_bomb(tmp_path: Path) -> None:
    body = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass"
    j = judge(tmp_path, body, 0, 1, 0)
    assert verdicts(j) == [PASS, TIMEOUT, PASS]


def _alive_with(marker: str) -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if marker in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"):
                found.append(int(pid))
        except OSError:
            continue
    return found


@needs_isolation
def test_setsid_child_dies_with_its_case(tmp_path: Path) -> None:
    marker = "4242.4217"
    body = (f"import os\nif os.fork() == 0:\n    os.setsid()\n"
            f"    os.execvp('sleep', ['sleep', '{marker}'])\nreturn sum(xs)")
    j = judge(tmp_path, body, 1, 0)
    assert verdicts(j) == [PASS, PASS]
    assert _alive_with(marker) == []


@needs_isolation
def test_no_network(tmp_path: Path) -> None:
    body = "import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=5)"
    j = judge(tmp_path, body, 1, 0)
    assert verdicts(j) == [RUNTIME, PASS]
    assert "OSError" in j.verdicts[0].detail or "unreachable" in j.verdicts[0].detail


@needs_isolation
def test_repository_files_are_invisible(tmp_path: Path) -> None:
    target = Path(__file__).resolve()
    j = judge(tmp_path, f"return len(open({str(target)!r}).read())", 1, 0)
    assert verdicts(j) == [RUNTIME, PASS]
    assert "FileNotFoundError" in j.verdicts[0].detail


# --------------------------------------------------------------------------------------------
# The real problems: references pass their own generated cases, in the sandbox
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_set(tmp_path_factory: pytest.TempPathFactory):
    ids = ["lc207", "lc1192", "lc2097"]
    return generate_case_set(tmp_path_factory.mktemp("cases") / "set", per_cell=2,
                             problems=ids)


@pytest.mark.parametrize("pid", ["lc207", "lc1192", "lc2097"])
def test_reference_passes_its_generated_cases(small_set, pid: str, tmp_path: Path) -> None:
    problem = all_problems()[pid]
    path, extra = reference_solution(problem, tmp_path)
    config = JudgeConfig(measure_memory=(pid == "lc207"))
    j = judge_problem(problem, path, small_set.cases(pid), config=config, extra_files=extra,
                      site_packages=True)
    assert j.load_error == ""
    assert verdicts(j) == [PASS] * len(j.verdicts)
    if pid == "lc207":
        assert all(isinstance(v.memory, int) for v in j.verdicts)


def test_generated_cases_record_their_provenance(small_set) -> None:
    cases_ = small_set.cases("lc207")
    plan = make_plan("paper", [all_problems()["lc207"]], 2)["lc207"]
    assert len(cases_) == sum(plan.values())
    for case in cases_:
        assert case.cell in plan
        assert case.seed is not None and case.stats is not None
        assert 20 <= case.stats["nodes"] <= 200
        assert case.ref_seconds is not None


@needs_isolation
def test_the_runner_and_later_inputs_are_read_only(tmp_path: Path) -> None:
    """The worker script is mounted read-only: a solution that finds it (via
    /proc/self/cmdline) cannot patch the runner for the next process (and the inputs are not
    files at all: they wait in PID 1, see test_later_inputs_are_not_within_reach)."""
    body = (
        "args = open('/proc/self/cmdline', 'rb').read().split(b'\\0')\n"
        "worker = next(a for a in args if a.endswith(b'worker.py')).decode()\n"
        "open(worker, 'a').write('\\nraise SystemExit')\n"
    )
    j = judge(tmp_path, body, 0, 1, 0, 0)
    assert verdicts(j) == [PASS, RUNTIME, PASS, PASS]
    detail = j.verdicts[1].detail
    assert "PermissionError" in detail or "Read-only file system" in detail


def test_crashes_and_timeouts_blame_the_right_case_and_the_rest_resumes(tmp_path: Path) -> None:
    """Cases queued with PID 1 ahead of the running one change nothing: a C loop and an exit
    blame their own case and a fresh process resumes after each."""
    sol = tmp_path / "solution.py"
    sol.write_text(
        "import os\n"
        "class Solution:\n"
        "    def total(self, xs):\n"
        "        if xs[0] == 1: return sum(range(10**12))\n"
        "        if xs[0] == 2: os._exit(0)\n"
        "        if xs[0] == 3: return sum(xs) + 1\n"
        "        return sum(xs)\n")
    firsts = (0, 0, 1, 0, 2, 0, 3, 0, 0)
    j = judge_problem(TOTAL, sol, cases(*firsts), config=FAST)
    assert verdicts(j) == [PASS, PASS, TIMEOUT, PASS, RUNTIME, PASS, WRONG, PASS, PASS]
    assert j.processes == 3
    assert "CPU time" in j.verdicts[2].detail


def test_later_inputs_are_not_within_reach(tmp_path: Path) -> None:
    """The next cases wait in PID 1, not in the worker's input pipe: a solution that reads its
    input descriptor during a case finds nothing there."""
    body = ("os.set_blocking(3, False)\n"
            "try:\n"
            "    ahead = os.read(3, 1 << 20)\n"
            "except BlockingIOError:\n"
            "    ahead = b''\n"
            "raise RuntimeError('AHEAD %r' % ahead[:60])")
    j = judge(tmp_path, body, 0, 1, 5, 6, 7, header="import os")
    assert verdicts(j)[:2] == [PASS, RUNTIME]
    assert "AHEAD b''" in j.verdicts[1].detail


def test_raising_memory_error_is_a_runtime_error(tmp_path: Path) -> None:
    """The worker's "memory" record is believed only when PID 1 measured the peak RSS of the
    case at the limit; `raise MemoryError` with nothing used is the candidate's error."""
    config = JudgeConfig(timeout_floor=5.0, measure_memory=False, memory_bytes=256 * 1024**2)
    j = judge(tmp_path, "raise MemoryError('fake')", 0, 1, 0, config=config)
    assert verdicts(j) == [PASS, RUNTIME, PASS]
    assert "below 75% of the 256 MiB limit" in j.verdicts[1].detail
    assert j.processes == 1


def test_claiming_a_timeout_is_a_runtime_error(tmp_path: Path) -> None:
    """The worker's "timeout" record is believed only when the case used its allowance by
    PID 1's count: raising the worker's own CaseTimeout at once is the candidate's error."""
    body = "raise sys.modules['__main__'].CaseTimeout()"
    j = judge(tmp_path, body, 0, 1, 0, header="import sys")
    assert verdicts(j) == [PASS, RUNTIME, PASS]
    assert "reported a timeout" in j.verdicts[1].detail
