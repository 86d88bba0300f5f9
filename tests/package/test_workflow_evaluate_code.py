"""evaluate-code.yml keeps the code track's workflow promises (issue 6, point 6): the job that
runs participant code holds no secret and a read-only token and runs it only in the sandbox; the
job that writes runs no participant code; same pins and ledger queue as evaluate.yml."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.package.workflow_rules import (
    RULES,
    WORKFLOW_DIR,
    job_secrets,
    load,
    steps,
    triggers,
    write_permissions,
    zizmor,
)

PATH = WORKFLOW_DIR / "evaluate-code.yml"


@pytest.fixture(scope="module")
def wf() -> dict[str, Any]:
    return load(PATH)


@pytest.fixture(scope="module")
def encrypted() -> dict[str, Any]:
    return load(WORKFLOW_DIR / "evaluate.yml")


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.__name__)
def test_structural_rules_hold(wf: dict[str, Any], rule: Any) -> None:
    assert rule(wf) == []


def test_triggers_on_code_track_submissions_only(wf: dict[str, Any]) -> None:
    on = wf.get("on", wf.get(True))
    assert triggers(wf) == {"pull_request_target", "workflow_dispatch"}
    assert on["pull_request_target"]["paths"] == ["competitions/graph-coding/submissions/**"]
    assert wf["permissions"] == {}


def test_only_the_seed_job_holds_a_secret_and_judge_is_read_only(wf: dict[str, Any]) -> None:
    """The case secret (issue 24, point 4) is read by the seed job alone, which has a
    read-only token and runs no participant code; the judge gets only the derived seed."""
    jobs = wf["jobs"]
    assert set(jobs) == {"seed", "judge", "publish"}
    assert job_secrets(jobs["seed"]) == {"GNNCB_CODE_SEED"}
    assert PATH.read_text(encoding="utf-8").count("secrets.") == 1
    assert job_secrets(jobs["judge"]) == set() and job_secrets(jobs["publish"]) == set()
    read_only = {"contents": "read", "pull-requests": "read", "actions": "read"}
    assert jobs["seed"]["permissions"] == read_only and jobs["seed"]["environment"] == "scoring"
    assert jobs["judge"]["permissions"] == read_only  # actions: the event time, checked
    assert "environment" not in jobs["judge"]
    assert set(write_permissions(jobs["publish"])) == {"contents", "pull-requests", "issues"}
    assert jobs["judge"]["needs"] == "seed" and jobs["publish"]["needs"] == "judge"
    seed_runs = _runs(wf, "seed")
    assert [r for r in seed_runs if "gnncb" in r] == [
        'gnncb ci code seed --repo "$REPO" --pr "$PR" --out '
        '"$RUNNER_TEMP/gnncb-case-seed/seed.json"']
    assert all("sudo" not in r and "score" not in r for r in seed_runs)
    [judge] = [r for r in _runs(wf, "judge") if "gnncb" in r]
    assert "GNNCB_CODE_SEED" not in judge  # sudo passes on no secret
    assert '--case-seed "$RUNNER_TEMP/gnncb-case-seed/seed.json"' in judge


def _runs(wf: dict[str, Any], job: str) -> list[str]:
    return [str(step["run"]) for j, step in steps(wf) if j == job and "run" in step]


def test_participant_code_runs_only_in_the_sandboxed_judge_step(wf: dict[str, Any]) -> None:
    judge = [r for r in _runs(wf, "judge") if "gnncb" in r]
    assert len(judge) == 1
    assert judge[0].startswith("sudo --preserve-env=")  # root for the namespaces
    assert "ci code score" in judge[0]
    assert "GITHUB_TOKEN" in judge[0].split()[1]  # read-only; the sandbox never sees it
    for run in _runs(wf, "publish"):
        assert "sudo" not in run and "score" not in run and "judge" not in run
        assert "submit-score" not in run and "python " not in run.replace("python -m pip", "")
    assert any("ci code publish" in r for r in _runs(wf, "publish"))


def test_same_pins_and_ledger_queue_as_the_encrypted_pipeline(
        wf: dict[str, Any], encrypted: dict[str, Any]) -> None:
    mine = {str(s["uses"]) for _, s in steps(wf) if "uses" in s}
    theirs = {str(s["uses"]) for _, s in steps(encrypted) if "uses" in s}
    assert mine <= theirs
    assert wf["concurrency"] == encrypted["concurrency"]
    assert wf["concurrency"]["group"] == "gnncb-ledger"


def test_checkouts_take_the_default_branch(wf: dict[str, Any]) -> None:
    checkouts = [s for _, s in steps(wf) if str(s.get("uses", "")).startswith("actions/checkout")]
    assert len(checkouts) == 3
    for step in checkouts:
        assert step["with"]["ref"] == "${{ github.event.repository.default_branch }}"
        assert step["with"]["persist-credentials"] is False


def test_install_has_no_torch(wf: dict[str, Any]) -> None:
    for run in _runs(wf, "seed") + _runs(wf, "judge") + _runs(wf, "publish"):
        if "pip install" in run:
            assert "torch" not in run and "[" not in run


def test_zizmor_reports_nothing_above_low_on_this_workflow() -> None:
    exe = zizmor()
    if exe is None:
        pytest.skip("zizmor is not installed (pip install zizmor)")
    proc = subprocess.run([exe, "--offline", "--format", "json", str(PATH)],
                          capture_output=True, text=True, cwd=Path(PATH).parents[2],
                          timeout=120)
    findings = json.loads(proc.stdout or "[]")
    serious = [f["ident"] for f in findings
               if f["determinations"]["severity"] in ("Medium", "High") and not f.get("ignored")]
    assert serious == []


def test_the_only_zizmor_ignore_is_justified_next_to_the_trigger() -> None:
    text = PATH.read_text(encoding="utf-8")
    ignores = [ln for ln in text.splitlines() if "zizmor: ignore" in ln]
    assert len(ignores) == 1 and "ignore[dangerous-triggers] --" in ignores[0]
    after = text.split(ignores[0], 1)[1]
    assert after.index("pull_request_target:") < after.index("types:")  # on the trigger
