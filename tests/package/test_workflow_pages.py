"""What starts a Pages build: the site must follow the ledger on GitHub.

Why this file: the publish, record and campaign-publish jobs push with GITHUB_TOKEN, and GitHub
starts no workflow for a push made with GITHUB_TOKEN (workflow_dispatch and repository_dispatch
aside), so pages.yml's `push` trigger never fires after an accepted submission, a reveal or a
campaign. pages.yml therefore also runs on `workflow_run` of every workflow that writes to the
repository. These tests read the YAML (an Actions engine such as act does not chain workflows):
every writing workflow is listed by its `name:`, the build runs whatever the finished run's
conclusion except `skipped`, it checks out the default branch (never the finished run's head),
and nothing of the finished run (artifacts, head branch, PR fields) nor any secret reaches it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.helpers.paths import REPO
from tests.package.workflow_rules import WORKFLOW_DIR, load, steps, triggers, write_permissions

PAGES = WORKFLOW_DIR / "pages.yml"


@pytest.fixture(scope="module")
def pages() -> dict[str, Any]:
    return load(PAGES)


def _on(doc: dict[str, Any]) -> dict[str, Any]:
    return doc.get("on", doc.get(True))


def writing_workflows() -> dict[str, str]:
    """name -> file of every workflow other than pages.yml with a job that may push."""
    found = {}
    for path in sorted(WORKFLOW_DIR.glob("*.y*ml")):
        doc = load(path)
        if path.name != PAGES.name and any(
                "contents" in write_permissions(job) for job in doc["jobs"].values()):
            found[doc["name"]] = path.name
    return found


def test_every_writing_workflow_starts_a_build(pages: dict[str, Any]) -> None:
    writers = writing_workflows()
    assert writers == {"evaluate": "evaluate.yml", "evaluate-code": "evaluate-code.yml",
                       "reveal": "reveal.yml", "llm-campaign": "llm-campaign.yml"}
    run = _on(pages)["workflow_run"]
    assert sorted(run["workflows"]) == sorted(writers), \
        "pages.yml must list every workflow that pushes (by its `name:`)"
    assert run["types"] == ["completed"]
    # No branch filter: for pull_request_target the finished run's head branch is the PR's, a
    # filter on `main` would drop exactly the runs that record submissions.
    assert "branches" not in run and "branches-ignore" not in run


def test_human_pushes_and_manual_runs_still_build(pages: dict[str, Any]) -> None:
    assert triggers(pages) == {"push", "workflow_dispatch", "workflow_run"}
    push = _on(pages)["push"]
    assert push["branches"] == ["main"]
    assert "leaderboard/ledger.jsonl" in push["paths"]


def _build_runs(condition: str, event_name: str, conclusion: str | None) -> bool:
    """Evaluate the build job's `if:` for one event, with the two comparisons it may use.

    A small evaluator, not a general one: it accepts exactly the expression shape the test
    below pins, so a change of the condition fails here first and is reviewed."""
    expected = ("github.event_name != 'workflow_run' || "
                "github.event.workflow_run.conclusion != 'skipped'")
    assert " ".join(condition.split()) == expected
    return event_name != "workflow_run" or conclusion != "skipped"


@pytest.mark.parametrize(("event", "conclusion", "builds"), [
    ("workflow_run", "success", True),    # accepted PR, reveal, campaign published
    ("workflow_run", "failure", True),    # a campaign with a failed matrix run still publishes
    ("workflow_run", "cancelled", True),  # cancelled after its push: the push is on main
    ("workflow_run", "timed_out", True),
    ("workflow_run", "skipped", False),   # nothing ran, nothing was pushed
    ("push", None, True),
    ("workflow_dispatch", None, True),
])
def test_which_finished_runs_build(pages: dict[str, Any], event: str, conclusion: str | None,
                                   builds: bool) -> None:
    condition = pages["jobs"]["build"]["if"]
    assert _build_runs(condition, event, conclusion) is builds


def test_build_checks_out_the_default_branch_not_the_runs_head(pages: dict[str, Any]) -> None:
    [checkout] = [s for _, s in steps(pages)
                  if str(s.get("uses", "")).startswith("actions/checkout@")]
    assert checkout["with"] == {"ref": "${{ github.event.repository.default_branch }}",
                                "persist-credentials": False}


def test_nothing_of_the_finished_run_or_any_secret_reaches_the_build(
        pages: dict[str, Any]) -> None:
    """The only `workflow_run` field read is its conclusion, in the job condition; no artifact
    of the finished run is downloaded; no secret; the build job can only read."""
    text = json.dumps(pages["jobs"])
    assert text.count("github.event.workflow_run") == 1
    assert "workflow_run.conclusion" in pages["jobs"]["build"]["if"]
    assert "secrets." not in text and "download-artifact" not in text
    for job in pages["jobs"].values():
        assert "contents" not in write_permissions(job)
    assert pages["jobs"]["build"]["permissions"] == {"contents": "read"}


def test_the_docs_say_what_starts_a_build() -> None:
    text = " ".join((REPO / "docs" / "site.md").read_text(encoding="utf-8").split())
    assert "`workflow_run`" in text and "GITHUB_TOKEN" in text
    for name in writing_workflows().values():
        assert f"`{name}`" in text, name
