"""evaluate-code.yml on act: a code-track pull request from the event to the bot's answer.

The jobs run as two act runs sharing one artifact server folder, each with only its own secrets:
the seed job, which alone reads the case secret GNNCB_CODE_SEED (the board is the repository's
graph-coding folder as deployed, its `case-seed.json` re-committed to a throwaway master: a
fresh clone has no deployed one), and the judge it feeds, with a read-only token and no secret
at all (the judge runs participant code, in the sandbox, under sudo), then the publish job
alone (tests/helpers/act.py: `job_alone`) with the write token. What a maintainer checks: the
judge wrote nothing, the seed artifact holds the seed and not the secret, the verdict was
judged on secret cases under the committed commitment, the ledger row and commit on origin,
the board, the comment, the label and the closed PR.
"""

from __future__ import annotations

import json

import pytest

from evaluator.ci.comment import MARKER_PREFIX
from evaluator.codetrack.cases import seed_from_digest
from evaluator.codetrack.caseseed import version_secret
from tests.ci.helpers import LC997, LC1557_WRONG, add_code_folder, code_files, needs_sandbox
from tests.helpers.act import ActRun
from tests.helpers.fake_github import READ_TOKEN, WRITE_TOKEN
from tests.workflows.helpers import Bed, assert_no_key_material, record_timing

pytestmark = needs_sandbox()
PR = 31
MASTER = "act-throwaway-case-master-" + "7" * 32
# act runs what `-j judge` needs first: the seed job (evaluate-code.yml).
JUDGED = {"seed": "succeeded", "judge": "succeeded"}


@pytest.fixture(scope="module")
def judged(bed: Bed) -> ActRun:
    """PR #31 (one correct, one wrong solution) through the seed and judge jobs: read-only
    token only, and the case secret (the workflow hands it to the seed job's step alone)."""
    add_code_folder(bed.arena, MASTER)
    bed.fake.open_pr(PR, "Alice", code_files("Alice", {"lc997": LC997, "lc1557": LC1557_WRONG}))
    return bed.run("evaluate-code.yml", "pull_request_target", bed.pr_event(PR),
                   {"GITHUB_TOKEN": READ_TOKEN, "GNNCB_CODE_SEED": MASTER}, job="judge",
                   artifacts=bed.tmp / "code-artifacts")


@pytest.fixture(scope="module")
def published(bed: Bed, judged: ActRun) -> ActRun:
    """The publish job alone, on the judge's artifact: the write token, nothing else."""
    assert judged.jobs == JUDGED, judged.log[-3000:]
    return bed.run("evaluate-code.yml", "pull_request_target", bed.pr_event(PR), bed.keyless(),
                   job="publish", alone=True, artifacts=bed.tmp / "code-artifacts")


def test_judge_reads_only_and_hands_on_the_verdict(bed: Bed, judged: ActRun) -> None:
    assert judged.jobs == JUDGED, judged.log[-3000:]
    assert bed.fake.writes() == [] and bed.fake.pushes == []
    assert {token for _, _, token in bed.fake.log} == {READ_TOKEN}
    verdict = judged.artifact("gnncb-code-result")
    assert list(verdict) == ["result.json"]
    result = json.loads(verdict["result.json"])
    assert result["status"] == "accepted", result
    per = result["row"]["per_problem"]
    assert per["lc997"]["passed"] == per["lc997"]["cases"] > 0
    assert per["lc1557"]["passed"] < per["lc1557"]["cases"]
    assert result["row"]["declared"]["isolation"] == ["full"]  # judged in the sandbox
    assert_no_key_material(verdict, bed)
    # judged on the cases the keyed seed job derived under the committed secret
    seed = json.loads(judged.artifact("gnncb-case-seed")["seed.json"])
    committed = json.loads(bed.arena.show("competitions/graph-coding/case-seed.json") or "{}")
    row = result["row"]
    assert row["declared"]["seed_source"] == "secret+digest"
    assert (row["seed"], row["digest"]) == (seed["seed"], seed["digest"])
    assert row["case_commitment"] == seed["case_commitment"] == committed["commitment"]
    assert row["seed"] != seed_from_digest(row["digest"])
    secret = version_secret(MASTER.encode(), "graph-coding", 1).hex()
    for text in (verdict["result.json"].decode(), json.dumps(seed)):
        assert MASTER not in text and secret not in text


def test_code_pr_is_recorded_answered_and_closed(bed: Bed, judged: ActRun,
                                                 published: ActRun) -> None:
    assert published.jobs == {"publish": "succeeded"}, published.log[-3000:]
    [row] = bed.arena.rows()
    verdict = json.loads(judged.artifact("gnncb-code-result")["result.json"])
    assert (row["participant"], row["pr"], row["slug"]) == ("alice", PR, "graph-coding")
    assert row["digest"] == verdict["row"]["digest"]  # the judged row, not a re-judged one
    assert f"#{PR}" in bed.head_message()
    assert bed.fake.pushes == [WRITE_TOKEN]
    assert "alice" in (bed.arena.show("leaderboard/graph-coding.md") or "")
    [answer] = bed.fake.bot_comments(PR)
    s = row["scores"]
    assert MARKER_PREFIX in answer and f"{100 * s['pass_rate']:.2f} %" in answer
    assert "lc1557" in answer  # the failing problem is named
    assert bed.fake.labels[PR] == ["gnncb: accepted"]
    assert bed.fake.pulls[PR]["state"] == "closed"


def test_time_from_event_to_answer(judged: ActRun, published: ActRun, record_property) -> None:
    record_timing(record_property, {"judge": judged, "publish": published})
