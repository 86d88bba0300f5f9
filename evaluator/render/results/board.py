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
from evaluator.ledger.ranking import BY_OVERLAP, BY_PAIRED, BY_POINT, Tier
from evaluator.ledger.ranking import interval_of as interval_of  # one owner: ranking's tiers
from evaluator.ledger.ranking import overlaps as overlaps
from evaluator.render.results import conformance


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


def tier_cell(tier: Tier) -> str:
    """A tier as boards print it: the number, and ° when no paired comparison with the entry
    above was recorded (the boundary then follows the intervals, or the scores)."""
    return f"{tier.tier}°" if tier.by in (BY_OVERLAP, BY_POINT) else str(tier.tier)


def tier_note(spec: Rankable, rows: list[dict[str, Any]], found: list[Tier], *,
              part: str | None = None) -> str:
    """One sentence under a board: what a tier is, the test that separates two tiers and its
    level, as the rows (or the reveal row, `part="private"`) record it; empty for an empty
    board."""
    if not found:
        return ""
    record: dict[str, Any] = next(
        (r["paired"] for r in rows if isinstance(r.get("paired"), dict)), {})
    level = round(100 * float(record.get("level", 0.95)))
    interval = next((iv for r in rows if (iv := interval_of(r, spec.primary_score))), {})
    kind = record.get("unit") or interval.get("unit", "rows")
    unit = (interval.get("cluster_name") or "clusters") if kind == "clusters" else "test rows"
    part = (f" of the {part} part" if part else
            " of the public part" if getattr(spec, "has_parts", False) else "")
    how = (f" ({record['resamples']} resamples)" if record.get("resamples") else "")
    text = (f"Tier first, point rank second: an entry starts a new tier only when its "
            f"{spec.primary_score} differs from the entry just above it significantly at "
            f"{level} % — a paired bootstrap over the {unit}{part} both entries predicted"
            f"{how}, significant when the {level} % percentile interval of the difference "
            "excludes 0; otherwise the two share a tier.")
    if any(t.by in (BY_OVERLAP, BY_POINT) for t in found):
        text += (" ° = no paired comparison was recorded with the entry above (scored before "
                 "comparisons were kept, or an envelope is not stored): the tier then splits "
                 + ("where the two scores differ." if part == "private" else
                    "only where the two 95 % intervals do not overlap (or, without intervals, "
                    "where the scores differ)."))
    # equal scores need no comparison: a board of ties is not one "without comparisons"
    fallback = any(t.by in (BY_OVERLAP, BY_POINT) for t in found)
    if fallback and not any(t.by == BY_PAIRED for t in found):
        text += " No entry of this board has a paired comparison yet."
    return text
