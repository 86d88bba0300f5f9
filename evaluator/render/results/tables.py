"""The papers' comparisons as pure functions of a results dataset (see `entries`).

- `humans`: GNN-CB Table 2 (P, mean, std, high, low per competition).
- `gaps`: GNN-CB Table 3 and Figures 4, 10-16, 13: scores and sign-corrected gaps to the human
  top, the average gap per competition, ties-or-beats, best/mean/worst gap per model and family
  (overall and per difficulty tier), LLM mean vs human mean, severe under-performance.

Conventions (stated in every output): gap = score - human top for higher-is-better metrics and
human top - score for lower-is-better ones, so gap < 0 always means below the human top, in the
metric's own units (fractions for classification). A pair with no valid file counts as a pair
and a failure; it never ties, and has no gap to average. Model and family summaries use the
classification competitions only (a gap in MAE units cannot be averaged with one in F1).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import numpy as np

from evaluator.render.results import conformance, reference
from evaluator.render.results.sources import LLM_KINDS

TIE_DIGITS = 9
TIE_RULE = ("a model-competition pair ties or beats the human top when its sign-corrected gap, "
            f"rounded to {TIE_DIGITS} decimals, is >= 0 (scores are compared as recorded, so a "
            "printed 83.0 against a printed 83.0 is a tie); a pair with no valid file never "
            "does")
SEVERE_GAP = 0.30  # GNN-CB: >= 30 points below the best LLM on the same competition
FAMILY_SCOPE = "classification competitions (bounded higher-is-better metrics) only"


def _counted(entry: dict[str, Any]) -> bool:
    status: str = entry["protocol"]
    return status != conformance.OUT


def _mean(values: list[float]) -> float | None:
    return float(np.mean(values)) if values else None


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 12)


def signed_gap(score: float, top: float, higher_is_better: bool) -> float:
    return score - top if higher_is_better else top - score


def _best(values: list[float], higher: bool) -> float:
    return max(values) if higher else min(values)


def _cohort(scores: list[float], higher: bool, source: str) -> dict[str, Any]:
    """A cohort measured as a set of scores: P, mean, std (ddof=1), high, low, top."""
    if not scores:
        return {"source": source, "participants": 0, "mean": None, "std": None, "high": None,
                "low": None, "top": None}
    arr = np.asarray(scores, dtype=float)
    return {"source": source, "participants": len(scores), "mean": float(arr.mean()),
            "std": float(arr.std(ddof=1)) if len(arr) > 1 else None,
            "high": float(arr.max()), "low": float(arr.min()), "top": _best(scores, higher)}


def _reference(meta: dict[str, Any], rows: list[dict[str, Any]],
               source: str) -> dict[str, Any] | None:
    """The published human figures of a competition: a source's human-top/human-mean rows,
    else GNN-CB Table 2 (the competition replicates one of its 18), else the spec's
    `human_reference`; None when there is none."""
    top = next((e["score"] for e in rows if e["kind"] == "human-top"), None)
    mean = next((e["score"] for e in rows if e["kind"] == "human-mean"), None)
    table2 = reference.table2().get(meta.get("gnncb_id") or "")
    ref = meta.get("reference")
    if top is not None or mean is not None:
        mean_source = source
        if mean is None and table2 is not None:  # same paper, its cohort table
            mean, mean_source = table2.mean, "GNN-CB Table 2"
        return {"source": source, "participants": None, "mean": mean,
                "mean_source": mean_source, "std": None, "high": None, "low": None, "top": top}
    if table2 is not None:
        return {"source": "GNN-CB Table 2", "participants": table2.participants,
                "mean": table2.mean, "std": table2.std, "high": table2.high, "low": table2.low,
                "top": table2.high if meta["higher_is_better"] else table2.low}
    if ref and (ref.get("top") is not None or ref.get("mean") is not None):
        return {"source": "competition.yaml human_reference", "participants": None,
                "mean": ref.get("mean"), "std": None, "high": None, "low": None,
                "top": ref.get("top")}
    return None


def humans(dataset: dict[str, Any]) -> dict[str, Any]:
    """Per competition, two cohorts kept apart: `reference` (the published figures: GNN-CB
    Table 2, a spec's `human_reference`, or a source's human-top/mean rows) and `platform`
    (the humans scored here: the ledger's, P = how many). Neither ever stands in for the
    other: one participant here does not replace a paper's 15.

    The flat fields (source, participants, mean, std, high, low, top) are the cohort the gaps
    are measured against: the reference where there is one (the paper's comparisons are made
    against the paper's humans), else the platform's. In an imported source, its own human
    rows are its cohort (there is no platform there)."""
    out: dict[str, Any] = {}
    by_comp: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for e in dataset["entries"]:
        if e["kind"] in ("human", "human-top", "human-mean") and _counted(e):
            by_comp[e["competition"]].append(e)
    ledger = dataset["source"] == "ledger"
    for cid, meta in dataset["competitions"].items():
        rows = by_comp.get(cid, [])
        scores = [e["score"] for e in rows if e["kind"] == "human"]
        base = {"metric": meta["metric"], "higher_is_better": meta["higher_is_better"],
                "difficulty": meta["difficulty"], "gnncb_id": meta.get("gnncb_id")}
        ref = _reference(meta, rows, dataset["source"])
        here = _cohort(scores, meta["higher_is_better"], dataset["source"])
        if ledger:
            platform: dict[str, Any] | None = here
            primary = ref if ref is not None else here
        else:  # a source's human rows are the source's own (published) cohort
            platform = None
            ref = here if scores else ref
            primary = ref if ref is not None else here
        if primary["participants"] == 0:
            primary = {**primary, "source": None}
        out[cid] = {**base, **primary, "reference": ref, "platform": platform}
    if ledger:
        for cid, row in out.items():
            row["note"] = comparability_note(dataset["competitions"][cid], row["source"])
    excluded = [x for x in dataset.get("excluded", []) if x["kind"] == "human"]
    return {"source": dataset["source"], "std_ddof": 1, "competitions": out,
            "excluded": excluded}


def comparability_note(meta: dict[str, Any], source: str | None) -> dict[str, str] | None:
    """Why a human row taken from a reference is not measured like the scores beside it.

    The paper's cohorts (GNN-CB Table 2, or a spec's `human_reference`) were scored on the
    original competitions' test data; the ledger's scores here are on this benchmark's split
    (its public part while a version runs), and a competition may rank a score the paper did not
    report (gta ranks macro-F1 on its perturbed split only; the paper's C13 is plain macro-F1).
    None when the humans were scored here (nothing differs) or there are none.
    """
    if not source or source == "ledger":
        return None
    gid = meta.get("gnncb_id")
    paper = reference.gnncb_competitions().get(gid or "")
    splits = meta.get("splits") or []
    where = (f"split {', '.join(repr(s) for s in splits)}" if splits else "this benchmark's test "
             "split") + (" (public part)" if meta.get("public_part") else "")
    subset = bool(splits) and len(splits) < len(meta.get("all_splits") or splits)
    other_metric = paper is not None and paper.metric != meta["metric"]
    short = ["other test data"]
    if other_metric:
        short.append("other metric")
    if subset:
        short.append(f"ranked on {where.split(' (')[0]} only")
    theirs = (f"GNN-CB {gid}'s humans: {paper.metric_printed} on the original competition's test "
              "data" if paper is not None else f"{source}: not scored on this benchmark's data")
    named = (meta["metric"] if meta["score"] == meta["metric"]
             else f"{meta['score']} = {meta['metric']}")
    ours = f"here {named} on {where}"
    return {"short": "; ".join(short), "text": f"{theirs}; {ours}"}


def _summary(gaps: list[float]) -> dict[str, Any]:
    if not gaps:
        return {"best": None, "mean": None, "worst": None, "n": 0}
    return {"best": max(gaps), "mean": float(np.mean(gaps)), "worst": min(gaps),
            "n": len(gaps)}


def gaps(dataset: dict[str, Any], cohort: dict[str, Any] | None = None) -> dict[str, Any]:
    """GNN-CB Table 3 and its summaries; the JSON contract of `gnncb results gaps --json`.
    `cohort`: `humans(dataset)["competitions"]` when the caller computed it already."""
    cohort = humans(dataset)["competitions"] if cohort is None else cohort
    llm = [e for e in dataset["entries"] if e["kind"] in LLM_KINDS and _counted(e)]
    comps: dict[str, Any] = {}
    pairs = tie_or_beat = failures = failures_untopped = 0
    per_model: dict[str, list[tuple[str, float]]] = defaultdict(list)
    family_of: dict[str, str] = {}
    best_llm: dict[str, float] = {}
    for cid, meta in dataset["competitions"].items():
        higher = meta["higher_is_better"]
        top = cohort[cid]["top"]
        platform = cohort[cid].get("platform") or {}
        here_top = platform.get("top")
        mine = [e for e in llm if e["competition"] == cid]
        scored = [e["score"] for e in mine if e["score"] is not None]
        if scored:
            best_llm[cid] = _best(scored, higher)
        row_entries: dict[str, Any] = {}
        comp_gaps = []
        for e in sorted(mine, key=lambda e: e["entrant"].lower()):
            family_of[e["entrant"]] = e["family"]
            gap = None
            if top is not None and e["score"] is not None:
                gap = signed_gap(e["score"], top, higher)
                comp_gaps.append(gap)
                if meta["classification"]:
                    per_model[e["entrant"]].append((cid, gap))
            if top is not None:
                pairs += 1
                if gap is not None and round(gap, TIE_DIGITS) >= 0:
                    tie_or_beat += 1
            if e["score"] is None:  # a failure whether or not a human top exists to compare
                failures += 1
                failures_untopped += top is None
            row_entries[e["entrant"]] = {
                "score": e["score"], "gap": _round(gap), "sem": e["sem"],
                "gap_platform": (None if here_top is None or e["score"] is None
                                 else _round(signed_gap(e["score"], here_top, higher))),
                "interval": e["interval"], "runs": len(e["runs"]) or None,
                "run_list": [{k: run.get(k) for k in ("digest", "score", "seed", "campaign")}
                             for run in e["runs"]] if len(e["runs"]) > 1 else None,
                "family": e["family"], "kind": e["kind"], "protocol": e["protocol"],
                "failure": e["failure"]}
        human_mean = cohort[cid]["mean"]
        llm_mean = _mean(scored)
        comps[cid] = {"title": meta["title"], "gnncb_id": meta.get("gnncb_id"),
                      "metric": meta["metric"], "higher_is_better": higher,
                      "difficulty": meta["difficulty"], "classification": meta["classification"],
                      "human_top": top, "human_top_source": cohort[cid]["source"],
                      "human_top_note": cohort[cid].get("note"),
                      "platform_top": here_top,
                      "platform_participants": platform.get("participants"),
                      "human_mean": human_mean, "llm_mean": llm_mean,
                      "llm_mean_above_human_mean": (
                          None if llm_mean is None or human_mean is None
                          else signed_gap(llm_mean, human_mean, higher) > 0),
                      "avg_gap": _round(_mean(comp_gaps)),
                      "failures": sum(1 for e in mine if e["score"] is None),
                      "entries": row_entries}
    families: dict[str, list[float]] = defaultdict(list)
    tiers: dict[str, dict[str, dict[str, list[float]]]] = {
        t: {"models": defaultdict(list), "families": defaultdict(list)} for t in reference.TIERS}
    models_out = {}
    for model, items in per_model.items():
        fam = family_of.get(model) or "Other"
        models_out[model] = {"family": fam, **_summary([g for _, g in items])}
        for cid, g in items:
            families[fam].append(g)
            tier = dataset["competitions"][cid]["difficulty"]
            tiers[tier]["models"][model].append(g)
            tiers[tier]["families"][fam].append(g)
    compared = [c for c in comps.values() if c["classification"]
                and c["llm_mean_above_human_mean"] is not None]
    return {
        "source": dataset["source"],
        "competitions": comps,
        "pairs": pairs,
        "tie_or_beat": tie_or_beat,
        "tie_rule": TIE_RULE,
        "failures": failures,
        "failures_without_human_top": failures_untopped,
        "campaigns": dataset.get("campaigns", []),
        "gap_rule": "gap = score - human top (higher is better) or human top - score (lower "
                    "is better); gap < 0 = below the human top; metric units",
        "families": {f: _summary(g) for f, g in sorted(families.items())},
        "models": dict(sorted(models_out.items())),
        "by_tier": {t: {"models": {m: _summary(g) for m, g in sorted(v["models"].items())},
                        "families": {f: _summary(g) for f, g in sorted(v["families"].items())}}
                    for t, v in tiers.items()},
        "family_scope": FAMILY_SCOPE,
        "llm_mean_above_human_mean": {"count": sum(1 for c in compared
                                                   if c["llm_mean_above_human_mean"]),
                                      "of": len(compared)},
        "severe": severe(dataset, best_llm),
        "excluded": dataset.get("excluded", []),
    }


def severe(dataset: dict[str, Any], best_llm: dict[str, float]) -> dict[str, Any]:
    """GNN-CB's severe under-performance: >= 30 points below the best LLM on the same
    classification competition, with failure modes where the runs recorded one."""
    cases = []
    for e in dataset["entries"]:
        meta = dataset["competitions"][e["competition"]]
        if (e["kind"] not in LLM_KINDS or not _counted(e) or not meta["classification"]
                or e["score"] is None or e["competition"] not in best_llm):
            continue
        shortfall = best_llm[e["competition"]] - e["score"]
        if round(shortfall - SEVERE_GAP, TIE_DIGITS) >= 0:
            cases.append({"competition": e["competition"], "entrant": e["entrant"],
                          "family": e["family"], "score": e["score"],
                          "best_llm": best_llm[e["competition"]],
                          "shortfall": _round(shortfall), "mode": e.get("mode") or "unknown"})
    cases.sort(key=lambda c: (c["competition"], c["entrant"].lower()))
    return {"rule": f">= {SEVERE_GAP:g} (metric units) below the best LLM on the same "
                    "classification competition",
            "count": len(cases), "cases": cases,
            "modes": dict(Counter(c["mode"] for c in cases)),
            "by_family": dict(Counter(c["family"] or "Other" for c in cases))}
