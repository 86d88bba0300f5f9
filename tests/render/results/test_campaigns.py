"""`gnncb results` with LLM campaigns in both layouts, protocol edges and the paper's own
numbers (issue 12): each test runs the real command and reads what a user reads."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evaluator.cli import main
from evaluator.ledger.store import Ledger
from evaluator.render.results.reference import TABLE3
from tests.helpers.paths import REPO
from tests.render.results.helpers import PROTOCOL_HUMAN, ledger_row, llm_row

ROOT = REPO
QWEN = ROOT / "campaigns" / "qwen2.5-coder-0.5b-local" / "gnn"
MODEL = "qwen2.5-coder-0.5b-instruct-1d9614"
QWEN_SLUGS = {"gnn-bace", "gnn-cora", "mix-props", "park-gnn", "solubility"}


def run(capsys, *args) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        code = main([str(a) for a in args])
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def gaps_json(capsys, *args) -> dict:
    code, out, err = run(capsys, "results", "gaps", "--json", *args)
    assert code == 0, err
    return json.loads(out)


def failed_pairs(result: dict) -> dict[str, str | None]:
    return {slug: e["failure"] for slug, c in result["competitions"].items()
            for model, e in c["entries"].items() if model == MODEL and e["score"] is None}


@pytest.fixture()
def empty_ledger(tmp_path: Path) -> Path:
    path = tmp_path / "ledger.jsonl"
    path.write_text("")
    return path


# ------------------------------------------------------------------ 7. both campaign layouts
def test_a_committed_flat_summaries_folder_counts_its_failed_runs(tmp_path, empty_ledger,
                                                                   capsys):
    """The committed campaign ran with overridden execution limits (300 s wall and CPU): its
    failures are outside the protocol by the rule a scored run with those limits meets
    (issue 25, point 6), so they are listed apart with the reason, not counted."""
    copy = tmp_path / "my campaign" / "gnn"
    shutil.copytree(QWEN, copy)
    recorded = {}
    for path in sorted((QWEN / "summaries").glob("*.json")):
        summary = json.loads(path.read_text())
        assert summary["status"] == "failed"  # the committed campaign: no valid file anywhere
        recorded[summary["slug"]] = summary["failure"]["mode"]
    assert len(recorded) == 5
    for given in (copy, copy / "summaries"):  # the campaign folder or its summaries folder
        result = gaps_json(capsys, "--ledger", empty_ledger, "--runs", given)
        assert failed_pairs(result) == {} and result["failures"] == 0
        apart = {x["competition"]: x for x in result["excluded"] if x["entrant"] == MODEL}
        assert {slug: x["failure"] for slug, x in apart.items()} == recorded
        assert all(x["score"] is None and any("execution limits overridden" in d
                                              for d in x["deviations"])
                   for x in apart.values())
        assert result["campaigns"] == [str(given)]


def within_protocol(summary: dict) -> dict:
    """The committed summary as if run with the protocol's own execution limits."""
    return {**summary, "limits": {k: None for k in summary["limits"]}}


def test_the_committed_failures_within_the_protocol_would_count(tmp_path, empty_ledger,
                                                                capsys):
    flat = tmp_path / "flat"
    flat.mkdir()
    recorded = {}
    for path in sorted((QWEN / "summaries").glob("*.json")):
        summary = json.loads(path.read_text())
        recorded[summary["slug"]] = summary["failure"]["mode"]
        (flat / path.name).write_text(json.dumps(within_protocol(summary)))
    result = gaps_json(capsys, "--ledger", empty_ledger, "--runs", flat)
    assert failed_pairs(result) == recorded
    assert result["failures"] == 5  # counted as failures, not dropped
    assert result["failures_without_human_top"] == 2  # mix-props, solubility: no top
    assert result["pairs"] == 3 and result["tie_or_beat"] == 0


def test_run_folders_and_flat_summaries_are_read_alike(tmp_path, empty_ledger, capsys):
    """A live campaign's run-folder tree (MODEL/SLUG/summary.json) beside a flat one: the
    model and the competition come from the summary, not from file names."""
    tree = tmp_path / "runs" / "live"
    summary = within_protocol(json.loads((QWEN / "summaries" / "gnn-cora.json").read_text()))
    run_dir = tree / "some-model-dir" / "whatever"
    run_dir.mkdir(parents=True)
    (run_dir / "summary.json").write_text(json.dumps({**summary, "model": "llama-3.3-70b"}))
    flat = tmp_path / "flat"
    flat.mkdir()
    (flat / "not-the-slug.json").write_text(json.dumps({**summary, "slug": "park-gnn"}))
    (flat / "unrelated.json").write_text(json.dumps({"hello": "world"}))  # not a summary
    result = gaps_json(capsys, "--ledger", empty_ledger, "--runs", tree, "--runs", flat)
    cora, park = result["competitions"]["gnn-cora"], result["competitions"]["park-gnn"]
    assert cora["entries"]["llama-3.3-70b"]["score"] is None
    assert park["entries"][MODEL]["failure"] == "response_format"
    assert result["failures"] == 2


