"""llm-campaign.yml on act: a two-pair campaign whose second matrix run fails, end to end.

The model is the scripted OpenAI-compatible server (tests/helpers/llm.py) over real HTTP on
127.0.0.1: `m-good` answers a valid program, `m-down` answers HTTP 500 to every request (a
provider error: its `llm run` exits 2, so its matrix job fails). What a maintainer checks: the
publish job still ran and put m-good's row on origin, m-down is recorded as an error that is
not the model's (in the run summary, the score job's report artifact and `gnncb results`),
and the rows and report handed between the jobs hold no key material. One whole act run,
every job of the file (plan, the matrix, score, publish) as the engine chains them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from cryptography.hazmat.primitives import serialization

from evaluator.authoring import demo
from evaluator.cli import main
from tests.helpers.act import ActRun
from tests.helpers.arena import git
from tests.helpers.fake_github import WRITE_TOKEN
from tests.helpers.llm import API_KEY, MAJORITY, ScriptedLLM
from tests.workflows.helpers import Bed, assert_no_key_material, record_timing

CAMPAIGN = "wf"
SLUG = demo.SLUG
GOOD, DOWN = "m-good", "m-down"


@pytest.fixture(scope="module")
def llm(make_httpserver) -> Iterator[ScriptedLLM]:
    """The scripted model server (pytest-httpserver's session server, shared by every test
    module on this worker: cleared before, so an earlier module's handlers cannot answer for
    these models, and after)."""
    make_httpserver.clear()
    yield ScriptedLLM(make_httpserver, {GOOD: [MAJORITY], DOWN: [500] * 20})
    make_httpserver.clear()


@pytest.fixture(scope="module")
def campaign(bed: Bed, llm: ScriptedLLM) -> ActRun:
    """The demo competition and the bed's public key on origin (runs seal with the key the
    repository publishes), then the whole workflow, dispatched with both models."""
    work = bed.arena.clone("campaign-setup")
    demo.build_competition(work / "competitions" / SLUG, bed.arena.keypair.public)
    (work / "keys").mkdir(exist_ok=True)
    (work / "keys" / "platform-public.pem").write_bytes(bed.arena.keypair.public.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "the demo competition; this repository's public key")
    git(work, "push", "-q", "origin", "main")
    inputs = {"campaign": CAMPAIGN, "models": f"{GOOD},{DOWN}", "competitions": SLUG,
              "provider": "openai", "base_url": llm.base_url, "repairs": "0",
              "wall_seconds": "120", "max_parallel": "2", "publish": "true"}
    event = {"inputs": inputs, "repository": bed.repository()}
    return bed.run("llm-campaign.yml", "workflow_dispatch", event,
                   {**bed.keyed(), **bed.keyless(), "LLM_API_KEY": API_KEY}, inputs=inputs)


def test_one_failed_matrix_run_does_not_hold_back_the_others(bed: Bed,
                                                             campaign: ActRun) -> None:
    # the engine chained every job; one matrix job failed (provider error: exit 2)
    assert campaign.jobs.get("plan") == "succeeded", campaign.log[-4000:]
    matrix = sorted(state for job, state in campaign.finished if job == "run")
    assert matrix == ["failed", "succeeded"], (campaign.finished, campaign.log[-4000:])
    assert (campaign.jobs.get("score"), campaign.jobs.get("publish")) == (
        "succeeded", "succeeded"), campaign.log[-4000:]
    rows = [r for r in bed.arena.rows() if r["type"] == "submission"]
    assert [(r["participant"], r["slug"]) for r in rows] == [(f"llm:{GOOD}", SLUG)]
    assert bed.fake.pushes == [WRITE_TOKEN]
    assert f"llm:{GOOD}" in (bed.arena.show(f"leaderboard/{SLUG}.md") or "")


def test_the_failed_run_is_recorded_as_a_provider_error(bed: Bed, campaign: ActRun,
                                                        tmp_path, capsys) -> None:
    handed = campaign.artifact("llm-score")
    assert_no_key_material(handed, bed)
    report = json.loads(handed["report.json"])
    by_model = {r["model"]: r for r in report["runs"]}
    assert {m: (r["status"], r["error_kind"]) for m, r in by_model.items()} == {
        GOOD: ("scored", None), DOWN: ("error", "provider")}
    assert "provider error, not the" in handed["report.md"].decode()
    # what `gnncb results` says from the published ledger and the handed-on runs
    runs = tmp_path / "runs"
    for name, data in handed.items():
        if name.startswith("runs/"):
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name).write_bytes(data)
    ledger = tmp_path / "ledger.jsonl"
    ledger.write_text(bed.arena.show("leaderboard/ledger.jsonl") or "")
    competitions = bed.arena.clone("campaign-results") / "competitions"
    assert main(["results", "gaps", "--ledger", str(ledger), "--competitions",
                 str(competitions), "--runs", str(runs / CAMPAIGN), "--format", "json"]) == 0
    err = capsys.readouterr().err
    assert f"{DOWN} x {SLUG} not counted: provider error, not the model's failure" in err


def test_time_from_dispatch_to_publish(campaign: ActRun, record_property) -> None:
    record_timing(record_property, {"campaign": campaign})
