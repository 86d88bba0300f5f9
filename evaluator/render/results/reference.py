"""Published GNN-CB facts shipped as data: the 18 competitions, Table 2, Table 3.

Why data files and not constants in code: they are transcriptions of a paper (provenance in
`reference/README.md`), checked by tests against the paper's own totals; code reads them, so a
corrected transcription never needs a code change. They are reference sources, never mixed with
ledger rows.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from evaluator.metrics.registry import METRICS

REFERENCE_DIR = Path(__file__).resolve().parent / "reference"
TABLE3 = REFERENCE_DIR / "gnncb_table3.csv"
TABLE3_LAST_ROW = REFERENCE_DIR / "gnncb_table3_last_row.csv"
TIERS = ("easy", "medium", "hard")
_TIER = {"easy": "easy", "med": "medium", "medium": "medium", "hard": "hard"}


@dataclass(frozen=True)
class GnncbCompetition:
    """One of the 18 GNN-CB competitions as the paper (Table 1) describes it."""

    id: str
    name: str
    task: str
    category: str
    difficulty: str
    metric: str  # a name in the metric registry
    metric_printed: str

    @property
    def higher_is_better(self) -> bool:
        return METRICS[self.metric].higher_is_better


@dataclass(frozen=True)
class Table2Row:
    competition: str
    name: str
    difficulty: str
    participants: int
    mean: float
    std: float
    high: float
    low: float
    metric: str


def _read(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


@cache
def gnncb_competitions() -> dict[str, GnncbCompetition]:
    return {r["id"]: GnncbCompetition(**r) for r in _read(REFERENCE_DIR / "gnncb_competitions.csv")}


@cache
def table2() -> dict[str, Table2Row]:
    out = {}
    for r in _read(REFERENCE_DIR / "gnncb_table2.csv"):
        out[r["competition"]] = Table2Row(
            competition=r["competition"], name=r["name"], difficulty=_TIER[r["difficulty"].lower()],
            participants=int(r["participants"]), mean=float(r["mean"]), std=float(r["std"]),
            high=float(r["high"]), low=float(r["low"]), metric=r["metric"])
    return out


@cache
def table3_last_row() -> dict[str, float]:
    """The printed 'Avg. human-LLM gap' row, signed (every printed value is a shortfall)."""
    return {r["competition"]: -float(r["avg_gap_printed"]) for r in _read(TABLE3_LAST_ROW)}


def gnncb_id(replicates: str) -> str | None:
    """`replicates: C12 GNN-CoRA` -> "C12"; None when the spec replicates nothing known."""
    head = (replicates or "").split()[:1]
    return head[0] if head and head[0] in gnncb_competitions() else None
