"""The participant and maintainer verbs on the real gnn-cora competition, with the deployment
key of ../shared/secrets: check -> encrypt (committed public key) -> evaluate -> render -> lint.
This is the path a participant and the workflow take; it needs no torch."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest

from evaluator.cli import main
from tests.helpers.paths import REPO

CORA = REPO / "competitions" / "gnn-cora"

pytestmark = pytest.mark.shared


def run(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture()
def predictions(tmp_path):
    """A plausible participant file: the sample submission with varied classes, shuffled."""
    sample = pd.read_csv(CORA / "data" / "sample_submission.csv")
    sample["label"] = sample["id"] % 7
    path = tmp_path / "predictions.csv"
    sample.sample(frac=1, random_state=0).to_csv(path, index=False)
    return path


@pytest.mark.slow
def test_participant_and_maintainer_flow(shared_secrets, predictions, tmp_path, capsys):
    code, out, err = run(capsys, "check", "--competition", CORA, predictions)
    assert code == 0 and "1000 rows" in out, err
    sub = tmp_path / "submissions" / "octocat"
    code, out, err = run(capsys, "encrypt", "--competition", CORA, "--participant", "octocat",
                         "--method", "id modulo 7", "-o", sub / "predictions.csv.enc",
                         predictions)
    assert code == 0, err
    ledger = tmp_path / "ledger.jsonl"
    code, out, err = run(capsys, "evaluate", "--competition", CORA, "--submission", sub,
                         "--participant", "octocat", "--private-key",
                         shared_secrets / "deploy-private.pem", "--ledger", ledger, "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["accepted"] and 0 <= result["scores"]["accuracy"] <= 1
    assert "-----BEGIN" not in out + err  # nothing secret on the console
    # render with the committed ledger rows plus ours: the baselines and octocat are ranked
    shutil.copy(REPO / "leaderboard" / "ledger.jsonl", tmp_path / "all.jsonl")
    with open(tmp_path / "all.jsonl", "a") as fh:
        fh.write(ledger.read_text())
    code, _, err = run(capsys, "leaderboard", "render", "--ledger", tmp_path / "all.jsonl",
                       "--out", tmp_path / "lb")
    assert code == 0, err
    page = (tmp_path / "lb" / "gnn-cora.md").read_text()
    assert "baseline:gnn" in page and "octocat" in page
    code, out, _ = run(capsys, "competition", "lint", CORA, "--private-key",
                       shared_secrets / "deploy-private.pem")
    assert code == 0 and "OK" in out


def test_committed_leaderboard_has_the_gnn_baseline_on_top():
    page = (REPO / "leaderboard" / "gnn-cora.md").read_text()
    first = next(line for line in page.splitlines() if line.startswith("| 1 |"))
    assert "baseline:gnn" in first
