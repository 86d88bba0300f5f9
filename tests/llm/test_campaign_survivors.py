"""A campaign with failed matrix runs publishes what survived, and says what failed and why.

The workflow's matrix runs each pair in its own job; here each job is one `gnncb llm run`
(the same command line as the workflow's run step), then the score job's and the publish job's
commands run on the merged runs folder, as in .github/workflows/llm-campaign.yml. Four pairs:
m1 seals a valid file; m2's program is broken and no repair is allowed (the model's failure:
exit 1, which the workflow counts as a result); m3's endpoint answers 500 (a provider error:
exit 2, the matrix job fails and its folder is uploaded by the `if: always()` step); m4's job
died before it uploaded anything (no folder at all). Scoring must publish m1, keep m2 a
failure of the model, and record m3 and m4 as errors that are not the model's, visibly, in
`gnncb llm report` and `gnncb results`.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from evaluator.cli import main
from tests.helpers.llm import API_KEY, BROKEN, MAJORITY, UNSANDBOXED_FLAGS, ScriptedLLM
from tests.llm.test_publish import make_origin

pytestmark = pytest.mark.slow


def test_failed_matrix_runs_are_recorded_and_the_rest_published(
        keypair, demo_competition, tmp_path, httpserver, monkeypatch, capsys):
    work = make_origin(tmp_path, demo_competition)
    competition = work / "competitions" / demo_competition.name
    slug = competition.name
    monkeypatch.setenv("GNNCB_TEST_LLM_KEY", API_KEY)
    llm = ScriptedLLM(httpserver, {"m1": [MAJORITY], "m2": [BROKEN], "m3": [500]})
    runs = tmp_path / "runs"
    exits = {}
    for model in ("m1", "m2", "m3"):  # the matrix jobs; m4's job died before running
        exits[model] = main([
            "llm", "run", "--competition", str(competition), "--model", model,
            "--base-url", llm.base_url, "--api-key-env", "GNNCB_TEST_LLM_KEY", "--retries", "0",
            "--public-key", str(keypair["public_path"]), "--no-score", "--runs", str(runs),
            "--campaign", "wf", "--repairs", "0", "--wall-seconds", "60", *UNSANDBOXED_FLAGS])
    assert exits == {"m1": 0, "m2": 1, "m3": 2}  # m3's matrix job fails (`[ status -le 1 ]`)
    capsys.readouterr()

    rows = tmp_path / "rows.jsonl"
    assert main(["llm", "score", "--runs", str(runs / "wf"), "--private-key",
                 str(keypair["private_path"]), "--ledger", str(tmp_path / "scratch.jsonl"),
                 "--rows-out", str(rows), "--competitions", str(competition.parent),
                 "--expect-models", "m1,m2,m3,m4",
                 "--expect-competitions", slug]) == 0
    out = capsys.readouterr().out
    assert f"error m4 x {slug}: platform error (not the model's failure)" in out
    assert "4 run(s): 2 error, 1 failed, 1 scored" in out
    [row] = [json.loads(line) for line in rows.read_text().splitlines()]
    assert row["participant"] == "llm:m1"

    def summary(model: str) -> dict:
        return json.loads((runs / "wf" / model / slug / "summary.json").read_text())

    assert summary("m2")["status"] == "failed" and "error_kind" not in summary("m2")
    assert (summary("m3")["status"], summary("m3")["error_kind"]) == ("error", "provider")
    assert (summary("m4")["status"], summary("m4")["error_kind"]) == ("error", "platform")
    assert "left no run folder" in summary("m4")["error"]

    report_json = tmp_path / "report.json"
    assert main(["llm", "report", "--runs", str(runs / "wf"), "--out",
                 str(tmp_path / "report.md"), "--json", str(report_json)]) == 0
    report = json.loads(report_json.read_text())
    by_model = {r["model"]: r for r in report["runs"]}
    assert {m: (r["status"], r["error_kind"]) for m, r in by_model.items()} == {
        "m1": ("scored", None), "m2": ("failed", None), "m3": ("error", "provider"),
        "m4": ("error", "platform")}
    assert by_model["m4"]["failure_mode"] == "" and by_model["m2"]["failure_mode"]
    markdown = (tmp_path / "report.md").read_text()
    assert "platform error, not the model" in markdown and "provider error, not the" in markdown

    assert main(["llm", "publish", "--runs", str(runs / "wf"), "--rows", str(rows),
                 "--root", str(work)]) == 0
    assert "published 1 row(s)" in capsys.readouterr().out
    ledger = subprocess.run(["git", "--git-dir", str(tmp_path / "origin.git"), "show",
                             "main:leaderboard/ledger.jsonl"], capture_output=True, text=True,
                            check=True).stdout
    assert [json.loads(line)["participant"] for line in ledger.splitlines()] == ["llm:m1"]

    (tmp_path / "published.jsonl").write_text(ledger)
    assert main(["results", "gaps", "--ledger", str(tmp_path / "published.jsonl"),
                 "--competitions", str(work / "competitions"), "--runs",
                 str(runs / "wf"), "--format", "json"]) == 0
    err = capsys.readouterr().err
    assert f"m3 x {slug} not counted: provider error, not the model's failure" in err
    assert f"m4 x {slug} not counted: platform error, not the model's failure" in err
    assert "m2 x" not in err  # the model's failure counts (a pair with no valid file)


def test_expected_pairs_need_both_lists_and_real_slugs(tmp_path, capsys):
    (tmp_path / "wf").mkdir()
    assert main(["llm", "score", "--runs", str(tmp_path / "wf"), "--expect-models",
                 "m1"]) == 2
    assert "go together" in capsys.readouterr().err
    assert main(["llm", "score", "--runs", str(tmp_path / "wf"), "--expect-models", "m1",
                 "--expect-competitions", "../x"]) == 2
    assert "not a slug: ['../x']" in capsys.readouterr().err
