"""A correct solution judged on a busy machine passes (issue 27.4): each case is charged the
wall time it had less what PID 1 measured as not its own doing.

The contention is made deterministic and independent of the machine, as in
tests/sandbox/test_busy_machine.py: each case pins the worker to one CPU beside HOGS spinning
processes of its own (PID 1 kills them once the case is answered), so it gets at most a
1/(HOGS + 1) share of that CPU and waits the rest in the kernel's run queue. (Pinning the judge
from outside did not reach the worker when tried: its affinity is reset on the way, perhaps
when it joins the run's cgroup.) A case needing WORK
seconds of CPU then takes more than its wall allowance in elapsed time, which only the credited
run-queue wait keeps from being a timeout. The answers are large (about 2 MB each), so each
record crosses PID 1's relay while the CPU is contended and while the judge's checker process
checks the previous one.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from evaluator import sandbox
from evaluator.codetrack.checkers import Verdict
from evaluator.codetrack.judge import PASS, JudgeConfig, judge_problem
from tests.codetrack.test_judge import TOTAL, cases, solution

FULL = sandbox.detect_isolation()
HOGS = 7  # spinning processes beside the worker on its CPU: it gets at most 1/8 of it
WORK = 0.6  # CPU seconds each case needs: > 8 x 0.6 = 4.8 s elapsed, over the 3 s allowance
FLOOR = 1.0  # the per-case CPU limit (the cases' reference time is tiny): wall allowance 3 s
ANSWER = 300_000  # list elements per answer (about 2 MB of JSON)


def _range_answer(args: Mapping[str, Any], expected: Any, actual: Any) -> Verdict:
    """The problem's checker (run in the judge's checker process): the answer is 0..ANSWER-1."""
    return Verdict(actual == list(range(ANSWER)), "not the expected range")


@pytest.mark.slow
@pytest.mark.skipif(not (FULL.sandboxed and FULL.unprivileged),
                    reason=f"needs full sandbox isolation (root + unshare); here: {FULL.level}")
def test_a_correct_solution_with_large_answers_passes_on_a_busy_cpu(tmp_path: Path) -> None:
    problem = dataclasses.replace(TOTAL, id="t-range", checker=_range_answer)
    body = (f"os.sched_setaffinity(0, {{min(os.sched_getaffinity(0))}})\n"
            f"for _ in range({HOGS}):\n    if os.fork() == 0:\n        while True:\n"
            f"            pass\nt = time.process_time()\nwhile time.process_time() - t < {WORK}:\n"
            f"    pass\nreturn list(range({ANSWER}))")
    config = JudgeConfig(timeout_floor=FLOOR, measure_memory=False)
    allowance = JudgeConfig.wall_seconds(FLOOR)
    started = time.monotonic()
    j = judge_problem(problem, solution(tmp_path, body, header="import os, time"),
                      cases(1, 1), config=config, workdir=tmp_path / "w")
    elapsed = time.monotonic() - started
    # two cases at a 1/8 share of one CPU take over 2 x 4.8 s: if the judge finished within
    # the cases' own allowances, the machine was not busy and nothing was tested
    assert elapsed > 2 * allowance, "the judge was not slowed: nothing was tested"
    assert [v.verdict for v in j.verdicts] == [PASS, PASS], [v.detail for v in j.verdicts]
    for v in j.verdicts:  # charged time: CPU plus what was not the machine's doing
        assert v.cpu is not None and v.wall is not None and v.cpu >= WORK
        assert v.wall <= allowance
