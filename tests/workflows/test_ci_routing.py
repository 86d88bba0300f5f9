"""ci.yml's routing, decided by the engine: which job starts for which event.

Each job's `if:` is evaluated by act and the run is stopped before the job's first step does any
work (`Act.job_starts`), so the suite does not recurse into itself.
"""

from __future__ import annotations

import pytest

from tests.helpers.act import Act
from tests.helpers.arena import git

ROUTES = {  # event -> the jobs that start
    "push": {"tests", "workflow-lint"},
    "pull_request": {"tests", "workflow-lint"},
    "schedule": {"fuzz-nightly"},
    "workflow_dispatch": {"fuzz-nightly"},
}
JOBS = ("tests", "workflow-lint", "fuzz-nightly")


@pytest.fixture(scope="module")
def act(tmp_path_factory: pytest.TempPathFactory) -> Act:
    return Act(tmp_path_factory.mktemp("act-ci"))


@pytest.mark.parametrize("event", sorted(ROUTES))
def test_each_event_starts_exactly_its_jobs(act: Act, event: str) -> None:
    workdir = act.tmp / "workdir"
    if not workdir.exists():
        workdir.mkdir()
        git(workdir, "init", "-q", "-b", "main")
        git(workdir, "commit", "-q", "--allow-empty", "-m", "empty")
    started = {job for job in JOBS if act.job_starts("ci.yml", event, job, workdir)}
    assert started == ROUTES[event]


def test_the_engine_runs_the_workflows_less_only_the_queue_line(act: Act) -> None:
    """The copy act runs is `.github/workflows/` minus `queue: max` (act cannot parse it)."""
    from tests.helpers.paths import REPO

    sources = sorted((REPO / ".github" / "workflows").glob("*.yml"))
    assert sorted(p.name for p in act.workflows.glob("*.yml")) == [p.name for p in sources]
    dropped = 0
    for source in sources:
        original = source.read_text().splitlines()
        copy = (act.workflows / source.name).read_text().splitlines()
        dropped += len(original) - len(copy)
        kept = [line for line in original if line.split("#")[0].strip() != "queue: max"]
        assert kept == copy, source.name
    # evaluate.yml, evaluate-code.yml, reveal.yml and llm-campaign's publish queue on the ledger
    assert dropped >= 4
