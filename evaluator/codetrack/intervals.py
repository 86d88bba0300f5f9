"""95% interval of a code-track pass rate: a cluster bootstrap over problems.

Why problems are the unit: a submission's ~3,600 hidden cases are not independent draws. Cases
of one problem share one solution, so a solution that is wrong on a problem fails most of that
problem's cases together; resampling cases would give an interval far too narrow (0.0 % or
100 % of a problem's cases move together). The population a reader cares about is "graph
problems like these", so the problems are resampled with replacement, each carrying its passed
and judged case counts, and the statistic is the pooled pass rate sum(passed) / sum(cases) —
exactly how the standings compute the score (a problem without a solution counts with its
planned cases and 0 passes). SciPy's `stats.bootstrap` (paired, percentile) does the resampling;
the generator is seeded from the board's slug and version, so the same counts always give the
same interval.

The interval depends only on the per-problem counts a ledger row already holds, so rows scored
before intervals existed get theirs from their own counts (`rescore_rows`) without re-judging.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from evaluator.scoring.bootstrap import LEVEL, RESAMPLES, SMALL_N, rng_for

METHOD = "bootstrap-percentile"
CLUSTERS = "problems"


def case_counts(per_problem: Mapping[str, Mapping[str, Any]], planned: Mapping[str, int]
                ) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(problem ids, passed, cases) over every planned problem: judged counts where the row
    has them, the planned case count with 0 passes where the submission had no solution."""
    unknown = sorted(set(per_problem) - set(planned))
    if unknown:
        raise ValueError(f"per-problem counts for problems outside the plan: {unknown}")
    ids = sorted(planned)
    passed = np.array([int(per_problem.get(p, {}).get("passed", 0)) for p in ids], dtype=float)
    cases = np.array([int(per_problem[p]["cases"]) if p in per_problem else int(planned[p])
                      for p in ids], dtype=float)
    if (passed < 0).any() or (passed > cases).any():
        raise ValueError("per-problem counts need 0 <= passed <= cases")
    return ids, passed, cases


def pass_rate_interval(passed: Sequence[float], cases: Sequence[float], *, slug: str,
                       version: int, resamples: int = RESAMPLES) -> dict[str, Any]:
    """The ledger's interval record for a pooled pass rate over problems (clusters)."""
    from scipy import stats  # imported here: the board and its pages never need SciPy

    p = np.asarray(passed, dtype=float)
    c = np.asarray(cases, dtype=float)
    if p.shape != c.shape or p.ndim != 1 or not len(p) or c.sum() <= 0:
        raise ValueError("need one (passed, cases) pair per problem and at least one case")

    def pooled(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
        total = b.sum(axis=axis)
        # a resample may draw only problems with no planned case; its pass rate is 0 by the
        # board's rule (no case passed), not a division error
        return np.divide(a.sum(axis=axis), total, out=np.zeros_like(total), where=total > 0)

    if len(p) == 1:  # every resample of one problem is that problem (SciPy needs two)
        low = high = float(pooled(p, c))
    else:
        result = stats.bootstrap((p, c), pooled, paired=True, vectorized=True,
                                 n_resamples=resamples, confidence_level=LEVEL,
                                 method="percentile", rng=rng_for(slug, version))
        # percentile interpolation over equal resampled rates can invert the two ends by an
        # ulp (hypothesis found [(33, 50), (33, 50)]); an interval is ordered
        low, high = sorted(map(float, result.confidence_interval))
    return {"low": float(low), "high": float(high), "level": LEVEL, "method": METHOD,
            "resamples": resamples, "unit": "clusters", "n": int(c.sum()),
            "clusters": len(p), "cluster_name": CLUSTERS, "small": len(p) < SMALL_N}


def planned_cases(per_cell: int) -> dict[str, int]:
    """Hidden cases per problem of the leaderboard plan at `per_cell` cases per cell (the
    count a problem without a solution is charged with)."""
    from evaluator.codetrack.cases import make_plan
    from evaluator.codetrack.problem import all_problems

    plan = make_plan("paper", all_problems().values(), per_cell)
    return {pid: sum(cells.values()) for pid, cells in plan.items()}


def row_interval(row: Mapping[str, Any], *, slug: str, version: int) -> dict[str, Any]:
    """The pass-rate interval of a code-track ledger row, from the counts the row holds.

    Refuses (ValueError) a row whose per-problem counts do not add up to its own scores: the
    interval must describe the score it is shown beside."""
    per_cell = int((row.get("declared") or {}).get("per_cell") or 0)
    if per_cell <= 0:
        raise ValueError("the row declares no per_cell (cases per cell of its plan)")
    planned = planned_cases(per_cell)
    per_problem = {pid: {k: got[k] for k in ("passed", "cases")}
                   for pid, got in (row.get("per_problem") or {}).items()}
    _, passed, cases = case_counts(per_problem, planned)
    scores = row.get("scores") or {}
    if int(passed.sum()) != int(scores.get("passed", -1)) or \
            int(cases.sum()) != int(scores.get("cases", -1)):
        raise ValueError(f"its per-problem counts ({int(passed.sum())} of {int(cases.sum())}) "
                         f"do not add up to its scores ({scores.get('passed')} of "
                         f"{scores.get('cases')})")
    return pass_rate_interval(passed, cases, slug=slug, version=version)
