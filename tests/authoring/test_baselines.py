"""Baseline scripts and their shared helpers (evaluator/gnn, evaluator/authoring/baselines).

What a maintainer would check: every baseline of the node/edge competitions runs in smoke mode
and writes a file that `gnncb check` accepts, with a report line that names the method and the
training time; the helper functions compute what their docstrings promise (history features,
threshold tuning, id mapping errors that name the file, the report line parser).
"""

from __future__ import annotations

import json
import runpy
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evaluator.authoring.baselines import parse_report
from evaluator.cli import main as gnncb
from evaluator.errors import ConfigError
from evaluator.gnn.data import load_node_task
from evaluator.gnn.temporal import best_threshold, node_history, time_slices
from tests.helpers.paths import REPO

SLUGS = ("gnn-cora", "park-gnn", "netlinkarena", "octonode", "trust-temporal")


# --------------------------------------------------------------------------- smoke runs
def smoke(slug: str, kind: str, out: Path, monkeypatch, capsys) -> dict:
    """Run a baseline script in this process (torch is imported once for all of them),
    exactly as `python baseline/<kind>.py --data ... --out ... --smoke` would."""
    folder = REPO / "competitions" / slug
    script = folder / "baseline" / f"{kind}.py"
    monkeypatch.setattr(sys, "argv", [str(script), "--data", str(folder / "data"),
                                      "--out", str(out), "--smoke"])
    capsys.readouterr()
    runpy.run_path(str(script), run_name="__main__")
    return parse_report(capsys.readouterr().out, script)


@pytest.mark.slow
@pytest.mark.gnn
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # smoke: 50 iters
@pytest.mark.parametrize("slug", SLUGS)
@pytest.mark.parametrize("kind", ["gnn", "nongraph"])
def test_baseline_smoke_run_writes_a_valid_submission(slug, kind, tmp_path, capsys,
                                                     monkeypatch):
    pytest.importorskip("torch_geometric")
    out = tmp_path / "predictions.csv"
    report = smoke(slug, kind, out, monkeypatch, capsys)
    assert report["smoke"] is True and report["seed"] == 25
    assert report["gnn"] is (kind == "gnn")
    assert report["training_time_minutes"] >= 0 and report["hardware"]
    assert gnncb(["check", "--competition", str(REPO / "competitions" / slug), str(out)]) == 0
    assert "OK:" in capsys.readouterr().out


# --------------------------------------------------------------------------- report line
def test_parse_report_takes_the_last_report_line():
    out = "\n".join(["epoch 1", json.dumps({"gnncb_baseline": 1, "method": "old",
                                            "training_time_minutes": 1, "hardware": "x"}),
                     "noise {not json", json.dumps({"gnncb_baseline": 1, "method": "GCN",
                                                    "training_time_minutes": 2,
                                                    "hardware": "cpu"})])
    assert parse_report(out, Path("gnn.py"))["method"] == "GCN"


def test_parse_report_without_a_report_line_says_what_to_add():
    with pytest.raises(ConfigError, match="printed no report line"):
        parse_report("done\n", Path("baseline/gnn.py"))
    with pytest.raises(ConfigError, match="lacks"):
        parse_report(json.dumps({"gnncb_baseline": 1, "method": "m"}), Path("gnn.py"))


# --------------------------------------------------------------------------- data helpers
def test_load_node_task_maps_ids_to_rows(tmp_path):
    pd.DataFrame({"id": [30, 10, 20], "f0": [1.0, 2.0, 3.0]}).to_csv(tmp_path / "nodes.csv",
                                                                    index=False)
    pd.DataFrame({"src": [10], "dst": [30]}).to_csv(tmp_path / "edges.csv", index=False)
    pd.DataFrame({"id": [20], "label": [1]}).to_csv(tmp_path / "train_labels.csv", index=False)
    pd.DataFrame({"id": [10]}).to_csv(tmp_path / "test_ids.csv", index=False)
    task = load_node_task(tmp_path)
    assert task.edges.tolist() == [[1], [0]]
    assert task.x[task.train_idx[0], 0] == 3.0
    assert task.test_ids.tolist() == [10] and task.target == "label"
    assert len(task.val_idx) == 0


def test_load_node_task_names_the_file_with_unknown_ids(tmp_path):
    pd.DataFrame({"id": [1, 2]}).to_csv(tmp_path / "nodes.csv", index=False)
    pd.DataFrame({"src": [1], "dst": [99]}).to_csv(tmp_path / "edges.csv", index=False)
    with pytest.raises(ValueError, match=r"edges.csv dst: 1 ids are not in nodes.csv.*99"):
        load_node_task(tmp_path)


def test_node_history_counts_and_means_per_side():
    history = pd.DataFrame({"src": [1, 1, 2], "dst": [2, 3, 3], "rating": [10, -5, 4]})
    users = pd.Index([1, 2, 3, 4])
    x = node_history(history, users)
    assert x[0, 0] == pytest.approx(np.log1p(2))  # user 1 gave two ratings
    assert x[0, 2] == pytest.approx(0.25)  # mean given (10 - 5) / 2 / 10
    assert x[0, 4] == pytest.approx(0.5)  # half of them negative
    assert x[2, 1] == pytest.approx(np.log1p(2)) and x[2, 3] == pytest.approx(-0.05)
    assert x[3].tolist() == [0.0] * 7  # never seen


def test_time_slices_cut_in_order_and_cover_everything():
    frame = pd.DataFrame({"t": range(20)})
    parts = time_slices(frame, 0.8, 0.95)
    assert [len(p) for p in parts] == [16, 3, 1]
    assert pd.concat(parts)["t"].tolist() == list(range(20))


def test_best_threshold_finds_the_separating_cut():
    y = np.array([0, 0, 1, 1, 1, 1, 1, 1, 1, 1])
    p = np.array([0.1, 0.2, 0.6, 0.7, 0.7, 0.8, 0.8, 0.9, 0.9, 0.95])
    threshold, score = best_threshold(y, p)
    assert score == 1.0 and 0.2 < threshold <= 0.6
