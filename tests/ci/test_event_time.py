"""Time by the event (issue 24): a submission's window is decided by the pull-request event
that triggered the run (payload checked against GitHub's record of the run), not by when the
queued run starts. Through `gnncb ci pr score` on the fake GitHub."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml

from evaluator.cli import main
from tests.helpers.arena import Arena, competition_spec, git
from tests.helpers.fake_github import BOT_LOGIN, READ_TOKEN, FakeGitHub

NOW = datetime.now(UTC).replace(microsecond=0)
DEADLINE = NOW - timedelta(minutes=40)  # the run starts 40 minutes after the deadline


def z(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


@pytest.fixture
def closing(arena: Arena, monkeypatch: pytest.MonkeyPatch) -> Arena:
    """toy-nodes with one phase that ended 40 minutes ago; late submissions refused."""
    for name in ("GITHUB_TOKEN", "GITHUB_RUN_ID", "GITHUB_EVENT_PATH", "GITHUB_EVENT_NAME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GNNCB_PRIVATE_KEY", arena.keypair.pem)
    monkeypatch.setenv("GITHUB_TOKEN", READ_TOKEN)
    work = arena.clone("closing")
    spec = competition_spec("toy-nodes")
    spec |= {"phases": [{"name": "main", "start": z(NOW - timedelta(days=10)),
                         "end": z(DEADLINE), "limits": {"per_version": 3, "per_day": 2}}],
             "late_submissions": "refuse"}
    (work / "competitions" / "toy-nodes" / "competition.yaml").write_text(
        yaml.safe_dump(spec, sort_keys=False))
    git(work, "commit", "-qam", "toy-nodes closes")
    git(work, "push", "-q", "origin", "main")
    return arena


def score(arena: Arena, fake: FakeGitHub, tmp: Path, event: dict[str, Any] | None,
          run_id: int = 7) -> tuple[int, dict[str, Any] | None]:
    out = tmp / f"result-{run_id}.json"
    args = ["ci", "pr", "score", "--repo", fake.full_name, "--pr", "1", "--out", str(out),
            "--root", str(arena.clone()), "--api-url", fake.base_url, "--bot-login", BOT_LOGIN]
    if event is not None:
        path = tmp / f"event-{run_id}.json"
        path.write_text(json.dumps(event))
        args += ["--event", str(path), "--run-id", str(run_id)]
    code = main(args)
    return code, json.loads(out.read_text()) if out.exists() else None


def test_a_timely_pr_judged_after_the_deadline_is_on_time(
        closing: Arena, fake: FakeGitHub, tmp_path: Path) -> None:
    fake.open_pr(1, "alice", closing.files("toy-nodes", "alice"))
    opened = DEADLINE - timedelta(minutes=5)
    event = fake.pr_event(1, "opened", z(opened), run_id=7,
                          run_created=z(opened + timedelta(seconds=3)))
    code, result = score(closing, fake, tmp_path, event)
    assert code == 0 and result is not None
    assert (result["status"], result["code"]) == ("accepted", "")
    assert result["row"]["phase"] == "main" and "late" not in result["row"]
    assert result["row"]["submitted_at"] == z(opened)
    assert result["row"]["scored_at"] >= z(NOW)  # scored when the run got its turn
    # the same PR judged by the clock (a workflow_dispatch re-run has no event) is closed
    code, result = score(closing, fake, tmp_path, None, run_id=8)
    assert (result or {}).get("code") == "closed"


def test_a_push_after_the_deadline_is_judged_at_its_own_time(
        closing: Arena, fake: FakeGitHub, tmp_path: Path) -> None:
    fake.open_pr(1, "alice", closing.files("toy-nodes", "alice", wrong=3))
    early = fake.pr_event(1, "opened", z(DEADLINE - timedelta(minutes=5)), run_id=7)
    fake.push(1, closing.files("toy-nodes", "alice", wrong=0))
    late = fake.pr_event(1, "synchronize", z(DEADLINE + timedelta(minutes=1)), run_id=9)
    # the run of the timely event does not judge the newer head with the older time
    code, result = score(closing, fake, tmp_path, early)
    assert code == 0 and result is not None
    assert (result["status"], result["code"]) == ("skipped", "superseded")
    code, result = score(closing, fake, tmp_path, late, run_id=9)
    assert (result or {}).get("code") == "closed"


@pytest.mark.parametrize("run", [{"run_event": "workflow_dispatch"},
                                 {"run_head": "0" * 40},
                                 {"run_created": z(DEADLINE - timedelta(hours=2))}],
                         ids=["another trigger", "another head", "event after the run"])
def test_an_event_that_is_not_the_runs_gives_no_time(
        closing: Arena, fake: FakeGitHub, tmp_path: Path, run: dict[str, Any],
        capsys: pytest.CaptureFixture[str]) -> None:
    fake.open_pr(1, "alice", closing.files("toy-nodes", "alice"))
    event = fake.pr_event(1, "opened", z(DEADLINE - timedelta(minutes=5)), run_id=7, **run)
    code, result = score(closing, fake, tmp_path, event)
    assert code != 0 and result is None
    assert "refusing to take a submission time" in capsys.readouterr().err


def test_a_code_track_run_for_an_older_push_judges_nothing(
        code_arena: Arena, fake: FakeGitHub) -> None:
    from tests.ci.helpers import code_files, run_judge

    def never_judge(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("no code runs for a superseded event")

    fake.open_pr(5, "alice", code_files("alice"))
    payload = fake.pr_event(5, "opened", z(DEADLINE), run_id=11)
    fake.push(5, code_files("alice", {"lc997": b"class Solution: pass\n"}))
    result = run_judge(code_arena, fake, 5, judge=never_judge,
                       event=read_event_payload(code_arena.tmp, payload, 11))
    assert (result.status, result.code) == ("skipped", "superseded")
    assert fake.writes() == []


def read_event_payload(tmp: Path, payload: dict[str, Any], run_id: int) -> Any:
    from evaluator.ci.event import read_event

    path = tmp / f"event-{run_id}.json"
    path.write_text(json.dumps(payload))
    return read_event(path, str(run_id))
