"""The site's results come from the shared view: the same numbers as `gnncb results`.

The site builds its results dataset from the rows the renderers routed already
(`Prepared.submissions`) and without the run record of each human entry, which no table reads;
`gnncb results` builds it from the ledger's rows. On random ledgers with every case that
changes a result (rows outside the protocol, late rows, withdrawals, re-scores, repeated LLM
runs, participants differing only in case), both give the same humans and gaps results. The
fast path of the human protocol check gives the verdict of the full check (kept here as the
oracle).
"""

from __future__ import annotations

import copy
import importlib.util
import random
from typing import Any

import pytest

from evaluator.codetrack.board import load_all_specs
from evaluator.ledger.ranking import standings_by_competition
from evaluator.ledger.store import active_submissions
from evaluator.paths import competitions_dir
from evaluator.render.boards import prepare
from evaluator.render.results import api, conformance
from tests.helpers.paths import REPO

ROOT = REPO


@pytest.fixture(scope="module")
def specs() -> list:
    return load_all_specs(competitions_dir())


def _synthetic(specs: list, n: int, seed: int) -> list[dict]:
    path = ROOT / "benchmarks" / "render_scale.py"
    spec = importlib.util.spec_from_file_location("render_scale", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.synthetic_rows(specs, n, seed=seed)


def random_ledger(specs: list, n: int, seed: int) -> list[dict]:
    """Synthetic rows, bent at random into every case the results treat apart."""
    rng = random.Random(seed)
    rows = _synthetic(specs, n, seed)
    for r in rows:
        declared = r["declared"]
        roll = rng.random()
        if roll < 0.05:
            declared["seed"] = rng.choice([None, 7, 25.0, "25"])
        elif roll < 0.10:
            declared["tuning_runs"] = rng.choice([None, 6, 50, 5])
        elif roll < 0.15:
            declared["training_time_minutes"] = rng.choice([None, 180, 180.5, 1e4])
        elif roll < 0.20:
            declared["gnn_only"] = rng.choice([None, False, "yes", 0, 1])
        elif roll < 0.23:
            r["method"] = rng.choice(["an MLP, not a GNN", "XGBoost (no GNN)", "GNN"])
        elif roll < 0.25:
            declared["notes"] = "non-GNN baseline for comparison"
        elif roll < 0.27:
            declared.pop(rng.choice(["seed", "tuning_runs", "training_time_minutes",
                                     "gnn_only"]))
        if "llm" in declared and rng.random() < 0.2:
            declared["llm"][rng.choice(["temperature", "max_tokens", "repair_depth"])] = \
                rng.choice([0.7, 20_000, 9, None])
        if rng.random() < 0.03:
            r["late"] = True
        if rng.random() < 0.05 and r["participant"].startswith("user"):
            r["participant"] = r["participant"].upper()  # the same participant, other case
    subs = list(rows)
    for i in range(n // 50):
        t = rng.choice(subs)
        if i % 2:
            rows.append({"type": "withdrawal", "digest": t["digest"],
                         "at": "2026-12-01T00:00:00Z"})
        else:
            rows.append({"type": "rescore", "digest": f"{i:064x}", "target": t["digest"],
                         "scores": {k: v * 0.5 for k, v in t["scores"].items()},
                         "at": "2026-12-02T00:00:00Z"})
    return rows


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_site_dataset_from_the_shared_view_gives_the_results_of_the_ledger(specs, seed):
    rows = random_ledger(specs, 3000, seed)
    p = prepare(specs, rows)
    comps = sorted(p.specs, key=lambda s: s.slug)
    full = api.dataset(comps, rows)
    shared = api.dataset(comps, rows, routed=p.submissions, human_runs=False)
    assert full["excluded"] and any(e["protocol"] == conformance.UNVERIFIED
                                    for e in full["entries"])  # the cases are exercised
    assert any(r.get("late") for r in active_submissions(rows))
    assert shared["excluded"] == full["excluded"]
    assert shared["competitions"] == full["competitions"]
    without_runs = [{**e, "runs": []} if e["kind"] not in ("llm-api", "llm-agent") else e
                    for e in full["entries"]]
    assert shared["entries"] == without_runs
    humans = api.humans_result(full)
    assert api.humans_result(shared) == humans
    assert api.gaps_result(shared, api.humans_result(shared)) == api.gaps_result(full)
    assert api.families_result(shared) == api.families_result(full)


def test_the_shared_view_routes_and_ranks_what_active_submissions_keeps(specs):
    rows = random_ledger(specs, 2000, 4)
    rng = random.Random(4)
    subs = [r for r in rows if r["type"] == "submission"]
    for i, t in enumerate(rng.sample(subs, 60)):
        if i % 3 == 0:  # a row of another version: routed nowhere
            rows.append({**t, "digest": f"v{i:063d}", "version": t["version"] + 1})
        elif i % 3 == 1:
            rows.append({"type": "stale", "digest": f"s{i:063d}", "target": t["digest"],
                         "at": "2026-12-03T00:00:00Z"})
        else:
            rows.append({"type": "final-choice", "digest": f"c{i:063d}", "slug": t["slug"],
                         "version": t["version"], "participant": t["participant"],
                         "chosen": [t["digest"]]})
    p = prepare(specs, rows)
    every = [*p.specs, *p.boards]
    active = active_submissions(rows)
    for s in every:
        assert p.submissions[s.slug] == [r for r in active if r["slug"] == s.slug
                                         and r["version"] == s.version]
    assert p.tables == standings_by_competition(every, rows)


def _old_check_human(spec: Any, row: dict[str, Any]) -> dict[str, Any]:
    """check_human before its fast path (the oracle)."""
    rules, declared = spec.rules, row.get("declared") or {}
    deviations: list[str] = []
    unverified: list[str] = []
    seed = declared.get("seed")
    if seed is None:
        unverified.append("seed not declared")
    elif seed != rules.seed:
        deviations.append(f"seed {seed} (the rules fix seed {rules.seed})")
    runs = declared.get("tuning_runs")
    if runs is None:
        unverified.append("tuning runs not declared")
    elif runs > rules.max_tuning_runs:
        deviations.append(f"{runs} tuning runs (at most {rules.max_tuning_runs})")
    minutes = declared.get("training_time_minutes")
    if minutes is None:
        unverified.append("training time not declared")
    elif minutes > rules.cpu_hours * 60:
        deviations.append(f"{minutes:g} training minutes (at most {rules.cpu_hours:g} CPU "
                          "hours)")
    if rules.gnn_only:
        gnn = declared.get("gnn_only")
        method = f"{row.get('method') or ''} {declared.get('notes') or ''}"
        if gnn is False:
            deviations.append("declares a non-GNN model (the rules allow GNNs only)")
        elif conformance._NOT_GNN.search(method):
            deviations.append("the method says it is not a GNN (the rules allow GNNs only)")
        elif gnn is None:
            unverified.append("GNN-only not declared")
    return conformance._verdict(deviations, unverified)


def test_the_human_check_fast_path_gives_the_full_checks_verdict(specs):
    comps = [s for s in specs if hasattr(s, "rules")]
    rows = [r for r in random_ledger(specs, 3000, 9) if r["type"] == "submission"]
    statuses = set()
    for r in rows:
        for spec in comps[:3]:
            for gnn_only in (True, False):
                rules = copy.copy(spec.rules)
                object.__setattr__(rules, "gnn_only", gnn_only)
                bent = type("Spec", (), {"rules": rules})()
                got = conformance.check_human(bent, r)
                assert got == _old_check_human(bent, r), (r["declared"], r["method"])
                statuses.add(got["status"])
    assert statuses == {conformance.OK, conformance.UNVERIFIED, conformance.OUT}
