"""Minimal counterexamples (shrink.py) and calibrated limits (limits.py).

The every-mutant test runs each classic wrong solution (a record's `mutants`) of every problem
as a candidate in the sandbox on its first failing generated case, shrinks that case (searching
in process, the sandbox judging the result), and checks the minimal input independently: it is
in the problem's contract, no larger than the original, and the mutant (run here, on the
reference's answer) still fails it. It prints the median shrink ratio.
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from evaluator.cli import main
from evaluator.codetrack.cases import CaseSet, generate_case_set
from evaluator.codetrack.discrimination import _passes
from evaluator.codetrack.judge import PASS, JudgeConfig, judge_problem
from evaluator.codetrack.limits import calibrate
from evaluator.codetrack.problem import all_problems, get_problem
from evaluator.codetrack.shrink import (
    FEATURES,
    Budget,
    candidates,
    features,
    mutant_predictor,
    mutant_solution,
    shrink_judgement,
    signature,
    size,
)
from tests.helpers.codetrack import PAPER_THREE, shared_case_set

LC207_SELF = "class Solution:\n    def canFinish(self, numCourses, prerequisites):\n" \
    "        import collections\n" \
    "        indeg = [0] * numCourses\n        out = collections.defaultdict(list)\n" \
    "        for a, b in prerequisites:\n            if a == b:\n                continue\n" \
    "            out[b].append(a)\n            indeg[a] += 1\n" \
    "        todo = [v for v in range(numCourses) if indeg[v] == 0]\n        seen = 0\n" \
    "        while todo:\n            v = todo.pop()\n            seen += 1\n" \
    "            for w in out[v]:\n                indeg[w] -= 1\n" \
    "                if indeg[w] == 0:\n                    todo.append(w)\n" \
    "        return seen == numCourses\n"


def test_features_come_from_the_fixed_list() -> None:
    lc207 = get_problem("lc207")
    assert features(lc207, {"numCourses": 1, "prerequisites": [[0, 0]]}) == [
        "single node", "self-loop", "cycle"]
    assert features(lc207, {"numCourses": 3, "prerequisites": [[0, 1], [1, 0], [0, 1]]}) == [
        "isolated node", "disconnected", "parallel links", "two-way link", "cycle"]
    assert features(lc207, {"numCourses": 2, "prerequisites": []}) == [
        "no links", "isolated node", "disconnected"]
    lc1782 = get_problem("lc1782")  # a multigraph input: a repeated edge is a parallel link
    found = features(lc1782, {"n": 2, "edges": [[1, 2], [2, 1]], "queries": [0]})
    assert "parallel links" in found and set(found) <= set(FEATURES)
    assert size(lc207, {"numCourses": 3, "prerequisites": [[0, 1]]}) == 4


def test_candidates_drop_nodes_and_renumber_compactly() -> None:
    lc207 = get_problem("lc207")
    args = {"numCourses": 4, "prerequisites": [[0, 1], [3, 3], [2, 3]]}
    made = list(candidates(lc207, args))
    # dropping nodes 0 and 1 leaves 2 nodes, their links renumbered to 0..1
    assert {"numCourses": 2, "prerequisites": [[1, 1], [0, 1]]} in made
    # dropping one link
    assert {"numCourses": 4, "prerequisites": [[0, 1], [2, 3]]} in made
    lc2360 = get_problem("lc2360")  # a successor array: ids inside a node-indexed list
    made = list(candidates(lc2360, {"edges": [1, 2, 0, -1]}))
    assert {"edges": [1, 0, -1]} in made  # node 2 dropped, the arc into it gone


def test_the_same_way_means_the_same_verdict_and_exception() -> None:
    assert signature("runtime error", "Traceback ...\nIndexError: list index") == (
        "runtime error", "IndexError")
    assert signature("runtime error", "KeyError: 3") != signature("runtime error",
                                                                   "IndexError: x")
    assert signature("wrong answer", "anything") == ("wrong answer", "")


@pytest.mark.slow
def test_the_judge_cli_reports_the_minimal_counterexample(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture) -> None:
    """A Kahn's algorithm that skips self-pairs fails some generated case; the run folder, the
    feedback and the report carry its minimal counterexample: one course requiring itself."""
    folder = tmp_path / "solutions"
    folder.mkdir()
    (folder / "lc207.py").write_text(LC207_SELF)
    cases = generate_case_set(tmp_path / "set", per_cell=3, problems=["lc207"])
    out = tmp_path / "run"
    assert main(["code", "judge", "--solutions", str(folder), "--cases", str(cases.path),
                 "--out", str(out), "--jobs", "1"]) == 0
    printed = capsys.readouterr().out
    assert "minimal counterexample: size 2" in printed
    minimal = json.loads((out / "counterexamples.json").read_text())["lc207"]
    assert minimal["args"] == {"numCourses": 1, "prerequisites": [[0, 0]]}
    assert minimal["features"] == ["single node", "self-loop", "cycle"]
    assert minimal["size"] < minimal["original_size"]
    feedback = json.loads((out / "feedback.json").read_text())["lc207"]
    assert feedback[0]["minimal"] == minimal
    run = json.loads((out / "run.json").read_text())["problems"]["lc207"]
    assert run["minimal"] == minimal
    assert run["limits"]["floor"] == 1.0 and run["limits"]["factor"] == 10.0
    assert run["limits"]["measured"]  # raw reference timings recorded
    assert main(["code", "report", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "suite strength (flag: the best constant passes more than 50%)" in printed
    line = next(x for x in printed.splitlines() if x.strip().startswith("lc207 "))
    assert "mutants killed 100 %" in line and "best constant" in line
    assert "structures: single node, self-loop, cycle" in printed


@pytest.fixture(scope="module")
def small_set(tmp_path_factory: pytest.TempPathFactory) -> CaseSet:
    """The practice seed's paper plan at --per-cell 3 (shared with test_discrimination.py)."""
    return shared_case_set(tmp_path_factory, **PAPER_THREE)


