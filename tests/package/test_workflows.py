"""Structural security checks on every GitHub Actions workflow, plus zizmor.

Why here and not only in zizmor: these are the properties the GNN-CB repositories got wrong
(PR code run with the decryption key, PR-controlled names pasted into shell scripts, unpinned
actions, broad tokens), stated as project rules that fail CI the moment a workflow drifts. Each
rule is also run against a small bad workflow, so a rule that can no longer fail is noticed.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.helpers.paths import REPO

ROOT = REPO
WORKFLOW_DIR = ROOT / ".github" / "workflows"
WORKFLOWS = sorted(WORKFLOW_DIR.glob("*.y*ml"))
PINNED = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+@[0-9a-f]{40}$")
PRIVILEGED_TRIGGERS = {"pull_request_target", "workflow_run"}
# Anything in a checkout `ref`/`repository` that could name the PR's code.
PR_REF_HINTS = ("head", "refs/pull", "merge", "pull_request.number", "inputs.")
PR_FETCH_IN_RUN = re.compile(r"refs/pull/|gh\s+pr\s+checkout|pull/\S*/head|head\.sha|head_ref")


def load(path: Path) -> dict[str, Any]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def triggers(doc: dict[str, Any]) -> set[str]:
    on = doc.get("on", doc.get(True))  # YAML 1.1 reads a bare `on` key as True
    if isinstance(on, str):
        return {on}
    if isinstance(on, list):
        return set(on)
    return set(on or {})


def steps(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(job_id, step) for job_id, job in (doc.get("jobs") or {}).items()
            for step in (job.get("steps") or [])]


def check_permissions(doc: dict[str, Any]) -> list[str]:
    problems = []
    if "permissions" not in doc:
        problems.append("no top-level `permissions:` (declare `permissions: {}`)")
    for job_id, job in (doc.get("jobs") or {}).items():
        if "permissions" not in job:
            problems.append(f"job {job_id}: no `permissions:` of its own")
        elif job["permissions"] in ("write-all", "read-all"):
            problems.append(f"job {job_id}: blanket `{job['permissions']}`")
    return problems


def check_pinned(doc: dict[str, Any]) -> list[str]:
    problems = []
    uses = [(job_id, job["uses"]) for job_id, job in (doc.get("jobs") or {}).items()
            if "uses" in job]
    uses += [(job_id, step["uses"]) for job_id, step in steps(doc) if "uses" in step]
    for job_id, ref in uses:
        if ref.startswith("./") or re.fullmatch(r"docker://.+@sha256:[0-9a-f]{64}", ref):
            continue
        if not PINNED.match(ref):
            problems.append(f"job {job_id}: `{ref}` is not pinned to a 40-hex commit SHA")
    return problems


def check_run_expressions(doc: dict[str, Any]) -> list[str]:
    """No `${{ ... }}` at all inside `run:`; values reach scripts through `env:` only.

    Stricter than "no github.event.*": an expression is pasted into the script before the
    shell sees it, so any expression a PR can influence is an injection; none is simplest.
    """
    return [f"job {job_id}: `${{{{ }}}}` inside run: {step.get('name', step['run'][:40])!r}"
            for job_id, step in steps(doc) if "run" in step and "${{" in str(step["run"])]


def check_no_pr_checkout(doc: dict[str, Any]) -> list[str]:
    if not triggers(doc) & PRIVILEGED_TRIGGERS:
        return []
    problems = []
    for job_id, step in steps(doc):
        uses = str(step.get("uses", ""))
        if uses.startswith("actions/checkout@"):
            with_ = step.get("with") or {}
            for key in ("ref", "repository"):
                value = str(with_.get(key, ""))
                if any(h in value for h in PR_REF_HINTS):
                    problems.append(f"job {job_id}: checkout {key}={value!r} may fetch PR code")
        if "run" in step and PR_FETCH_IN_RUN.search(str(step["run"])):
            problems.append(f"job {job_id}: a run step fetches the pull request's code")
    return problems


def check_checkout_credentials(doc: dict[str, Any]) -> list[str]:
    return [f"job {job_id}: checkout without `persist-credentials: false`"
            for job_id, step in steps(doc)
            if str(step.get("uses", "")).startswith("actions/checkout@")
            and (step.get("with") or {}).get("persist-credentials") is not False]


def _job_secrets(job: dict[str, Any]) -> set[str]:
    text = json.dumps(job)
    return set(re.findall(r"secrets\.([A-Za-z0-9_]+)", text)) - {"GITHUB_TOKEN"}


def _writes(job: dict[str, Any]) -> list[str]:
    perms = job.get("permissions") or {}
    if isinstance(perms, str):
        return ["all"] if perms == "write-all" else []
    return [k for k, v in perms.items() if v == "write"]


def check_secret_separation(doc: dict[str, Any]) -> list[str]:
    """Under privileged triggers a job holds either secrets or write access, never both."""
    if not triggers(doc) & PRIVILEGED_TRIGGERS:
        return []
    problems = []
    for job_id, job in (doc.get("jobs") or {}).items():
        secrets, writes = _job_secrets(job), _writes(job)
        if secrets and writes:
            problems.append(f"job {job_id}: holds secrets {sorted(secrets)} and write "
                            f"permissions {writes}")
    return problems


RULES = [check_permissions, check_pinned, check_run_expressions, check_no_pr_checkout,
         check_checkout_credentials, check_secret_separation]


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


def test_key_job_is_read_only_and_writer_has_no_key(evaluate: dict[str, Any]) -> None:
    jobs = evaluate["jobs"]
    keyed = [j for j, job in jobs.items() if "GNNCB_PRIVATE_KEY" in _job_secrets(job)]
    assert keyed == ["score"]
    assert jobs["score"]["permissions"] == {"contents": "read", "pull-requests": "read"}
    assert _job_secrets(jobs["publish"]) == set()
    assert set(_writes(jobs["publish"])) == {"contents", "pull-requests", "issues"}
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

def _zizmor() -> str | None:
    local = Path(sys.executable).parent / "zizmor"
    return str(local) if local.exists() else shutil.which("zizmor")


def test_zizmor_reports_nothing_above_low() -> None:
    exe = _zizmor()
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
    assert triggers(doc) == {"push", "workflow_dispatch"}
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
