"""Calibrated time limits: each case's CPU limit from the reference's runtime measured on the
judging machine, at judge time.

Why: the stored limits come from a cost model calibrated once (costmodel.py); a judge machine
slower than the calibration machine would time out a correct solution that is merely as slow as
the reference. As EvalPlus does (T = max(T_base, k x the reference's time on the same machine)),
the judge measures the reference here, on the same machine, just before judging, and a case's
limit is max(floor, factor x reference seconds), capped (`JudgeConfig.case_seconds`); floor,
factor, cap and the raw timings are recorded with the verdicts.

What is measured: the reference's CPU time (this thread's clock, so other processes on a loaded
machine do not inflate it, just as the candidate's CPU is read from the kernel) on the `sample`
largest cases of the problem (by stored input size, where a reference spends most). Their
ratio to the model gives the machine's speed against the calibration machine; every case's
reference time is then max(model, model x speed, its own measurement), so a limit never falls
below the model's and a slower machine raises all of them. The candidate's clock is the kernel's
exact CPU count of its process, so a CPU hog beside the judge slows its wall clock but not its
CPU seconds; the wall allowance is 3x the CPU limit (+2 s).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from evaluator.codetrack.cases import Case
from evaluator.codetrack.judge import JudgeConfig
from evaluator.codetrack.problem import Problem

SAMPLE = 6  # largest cases per problem whose reference time is measured
REPEATS = 2  # best of: the first call pays for warm-up


def measure_reference(problem: Problem, case: Case) -> float | None:
    """CPU seconds of the reference on one case (best of REPEATS), None if it raises."""
    args = case.args_json()
    best = None
    for _ in range(REPEATS):
        kwargs = json.loads(args)  # fresh inputs per call (a reference may change its own)
        start = time.thread_time()
        try:
            problem.reference(**kwargs)
        except Exception:  # a case without a true answer (imported): nothing to time
            return None
        spent = time.thread_time() - start
        best = spent if best is None else min(best, spent)
    return best


def calibrate(problem: Problem, cases: Sequence[Case],
              config: JudgeConfig = JudgeConfig(),  # noqa: B008 - frozen dataclass
              sample: int = SAMPLE) -> tuple[list[Case], dict[str, Any]]:
    """The cases with their reference times set from this machine's measurement, and the
    record of how (floor, factor, cap, speed, raw timings by case id)."""
    sized = sorted(range(len(cases)), key=lambda k: -len(cases[k].args_json()))[:sample]
    measured: dict[str, float] = {}
    ratios = []
    for k in sized:
        case = cases[k]
        if not case.has_expected:
            continue
        seconds = measure_reference(problem, case)
        if seconds is None:
            continue
        measured[case.id] = round(seconds, 6)
        if case.ref_seconds:
            ratios.append(seconds / case.ref_seconds)
    speed = max([1.0, *ratios])
    out = []
    for case in cases:
        model = case.ref_seconds or 0.0
        ref = max(model, model * speed, measured.get(case.id, 0.0))
        out.append(case if ref == model else replace(case, ref_seconds=round(ref, 6)))
    record = {
        "floor": config.timeout_floor,
        "factor": config.timeout_factor,
        "cap": config.timeout_cap,
        "rule": "limit = min(cap, max(floor, factor x reference CPU seconds)); wall = "
                "max(3 x limit, limit + 2 s)",
        "speed": round(speed, 4),
        "measured": measured,
    }
    return out, record
