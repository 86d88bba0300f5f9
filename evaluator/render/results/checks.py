"""Where a paper's own numbers disagree with each other: found and said, never smoothed over.

Checks (each returns plain sentences with the numbers):
- Table 2 internally: rows sharing mean/std/high; a std impossible for its bounds (for n values
  in [low, high] with mean m, the sample variance is at most n/(n-1) (high-m)(m-low),
  Bhatia-Davis); a mean outside [low, high].
- A source against Table 2: its human top vs Table 2's best human.
- A source's printed cells (`note` = "printed 93.6↓4.5" / "83.0 (gap 0)"): the printed
  direction against the recomputed gap, and equal scores printed with different directions.
- Departures of the transcription the paper's own numbers force (a Human Top printed rounded
  while its gaps use the unrounded value: C14's 4.98 vs 4.984).
- Totals the paper states in its text (19 ties-or-beats of 162 pairs, 20 severe cases, LLM mean
  above human mean on 6 of 16) against what the table gives, and the last row of Table 3.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from typing import Any

from evaluator.render.results import reference
from evaluator.render.results.tables import TIE_DIGITS, signed_gap

_PRINTED = re.compile(r"printed\s+(?P<score>\d+(?:\.\d+)?)\s*"
                      r"(?:(?P<arrow>[↓↑])(?P<gap>\d+(?:\.\d+)?)|\(gap 0\))")
PAPER_CLAIMS: dict[str, Any] = {"tie_or_beat": 19, "pairs": 162, "severe": 20,
                                "llm_mean_above_human_mean": (6, 16)}


def table2_checks() -> list[str]:
    rows = reference.table2()
    out = []
    seen: dict[tuple[float, float, float], str] = {}
    for cid, r in rows.items():
        key = (r.mean, r.std, r.high)
        if key in seen:
            out.append(f"GNN-CB Table 2: {cid} ({r.name}) repeats {seen[key]}'s mean {r.mean}, "
                       f"std {r.std} and high {r.high}; only the low differs")
        else:
            seen[key] = cid
        if not r.low <= r.mean <= r.high:
            out.append(f"GNN-CB Table 2: {cid} mean {r.mean} is outside its range "
                       f"[{r.low}, {r.high}]")
            continue
        n = r.participants
        bound = math.sqrt(max(0.0, (r.high - r.mean) * (r.mean - r.low)) * n / (n - 1))
        if r.std > bound + 5e-4:
            out.append(f"GNN-CB Table 2: {cid} std {r.std} is impossible for {n} scores in "
                       f"[{r.low}, {r.high}] with mean {r.mean} (at most {bound:.3f})")
    return out


def human_top_checks(result: dict[str, Any]) -> list[str]:
    out = []
    for c in result["competitions"].values():
        row = reference.table2().get(c.get("gnncb_id") or "")
        top = c.get("human_top")
        if row is None or top is None or c.get("human_top_source", "").startswith("GNN-CB"):
            continue
        best = row.high if c["higher_is_better"] else row.low
        if abs(best - top) > 0.0051 * max(1.0, abs(best)):
            out.append(f"{c['gnncb_id']}: the human top {top:g} disagrees with GNN-CB Table 2's "
                       f"best human score {best:g}")
    return out


def printed_cell_checks(dataset: dict[str, Any], result: dict[str, Any]) -> list[str]:
    out = []
    arrows: dict[tuple[str, float], set[str]] = defaultdict(set)
    examples: dict[tuple[str, float], list[str]] = defaultdict(list)
    for e in dataset["entries"]:
        m = _PRINTED.search(e.get("note") or "")
        c = result["competitions"].get(e["competition"])
        if not m or c is None or c["human_top"] is None or e["score"] is None:
            continue
        arrow = m.group("arrow") or "="
        gap = signed_gap(e["score"], c["human_top"], c["higher_is_better"])
        key = (e["competition"], round(e["score"], TIE_DIGITS))
        arrows[key].add("below" if arrow == "↓" else "tie or above")
        examples[key].append(f"{e['entrant']} {m.group(0).removeprefix('printed ').strip()}")
        recomputed = round(gap, TIE_DIGITS)
        if arrow == "↓" and recomputed >= 0:
            out.append(f"{c.get('gnncb_id') or e['competition']}: {e['entrant']} is printed below "
                       f"the human top ({m.group(0)}) but its score equals or beats it "
                       f"({e['score']:g} vs {c['human_top']:g})")
        elif arrow == "↑" and recomputed < 0:
            out.append(f"{c.get('gnncb_id') or e['competition']}: {e['entrant']} is printed at or "
                       f"above the human top ({m.group(0)}) but its score is below it "
                       f"({e['score']:g} vs {c['human_top']:g})")
    for key, kinds in arrows.items():
        if len(kinds) > 1:
            c = result["competitions"][key[0]]
            out.append(f"{c.get('gnncb_id') or key[0]}: the same score is printed once as "
                       "below and once as a tie or above the human top "
                       f"({'; '.join(examples[key])}), so "
                       "the printed count of ties-or-beats disagrees with its own cells")
    return out


_PRINTED_TOP = re.compile(r"printed\s+(?P<value>\d+(?:\.\d+)?)\s+in Table 3's Human Top row")


def transcription_checks(dataset: dict[str, Any]) -> list[str]:
    """Cells the transcription had to depart from because the paper's own numbers need another
    value (its `note` says "printed X in Table 3's Human Top row"): C14's Human Top is printed
    4.98 while the printed gaps and the last row use 4.984."""
    out = []
    for e in dataset["entries"]:
        m = _PRINTED_TOP.search(e.get("note") or "")
        if not m or e["score"] is None:
            continue
        printed = float(m.group("value"))
        if any(math.isclose(e["score"] * scale, printed, abs_tol=1e-12) for scale in (1, 100)):
            continue  # carried as printed (in the source's own units)
        c = dataset["competitions"].get(e["competition"], {})
        out.append(f"{c.get('gnncb_id') or e['competition']}: Table 3 prints the Human Top as "
                   f"{m.group('value')}, but its printed gaps and last row need {e['score']:g}; "
                   f"the transcription carries {e['score']:g} so that the last row reproduces")
    return out


def claim_checks(result: dict[str, Any]) -> list[str]:
    out = []
    if result["pairs"] == PAPER_CLAIMS["pairs"]:
        if result["tie_or_beat"] != PAPER_CLAIMS["tie_or_beat"]:
            out.append(f"the paper states {PAPER_CLAIMS['tie_or_beat']} of "
                       f"{PAPER_CLAIMS['pairs']} pairs tie or beat the human top; its table "
                       f"gives {result['tie_or_beat']} under the stated tie rule")
        if result["severe"]["count"] != PAPER_CLAIMS["severe"]:
            out.append(f"the paper counts {PAPER_CLAIMS['severe']} severe under-performances; "
                       f"its table gives {result['severe']['count']} pairs >= 30 points below "
                       "the best LLM on a classification competition")
        k, n = PAPER_CLAIMS["llm_mean_above_human_mean"]
        got = result["llm_mean_above_human_mean"]
        if (got["count"], got["of"]) != (k, n) and got["of"]:
            out.append(f"the paper states the LLM mean beats the human mean on {k} of {n} "
                       f"classification competitions; its tables give {got['count']} of "
                       f"{got['of']}")
    return out


def last_row_checks(result: dict[str, Any]) -> list[str]:
    """The printed last row of Table 3 vs the recomputed averages, at the printed precision."""
    out = []
    printed = reference.table3_last_row()
    for c in result["competitions"].values():
        gid = c.get("gnncb_id")
        if gid not in printed or c["avg_gap"] is None:
            continue
        scale = 100.0 if c["classification"] else 1.0
        digits = 1 if c["classification"] else 3
        ours = round(c["avg_gap"] * scale, digits)
        if not math.isclose(ours, printed[gid], abs_tol=10 ** -digits / 2):
            out.append(f"{gid}: the recomputed average gap {ours:g} differs from Table 3's last "
                       f"row {printed[gid]:g}")
    return out


def paper_checks(dataset: dict[str, Any], result: dict[str, Any]) -> list[str]:
    """Every inconsistency that applies to this dataset (GNN-CB ids present)."""
    if not any(c.get("gnncb_id") for c in result["competitions"].values()):
        return []
    found = table2_checks() + printed_cell_checks(dataset, result)
    if dataset["source"] != "ledger":
        # a ledger's humans are scored on other test data than the paper's: a different top is
        # expected there (marked beside the row), not an inconsistency of the paper
        found += (human_top_checks(result) + transcription_checks(dataset)
                  + claim_checks(result) + last_row_checks(result))
    return found


def reproduces_last_row(result: dict[str, Any]) -> dict[str, Any]:
    """{gnncb id: (recomputed, printed)} at the printed precision, for the report."""
    printed = reference.table3_last_row()
    rows = {}
    for c in result["competitions"].values():
        gid = c.get("gnncb_id")
        if gid in printed and c["avg_gap"] is not None:
            scale, digits = (100.0, 1) if c["classification"] else (1.0, 3)
            rows[gid] = {"recomputed": round(c["avg_gap"] * scale, digits), "printed": printed[gid]}
    return rows
