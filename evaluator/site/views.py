"""Ledger rows -> plain data for the site's pages (no HTML, no plotting here).

Why a separate layer: the pages, the plots and the tests read the same numbers, and the rules
(which submission counts, what "best human" means, whether declared rules conform) live in one
place. Everything here is a pure function of (specs, rows); output order is fixed (rank, then
slug, then digest), so the site built from the same ledger is the same bytes.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from typing import Any

from evaluator.ledger import active_submissions
from evaluator.ranking import Entry

KINDS = ("human", "llm", "baseline")
KIND_LABEL = {"human": "human", "llm": "LLM", "baseline": "baseline"}
SHOWN = 100  # entries listed (and given a page) per competition; the CSV holds all


def kind_of(row: dict[str, Any]) -> str:
    """human / llm / baseline, from the entrant the metadata declared (and the pipeline checked
    against the participant: baselines are recorded by `gnncb baseline run` only)."""
    entrant = str(row.get("entrant", "human"))
    if entrant.startswith("llm"):
        return "llm"
    return "baseline" if entrant == "baseline" else "human"


def entry_id(row: dict[str, Any]) -> str:
    """File-name-safe id of a submission: the first 16 hex digits of its envelope digest."""
    digest = str(row.get("digest", ""))
    return "".join(ch for ch in digest if ch in "0123456789abcdef")[:16] or "unknown"


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


def conformance(spec: Any, row: dict[str, Any]) -> list[dict[str, Any]]:
    """Each declared rule beside the competition's rule, and whether it conforms (None: not
    declared). Declarations are the participant's own word; the page says so."""
    rules = getattr(spec, "rules", None)
    if rules is None:
        return []
    d = row.get("declared") or {}
    out = []

    def add(rule: str, required: str, declared: Any, ok: bool | None) -> None:
        out.append({"rule": rule, "required": required,
                    "declared": "not declared" if declared is None else str(declared), "ok": ok})

    gnn = d.get("gnn_only")
    add("GNN only", "yes" if rules.gnn_only else "no",
        None if gnn is None else ("yes" if gnn else "no"),
        None if gnn is None else (bool(gnn) or not rules.gnn_only))
    seed = d.get("seed")
    add("seed", str(rules.seed), seed, None if seed is None else int(seed) == rules.seed)
    minutes = d.get("training_time_minutes")
    add("training time", f"≤ {rules.cpu_hours:g} CPU hours",
        None if minutes is None else f"{float(minutes):.2f} min",
        None if minutes is None else float(minutes) <= rules.cpu_hours * 60)
    runs = d.get("tuning_runs")
    add("tuning runs", f"≤ {rules.max_tuning_runs}", runs,
        None if runs is None else int(runs) <= rules.max_tuning_runs)
    return out


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
    counted = [{"kind": kind_of(e.row), "primary": e.row.get("scores", {}).get(primary),
                "model": e.row.get("model", ""), "participant": e.row.get("participant", "")}
               for e in table]
    return CompetitionView(
        spec=spec, slug=spec.slug, title=spec.title, metric=primary,
        higher=spec.higher_is_better(primary), scores=score_names(spec), entries=entries,
        total=len(table), submissions=len(subs), best=best, spread=spread,
        human_reference=getattr(spec, "human_reference", None),
        intervals=sum(1 for e in entries if e["interval"]), extra={"counted": counted})


def submissions_by_competition(specs: list[Any], rows: list[dict[str, Any]]
                               ) -> dict[str, list[dict[str, Any]]]:
    wanted = {(s.slug, s.version): s.slug for s in specs}
    out: dict[str, list[dict[str, Any]]] = {s.slug: [] for s in specs}
    for r in active_submissions(rows):
        slug = wanted.get((r.get("slug"), r.get("version")))
        if slug is not None:
            out[slug].append(r)
    return out


# -- results (what the ledger itself supports; evaluator.results refines it) --------------------


def _oriented(value: float, higher: bool) -> float:
    return value if higher else -value


def family_of(model: str) -> str:
    """Model family from a model id: the provider-free name up to its first size/version part
    (`qwen2.5-coder-7b` -> `qwen2.5`, `org/llama-3-8b` -> `llama`)."""
    name = model.rsplit("/", 1)[-1].lower()
    head = name.replace("_", "-").split("-", 1)[0]
    return head or "unknown"


def results_view(views: list[CompetitionView]) -> dict[str, Any]:
    """Human cohort per competition, model x competition gaps to the human mean, best / mean /
    worst gap per model family and difficulty tier, LLM mean vs human mean.

    A gap is (model's counted score - mean of the human cohort's counted scores), signed so
    that positive means better than the humans; where the ledger has no human cohort the
    paper's human mean (competition.yaml `human_reference.mean`) is the reference, and the page
    says which was used."""
    cohort, gaps, llm_vs_human = [], [], []
    models: set[str] = set()
    for v in views:
        if not hasattr(v.spec, "metrics"):
            continue
        humans = [e["primary"] for e in _counted(v, "human")]
        llms = _counted(v, "llm")
        ref = v.human_reference
        h_mean = statistics.fmean(humans) if humans else None
        cohort.append({
            "slug": v.slug, "title": v.title, "metric": v.metric, "higher": v.higher,
            "n": len(humans), "best": (max if v.higher else min)(humans) if humans else None,
            "mean": h_mean, "median": statistics.median(humans) if humans else None,
            "sd": statistics.stdev(humans) if len(humans) > 1 else None,
            "paper_top": getattr(ref, "top", None), "paper_mean": getattr(ref, "mean", None),
            "paper_note": getattr(ref, "note", "") if ref else ""})
        base, base_from = (h_mean, "ledger") if h_mean is not None else (
            getattr(ref, "mean", None), "paper")
        l_scores = [e["primary"] for e in llms]
        llm_vs_human.append({"slug": v.slug, "metric": v.metric, "higher": v.higher,
                             "llm_mean": statistics.fmean(l_scores) if l_scores else None,
                             "llm_n": len(l_scores), "human_mean": base,
                             "human_from": base_from if base is not None else None})
        by_model: dict[str, float] = {}
        for e in llms:
            model = e["model"] or e["participant"]
            models.add(model)
            s = _oriented(float(e["primary"]), v.higher)
            by_model[model] = max(by_model.get(model, -math.inf), s)
        for model, s in sorted(by_model.items()):
            if base is not None:
                gaps.append({"model": model, "slug": v.slug, "difficulty": v.spec.difficulty,
                             "gap": s - _oriented(float(base), v.higher), "from": base_from})
    families: dict[tuple[str, str], list[float]] = {}
    for g in gaps:
        families.setdefault((family_of(g["model"]), g["difficulty"]), []).append(g["gap"])
    family_rows = [{"family": f, "tier": t, "n": len(xs), "best": max(xs),
                    "mean": statistics.fmean(xs), "worst": min(xs)}
                   for (f, t), xs in sorted(families.items())]
    return {"cohort": cohort, "gaps": gaps, "models": sorted(models),
            "slugs": [c["slug"] for c in cohort], "families": family_rows,
            "llm_vs_human": llm_vs_human}


def _counted(v: CompetitionView, kind: str) -> list[dict[str, Any]]:
    """Every ranked entry (latest per participant) of one kind, not only the shown ones."""
    return [e for e in v.extra["counted"] if e["kind"] == kind and e["primary"] is not None]
