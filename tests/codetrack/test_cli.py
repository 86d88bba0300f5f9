"""`gnncb code generate/judge/report/import-grapheval/submit-score`, as a user runs them.

Everything works from a fresh clone: the cache goes to a temporary $GNNCB_CACHE and nothing
reads ../shared except the import test, which skips when the dataset is absent.
"""

from __future__ import annotations

import csv
import gzip
import json
from collections import Counter
from pathlib import Path

import pytest

from evaluator.cli import main
from evaluator.codetrack.cases import CaseSet, make_plan
from evaluator.codetrack.costmodel import model_seconds
from evaluator.codetrack.judge import JudgeConfig
from evaluator.codetrack.problem import all_problems
from evaluator.codetrack.report import significance
from evaluator.ledger.store import Ledger
from tests.helpers.codetrack import KAHN
from tests.helpers.paths import REPO

GRAPHEVAL = REPO.parent / "shared" / "datasets" / "grapheval36k" / "data"



@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GNNCB_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def run(*argv: str) -> int:
    return main([str(a) for a in argv])


def read_lines(path: Path) -> list[str]:
    with gzip.open(path, "rt") as fh:
        return fh.read().splitlines()


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file of a case-set folder, by relative path, as raw bytes."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


def test_paper_plan_mirrors_the_published_breakdown() -> None:
    problems = all_problems()
    plan = make_plan("paper", problems.values())
    per_direction = Counter()
    for pid, cells in plan.items():
        per_direction["directed" if problems[pid].directed else "undirected"] += sum(
            cells.values())
        for cell in cells:
            assert cell not in problems[pid].skipped_cells, (pid, cell)
    assert per_direction == {"directed": 12_700, "undirected": 23_300}
    assert plan["lc207"] == {f"{c}/{s}": 100 for c in ("planar", "sparse")
                             for s in ("connected", "disconnected", "cyclic", "acyclic")}


@pytest.mark.slow
def test_generate_is_deterministic_and_records_provenance(tmp_path: Path, capsys) -> None:
    a, b = tmp_path / "a" / "twin", tmp_path / "b" / "twin"  # a set is named after its folder
    for out, jobs in ((a, "1"), (b, "2")):
        assert run("code", "generate", "--per-cell", "2", "--problems", "lc207,lc2685",
                   "--jobs", jobs, "--out", out) == 0
    assert "cases over 2 problems" in capsys.readouterr().out
    # byte-identical: manifest, metadata (answers, statistics, limits) and arguments
    files = tree_bytes(a)
    assert set(files) == {"manifest.json", *(f"cases/{pid}.{ext}" for pid in ("lc207", "lc2685")
                                             for ext in ("jsonl.gz", "args.gz"))}
    assert files == tree_bytes(b)
    config = JudgeConfig()
    for case in CaseSet(a).cases("lc2685"):
        # the stored limit is the one the judge applies, from the cost model of the input
        assert case.limit_seconds == config.case_seconds(case) >= config.timeout_floor
        assert case.ref_seconds == model_seconds(all_problems()["lc2685"].cost_rate,
                                                  case.args_json())
    case = json.loads(read_lines(a / "cases" / "lc2685.jsonl.gz")[0])
    assert {"seed", "category", "subcategory", "stats", "expected"} <= set(case)
    assert {"nodes", "edges", "avg_degree", "degree_variance"} <= set(case["stats"])
    args = json.loads(read_lines(a / "cases" / "lc2685.args.gz")[0])
    assert set(args) == set(all_problems()["lc2685"].arg_names)
    assert len(read_lines(a / "cases" / "lc2685.args.gz")) == len(
        read_lines(a / "cases" / "lc2685.jsonl.gz"))
    other = tmp_path / "c"
    assert run("code", "generate", "--per-cell", "2", "--problems", "lc207", "--seed", "7",
               "--out", other) == 0
    assert read_lines(other / "cases" / "lc207.args.gz") != read_lines(
        a / "cases" / "lc207.args.gz")
    # same settings: the set is reused (and extended with missing problems); other settings
    # into the same folder are refused unless --force
    assert run("code", "generate", "--per-cell", "2", "--problems", "lc207", "--out", a) == 0
    assert run("code", "generate", "--per-cell", "2", "--seed", "7", "--out", a) == 2
    assert "different case set" in capsys.readouterr().err


