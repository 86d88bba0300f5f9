"""Structural security checks on every GitHub Actions workflow, plus zizmor.

Why here and not only in zizmor: these are the properties the GNN-CB repositories got wrong
(PR code run with the decryption key, PR-controlled names pasted into shell scripts, unpinned
actions, broad tokens), stated as project rules that fail CI the moment a workflow drifts. Each
rule is also run against a small bad workflow, so a rule that can no longer fail is noticed.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.helpers.paths import REPO
from tests.package.workflow_rules import (
    RULES,
    WORKFLOW_DIR,
    check_checkout_credentials,
    check_no_pr_checkout,
    check_permissions,
    check_pinned,
    check_run_expressions,
    check_secret_separation,
    job_secrets,
    load,
    steps,
    triggers,
    write_permissions,
    zizmor,
)

ROOT = REPO
WORKFLOWS = sorted(WORKFLOW_DIR.glob("*.y*ml"))


def test_there_are_workflows() -> None:
    names = {p.name for p in WORKFLOWS}
    assert {"evaluate.yml", "ci.yml"} <= names


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.__name__)
def test_rule_holds(path: Path, rule: Any) -> None:
    assert rule(load(path)) == []


# -- each rule catches what it is meant to catch --------------------------------------------

BAD = {
    check_permissions: """
on: push
jobs:
  a: {runs-on: x, steps: [{run: "true"}]}
""",
    check_pinned: """
on: push
permissions: {}
jobs:
  a: {runs-on: x, permissions: {}, steps: [{uses: actions/checkout@v4}]}
""",
    check_run_expressions: """
on: pull_request_target
permissions: {}
jobs:
  a: {runs-on: x, permissions: {}, steps: [{run: "echo ${{ github.event.pull_request.title }}"}]}
""",
    check_no_pr_checkout: """
on: pull_request_target
permissions: {}
jobs:
  a:
    runs-on: x
    permissions: {}
    steps:
      - uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683
        with: {ref: "${{ github.event.pull_request.head.sha }}", persist-credentials: false}
""",
    check_checkout_credentials: """
on: push
permissions: {}
jobs:
  a:
    runs-on: x
    permissions: {}
    steps: [{uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683}]
""",
    check_secret_separation: """
on: pull_request_target
permissions: {}
jobs:
  a:
    runs-on: x
    permissions: {contents: write}
    steps: [{run: "true", env: {K: "${{ secrets.GNNCB_PRIVATE_KEY }}"}}]
""",
}


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.__name__)
def test_rule_catches_a_bad_workflow(rule: Any) -> None:
    assert rule(yaml.safe_load(BAD[rule])), f"{rule.__name__} accepted a bad workflow"


def test_head_ref_in_run_is_caught() -> None:
    doc = yaml.safe_load("""
on: workflow_run
permissions: {}
jobs:
  a: {runs-on: x, permissions: {}, steps: [{run: "git fetch origin refs/pull/1/head"}]}