def test_the_committed_campaign_shows_its_five_failures(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, out, err = run(capsys, "results", "gaps", "--runs",
                         "campaigns/qwen2.5-coder-0.5b-local/gnn")
    assert code == 0, err
    apart = out.split("## Outside the protocol")[1].split("\n## ")[0]
    rows = [line for line in apart.splitlines() if line.startswith("| ") and MODEL in line]
    assert len(rows) == 5
    assert all("execution limits overridden (cpu_seconds=300" in row for row in rows)
    assert "0 pair(s) produced no valid file" in out  # not counted: outside the protocol


def test_by_default_the_repository_ledger_comes_with_its_committed_campaigns(capsys):
    result = gaps_json(capsys)
    assert str(QWEN) in result["campaigns"]
    assert {x["competition"] for x in result["excluded"] if x["entrant"] == MODEL} == QWEN_SLUGS
    result = gaps_json(capsys, "--no-committed-runs")
    assert result["campaigns"] == [] and failed_pairs(result) == {}
    assert not [x for x in result["excluded"] if x["entrant"] == MODEL]


def test_a_folder_without_runs_is_a_message(tmp_path, empty_ledger, capsys):
    (tmp_path / "empty").mkdir()
    code, _, err = run(capsys, "results", "gaps", "--ledger", empty_ledger, "--runs",
                       tmp_path / "empty")
    assert code == 2 and "no LLM run summaries" in err and "summaries/SLUG.json" in err
    code, _, err = run(capsys, "results", "gaps", "--ledger", empty_ledger, "--runs",
                       tmp_path / "nowhere")
    assert code == 2 and "not a folder" in err


def test_a_failed_run_on_an_earlier_version_does_not_count(tmp_path, empty_ledger, capsys):
    summary = json.loads((QWEN / "summaries" / "gnn-cora.json").read_text())
    flat = tmp_path / "old" / "summaries"
    flat.mkdir(parents=True)
    (flat / "gnn-cora.json").write_text(json.dumps({**summary, "competition_version": 0}))
    result = gaps_json(capsys, "--ledger", empty_ledger, "--runs", flat.parent)
    assert failed_pairs(result) == {} and result["failures"] == 0


# ------------------------------------------------------------------ 8. protocol and the paper
def test_more_than_five_repairs_used_is_out_of_protocol_under_the_default_reading(
        tmp_path, capsys):
    ledger = tmp_path / "ledger.jsonl"
    Ledger(ledger).append_many([
        ledger_row(1, "gnn-cora", "alice", {"accuracy": 0.70}),
        llm_row(2, "gnn-cora", "gpt-4o", {"accuracy": 0.90}, repair_depth=6, model_calls=7),
        llm_row(3, "gnn-cora", "llama-3.3-70b", {"accuracy": 0.60}, repair_depth=5,
                model_calls=6),
    ])
    result = gaps_json(capsys, "--ledger", ledger)  # default --k-reading repairs
    cora = result["competitions"]["gnn-cora"]
    assert "gpt-4o" not in cora["entries"] and "llama-3.3-70b" in cora["entries"]
    (out,) = [x for x in result["excluded"] if x["entrant"] == "gpt-4o"]
    assert out["status"] == "out" and "6 repairs used (k <= 5)" in out["deviations"]
    code, text, _ = run(capsys, "results", "gaps", "--ledger", ledger)
    outside = text.split("## Outside the protocol", 1)[1]
    assert "| gnn-cora | gpt-4o | llm-api | 0.900 | 6 repairs used (k &lt;= 5) |" in outside
    # five repairs (six calls) are inside the text's reading, outside the calls reading
    result = gaps_json(capsys, "--ledger", ledger, "--k-reading", "calls")
    assert "llama-3.3-70b" not in result["competitions"]["gnn-cora"]["entries"]


def test_c14_human_top_transcription_is_listed_among_the_inconsistencies(tmp_path, capsys):
    code, _, err = run(capsys, "results", "import", TABLE3, "--source", "gnncb-table3",
                       "--percent", "--sources", tmp_path / "src")
    assert code == 0, err
    code, out, _ = run(capsys, "results", "gaps", "--source", "gnncb-table3", "--sources",
                       tmp_path / "src")
    found = out.split("## Where the reference's own numbers disagree", 1)[1]
    assert ("C14: Table 3 prints the Human Top as 4.98, but its printed gaps and last row need "
            "4.984; the transcription carries 4.984 so that the last row reproduces") in found
    result = gaps_json(capsys, "--source", "gnncb-table3", "--sources", tmp_path / "src")
    assert result["last_row"]["C14"] == {"recomputed": -1.333, "printed": -1.333}


# ------------------------------------------------------------------ 9. other splits / metrics
def test_paper_humans_beside_local_scores_are_marked(tmp_path, capsys):
    ledger = tmp_path / "ledger.jsonl"
    Ledger(ledger).append_many([ledger_row(1, "gnn-cora", "alice", {"accuracy": 0.70},
                                           declared=dict(PROTOCOL_HUMAN))])
    code, out, err = run(capsys, "results", "humans", "--ledger", ledger, "--json")
    assert code == 0, err
    comps = json.loads(out)["competitions"]
    # the paper's cohort stays the reference (and keeps its note); our one human is beside it
    assert comps["gnn-cora"]["source"] == "GNN-CB Table 2"
    assert comps["gnn-cora"]["note"]["short"] == "other test data"
    assert comps["gnn-cora"]["platform"]["participants"] == 1
    gta = comps["gta"]["note"]
    assert "ranked on split 'perturbed' only" in gta["short"]
    assert "GNN-CB C13's humans: Macro-F1 on the original competition's test data" in gta["text"]
    assert "f1_perturbed = macro_f1 on split 'perturbed'" in gta["text"]
    assert comps["park-gnn"]["note"]["short"] == "other test data"
    assert comps["mix-props"]["note"] is None  # no humans at all

    code, md, _ = run(capsys, "results", "humans", "--ledger", ledger)
    gta_row = next(line for line in md.splitlines() if line.startswith("| gta |"))
    assert gta_row.endswith(r"\* other test data; ranked on split 'perturbed' only | n = 0 |")
    assert "not measured on the data the scores here are measured on" in md
    code, csv_text, _ = run(capsys, "results", "humans", "--ledger", ledger, "--format", "csv")
    assert csv_text.splitlines()[0].endswith(",source,note,platform_participants,platform_mean,"
                                             "platform_top")

    code, md, _ = run(capsys, "results", "gaps", "--ledger", ledger)
    top = next(line for line in md.splitlines() if line.startswith("| **Human top**"))
    assert "0.790 \\*" in top and "| 0.742 \\* |" in top  # both from the paper
    here = next(line for line in md.splitlines() if line.startswith("| Humans here"))
    assert "n = 1: top 0.700" in here  # gnn-cora's one human here, beside the paper's
    assert "- gta (other test data; ranked on split 'perturbed' only)" in md
    # our humans against the paper's are different data, not the paper disagreeing with itself
    assert "disagrees with GNN-CB Table 2's best human" not in md
    result = gaps_json(capsys, "--ledger", ledger)
    assert result["competitions"]["gta"]["human_top_note"]["short"].startswith("other test")
    cora = result["competitions"]["gnn-cora"]
    assert cora["human_top"] == 0.742 and cora["human_top_source"] == "GNN-CB Table 2"
    assert (cora["platform_top"], cora["platform_participants"]) == (0.70, 1)


@pytest.mark.parametrize("claim", ["human", "baseline", 7])
def test_a_run_summary_claiming_another_entrant_stays_an_llm_run(claim, tmp_path,
                                                                 empty_ledger, capsys):
    """Issue 24: a failed run's summary saying `entrant: human` made it a human entry with no
    score (dropped from the gaps' failures). What a run says about itself is not believed: a
    run folder is an LLM run."""
    copy = tmp_path / "campaign" / "gnn"
    shutil.copytree(QWEN, copy)
    for path in (copy / "summaries").glob("*.json"):  # failures that count (see above)
        path.write_text(json.dumps(within_protocol(json.loads(path.read_text()))))
    forged = sorted((copy / "summaries").glob("*.json"))[0]
    summary = json.loads(forged.read_text())
    forged.write_text(json.dumps({**summary, "entrant": claim}))
    result = gaps_json(capsys, "--ledger", empty_ledger, "--runs", copy)
    assert failed_pairs(result)[summary["slug"]] == summary["failure"]["mode"]
    assert result["failures"] == 5
