"""`gnncb results ...`: every figure checked against values computed by hand."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator.cli import main
from evaluator.codetrack.board import load_all_specs
from evaluator.competition.spec import load_spec
from evaluator.ledger.store import Ledger
from evaluator.render.results import api, conformance
from evaluator.render.results.reference import TABLE3, table3_last_row
from tests.helpers.paths import REPO
from tests.render.results.helpers import PROTOCOL_HUMAN, ledger_row, llm_row

ROOT = REPO
COMPETITIONS = ROOT / "competitions"


def small_ledger() -> list[dict]:
    """gnn-cora (accuracy, higher is better) and solubility (MAE, lower is better)."""
    return [
        ledger_row(1, "gnn-cora", "alice", {"accuracy": 0.70}),
        ledger_row(2, "gnn-cora", "bob", {"accuracy": 0.60}),
        ledger_row(3, "gnn-cora", "bob", {"accuracy": 0.80}),  # bob's latest counts
        ledger_row(4, "gnn-cora", "carol", {"accuracy": 0.95},
                   declared={**PROTOCOL_HUMAN, "seed": 7}),
        ledger_row(5, "gnn-cora", "baseline-gnn", {"accuracy": 0.50}, entrant="baseline"),
        llm_row(6, "gnn-cora", "gpt-4o", {"accuracy": 0.78}),
        llm_row(7, "gnn-cora", "gpt-4o", {"accuracy": 0.82}, seed=26),  # a repeated run
        llm_row(8, "gnn-cora", "llama-3.3-70b", {"accuracy": 0.60}),
        llm_row(9, "gnn-cora", "qwen2.5-coder", {"accuracy": 0.99}, temperature=0.9),
        ledger_row(10, "solubility", "dave", {"mae": 0.90}),
        llm_row(11, "solubility", "gpt-4o", {"mae": 0.80}),
    ]


@pytest.fixture(scope="module")
def specs():
    return [s for s in load_all_specs(COMPETITIONS) if hasattr(s, "rules")]


def test_gaps_from_a_small_ledger(specs):
    failures = [{"slug": "solubility", "model": "llama-3.3-70b", "entrant": "llm-api",
                 "mode": "graph_construction"}]
    ds = api.dataset(specs, small_ledger())
    ds = api.entries.from_ledger(specs, small_ledger(), failures=failures)
    g = api.gaps_result(ds)
    cora, sol = g["competitions"]["gnn-cora"], g["competitions"]["solubility"]
    # gnn-cora replicates GNN-CB C12: the gaps are to the paper's cohort (top 0.742, mean
    # 0.551); the humans here stand beside it (bob's latest; carol, seed 7, is outside)
    assert (cora["human_top"], cora["human_mean"]) == (0.742, 0.551)
    assert (cora["platform_top"], cora["platform_participants"]) == (0.80, 2)
    gpt = cora["entries"]["gpt-4o"]
    assert gpt["score"] == pytest.approx(0.80) and gpt["runs"] == 2
    assert gpt["sem"] == pytest.approx(0.02)  # std(0.78, 0.82, ddof=1) / sqrt(2)
    assert [r["score"] for r in gpt["run_list"]] == [0.78, 0.82]
    assert [r["seed"] for r in gpt["run_list"]] == [25, 26]
    assert gpt["gap"] == pytest.approx(0.058)  # above the paper's top
    assert gpt["gap_platform"] == pytest.approx(0.0, abs=1e-12)  # a tie with bob here
    assert cora["entries"]["llama-3.3-70b"]["gap"] == pytest.approx(-0.142)
    assert cora["entries"]["llama-3.3-70b"]["gap_platform"] == pytest.approx(-0.20)
    assert "qwen2.5-coder" not in cora["entries"]
    assert cora["avg_gap"] == pytest.approx(-0.042)
    # lower is better: 0.90 - 0.80 = +0.10 (beats the human top)
    assert sol["human_top"] == 0.90
    assert sol["entries"]["gpt-4o"]["gap"] == pytest.approx(0.10)
    assert sol["entries"]["llama-3.3-70b"]["score"] is None  # no valid file: kept, a failure
    assert sol["avg_gap"] == pytest.approx(0.10)
    assert g["pairs"] == 4 and g["tie_or_beat"] == 2 and g["failures"] == 1
    # a reference human top (netlinkarena, no humans here) with no LLM entry: no pairs
    assert g["competitions"]["netlinkarena"]["human_top"] == 0.891
    assert g["competitions"]["netlinkarena"]["entries"] == {}
    # families: classification competitions only (gnn-cora)
    assert g["families"]["Proprietary"] == {"best": pytest.approx(0.058),
                                            "mean": pytest.approx(0.058),
                                            "worst": pytest.approx(0.058), "n": 1}
    assert g["families"]["Open-source"]["mean"] == pytest.approx(-0.142)
    assert g["by_tier"]["medium"]["models"]["llama-3.3-70b"]["n"] == 1
    assert g["by_tier"]["easy"]["models"] == {}  # solubility (easy) is a regression
    excluded = {(x["competition"], x["entrant"]) for x in g["excluded"]}
    assert excluded == {("gnn-cora", "carol"), ("gnn-cora", "qwen2.5-coder")}


def test_humans_table_from_the_ledger_and_the_references(specs):
    h = api.humans_result(api.dataset(specs, small_ledger()))
    assert h["competitions"]["gnn-cora"]["source"] == "GNN-CB Table 2"  # the reference stays
    cora = h["competitions"]["gnn-cora"]["platform"]  # the humans here, beside it
    assert cora["participants"] == 2 and cora["source"] == "ledger"
    assert cora["mean"] == pytest.approx(0.75)
    assert cora["std"] == pytest.approx(math.sqrt(0.005))  # (0.05² + 0.05²) / (2 - 1)
    assert (cora["high"], cora["low"]) == (0.80, 0.70)
    park = h["competitions"]["park-gnn"]  # no humans here: GNN-CB Table 2 (C11)
    assert park["source"].startswith("GNN-CB Table 2")
    assert (park["participants"], park["mean"], park["std"]) == (14, 0.773, 0.116)
    assert any("C10" in x and "impossible" in x for x in h["inconsistencies"])
    assert [x["entrant"] for x in h["excluded"]] == ["carol"]  # seed 7: listed apart


def test_humans_from_a_source_with_individual_scores(tmp_path, capsys):
    text = ("entrant,family,competition,score,kind\n"
            "h1,,C14,6.0,human\nh2,,C14,5.0,human\nh3,,C14,7.0,human\n")
    assert _import(tmp_path, text) == 0
    capsys.readouterr()
    assert main(["results", "humans", "--source", "t", "--sources", str(tmp_path / "src"),
                 "--json"]) == 0
    c14 = json.loads(capsys.readouterr().out)["competitions"]["C14"]
    assert (c14["participants"], c14["mean"], c14["std"]) == (3, 6.0, 1.0)
    assert (c14["high"], c14["low"], c14["top"]) == (7.0, 5.0, 5.0)  # MAE: the top is the low


def test_severe_underperformance_and_family_summary(specs):
    rows = [ledger_row(1, "gnn-cora", "alice", {"accuracy": 0.90}),
            llm_row(2, "gnn-cora", "gpt-4o", {"accuracy": 0.85}),
            llm_row(3, "gnn-cora", "llama-3.3-70b", {"accuracy": 0.55}),  # exactly 0.30 below
            llm_row(4, "gnn-cora", "qwen2.5-coder", {"accuracy": 0.56})]
    modes = {f"{3:064x}"[:12]: "graph_construction"}  # what the LLM track classified
    g = api.gaps_result(api.entries.from_ledger(specs, rows, modes=modes))
    assert [c["entrant"] for c in g["severe"]["cases"]] == ["llama-3.3-70b"]
    assert g["severe"]["modes"] == {"graph_construction": 1}
    assert g["severe"]["by_family"] == {"Open-source": 1}
    fam = g["families"]["Open-source"]
    # gaps to GNN-CB C12's human top 0.742 (alice's 0.90 here stands beside it)
    assert fam["best"] == pytest.approx(-0.182) and fam["worst"] == pytest.approx(-0.192)
    assert fam["mean"] == pytest.approx(-0.187)


@pytest.mark.parametrize(("change", "needle"), [
    ({"temperature": 0.9}, "temperature 0.9"),
    ({"max_tokens": 50000}, "50,000 output tokens"),
    ({"seed": None}, "no seed sent"),
    ({"repairs_allowed": 8}, "8 repairs allowed"),
    ({"limit_overrides": {"wall_seconds": 99999}}, "execution limits overridden"),
    ({"sandboxed": False, "isolation": "none"}, "without a sandbox"),
])
def test_each_llm_deviation_is_marked_and_excluded(specs, change, needle):
    spec = load_spec(COMPETITIONS / "gnn-cora")
    row = llm_row(1, "gnn-cora", "gpt-4o", {"accuracy": 0.5}, **change)
    verdict = conformance.check_row(spec, row)
    assert verdict["status"] == "out"
    assert any(needle in d for d in verdict["deviations"]), verdict
    g = api.gaps_result(api.dataset(specs, [ledger_row(2, "gnn-cora", "alice", {"accuracy": 0.4}),
                                            row]))
    assert g["pairs"] == 0 and g["excluded"][0]["entrant"] == "gpt-4o"


def test_the_other_reading_of_k_is_a_flag():
    spec = load_spec(COMPETITIONS / "gnn-cora")
    row = llm_row(1, "gnn-cora", "gpt-4o", {"accuracy": 0.5}, repair_depth=5, model_calls=6)
    assert conformance.check_row(spec, row)["status"] == "ok"  # 5 repairs: the text's reading
    verdict = conformance.check_row(spec, row, k_reading="calls")
    assert verdict["status"] == "out" and "6 model calls" in verdict["deviations"][0]


def test_old_llm_rows_are_unverified_not_excluded():
    spec = load_spec(COMPETITIONS / "gnn-cora")
    row = ledger_row(1, "gnn-cora", "llm-x", {"accuracy": 0.5}, entrant="llm-api", model="x",
                     declared={"llm": {"provider": "openai", "repair_depth": 0}})
    verdict = conformance.check_row(spec, row)
    assert verdict["status"] == "unverified" and "temperature not recorded" in verdict["unverified"]


@pytest.mark.parametrize(("declared", "method", "needle"), [
    ({"seed": 7}, "GCN", "seed 7"),
    ({"tuning_runs": 40}, "GCN", "40 tuning runs"),
    ({"training_time_minutes": 500.0}, "GCN", "500 training minutes"),
    ({"gnn_only": False}, "GCN", "non-GNN"),
    ({}, "MLP (not a GNN)", "not a GNN"),
])
def test_each_human_deviation_is_marked_and_excluded(specs, declared, method, needle):
    spec = load_spec(COMPETITIONS / "gnn-cora")
    row = ledger_row(1, "gnn-cora", "eve", {"accuracy": 0.99},
                     declared={**PROTOCOL_HUMAN, **declared}, method=method)
    verdict = conformance.check_row(spec, row)
    assert verdict["status"] == "out" and any(needle in d for d in verdict["deviations"])
    h = api.humans_result(api.dataset(specs, [row, ledger_row(2, "gnn-cora", "ann",
                                                              {"accuracy": 0.5})]))
    assert h["competitions"]["gnn-cora"]["platform"]["top"] == 0.5


def test_baselines_are_not_contestants(specs):
    rows = [ledger_row(1, "gnn-cora", "baseline-gnn", {"accuracy": 0.9}, entrant="baseline",
                       declared={"gnn_only": False, "seed": 25})]
    g = api.gaps_result(api.dataset(specs, rows))
    assert g["competitions"]["gnn-cora"]["human_top"] == 0.742  # the spec's reference
    assert g["excluded"] == [] and g["pairs"] == 0


# ----------------------------------------------------------------------------- sources
def _import(tmp_path: Path, text: str, *extra: str) -> int:
    path = tmp_path / "t.csv"
    path.write_text(text, encoding="utf-8")
    return main(["results", "import", str(path), "--source", "t", "--sources",
                 str(tmp_path / "src"), *extra])


def _gaps_json(tmp_path: Path, capsys, name: str = "t") -> dict:
    capsys.readouterr()
    assert main(["results", "gaps", "--source", name, "--sources", str(tmp_path / "src"),
                 "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_import_contract_and_gaps_json_shape(tmp_path, capsys):
    text = ("entrant,family,competition,score,kind\n"
            "Human Top,,C03,98.0,\n"
            "A,Fam1,C03,98.0,\n"        # a tie
            "B,Fam1,C03,90.0,\n"
            "C,Fam2,C14,5.0,\n"          # MAE: lower is better
            "Human Top,,C14,4.0,\n"
            "C,Fam2,C03,,\n")            # no valid file
    assert _import(tmp_path, text, "--percent") == 0
    out = _gaps_json(tmp_path, capsys)
    c03, c14 = out["competitions"]["C03"], out["competitions"]["C14"]
    assert c03["human_top"] == pytest.approx(0.98)
    assert c03["entries"]["A"] == {**c03["entries"]["A"], "score": pytest.approx(0.98),
                                   "gap": pytest.approx(0.0, abs=1e-9)}
    assert c03["entries"]["B"]["gap"] == pytest.approx(-0.08)
    assert c03["avg_gap"] == pytest.approx(-0.04)  # (0 - 0.08) / 2; the failure has no gap
    assert c03["entries"]["C"]["score"] is None
    assert c14["entries"]["C"]["gap"] == pytest.approx(-1.0)  # 4.0 - 5.0: below the top
    assert out["pairs"] == 4 and out["tie_or_beat"] == 1 and "tie" in out["tie_rule"]
    assert out["families"]["Fam1"] == {"best": pytest.approx(0.0, abs=1e-9),
                                       "mean": pytest.approx(-0.04), "worst": pytest.approx(-0.08),
                                       "n": 2}
    assert "Fam2" not in out["families"]  # C14 is a regression; C03 failed


def test_import_maps_gnncb_ids_to_local_folders(tmp_path, capsys):
    assert _import(tmp_path, "entrant,family,competition,score\nHuman Top,,C12,74.2\n"
                             "m,f,C12,70.0\n", "--percent") == 0
    out = _gaps_json(tmp_path, capsys)
    cora = out["competitions"]["gnn-cora"]
    assert cora["gnncb_id"] == "C12" and cora["entries"]["m"]["gap"] == pytest.approx(-0.042)


@pytest.mark.parametrize(("text", "needle"), [
    ("entrant,family,score\nA,F,1\n", "missing column(s) competition"),
    ("entrant,family,competition,score\nA,F,C99,1\n", "line 2, column 3"),
    ("entrant,family,competition,score\nA,F,C03,abc\n", "is not a number"),
    ("entrant,family,competition,score\nA,F,C03,98\n", "pass --percent"),
    ("entrant,family,competition,score,kind\nA,F,C03,0.9,robot\n", "unknown kind"),
    ("entrant,family,competition,score\nA,F,C03,0.9\nA,F,C03,0.8\n", "already given on line 2"),
    ("entrant,family,competition,score,extra\nA,F,C03,0.9,1\n", "unknown column"),
])
def test_import_errors_name_the_place(tmp_path, capsys, text, needle):
    assert _import(tmp_path, text) == 2
    assert needle in capsys.readouterr().err


def test_gnncb_table3_reproduces_its_last_row_and_says_where_it_disagrees(tmp_path, capsys):
    assert main(["results", "import", str(TABLE3), "--source", "gnncb-table3", "--percent",
                 "--sources", str(tmp_path / "src")]) == 0
    out = _gaps_json(tmp_path, capsys, "gnncb-table3")
    printed = table3_last_row()
    by_id = {c["gnncb_id"]: c for c in out["competitions"].values()}
    assert set(by_id) == set(printed)
    for gid, c in by_id.items():
        scale, digits = (100, 1) if c["classification"] else (1, 3)
        assert round(c["avg_gap"] * scale, digits) == pytest.approx(printed[gid]), gid
    assert out["pairs"] == 162
    assert out["severe"]["count"] == 20  # as the paper counts
    assert out["severe"]["by_family"]["Open-source Chat"] + out["severe"]["by_family"][
        "Open-source Reasoning"] == 17  # "17 of the 20 cases (85%) ... open-source"
    assert out["llm_mean_above_human_mean"] == {"count": 6, "of": 16}  # "6 of 16"
    text = "\n".join(out["inconsistencies"])
    assert "C10 (NetLinkArena) repeats C09's mean 0.706, std 0.271 and high 0.891" in text
    assert "C09 std 0.271 is impossible" in text
    assert "C17: the same score is printed once as below and once as a tie or above" in text
    assert "states 19 of 162 pairs" in text and "gives 20" in text
    assert out["tie_or_beat"] == 20


@pytest.mark.slow
def test_every_format_renders(tmp_path, capsys, specs):
    ledger = tmp_path / "ledger.jsonl"
    Ledger(ledger).append_many(small_ledger())
    for verb in ("humans", "gaps", "families"):
        for fmt in ("md", "csv", "json"):
            capsys.readouterr()
            assert main(["results", verb, "--ledger", str(ledger), "--format", fmt]) == 0
            text = capsys.readouterr().out
            if fmt == "json":
                json.loads(text)
            elif fmt == "csv":
                rows = list(csv.reader(io.StringIO(text)))
                assert len(rows) > 1 and len({len(r) for r in rows}) == 1
            else:
                assert text.startswith("# ")
    capsys.readouterr()
    main(["results", "gaps", "--ledger", str(ledger)])
    md = capsys.readouterr().out
    assert "Outside the protocol" in md and "temperature 0.9" in md


def test_participant_strings_are_escaped(tmp_path, capsys):
    rows = [ledger_row(1, "gnn-cora", "alice", {"accuracy": 0.7}),
            llm_row(2, "gnn-cora", "<img src=x onerror=alert(1)>|@team", {"accuracy": 0.5})]
    ledger = tmp_path / "ledger.jsonl"
    Ledger(ledger).append_many(rows)
    main(["results", "gaps", "--ledger", str(ledger)])
    md = capsys.readouterr().out
    assert "<img" not in md and "@team" not in md and "&lt;img" in md


@pytest.mark.slow
def test_llm_track_rows_record_the_protocol_and_deviations_are_found(
        keypair, demo_competition, tmp_path, httpserver, monkeypatch):
    """A real `gnncb llm run` (scripted model over HTTP): the row records decoding, repairs,
    calls, overrides and isolation; one run at protocol settings, one at temperature 0.9 with
    50,000 output tokens and no seed."""
    from tests.helpers.llm import GOOD, ISOLATION, MODEL, ScriptedLLM, ledger_of, run_cli

    spec = load_spec(demo_competition)
    server = ScriptedLLM(httpserver, [GOOD, GOOD])
    assert run_cli(keypair, demo_competition, tmp_path, server, monkeypatch) == 0
    [row] = ledger_of(tmp_path)
    llm = row["declared"]["llm"]
    assert llm["decoding"]["temperature"] == 0.0 and llm["decoding"]["seed"] == 25
    assert llm["decoding"]["max_tokens"] == 10_000
    assert (llm["repairs_allowed"], llm["calls"]) == (5, 1)
    assert llm["limit_overrides"] == {"wall_seconds": 60.0}  # cli_args passes --wall-seconds
    assert llm["sandboxed"] is ISOLATION.sandboxed
    verdict = conformance.check_row(spec, row)
    expected = ["execution limits overridden (wall_seconds=60)"]
    if not ISOLATION.sandboxed:
        expected.append(f"model code ran without a sandbox (isolation {ISOLATION.level})")
    assert verdict["deviations"] == expected and verdict["unverified"] == []

    assert run_cli(keypair, demo_competition, tmp_path, server, monkeypatch, "--campaign", "hot",
                   "--temperature", "0.9", "--max-tokens", "50000", "--no-seed") == 0
    hot = ledger_of(tmp_path)[-1]
    assert hot["model"] == MODEL
    found = " | ".join(conformance.check_row(spec, hot)["deviations"])
    assert "temperature 0.9" in found and "50,000 output tokens" in found
    assert "no seed sent" in found


def test_boards_show_intervals_overlaps_small_sets_and_protocol_marks():
    from evaluator.render.boards import competition_page

    spec = load_spec(COMPETITIONS / "park-gnn")

    def iv(low, high):
        return {"macro_f1": {"low": low, "high": high, "level": 0.95, "resamples": 2000,
                             "method": "bootstrap-percentile", "unit": "clusters", "n": 39,
                             "clusters": 6, "cluster_name": "speakers", "small": True}}

    rows = [ledger_row(1, "park-gnn", "alice", {"macro_f1": 1.0, "accuracy": 1.0}),
            ledger_row(2, "park-gnn", "bob", {"macro_f1": 0.954, "accuracy": 0.97}),
            ledger_row(3, "park-gnn", "carol", {"macro_f1": 0.5, "accuracy": 0.6},
                 declared={**PROTOCOL_HUMAN, "tuning_runs": 40})]
    rows[0]["intervals"], rows[1]["intervals"] = iv(0.6, 1.0), iv(0.48, 1.0)
    rows[2]["intervals"] = iv(0.2, 0.45)
    page = competition_page(spec, rows)
    lines = {line.split("|")[3].strip(): line for line in page.splitlines()
             if line.startswith("| ") and "park" not in line and "rank" not in line}
    assert "1 ≈" in lines["alice"] and "[0.600, 1.000]" in lines["alice"]
    assert "2 ≈" in lines["bob"] and "[0.480, 1.000]" in lines["bob"]
    assert "≈" not in lines["carol"].split("|")[2]  # [0.2, 0.45] overlaps neither
    # tiers without paired comparisons follow the intervals (°): alice and bob overlap, carol not
    assert [lines[w].split("|")[1].strip() for w in ("alice", "bob", "carol")] == [
        "1", "1°", "2°"]
    assert "✗ 40 tuning runs (at most 5)" in lines["carol"]
    assert "2000 resamples of speakers (6 in the test set)" in page
    assert "Small test set" in page


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=1, max_size=30))
def test_mean_sem_is_scipys_sem(values):
    """Repeated runs' SEM (mean ± SEM, as MLE-bench reports) equals scipy.stats.sem."""
    from scipy import stats

    from evaluator.render.results.entries import mean_sem

    mean, sem = mean_sem(values)
    assert mean == pytest.approx(float(np.mean(values)), rel=1e-9, abs=1e-9)
    if len(values) == 1:
        assert sem is None
    else:
        assert sem == pytest.approx(float(stats.sem(values)), rel=1e-9, abs=1e-9)
