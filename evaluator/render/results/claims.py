"""What a number may claim: the test size it was measured on and whether two scores are apart.

Why one owner: the README's sentence about the baselines, the index's headline numbers and the
entry pages all say "on N rows of the public part" and "the intervals (do not) overlap"; read
from the same interval record (`evaluator.scoring.bootstrap.describe`: n or clusters, unit,
small) they cannot disagree.
"""

from __future__ import annotations

from typing import Any

from evaluator.render.results.board import interval_of, overlaps

PARTS = {"public": "the public part", "private": "the private part"}


def part_of(row: dict[str, Any]) -> str:
    """The part of the test split a row's scores are on (rows before parts: the test split)."""
    return PARTS.get(str(row.get("scored_on") or ""), "the test split")


def test_size(row: dict[str, Any], score: str) -> dict[str, Any]:
    """{"n", "unit", "part", "small", "text"}: e.g. "4 rows of the public part", small when the
    interval record says so (fewer than `bootstrap.SMALL_N` units). n is None when the row
    carries no interval (scored before intervals were recorded)."""
    found = interval_of(row, score) or {}
    clustered = "clusters" in found
    n = found.get("clusters") if clustered else found.get("n")
    unit = (found.get("cluster_name") or "clusters") if clustered else found.get("unit", "rows")
    part = part_of(row)
    text = f"{n} {unit} of {part}" if n is not None else part
    return {"n": n, "unit": unit, "part": part, "small": bool(found.get("small")),
            "text": text}


def apart(a: dict[str, Any] | None, b: dict[str, Any] | None) -> bool | None:
    """True when two intervals do not overlap, False when they do, None when one is missing
    (then no claim can be made)."""
    if not a or not b:
        return None
    return not overlaps(a, b)
