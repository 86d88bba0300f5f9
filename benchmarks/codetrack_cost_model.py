"""Calibration pass of the code-track cost model (evaluator/codetrack/costmodel.py).

Measures every reference's CPU time (best of `--repeat` runs, `time.process_time`) on a
generated set and compares it with the modelled time the limits are derived from. Prints, per
problem, the worst measured/modelled ratio and the rate (seconds per input byte above the base)
the measurements imply, and how many cases the model under-estimates. The model's rates are
frozen in the problem records (`cost_rate`) from such a pass; re-run this after changing a
reference or a builder.

    PYTHONPATH=. python benchmarks/codetrack_cost_model.py [--per-cell 2] [--cases DIR]
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from evaluator.codetrack.cases import CaseSet, generate_case_set  # noqa: E402
from evaluator.codetrack.costmodel import BASE_SECONDS, model_seconds  # noqa: E402
from evaluator.codetrack.problem import all_problems  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-cell", type=int, default=2)
    parser.add_argument("--cases", type=Path, help="an existing generated set to measure")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    registry = all_problems()
    with tempfile.TemporaryDirectory() as scratch:
        case_set = (CaseSet(args.cases) if args.cases else generate_case_set(
            Path(scratch) / "set", plan="full", per_cell=args.per_cell, jobs=args.jobs))
        under = total = 0
        print(f"{'problem':8} {'cases':>5} {'worst measured/model':>21} {'implied us/byte':>16}")
        for pid in case_set.problem_ids():
            problem = registry[pid]
            worst, rate, count = 0.0, 0.0, 0
            for case in case_set.iter_cases(pid):
                text = case.args_json()
                kwargs = json.loads(text)
                best = float("inf")
                for _ in range(args.repeat):
                    started = time.process_time()
                    problem.reference(**copy.deepcopy(kwargs))
                    best = min(best, time.process_time() - started)
                model = model_seconds(problem.cost_rate, text)
                worst = max(worst, best / model)
                rate = max(rate, max(0.0, best - BASE_SECONDS) / max(1, len(text)))
                under += best > model
                count += 1
            total += count
            print(f"{pid:8} {count:5d} {worst:21.2f} {rate * 1e6:16.3f}")
        print(f"{under} of {total} cases took more CPU time than modelled "
              "(the judge's limit is still max(1 s, 10x the model))")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
