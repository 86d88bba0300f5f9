"""The results API used by `gnncb results ...` and the site: plain data in, plain data out.

    ds = dataset(specs, ledger_rows)                 # or dataset(specs, [], source=loaded)
    humans_result(ds); gaps_result(ds); families_result(ds)

Every result says where its numbers come from (`source`, `provenance`) and lists the
inconsistencies found in a reference's own numbers (`inconsistencies`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from evaluator.competition.boards import Leaderboard
from evaluator.render.results import checks, entries, tables


def dataset(specs: Sequence[Leaderboard], rows: list[dict[str, Any]], *,
            source: dict[str, Any] | None = None, k_reading: str = "repairs",
            campaign_dirs: list[Path] | None = None,
            load_runs: entries.RunLoader | None = None,
            classify: entries.Classifier | None = None,
            routed: dict[str, list[dict[str, Any]]] | None = None,
            human_runs: bool = True,
            counted: Mapping[str, Collection[str]] | None = None) -> dict[str, Any]:
    """The ledger (default) or an imported source as a results dataset. `campaign_dirs`: LLM
    campaign folders whose failed runs count as pairs with no valid file: run folders read with
    `load_runs` (the LLM track's reader, passed in by the caller) and flat summaries folders
    (committed campaigns), see `entries.campaign_runs`. `routed`, `human_runs`: see
    `entries.from_ledger` (the site passes the rows it routed and ranked already), as
    `counted` (the digests its boards show)."""
    if source is not None:
        return entries.from_source(source)
    if campaign_dirs and load_runs is None:
        raise ValueError("campaign_dirs need load_runs (evaluator.llm.report.load_runs)")
    failures = None
    if campaign_dirs and load_runs is not None:
        track_reader = load_runs
        load_runs = lambda folder: entries.campaign_runs(folder, track_reader)  # noqa: E731
        failures = entries.failed_runs(campaign_dirs, load_runs)
    modes = (entries.low_score_modes(campaign_dirs, load_runs, classify)
             if campaign_dirs and classify is not None and load_runs is not None else None)
    ds = entries.from_ledger(specs, rows, k_reading=k_reading, failures=failures, modes=modes,
                             routed=routed, human_runs=human_runs, counted=counted)
    ds["campaigns"] = [str(d) for d in campaign_dirs or []]
    return ds


def humans_result(ds: dict[str, Any]) -> dict[str, Any]:
    result = tables.humans(ds)
    result["provenance"] = ds.get("provenance")
    uses_gnncb = any(c.get("gnncb_id") for c in ds["competitions"].values())
    result["inconsistencies"] = checks.table2_checks() if uses_gnncb else []
    return result


def gaps_result(ds: dict[str, Any], humans: dict[str, Any] | None = None) -> dict[str, Any]:
    """`humans`: `humans_result(ds)` when the caller has it (the gaps read its cohorts)."""
    result = tables.gaps(ds, cohort=None if humans is None else humans["competitions"])
    result["provenance"] = ds.get("provenance")
    result["inconsistencies"] = checks.paper_checks(ds, result)
    if ds["source"] != "ledger":
        result["last_row"] = checks.reproduces_last_row(result)
    return result


def families_result(ds: dict[str, Any]) -> dict[str, Any]:
    full = tables.gaps(ds)
    keys = ("source", "families", "models", "by_tier", "family_scope", "excluded")
    return {**{k: full[k] for k in keys}, "provenance": ds.get("provenance")}
