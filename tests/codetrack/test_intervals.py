"""The code track's pass-rate interval: problems resampled (clusters), hand-checkable cases, an
independent resampler, and the audited re-score that gives old rows theirs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator.cli import main
from evaluator.codetrack.intervals import (
    case_counts,
    pass_rate_interval,
    planned_cases,
    row_interval,
)
from evaluator.ledger.store import RESCORE, Ledger, active_submissions

SLUG, VERSION = "graph-coding", 1


def interval(passed, cases):
    return pass_rate_interval(passed, cases, slug=SLUG, version=VERSION)


def test_all_or_nothing_problems_give_the_whole_range():
    """Two problems, one fully passed, one fully failed (different case counts): a resample
    draws both problems from the failed one with probability 1/4 (rate 0) and both from the
    passed one with probability 1/4 (rate 1), so the 2.5th and 97.5th percentiles are 0 and 1.
    Resampling the 20 cases instead would give a narrow interval around 0.25."""
    iv = interval([5, 0], [5, 15])
    assert (iv["low"], iv["high"]) == (0.0, 1.0)
    assert iv["unit"] == "clusters" and iv["cluster_name"] == "problems"
    assert (iv["clusters"], iv["n"], iv["resamples"]) == (2, 20, 2000)
    assert iv["small"] is True and iv["method"] == "bootstrap-percentile"


def test_equal_rates_have_no_spread_and_zero_passes_give_zero():
    iv = interval([3, 6, 9], [10, 20, 30])
    assert iv["low"] == pytest.approx(0.3) and iv["high"] == pytest.approx(0.3)
    iv = interval([0] * 40, [90] * 40)
    assert (iv["low"], iv["high"]) == (0.0, 0.0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 50), st.integers(1, 50)), min_size=1, max_size=40))
def test_interval_stays_within_the_per_problem_rates_and_is_reproducible(pairs):
    """The pooled rate of any resample is a case-weighted mean of per-problem rates, so the
    interval lies within [min rate, max rate]; the same counts give the same interval."""
    passed = [min(p, c) for p, c in pairs]
    cases = [c for _, c in pairs]
    rates = [p / c for p, c in zip(passed, cases, strict=True)]
    iv = interval(passed, cases)
    assert min(rates) - 1e-12 <= iv["low"] <= iv["high"] <= max(rates) + 1e-12
    assert interval(passed, cases) == iv


def test_agrees_with_an_independent_cluster_resampler():
    """A plain numpy cluster bootstrap (indices drawn with replacement, 20,000 resamples) on 40
    problems of mixed difficulty gives the same interval up to Monte Carlo error."""
    rng = np.random.default_rng(7)
    cases = rng.integers(40, 200, size=40)
    passed = np.minimum(cases, (cases * rng.choice([0, 0.2, 0.9, 1.0], size=40)).astype(int))
    idx = np.random.default_rng(11).integers(0, 40, size=(20_000, 40))
    draws = passed[idx].sum(axis=1) / cases[idx].sum(axis=1)
    low, high = np.quantile(draws, [0.025, 0.975])
    iv = interval(passed, cases)
    assert iv["low"] == pytest.approx(low, abs=0.02)
    assert iv["high"] == pytest.approx(high, abs=0.02)
    assert iv["low"] < passed.sum() / cases.sum() < iv["high"]


def test_unsolved_problems_count_with_their_planned_cases():
    ids, passed, cases = case_counts({"b": {"passed": 3, "cases": 4}}, {"a": 10, "b": 5})
    assert ids == ["a", "b"] and passed.tolist() == [0, 3] and cases.tolist() == [10, 4]
    with pytest.raises(ValueError, match="outside the plan"):
        case_counts({"zz": {"passed": 1, "cases": 1}}, {"a": 10})
    with pytest.raises(ValueError, match="0 <= passed <= cases"):
        case_counts({"a": {"passed": 11, "cases": 10}}, {"a": 10})


def code_row(per_cell: int = 2, *, passed: int = 7, digest: str = "c0de" * 16) -> dict:
    """A code-track ledger row as `gnncb code submit-score` wrote it before intervals."""
    planned = planned_cases(per_cell)
    judged = {"lc207": planned["lc207"], "lc997": planned["lc997"]}
    per_problem = {"lc207": {"passed": judged["lc207"], "cases": judged["lc207"]},
                   "lc997": {"passed": passed, "cases": judged["lc997"]}}
    total = sum(planned.values())
    got = judged["lc207"] + passed
    return {"type": "submission", "digest": digest, "slug": SLUG, "version": VERSION,
            "participant": "octo", "entrant": "human", "method": "kahn", "model": "",
            "team": "", "scores": {"pass_rate": got / total, "cases": total, "passed": got,
                                   "problems": len(planned), "problems_solved": 1},
            "per_problem": per_problem, "declared": {"plan": "paper", "per_cell": per_cell,
                                                     "seed_source": "digest"},
            "seed": 1, "pr": None, "submitted_at": "2026-12-01T10:00:00Z",
            "scored_at": "2026-12-01T10:00:00Z"}


def test_row_interval_refuses_counts_that_do_not_add_up():
    row = code_row()
    iv = row_interval(row, slug=SLUG, version=VERSION)
    assert iv["clusters"] == len(planned_cases(2)) and iv["n"] == row["scores"]["cases"]
    assert iv["low"] <= row["scores"]["pass_rate"] <= iv["high"]
    row["scores"]["passed"] += 1
    with pytest.raises(ValueError, match="do not add up to its scores"):
        row_interval(row, slug=SLUG, version=VERSION)


def test_ledger_rescore_gives_old_code_rows_their_interval_once(tmp_path: Path, capsys):
    """`gnncb ledger rescore graph-coding`: an audit line per row without an interval (no key,
    no re-judging), the board shows it, and a second run adds nothing."""
    (tmp_path / "competitions" / "graph-coding").mkdir(parents=True)
    (tmp_path / "leaderboard").mkdir()
    ledger = tmp_path / "leaderboard" / "ledger.jsonl"
    bad = code_row(passed=3, digest="bad0" * 16)
    bad["participant"] = "mallory"
    bad["scores"]["cases"] += 1  # counts and scores disagree: refused, named, nothing written
    Ledger(ledger).append_many([code_row(), bad])
    code = main(["ledger", "rescore", "graph-coding", "--root", str(tmp_path), "--by", "maint"])
    out = capsys.readouterr().out
    assert code == 1  # one row could not be re-scored
    assert "c0dec0dec0de octo: adds the 95% pass-rate interval over problems" in out
    assert "could not re-score bad0bad0bad0: cannot re-score: its per-problem counts" in out
    rows = Ledger(ledger).rows()
    [audit] = [r for r in rows if r["type"] == RESCORE]
    assert audit["target"] == "c0de" * 16 and audit["by"] == "maint"
    assert audit["scores"] == audit["previous"] == code_row()["scores"]
    [active] = [r for r in active_submissions(rows) if r["digest"] == "c0de" * 16]
    iv = active["intervals"]["pass_rate"]
    assert iv == row_interval(code_row(), slug=SLUG, version=VERSION)
    page = (tmp_path / "leaderboard" / "graph-coding.md").read_text(encoding="utf-8")
    assert f"[{100 * iv['low']:.2f}, {100 * iv['high']:.2f}] %" in page
    assert "resamples of problems (40 in the test set)" in page and "Small test set" in page
    main(["ledger", "rescore", "graph-coding", "--root", str(tmp_path), "--by", "maint"])
    assert "0 changed" in capsys.readouterr().out
    assert len(Ledger(ledger).rows()) == len(rows)
    assert json.loads(ledger.read_text().splitlines()[-1])["type"] == RESCORE
    # the maintainer's listing: the row is marked re-scored, counts print as counts
    main(["ledger", "list", "--ledger", str(ledger), "--participant", "octo"])
    listed = capsys.readouterr().out
    passed = code_row()["scores"]["passed"]
    assert "rescored" in listed and f"passed={passed}," in listed
    assert f"pass_rate={code_row()['scores']['pass_rate']:.4f}" in listed