@pytest.mark.slow
def test_judge_and_report_on_a_fresh_clone(tmp_path: Path, cache: Path, capsys) -> None:
    """No --cases: the practice set is generated into the cache for just these problems."""
    run_dir = tmp_path / "run"
    assert run("code", "judge", "--reference", "--problems", "lc207,lc1971", "--per-cell", "3",
               "--no-memory", "--out", run_dir) == 0
    out = capsys.readouterr().out
    assert "passed (100.0 %)" in out
    summary = json.loads((run_dir / "run.json").read_text())
    assert summary["pass_rate"] == 1.0 and set(summary["problems"]) == {"lc207", "lc1971"}
    assert list(cache.glob("codetrack/cases/paper-n3-seed*/cases/lc207.jsonl.gz"))

    assert run("code", "report", run_dir) == 0
    md = (run_dir / "report" / "report.md").read_text()
    assert "directed | undirected" in md and "Table 4" in md
    assert "| lc207 |" in md and "| lc1971 |" in md
    with (run_dir / "report" / "problems.csv").open() as fh:
        rows = {r["problem"]: r for r in csv.DictReader(fh)}
    assert float(rows["lc207"]["pass_rate"]) == 1.0
    report = json.loads((run_dir / "report" / "report.json").read_text())
    assert report["table4"][0]["paper"] is not None


def test_constant_answer_never_beats_the_baseline(tmp_path: Path) -> None:
    """The trivial baseline is the best constant answer: `return True` on lc207 scores exactly
    the share of feasible schedules, and never more than the baseline shown beside it."""
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    (solutions / "lc207.py").write_text(
        "class Solution:\n    def canFinish(self, numCourses, prerequisites):\n"
        "        return True\n")
    set_dir = tmp_path / "set"
    assert run("code", "generate", "--per-cell", "4", "--problems", "lc207", "--out",
               set_dir) == 0
    expected = [json.loads(line)["expected"] for line in read_lines(
        set_dir / "cases" / "lc207.jsonl.gz")]
    run_dir = tmp_path / "run"
    assert run("code", "judge", "--solutions", solutions, "--cases", set_dir, "--no-memory",
               "--out", run_dir) == 0
    assert run("code", "report", run_dir) == 0
    report = json.loads((run_dir / "report" / "report.json").read_text())
    overall = report["corrected"]["overall"]
    assert overall["rate"] == sum(expected) / len(expected)
    assert overall["baseline"] == max(expected.count(True), expected.count(False)) / len(
        expected)
    for row in report["corrected"]["table2"]:
        cell = row["directed"]
        assert cell["rate"] <= cell["baseline"]


def test_judge_rejects_unknown_solution_files(tmp_path: Path, capsys) -> None:
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    (solutions / "lc99999.py").write_text("class Solution: pass\n")
    assert run("code", "judge", "--solutions", solutions) == 2
    assert "match no problem" in capsys.readouterr().err


def test_significance_prefers_problem_level_evidence() -> None:
    rows = []
    for p in range(6):
        direction = "directed" if p < 3 else "undirected"
        for i in range(100):
            ok = i < (90 if direction == "directed" else 20)
            rows.append({"problem": f"p{p}", "direction": direction,
                         "verdict": "pass" if ok else "wrong answer"})
    result = significance(rows, "verdict")
    assert result["fisher"]["p"] < 1e-20
    assert result["permutation"]["difference"] == pytest.approx(0.7)
    # 3 vs 3 problems: the smallest possible two-sided permutation p-value is 2/20
    assert result["permutation"]["p"] >= 0.09


