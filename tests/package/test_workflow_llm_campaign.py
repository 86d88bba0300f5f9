"""The LLM campaign workflow: who holds which secret, the matrix it builds, the verbs it calls.

The generic rules (pinned actions, permissions, no expressions in run:) are in
test_workflows.py; these are the campaign's own promises.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from evaluator.cli import build_parser
from tests.helpers.paths import REPO

WORKFLOW = REPO / ".github" / "workflows" / "llm-campaign.yml"


@pytest.fixture(scope="module")
def doc() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def _secrets(job: dict) -> set[str]:
    return set(re.findall(r"secrets\.([A-Za-z0-9_]+)", json.dumps(job)))


def test_each_job_holds_only_its_own_secret(doc):
    jobs = doc["jobs"]
    assert _secrets(jobs["plan"]) == set()
    assert _secrets(jobs["run"]) == {"LLM_API_KEY"}
    assert _secrets(jobs["score"]) == {"GNNCB_PRIVATE_KEY"}
    assert _secrets(jobs["publish"]) == set()
    assert jobs["run"]["environment"] == "llm-providers"
    assert jobs["score"]["environment"] == "scoring"
    writers = [name for name, job in jobs.items()
               if "write" in (job.get("permissions") or {}).values()]
    assert writers == ["publish"]
    assert jobs["publish"]["concurrency"]["group"] == "gnncb-ledger"


def _plan_script(doc) -> str:
    [step] = doc["jobs"]["plan"]["steps"]
    return step["run"]


def _plan(doc, tmp_path: Path, **inputs: str) -> subprocess.CompletedProcess:
    out = tmp_path / "github_output"
    out.write_text("")
    env = {**os.environ, "GITHUB_OUTPUT": str(out), "CAMPAIGN": "c1", **inputs}
    return subprocess.run(["bash", "-c", _plan_script(doc)], env=env, capture_output=True,
                          text=True)


def test_plan_builds_model_x_competition_matrix(doc, tmp_path):
    done = _plan(doc, tmp_path, MODELS="gpt-4o, Qwen/Qwen2.5-Coder-32B-Instruct",
                 COMPETITIONS="gnn-cora,demo-cancer-knn")
    assert done.returncode == 0, done.stderr
    line = (tmp_path / "github_output").read_text().strip()
    matrix = json.loads(line.removeprefix("matrix="))
    pairs = [(m, c) for c in ("gnn-cora", "demo-cancer-knn")
             for m in ("gpt-4o", "Qwen/Qwen2.5-Coder-32B-Instruct")]
    # each pair numbered: the run folders' artifact names (llm-run-<pair>) never collide
    assert matrix["include"] == [{"model": m, "competition": c, "pair": i}
                                 for i, (m, c) in enumerate(pairs)]
    [upload] = [s for s in doc["jobs"]["run"]["steps"] if s["name"] == "Upload the run folder"]
    assert upload["with"]["name"] == "llm-run-${{ matrix.pair }}"


@pytest.mark.parametrize(("models", "competitions"), [
    ("gpt-4o; rm -rf /", "gnn-cora"), ("gpt-4o", "../secrets"), ("", "gnn-cora")])
def test_plan_rejects_bad_inputs(doc, tmp_path, models, competitions):
    done = _plan(doc, tmp_path, MODELS=models, COMPETITIONS=competitions)
    assert done.returncode != 0 and "invalid or empty" in done.stderr
    assert (tmp_path / "github_output").read_text() == ""


def _gnncb_args(script: str) -> list[list[str]]:
    """Every `gnncb ...` command line of a step, shell variables replaced by a stand-in."""
    text = re.sub(r'"\$\{?([A-Z_]+)\}?[^"]*"', r"X", script)
    return [line.split()[1:] for line in text.splitlines() if line.strip().startswith("gnncb ")]


def test_verbs_called_by_the_workflow_exist(doc):
    parser = build_parser()
    steps = [s for job in doc["jobs"].values() for s in job["steps"] if "run" in s]
    calls = [args for s in steps for args in _gnncb_args(s["run"])]
    assert {tuple(c[:2]) for c in calls} == {("llm", "score"), ("llm", "report"),
                                             ("llm", "publish")}
    for args in calls:
        parser.parse_args(args)
    run_step = next(s for s in doc["jobs"]["run"]["steps"] if "LLM_API_KEY" in s.get("env", {}))
    assert "--no-score" in run_step["run"] and "-m evaluator.cli" in run_step["run"]
    args = ["llm", "run", "--competition", "c", "--model", "m", "--campaign", "x", "--provider",
            "openai", "--prompt", "frozen", "--repairs", "5", "--runs", "runs", "--public-key",
            "k", "--no-score", "--base-url", "u", "--api-key-env", "LLM_API_KEY", "--record",
            "r", "--wall-seconds", "60"]
    parsed = parser.parse_args(args)
    assert parsed.no_score and parsed.record == Path("r")


# -- job conditions: one failed matrix run must not hold back the others -------------------

STATUS_FUNCTIONS = ("success()", "failure()", "always()", "cancelled()")


def _ancestors(jobs: dict, job_id: str) -> set[str]:
    needs = jobs[job_id].get("needs") or []
    direct = {needs} if isinstance(needs, str) else set(needs)
    return direct.union(*(_ancestors(jobs, n) for n in direct)) if direct else set()


def job_runs(doc: dict, job_id: str, results: dict[str, str], inputs: dict[str, object],
             cancelled: bool = False) -> bool:
    """Whether GitHub starts `job_id`, given the results of the jobs before it.

    GitHub's rule: a job `if:` without a status function is ANDed with success(), which is
    false when any job it depends on, directly or not, failed. The expression itself is read
    by a deliberately small translator (&&, ||, !, ==, needs.X.result, inputs.X, the status
    functions): enough for this workflow's conditions; anything else fails loudly."""
    jobs = doc["jobs"]
    text = str(jobs[job_id].get("if", "")).strip()
    text = text.removeprefix("${{").removesuffix("}}").strip() or "true"
    if not any(f in text for f in STATUS_FUNCTIONS):
        text = f"success() && ({text})"
    ancestors = _ancestors(jobs, job_id)
    env = {"success_": all(results[a] == "success" for a in ancestors),
           "failure_": any(results[a] == "failure" for a in ancestors),
           "cancelled_": cancelled, "always_": True}
    py = re.sub(r"(success|failure|cancelled|always)\(\)", r"\1_", text)
    py = re.sub(r"needs\.([a-z_-]+)\.result", lambda m: repr(results[m.group(1)]), py)
    py = re.sub(r"inputs\.([a-z_]+)", lambda m: repr(inputs[m.group(1)]), py)
    py = py.replace("&&", " and ").replace("||", " or ").replace("true", "True")
    py = re.sub(r"!(?!=)", " not ", py)
    assert re.fullmatch(r"[\w\s()'=!]+", py), f"unexpected expression: {text}"
    return bool(eval(py, {"__builtins__": {}}, env))  # noqa: S307 - checked above


