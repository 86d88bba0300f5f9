"""The project's rules for GitHub Actions workflows, as functions that list what a workflow
breaks; tests/package/test_workflows.py runs them on every workflow (and on bad ones, so a
rule that can no longer fail is noticed), the per-workflow tests reuse them.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import yaml

from tests.helpers.paths import REPO

WORKFLOW_DIR = REPO / ".github" / "workflows"


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


def job_secrets(job: dict[str, Any]) -> set[str]:
    """The secrets a job reads (GITHUB_TOKEN aside: its permissions say what it may do)."""
    text = json.dumps(job)
    return set(re.findall(r"secrets\.([A-Za-z0-9_]+)", text)) - {"GITHUB_TOKEN"}


def write_permissions(job: dict[str, Any]) -> list[str]:
    """The scopes a job may write (`all` for write-all)."""
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
        secrets, writes = job_secrets(job), write_permissions(job)
        if secrets and writes:
            problems.append(f"job {job_id}: holds secrets {sorted(secrets)} and write "
                            f"permissions {writes}")
    return problems


RULES = [check_permissions, check_pinned, check_run_expressions, check_no_pr_checkout,
         check_checkout_credentials, check_secret_separation]


def zizmor() -> str | None:
    """The zizmor executable beside this interpreter or on PATH, if installed."""
    local = Path(sys.executable).parent / "zizmor"
    return str(local) if local.exists() else shutil.which("zizmor")