@pytest.mark.slow
def test_submit_score_writes_one_ledger_row(tmp_path: Path, capsys) -> None:
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    (solutions / "lc207.py").write_text(KAHN)
    (tmp_path / "metadata.json").write_text(json.dumps(
        {"entrant": "llm-api", "model": "some-model", "method": "one-shot"}))
    ledger = tmp_path / "ledger.jsonl"
    argv = ["code", "submit-score", "--solutions", solutions, "--participant", "octo",
            "--per-cell", "2", "--no-memory", "--ledger", ledger, "--json"]
    assert run(*argv) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["slug"] == "graph-coding"
    assert (row["entrant"], row["model"], row["method"]) == ("llm-api", "some-model", "one-shot")
    assert row["per_problem"]["lc207"]["passed"] == row["per_problem"]["lc207"]["cases"]
    assert row["scores"]["problems_solved"] == 1
    # every other problem counts as failed, so one solved problem is a small pass rate
    assert 0 < row["scores"]["pass_rate"] < 0.1
    # the interval resamples the 40 problems: a resample draws no lc207 with probability
    # (39/40)^40 = 0.36 > 2.5 %, so the lower end is 0; the upper end is above the score
    iv = row["intervals"]["pass_rate"]
    assert (iv["clusters"], iv["cluster_name"], iv["n"]) == (40, "problems",
                                                             row["scores"]["cases"])
    assert iv["low"] == 0.0 and row["scores"]["pass_rate"] < iv["high"] < 0.25
    assert run(*argv[:-1]) == 0  # same files, same digest: no second row
    out = capsys.readouterr().out
    assert f"[95% interval over problems: 0.00-{100 * iv['high']:.2f} %]" in out
    assert "already in" in out
    assert len(Ledger(ledger).rows()) == 1
    (solutions / "lc207.py").write_text(KAHN + "\n# resubmitted\n")
    assert run(*argv) == 0
    rows = Ledger(ledger).rows()
    assert len(rows) == 2 and rows[0]["seed"] != rows[1]["seed"]


def test_submit_score_rejects_a_bad_submission(tmp_path: Path, capsys) -> None:
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    (solutions / "notes.py").write_text("print('hi')\n")
    assert run("code", "submit-score", "--solutions", solutions, "--participant", "octo") == 1
    assert "match no problem" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.shared
def test_import_grapheval_flags_known_wrong_labels(tmp_path: Path, capsys) -> None:
    if not GRAPHEVAL.is_dir():
        pytest.skip("../shared/datasets/grapheval36k is absent (fresh clone)")
    out = tmp_path / "gx"
    assert run("code", "import-grapheval", GRAPHEVAL, "--problems", "lc207,lc2097",
               "--out", out) == 0
    manifest = CaseSet(out).manifest
    assert manifest["problems"]["lc207"]["cases"] == 800
    assert manifest["problems"]["lc207"]["flags"] == {}
    assert manifest["problems"]["lc2097"]["flags"] == {"label-wrong": 500}
    run_dir = tmp_path / "run"
    assert run("code", "judge", "--reference", "--cases", out, "--no-memory", "--out",
               run_dir) == 0
    assert run("code", "report", run_dir) == 0
    report = json.loads((run_dir / "report" / "report.json").read_text())
    by_id = {p["id"]: p for p in report["problems"]}
    assert by_id["lc207"]["published"]["rate"] == 1.0
    assert by_id["lc2097"]["published"]["rate"] == pytest.approx(200 / 700)
    assert by_id["lc2097"]["corrected"]["rate"] == 1.0  # judged where an answer exists
    # the two views never share a row: the corrected counts hold no as-published verdict
    assert by_id["lc2097"]["verdicts"]["wrong answer"] == 0
    assert by_id["lc2097"]["no_truth"] == 500
    assert by_id["lc2097"]["published_verdicts"]["wrong answer"] == 500
    md = (run_dir / "report" / "report.md").read_text()
    corrected, published = md.split("## By problem, as published")
    row = next(line for line in corrected.splitlines() if line.startswith("| lc2097 |"))
    assert "| 100.0 [" in row
    assert "| 0 | 0 | 0 | 0 | 0 | 0 | 0 | 500 |" in row  # WA RE TLE MLE invalid JL not-run no-truth
    row = next(line for line in published.splitlines() if line.startswith("| lc2097 |"))
    assert row.startswith("| lc2097 | 700 | 28.6 [") and "| 500 | 500 |" in row
    with (run_dir / "report" / "problems.csv").open() as fh:
        header = next(csv.reader(fh))
    assert not any("published" in column for column in header)
    with (run_dir / "report" / "problems_published.csv").open() as fh:
        rows = {r["problem"]: r for r in csv.DictReader(fh)}
    assert rows["lc2097"]["wrong answer"] == "500" and rows["lc2097"]["flagged"] == "500"
