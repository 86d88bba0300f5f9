"""Ledger rows -> plain data for the site's pages (no HTML, no plotting here).

Why a separate layer: the pages, the plots and the tests read the same numbers, and the rules
(which submission counts, what "best human" means, whether declared rules conform) live in one
place. Everything here is a pure function of (specs, rows); output order is fixed (rank, then
slug, then digest), so the site built from the same ledger is the same bytes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from evaluator.ranking import Entry

KINDS = ("human", "llm", "baseline")
KIND_LABEL = {"human": "human", "llm": "LLM", "baseline": "baseline"}
SHOWN = 100  # entries listed (and given a page) per competition; the CSV holds all


def kind_of(row: dict[str, Any]) -> str:
    """human / llm / baseline, from the entrant the metadata declared (and the pipeline checked
    against the participant: baselines are recorded by `gnncb baseline run` only)."""
    entrant = row.get("entrant", "human")
    kind = _KINDS.get(entrant) if type(entrant) is str else None
    if kind is None:
        kind = _kind_of_entrant(str(entrant))
        if type(entrant) is str and len(_KINDS) < 64:  # the few entrant strings there are
            _KINDS[entrant] = kind
    return kind


_KINDS: dict[str, str] = {}


def _kind_of_entrant(entrant: str) -> str:
    if entrant.startswith("llm"):
        return "llm"
    return "baseline" if entrant == "baseline" else "human"


def entry_id(row: dict[str, Any]) -> str:
    """File-name-safe id of a submission: its envelope digest (sha256 hex, unique per row)."""
    digest = str(row.get("digest", ""))
    return "".join(ch for ch in digest.lower() if ch in "0123456789abcdef")[:64] or "unknown"


def interval_of(row: dict[str, Any], score: str) -> tuple[float, float] | None:
    """The 95 % interval the scorer recorded for `score`, if the row has one.

    Rows carry it as `intervals: {score: [low, high]}` (or `{"low":, "high":}`); rows scored
    before intervals existed have none, and the site says so instead of inventing one."""
    raw = (row.get("intervals") or {}).get(score)
    if isinstance(raw, dict):
        raw = [raw.get("low", raw.get("lo")), raw.get("high", raw.get("hi"))]
    if isinstance(raw, list | tuple) and len(raw) == 2:
        try:
            lo, hi = float(raw[0]), float(raw[1])
        except (TypeError, ValueError):
            return None
        if math.isfinite(lo) and math.isfinite(hi) and lo <= hi:
            return lo, hi
    return None


def score_names(spec: Any) -> list[str]:
    names = list(getattr(spec, "metrics", {})) + list(getattr(spec, "derived", {}))
    return names or [k.score for k in spec.rank_by]


@dataclass
class CompetitionView:
    spec: Any
    slug: str
    title: str
    metric: str
    higher: bool
    scores: list[str]
    entries: list[dict[str, Any]]  # the shown standings (top SHOWN, plus every baseline/LLM best)
    total: int  # ranked entries (latest per participant)
    submissions: int  # accepted submissions (all, not only the counted ones)
    best: dict[str, dict[str, Any] | None]  # best entry of each kind
    spread: dict[str, list[float]]  # primary score of every accepted submission, per kind
    human_reference: Any
    intervals: int  # shown entries that carry an interval
    extra: dict[str, Any] = field(default_factory=dict)


def _entry(spec: Any, e: Entry, primary: str) -> dict[str, Any]:
    r = e.row
    return {
        "rank": e.rank, "id": entry_id(r), "participant": r.get("participant", ""),
        "kind": kind_of(r), "entrant": r.get("entrant", ""), "method": r.get("method", ""),
        "model": r.get("model", ""), "team": r.get("team", ""),
        "scores": {n: r.get("scores", {}).get(n) for n in score_names(spec)},
        "primary": r.get("scores", {}).get(primary),
        "interval": interval_of(r, primary), "submissions": e.submissions,
        "date": (r.get("submitted_at") or r.get("scored_at") or "")[:10], "row": r,
    }


def competition_view(spec: Any, table: list[Entry], subs: list[dict[str, Any]],
                     shown: int = SHOWN) -> CompetitionView:
    """`table` = standings of the competition, `subs` = its active submissions (all versions'
    rows of the current version, in ledger order)."""
    primary = spec.primary_score
    best: dict[str, dict[str, Any] | None] = dict.fromkeys(KINDS)
    keep: list[Entry] = []
    for i, e in enumerate(table):
        kind = kind_of(e.row)
        first_of_kind = best[kind] is None
        if first_of_kind:
            best[kind] = _entry(spec, e, primary)
        if i < shown or (first_of_kind and kind != "human") or kind == "baseline":
            keep.append(e)
    spread: dict[str, list[float]] = {k: [] for k in KINDS}
    for r in subs:
        v = r.get("scores", {}).get(primary)
        if v is not None and math.isfinite(float(v)):
            spread[kind_of(r)].append(float(v))
    entries = [_entry(spec, e, primary) for e in keep]
    return CompetitionView(
        spec=spec, slug=spec.slug, title=spec.title, metric=primary,
        higher=spec.higher_is_better(primary), scores=score_names(spec), entries=entries,
        total=len(table), submissions=len(subs), best=best, spread=spread,
        human_reference=getattr(spec, "human_reference", None),
        intervals=sum(1 for e in entries if e["interval"]))