""")
    assert check_no_pr_checkout(doc)


# -- the evaluate workflow's specific promises --------------------------------------------

@pytest.fixture(scope="module")
def evaluate() -> dict[str, Any]:
    return load(WORKFLOW_DIR / "evaluate.yml")


def test_evaluate_triggers_on_submission_paths_only(evaluate: dict[str, Any]) -> None:
    on = evaluate.get("on", evaluate.get(True))
    assert on["pull_request_target"]["paths"] == ["competitions/*/submissions/**",
                                                  "!competitions/graph-coding/**"]
    assert evaluate["permissions"] == {}


def test_evaluate_serializes_ledger_writes(evaluate: dict[str, Any]) -> None:
    groups = [evaluate.get("concurrency")] + [j.get("concurrency") for j in
                                              evaluate["jobs"].values()]
    groups = [g for g in groups if g]
    assert len(groups) == 1, "exactly one concurrency group"
    assert groups[0]["cancel-in-progress"] is False  # a queued submission is never dropped
    assert groups[0].get("queue") == "max"


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_every_job_in_the_ledger_group_queues(path: Path) -> None:
    """Issue 24: the LLM campaign's publish job joined `gnncb-ledger` without `queue: max`, so
    GitHub kept one pending run of the group and cancelled the others (a queued PR evaluation
    dropped). Every joiner of the group, workflow- or job-level, must queue and never cancel."""
    workflow = load(path)
    found = [("workflow", workflow.get("concurrency"))] + [
        (name, job.get("concurrency")) for name, job in workflow.get("jobs", {}).items()]
    for where, group in found:
        if not isinstance(group, dict) or group.get("group") != "gnncb-ledger":
            continue
        assert group.get("cancel-in-progress") is False, (path.name, where)
        assert group.get("queue") == "max", (path.name, where)


def test_key_job_is_read_only_and_writer_has_no_key(evaluate: dict[str, Any]) -> None:
    jobs = evaluate["jobs"]
    keyed = [j for j, job in jobs.items() if "GNNCB_PRIVATE_KEY" in job_secrets(job)]
    assert keyed == ["score"]
    assert jobs["score"]["permissions"] == {"contents": "read", "pull-requests": "read",
                                            "actions": "read"}
    assert job_secrets(jobs["publish"]) == set()
    assert set(write_permissions(jobs["publish"])) == {"contents", "pull-requests", "issues"}
    assert jobs["publish"]["needs"] == "score"


def test_checkouts_take_the_default_branch(evaluate: dict[str, Any]) -> None:
    for job_id, step in steps(evaluate):
        if str(step.get("uses", "")).startswith("actions/checkout@"):
            assert step["with"]["ref"] == "${{ github.event.repository.default_branch }}", job_id


def test_install_has_no_torch(evaluate: dict[str, Any]) -> None:
    for _, step in steps(evaluate):
        run = str(step.get("run", ""))
        if "pip install" in run:
            assert "torch" not in run and "[gnn]" not in run and "[" not in run


# -- zizmor ---------------------------------------------------------------------------------


def test_zizmor_reports_nothing_above_low() -> None:
    exe = zizmor()
    if exe is None:
        pytest.skip("zizmor is not installed (pip install zizmor)")
    proc = subprocess.run([exe, "--offline", "--format", "json", str(WORKFLOW_DIR)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    try:
        findings = json.loads(proc.stdout or "[]")
    except json.JSONDecodeError:
        pytest.fail(f"zizmor failed (exit {proc.returncode}): {proc.stderr[-2000:]}")
    serious = [_describe(f) for f in findings
               if f["determinations"]["severity"] in ("Medium", "High") and not f.get("ignored")]
    assert serious == [], "zizmor findings above low severity (fix or justify inline)"


def _describe(finding: dict[str, Any]) -> str:
    where = finding["locations"][-1]
    path = where["symbolic"]["key"].get("Local", {}).get("verbatim_path", "?")
    line = where["concrete"]["location"]["start_point"]["row"] + 1
    return (f"{finding['ident']} ({finding['determinations']['severity']}) at {path}:{line}: "
            f"{where['symbolic']['annotation']}")


# -- the Pages workflow ---------------------------------------------------------------------


def test_pages_workflow_builds_from_main_and_uploads_only_the_site() -> None:
    """pages.yml runs no PR code, its build job can only read, only its deploy job may write
    Pages (with the OIDC token Pages needs), and the artifact is the built directory alone."""
    doc = load(WORKFLOW_DIR / "pages.yml")
    assert triggers(doc) == {"push", "workflow_dispatch", "workflow_run"}  # test_workflow_pages
    on = doc.get("on", doc.get(True))
    assert on["push"]["branches"] == ["main"]
    assert doc["permissions"] == {}
    build, deploy = doc["jobs"]["build"], doc["jobs"]["deploy"]
    assert build["permissions"] == {"contents": "read"}
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["needs"] == "build" and deploy["environment"]["name"] == "github-pages"
    runs = [s["run"] for s in build["steps"] if "run" in s]
    assert any(r.strip() == "gnncb site build --out _site" for r in runs)
    uploads = [s for s in build["steps"] if str(s.get("uses", "")).startswith(
        "actions/upload-pages-artifact@")]
    assert len(uploads) == 1 and uploads[0]["with"] == {"path": "_site"}
    assert [s["uses"].split("@")[0] for s in deploy["steps"]] == ["actions/deploy-pages"]
    assert "secrets." not in json.dumps(doc)


# -- ci.yml: screenshots and the nightly fuzz budget ---------------------------------------


@pytest.fixture(scope="module")
def ci() -> dict[str, Any]:
    return load(WORKFLOW_DIR / "ci.yml")


def _pins(name: str) -> set[str]:
    """Every pin of action `name` in the repository's other workflows."""
    return {step["uses"] for path in WORKFLOWS if path.name != "ci.yml"
            for _, step in steps(load(path)) if str(step.get("uses", "")).startswith(name + "@")}


def test_ci_uploads_the_browser_screenshots_even_when_tests_fail(ci: dict[str, Any]) -> None:
    """tests/render/site/test_browser.py writes screenshots under $GNNCB_ARTIFACTS (.ci/run sets
    .ci-artifacts/); the tests job uploads that folder, whatever the tests' outcome, with the
    same upload-artifact pin as the other workflows and no more than read access."""
    job = ci["jobs"]["tests"]
    assert job["permissions"] == {"contents": "read"}
    names = [s.get("name", "") for s in job["steps"]]
    [upload] = [s for s in job["steps"] if str(s.get("uses", "")).startswith(
        "actions/upload-artifact@")]
    assert names.index(upload["name"]) > names.index("Run the test suite")
    assert upload["if"] == "always()"
    assert upload["with"]["path"].rstrip("/") == ".ci-artifacts"
    assert upload["uses"] in _pins("actions/upload-artifact")
    runner = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert 'GNNCB_ARTIFACTS="${GNNCB_ARTIFACTS:-$PWD/.ci-artifacts}"' in runner


def test_ci_runs_the_fuzz_test_nightly_with_a_large_budget(ci: dict[str, Any]) -> None:
    assert {"schedule", "workflow_dispatch", "push", "pull_request"} == triggers(ci)
    on = ci.get("on", ci.get(True))
    assert len(on["schedule"]) == 1 and len(on["schedule"][0]["cron"].split()) == 5
    fuzz = ci["jobs"]["fuzz-nightly"]
    assert fuzz["if"] == ("github.event_name == 'schedule' || "
                          "github.event_name == 'workflow_dispatch'")
    assert fuzz["permissions"] == {"contents": "read"}
    assert int(fuzz["env"]["GNNCB_FUZZ_EXAMPLES"]) >= 1000
    runs = [s["run"].strip() for s in fuzz["steps"] if "run" in s]
    assert runs[-1].endswith("pytest -q -p no:cacheprovider tests/pipeline/test_fuzz.py")
    assert "torch" not in " ".join(runs) and "[gnn" not in " ".join(runs)
    for job_id in ("tests", "workflow-lint"):  # the per-push jobs do not run at night
        assert ci["jobs"][job_id]["if"] == ("github.event_name == 'push' || "
                                            "github.event_name == 'pull_request'")
    assert "github.event_name" in ci["concurrency"]["group"]  # nightly and pushes apart
