"""evaluate.yml on act: an accepted and a rejected submission, from the event to the answer.

What a maintainer checks after a run: the ledger commit on origin and its message, the bot's
comment, the label, the closed PR, and that the artifact between the jobs holds no key
material. act gives every job of a run the same secrets and token (tests/helpers/act.py says
where act differs from GitHub), so the accepted PR's two jobs run as two act runs sharing one
artifact server folder: the keyed job (the key and a read-only token) must succeed while
writing nothing, then the publishing job alone (`job_alone`) with a write token and no key
must record, answer and close. The rejected PR runs the whole file, the jobs chained by act.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from evaluator.ci.comment import MARKER_PREFIX
from tests.helpers.act import ActRun
from tests.helpers.fake_github import READ_TOKEN, WRITE_TOKEN
from tests.workflows.helpers import Bed, assert_no_key_material, record_timing


@pytest.fixture(scope="module")
def scored(bed: Bed) -> ActRun:
    """PR #7 (accepted) through the keyed job alone: key + read-only token."""
    bed.fake.open_pr(7, "Alice", bed.arena.files("toy-nodes", "Alice", wrong=2))
    return bed.run("evaluate.yml", "pull_request_target", bed.pr_event(7), bed.keyed(),
                   job="score", artifacts=bed.tmp / "pr7-artifacts")


@pytest.fixture(scope="module")
def accepted(bed: Bed, scored: ActRun) -> ActRun:
    """PR #7's publishing job alone on the keyed job's verdict: a write token, no key."""
    assert scored.jobs == {"score": "succeeded"}, scored.log[-3000:]
    assert "GNNCB_PRIVATE_KEY" not in bed.keyless()
    return bed.run("evaluate.yml", "pull_request_target", bed.pr_event(7), bed.keyless(),
                   job="publish", alone=True, artifacts=bed.tmp / "pr7-artifacts")


def test_keyed_job_scores_with_a_read_only_token(bed: Bed, scored: ActRun) -> None:
    assert scored.jobs == {"score": "succeeded"}, scored.log[-3000:]
    assert bed.fake.writes() == []  # not one POST/PATCH to the API
    assert {token for _, _, token in bed.fake.log} == {READ_TOKEN}
    assert bed.fake.pushes == []
    assert {service for _, service, _ in bed.fake.git_log} <= {"/info/refs", "/git-upload-pack"}
    verdict = scored.artifact("gnncb-result")
    assert list(verdict) == ["result.json"]
    assert json.loads(verdict["result.json"])["status"] == "accepted"
    assert_no_key_material(verdict, bed)


def test_accepted_pr_is_recorded_answered_and_closed(bed: Bed, accepted: ActRun) -> None:
    assert accepted.jobs == {"publish": "succeeded"}, accepted.log[-3000:]
    rows = bed.arena.rows()
    assert [(r["participant"], r["pr"], r["slug"]) for r in rows] == [("alice", 7, "toy-nodes")]
    message = bed.head_message()
    assert "#7" in message and "alice" in message.lower(), message
    assert bed.fake.pushes == [WRITE_TOKEN]  # pushed over smart HTTP, with the job's token
    [answer] = bed.fake.bot_comments(7)
    assert MARKER_PREFIX in answer and "0.9000" in answer
    assert bed.fake.labels[7] == ["gnncb: accepted"]
    assert bed.fake.pulls[7]["state"] == "closed"
    assert_no_key_material(accepted.artifact("gnncb-result"), bed)


def test_rejected_pr_is_answered_and_closed_without_a_row(bed: Bed, accepted: ActRun) -> None:
    before = bed.arena.head()
    bed.fake.open_pr(8, "carol", bed.arena.files("toy-nodes", "carol", folder_login="dave"))
    run = bed.run("evaluate.yml", "pull_request_target", bed.pr_event(8),
                  {**bed.keyed(), **bed.keyless()})
    assert run.jobs == {"score": "succeeded", "publish": "succeeded"}, run.log[-3000:]
    assert [r["pr"] for r in bed.arena.rows()] == [7]
    assert bed.fake.labels[8] == ["gnncb: rejected"]
    assert bed.fake.pulls[8]["state"] == "closed"
    [answer] = bed.fake.bot_comments(8)
    assert MARKER_PREFIX in answer
    assert bed.arena.head() == before  # nothing recorded for a rejection


def test_time_from_event_to_answer(scored: ActRun, accepted: ActRun, record_property) -> None:
    """Each job's steps were timed (install vs work), for the report on the bot's latency."""
    table = record_timing(record_property, {"score": scored, "publish": accepted})
    assert set(table) == {"score/score", "publish/publish"}


def site_files(run: ActRun, into: Path) -> dict[str, str]:
    """The pages artifact (a tar inside the artifact server's zip) unpacked: path -> text."""
    import io
    import tarfile

    [(name, data)] = run.artifact("github-pages").items()
    assert name.endswith(".tar"), name
    into.mkdir()
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        archive.extractall(into / "site", filter="data")
    return {str(p.relative_to(into / "site")): p.read_text(errors="replace")
            for p in (into / "site").rglob("*.html")}


def test_pages_build_after_the_accepted_pr_shows_its_row(bed: Bed, accepted: ActRun,
                                                         tmp_path: Path) -> None:
    """pages.yml's build job as `workflow_run` starts it after evaluate: a read-only token."""
    # the row is on origin only if evaluate recorded it: say so rather than blame the site
    assert accepted.jobs == {"publish": "succeeded"}, accepted.log[-3000:]
    event = {"workflow_run": {"name": "evaluate", "conclusion": "success"},
             "repository": bed.repository()}
    # GitHub always hands the job a token (checkout needs one): here a read-only one, and no key
    run = bed.run("pages.yml", "workflow_run", event, {"GITHUB_TOKEN": READ_TOKEN}, job="build")
    assert run.jobs == {"build": "succeeded"}, run.log[-3000:]
    pages = site_files(run, tmp_path / "site")
    assert "index.html" in pages
    assert any("toy-nodes" in name and "alice" in text for name, text in pages.items())


def test_reveal_unseals_with_the_key_and_records_without_it(bed: Bed, accepted: ActRun,
                                                            tmp_path: Path) -> None:
    """reveal.yml: the final standings land on origin, and the row handed from the keyed job
    to the writing one holds no key (the keyed-job-alone proof is evaluate's, above)."""
    from tests.ci.test_finals import DEV_START, SLUG, Finals

    finals = Finals(bed.arena)
    finals.artifacts = []
    dev = DEV_START + timedelta(days=5)
    finals.submit(bed.fake, 20, "erin", 1, 2, at=dev)
    finals.submit(bed.fake, 21, "frank", 0, 9, at=dev)
    event = {"inputs": {"slug": SLUG}, "repository": bed.repository()}
    run = bed.run("reveal.yml", "workflow_dispatch", event, {**bed.keyed(), **bed.keyless()},
                  inputs={"slug": SLUG}, extra=["--actor", "maint"])
    assert run.jobs == {"unseal": "succeeded", "record": "succeeded"}, run.log[-3000:]
    [reveal] = [r for r in bed.arena.rows() if r["type"] == "reveal"]
    assert reveal["by"] == "maint"
    assert_no_key_material(run.artifact("gnncb-reveal"), bed)
    final_page = bed.arena.show(f"leaderboard/final/{SLUG}.md") or ""
    assert "erin" in final_page and "frank" in final_page
    assert bed.fake.pushes[-1] == WRITE_TOKEN
    assert SLUG in bed.head_message()
