"""What a leaderboard shows beside each rank: the interval of the ranked score, whether it
overlaps a neighbour's, and whether the row kept to the protocol.

Why on the board: a rank says "better"; an interval that overlaps the next rank's says "not
distinguishable on this test set", and a mark says "not comparable" (outside the protocol).
Pure functions of ledger rows and the spec, used by `evaluator.render.boards`.
"""

from __future__ import annotations

from typing import Any

from evaluator.competition.boards import Leaderboard, Rankable
from evaluator.competition.spec import CompetitionSpec
from evaluator.render.results import conformance


def interval_of(row: dict[str, Any], score: str) -> dict[str, Any] | None:
    found = (row.get("intervals") or {}).get(score)
    return found if isinstance(found, dict) and "low" in found and "high" in found else None


def overlaps(a: dict[str, Any] | None, b: dict[str, Any] | None) -> bool:
    if not a or not b:
        return False
    return bool(a["low"] <= b["high"] and b["low"] <= a["high"])


def annotate(spec: Leaderboard, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per ranked row (in rank order): interval of the primary score, `overlap` (its interval
    overlaps the entry ranked just above or just below), protocol status and mark."""
    score = spec.primary_score
    intervals = [interval_of(r, score) for r in rows]
    out = []
    for i, r in enumerate(rows):
        near = [intervals[j] for j in (i - 1, i + 1) if 0 <= j < len(rows)]
        verdict: dict[str, Any] = (
            conformance.check_row(spec, r) if isinstance(spec, CompetitionSpec)  # has rules
            else {"status": conformance.OK, "deviations": [], "unverified": []})
        out.append({"interval": intervals[i],
                    "overlap": any(overlaps(intervals[i], other) for other in near),
                    "protocol": verdict["status"], "mark": conformance.mark(verdict["status"]),
                    "why": "; ".join(verdict["deviations"] or verdict["unverified"])})
    return out


def interval_note(spec: Rankable, rows: list[dict[str, Any]]) -> str:
    """One sentence under the board: how intervals were computed, and whether the test set is
    small. Empty when no row carries intervals."""
    found = [iv for r in rows if (iv := interval_of(r, spec.primary_score))]
    if not found:
        return ""
    iv = found[-1]
    unit = (f"{iv.get('cluster_name') or 'clusters'} ({iv.get('clusters')} in the test set)"
            if iv.get("unit") == "clusters" else f"test rows ({iv.get('n')})")
    methods = {x.get("method") for x in found}
    how = ("95% percentile bootstrap intervals" if methods == {"bootstrap-percentile"}
           else "95% intervals (percentile bootstrap; normal approximation on large test sets)")
    text = f"[low, high]: {how} of {spec.primary_score}, {iv.get('resamples')} resamples of {unit}"
    text += "; ≈ marks a rank whose interval overlaps a neighbour's (not separable here)."
    if iv.get("small"):
        text += (" **Small test set**: these intervals are wide; differences between ranks are "
                 "mostly noise.")
    return text