RATIOS: list[float] = []


def _shrink_problems() -> list[str]:
    """Every problem; GNNCB_TEST_SHRINK_PROBLEMS (comma-separated) runs only those."""
    wanted = os.environ.get("GNNCB_TEST_SHRINK_PROBLEMS", "")
    chosen = [p.strip() for p in wanted.split(",") if p.strip() and p.strip() != "all"]
    return chosen or list(all_problems())


@pytest.mark.slow
@pytest.mark.parametrize("pid", _shrink_problems())
def test_every_mutant_gets_a_minimal_counterexample(pid: str, small_set: CaseSet,
                                                    tmp_path: Path) -> None:
    """Each mutant is judged in the sandbox on its first failing case; the shrink searches in
    this process (the mutants are this package's code: `mutant_predictor`) and the sandbox
    judges the minimal input, which is then checked here independently. The sandboxed search
    itself (untrusted solutions) is exercised by the CLI test above."""
    problem = all_problems()[pid]
    # at most 15 s of searching per mutant (most take well under a second; lc2508's reference
    # is quadratic and its inputs shrink slowly): what is kept is verified either way
    budget = Budget(rounds=int(os.environ.get("GNNCB_TEST_SHRINK_ROUNDS", "4")), seconds=15)
    cases = small_set.cases(pid)
    for name, mutant in problem.mutants.items():
        first = next((c for c in cases if not _passes(
            problem, mutant, json.loads(c.args_json()), c.expected)), None)
        assert first is not None, f"{pid}: the mutant '{name}' passes every case"
        made = mutant_solution(problem, name, tmp_path / "mutants")
        judgement = judge_problem(problem, made.solution, [first],
                                  extra_files=made.extra_files, site_packages=True)
        assert judgement.verdicts[0].verdict != PASS, (pid, name)
        record = shrink_judgement(judgement, problem, made.solution, [first],
                                  budget=budget, extra_files=made.extra_files,
                                  site_packages=True, predict=mutant_predictor(problem, name))
        assert record is not None and "size" in record, (pid, name, record)
        args = record["args"]
        assert problem.in_contract is None or problem.in_contract(args), (pid, name)
        assert record["size"] <= record["original_size"] == size(
            problem, json.loads(first.args_json())), (pid, name)
        assert record["size"] == size(problem, args)
        assert judgement.feedback[0]["minimal"] == record
        if record["verdict"] == "wrong answer":  # the mutant, run here, still fails it
            expected = problem.reference(**json.loads(json.dumps(args)))
            assert not _passes(problem, mutant, args, expected), (pid, name, args)
        RATIOS.append(record["ratio"])
        print(f"\n{pid} {name!r}: size {record['original_size']} -> {record['size']} "
              f"({record['verdict']}; {', '.join(record['features']) or 'no feature'}; "
              f"{record['stopped']})")


