"""`gnncb results codetrack`: judged runs side by side and a paired per-problem test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scipy import stats

from evaluator.cli import main
from tests.helpers.codetrack import PROBLEMS, judged_runs

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two judged runs on the same cases: the reference ("vanilla") and constant answers."""
    tmp_path = tmp_path_factory.mktemp("codetrack")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GNNCB_CACHE", str(tmp_path / "cache"))
        return judged_runs(tmp_path)


def test_runs_side_by_side_with_a_paired_test(judged, capsys):
    ref, const = judged
    capsys.readouterr()
    assert main(["results", "codetrack", str(ref), str(const), "--pair", "vanilla=ssd",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["runs"]) == {"vanilla", "ssd"}
    assert out["runs"]["vanilla"]["overall"]["rate"] == 1.0
    const_overall = out["runs"]["ssd"]["overall"]
    assert const_overall["rate"] <= const_overall["baseline"]  # a constant never beats it
    assert out["table2"] and all(set(r["runs"]) == {"vanilla", "ssd"} for r in out["table2"])
    [pair] = out["pairs"]
    per = pair["per_problem"]
    assert set(per) == set(PROBLEMS.split(","))
    assert all(v["a"] == 1.0 for v in per.values())
    diffs = [v["b"] - v["a"] for v in per.values()]
    assert pair["mean_difference"] == pytest.approx(sum(diffs) / 3)
    assert pair["a_better"] == sum(d < 0 for d in diffs)
    expected = stats.wilcoxon(diffs, zero_method="zsplit").pvalue
    assert pair["wilcoxon"]["p"] == pytest.approx(expected)
    assert pair["sign_test_p"] == pytest.approx(
        stats.binomtest(0, pair["a_better"], 0.5).pvalue)

    for fmt in ("md", "csv"):
        capsys.readouterr()
        assert main(["results", "codetrack", str(ref), str(const), "--pair", "vanilla=ssd",
                     "--format", fmt]) == 0
        text = capsys.readouterr().out
        assert "vanilla" in text and "ssd" in text


def test_unknown_pair_names_the_runs(judged, capsys):
    ref, const = judged
    assert main(["results", "codetrack", str(ref), str(const), "--pair", "a=b"]) == 2
    assert "runs are vanilla, ssd" in capsys.readouterr().err
