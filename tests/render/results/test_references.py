"""References stay references (issue 25, point 2): the paper's cohort and the platform's own
humans are separate columns, each with its n and source, in every `gnncb results` output."""

from __future__ import annotations

import json

import pytest

from evaluator.ledger.store import Ledger
from tests.render.results.helpers import PROTOCOL_HUMAN, ledger_row
from tests.render.results.test_campaigns import run

# GNN-CB Table 2, C06 DiaGraph: 15 participants, mean 0.570, high 0.822 (macro-F1)
PAPER = {"participants": 15, "mean": 0.570, "high": 0.822, "top": 0.822}


def one_human_on_diagraph(tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    Ledger(ledger).append_many([ledger_row(1, "diagraph", "nova", {"macro_f1": 0.8558},
                                           declared=dict(PROTOCOL_HUMAN))])
    return ledger


def test_one_human_entry_leaves_the_papers_cohort_and_stands_beside_it(tmp_path, capsys):
    ledger = one_human_on_diagraph(tmp_path)
    code, out, err = run(capsys, "results", "humans", "--ledger", ledger, "--json",
                         "--no-committed-runs")
    assert code == 0, err
    dia = json.loads(out)["competitions"]["diagraph"]
    assert {k: dia[k] for k in PAPER} == PAPER and dia["source"] == "GNN-CB Table 2"
    assert dia["reference"]["participants"] == 15
    assert dia["platform"] == {"source": "ledger", "participants": 1, "mean": 0.8558,
                               "std": None, "high": 0.8558, "low": 0.8558, "top": 0.8558}

    code, md, _ = run(capsys, "results", "humans", "--ledger", ledger, "--no-committed-runs")
    row = next(line for line in md.splitlines() if line.startswith("| diagraph |"))
    assert "| 15 | 0.570 |" in row and "GNN-CB Table 2" in row
    assert row.endswith("| n = 1: top 0.856, mean 0.856 |")

    code, out, _ = run(capsys, "results", "gaps", "--ledger", ledger, "--json",
                       "--no-committed-runs")
    gaps = json.loads(out)["competitions"]["diagraph"]
    assert (gaps["human_top"], gaps["human_mean"]) == (0.822, 0.570)  # not 0.8558
    assert (gaps["platform_top"], gaps["platform_participants"]) == (0.8558, 1)
    code, csv_text, _ = run(capsys, "results", "gaps", "--ledger", ledger, "--format", "csv",
                            "--no-committed-runs")
    assert csv_text.splitlines()[0].endswith(",platform_top,gap_platform")


def test_a_competition_without_reference_shows_its_own_humans(tmp_path, capsys):
    ledger = tmp_path / "ledger.jsonl"
    Ledger(ledger).append_many([ledger_row(1, "solubility", "dave", {"mae": 0.90},
                                           declared=dict(PROTOCOL_HUMAN))])
    code, out, err = run(capsys, "results", "humans", "--ledger", ledger, "--json",
                         "--no-committed-runs")
    assert code == 0, err
    sol = json.loads(out)["competitions"]["solubility"]
    assert sol["reference"] is None and sol["source"] == "ledger"
    assert sol["participants"] == 1 and sol["platform"]["participants"] == 1


@pytest.mark.slow
def test_the_results_take_the_row_the_board_shows(tmp_path, capsys):
    """Issue 24: the results took each human's latest row, so a late submission, or one the
    participant did not choose as final, stood for them in `gnncb results` while the board
    (and the rules) counted another. nova chose her first submission (0.60) over her later
    0.90; lara's 0.95 came after the deadline (late) and never ranks."""
    ledger = tmp_path / "ledger.jsonl"
    first = ledger_row(1, "diagraph", "nova", {"macro_f1": 0.60})
    second = ledger_row(2, "diagraph", "nova", {"macro_f1": 0.90})
    second["final_choice"] = [first["digest"]]
    late = ledger_row(4, "diagraph", "lara", {"macro_f1": 0.95})
    late["late"] = True
    Ledger(ledger).append_many([first, second, ledger_row(3, "diagraph", "lara",
                                                          {"macro_f1": 0.50}), late])
    code, out, err = run(capsys, "results", "humans", "--ledger", ledger, "--json",
                         "--no-committed-runs")
    assert code == 0, err
    platform = json.loads(out)["competitions"]["diagraph"]["platform"]
    assert (platform["participants"], platform["top"]) == (2, 0.60), platform
    assert platform["mean"] == 0.55
    code, out, _ = run(capsys, "results", "gaps", "--ledger", ledger, "--json",
                       "--no-committed-runs")
    assert json.loads(out)["competitions"]["diagraph"]["platform_top"] == 0.60
    code, board, _ = run(capsys, "leaderboard", "render", "--ledger", ledger, "--out",
                         tmp_path / "boards")
    assert code == 0
    page = (tmp_path / "boards" / "diagraph.md").read_text(encoding="utf-8")
    assert "0.6000" in page and "0.5000" in page and "0.9500" not in page