@pytest.mark.parametrize(("run_result", "publish"), [("success", True), ("failure", True)])
def test_publish_runs_when_scoring_succeeded_even_if_a_matrix_run_failed(doc, run_result,
                                                                           publish):
    results = {"plan": "success", "run": run_result, "score": "success"}
    inputs = {"publish": True}
    assert job_runs(doc, "score", results, inputs)
    assert job_runs(doc, "publish", results, inputs) is publish


@pytest.mark.parametrize(("results", "inputs", "cancelled"), [
    ({"plan": "success", "run": "failure", "score": "failure"}, {"publish": True}, False),
    ({"plan": "success", "run": "success", "score": "success"}, {"publish": False}, False),
    ({"plan": "success", "run": "failure", "score": "success"}, {"publish": True}, True),
])
def test_publish_does_not_run_without_scores_or_when_not_asked(doc, results, inputs, cancelled):
    assert not job_runs(doc, "publish", results, inputs, cancelled)


def test_score_does_not_run_when_the_plan_failed(doc):
    results = {"plan": "failure", "run": "skipped"}
    assert not job_runs(doc, "score", results, {})
    assert job_runs(doc, "score", {"plan": "success", "run": "failure"}, {})


def test_the_old_bare_condition_is_what_failed(doc):
    """The evaluator models the bug the issue found: `if: inputs.publish` alone is skipped
    after a failed matrix run (so the tests above could fail on the old workflow)."""
    old = {**doc, "jobs": {**doc["jobs"], "publish": {**doc["jobs"]["publish"],
                                                      "if": "${{ inputs.publish }}"}}}
    results = {"plan": "success", "run": "failure", "score": "success"}
    assert not job_runs(old, "publish", results, {"publish": True})


def test_score_records_the_planned_pairs(doc):
    """The score step passes the planned models and competitions, so a pair whose job left
    nothing is recorded as a platform error (tests/llm/test_campaign_survivors.py)."""
    step = next(s for s in doc["jobs"]["score"]["steps"] if "gnncb llm score" in s.get("run", ""))
    assert '--expect-models "$MODELS" --expect-competitions "$COMPETITIONS"' in step["run"]
    assert step["env"]["MODELS"] == "${{ inputs.models }}"
    assert step["env"]["COMPETITIONS"] == "${{ inputs.competitions }}"
