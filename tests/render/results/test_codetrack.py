"""`gnncb results codetrack`: judged runs side by side and a paired per-problem test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scipy import stats

from evaluator.cli import main

PROBLEMS = "lc207,lc1971,lc997"
CONSTANT = {
    "lc207": "class Solution:\n    def canFinish(self, numCourses, prerequisites):\n"
             "        return True\n",
    "lc1971": "class Solution:\n    def validPath(self, n, edges, source, destination):\n"
              "        return True\n",
    "lc997": "class Solution:\n    def findJudge(self, n, trust):\n        return -1\n",
}


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two judged runs on the same cases: the reference ("vanilla") and constant answers."""
    tmp_path = tmp_path_factory.mktemp("codetrack")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GNNCB_CACHE", str(tmp_path / "cache"))
        return _runs(tmp_path)


def _runs(tmp_path: Path) -> tuple[Path, Path]:
    cases = tmp_path / "set"
    assert main(["code", "generate", "--per-cell", "3", "--problems", PROBLEMS, "--out",
                 str(cases)]) == 0
    ref = tmp_path / "vanilla"
    assert main(["code", "judge", "--reference", "--cases", str(cases), "--problems", PROBLEMS,
                 "--no-memory", "--label", "vanilla", "--out", str(ref)]) == 0
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    for pid, code in CONSTANT.items():
        (solutions / f"{pid}.py").write_text(code)
    const = tmp_path / "const"
    assert main(["code", "judge", "--solutions", str(solutions), "--cases", str(cases),
                 "--no-memory", "--label", "ssd", "--out", str(const)]) == 0
    return ref, const


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