@pytest.mark.slow
def test_median_shrink_ratio() -> None:
    """After the every-mutant tests (same module, in file order): print the median."""
    if not RATIOS:
        pytest.skip("run with the every-mutant tests")
    median = statistics.median(RATIOS)
    print(f"\nmedian shrink ratio over {len(RATIOS)} mutants: {median:.3f}")
    assert median < 1.0


BRIDGES = """\
class Solution:
    def criticalConnections(self, n, connections):
        adj = [[] for _ in range(n)]
        for i, (a, b) in enumerate(connections):
            adj[a].append((b, i))
            adj[b].append((a, i))
        low, disc, out, clock = [0] * n, [-1] * n, [], 0
        for root in range(n):
            if disc[root] != -1:
                continue
            disc[root] = low[root] = clock
            clock += 1
            stack = [(root, -1, iter(adj[root]))]
            while stack:
                v, via, it = stack[-1]
                for w, i in it:
                    if i == via:
                        continue
                    if disc[w] == -1:
                        disc[w] = low[w] = clock
                        clock += 1
                        stack.append((w, i, iter(adj[w])))
                        break
                    low[v] = min(low[v], disc[w])
                else:
                    stack.pop()
                    if stack:
                        u = stack[-1][0]
                        low[u] = min(low[u], low[v])
                        if low[v] > disc[u]:
                            out.append([u, v])
        return out
"""
TRAIL = """\
class Solution:
    def validArrangement(self, pairs):
        out, balance = {}, {}
        for s, e in pairs:
            out.setdefault(s, []).append(e)
            balance[s] = balance.get(s, 0) + 1
            balance[e] = balance.get(e, 0) - 1
        start = next((v for v, b in balance.items() if b == 1), pairs[0][0])
        stack, nodes = [start], []
        while stack:
            heads = out.get(stack[-1])
            if heads:
                stack.append(heads.pop())
            else:
                nodes.append(stack.pop())
        nodes.reverse()
        return [[a, b] for a, b in zip(nodes, nodes[1:])]
"""


class CpuHog:
    """Processes that spin beside the judge (one per core), ended by their own ids."""

    def __init__(self, count: int) -> None:
        self.procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                      for _ in range(count)]

    def __enter__(self) -> CpuHog:
        return self

    def __exit__(self, *_: object) -> None:
        for proc in self.procs:
            proc.send_signal(signal.SIGKILL)
            proc.wait()


@pytest.mark.slow
def test_a_correct_solution_passes_every_case_beside_a_cpu_hog(tmp_path: Path) -> None:
    """Correct solutions (written independently of the references), judged while CPU hogs
    keep every core busy:
    limits are CPU seconds of the candidate's process (not wall clock), calibrated on this
    machine, so it passes every case; the verdicts state the floor and the factor."""
    # two cases per cell: every cell of both problems still judged beside the hogs (CI time)
    cases = generate_case_set(tmp_path / "set", per_cell=2, problems=["lc1192", "lc2097"])
    folder = tmp_path / "solutions"
    folder.mkdir()
    (folder / "lc1192.py").write_text(BRIDGES)
    (folder / "lc2097.py").write_text(TRAIL)
    out = tmp_path / "run"
    with CpuHog(os.cpu_count() or 2):
        assert main(["code", "judge", "--solutions", str(folder), "--cases",
                     str(cases.path), "--out", str(out),
                     "--jobs", "1"]) == 0
    run = json.loads((out / "run.json").read_text())
    for pid in ("lc1192", "lc2097"):
        figures = run["problems"][pid]
        assert figures["passed"] == figures["cases"] > 0, (pid, figures["verdicts"])
        assert figures["limits"]["floor"] == 1.0 and figures["limits"]["factor"] == 10.0
    rows = [json.loads(line) for line in (out / "verdicts.jsonl").read_text().splitlines()]
    assert all(r["limit"] >= 1.0 for r in rows)


def test_calibration_never_lowers_a_limit_and_records_the_raw_timings() -> None:
    problem = get_problem("lc2097")
    from evaluator.codetrack.cases import generate_case

    case, _ = generate_case(problem, "sparse", "connected", 0, 7)
    assert case is not None
    model = case.ref_seconds
    (out,), record = calibrate(problem, [case], JudgeConfig(timeout_factor=7.0))
    assert out.ref_seconds >= model
    assert record["factor"] == 7.0 and record["floor"] == 1.0
    assert set(record["measured"]) == {case.id} and record["speed"] >= 1.0
