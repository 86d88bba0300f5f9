"""Code-track pull requests end to end: fake GitHub over HTTP, a real bare git repository, and
the real sandboxed judge on a tiny submission (two problems, one case per published cell)."""

from __future__ import annotations

import json
import os
import stat

import pytest

from evaluator.ci.code.publish import publish_code_result
from evaluator.ci.code.result import CodeResult, read_code_result
from evaluator.ci.code.score import judge_code_pr
from evaluator.ci.comment import MARKER_PREFIX
from evaluator.cli import main
from evaluator.codetrack.cases import seed_from_digest
from tests.ci.helpers import (
    LC997,
    LC1557_WRONG,
    code_files,
    needs_sandbox,
    run_code_pr,
    run_code_publish,
    run_judge,
)
from tests.helpers.arena import Arena, Sleeps, client
from tests.helpers.fake_github import BOT_LOGIN, READ_TOKEN, WRITE_TOKEN, FakeGitHub

pytestmark = needs_sandbox()

# a method that looks like a command-line option must stay a plain value; a PR is always human
# (LLM rows come from the platform's own runs), but may name the model that helped
LLM_META = {"entrant": "human", "method": "--help", "model": "gpt-test-1"}


@pytest.mark.slow
def test_accepted_pr_end_to_end(code_arena: Arena, fake: FakeGitHub) -> None:
    fake.open_pr(31, "Alice", code_files("Alice", {"lc997": LC997, "lc1557": LC1557_WRONG},
                                         metadata=LLM_META))
    before = code_arena.head()
    result = run_judge(code_arena, fake, 31)
    # the judging phase read with the read-only token and wrote nothing anywhere
    assert fake.writes() == [] and {t for _, _, t in fake.log} == {READ_TOKEN}
    assert code_arena.head() == before

    assert result.status == "accepted", result.reason
    row = result.row
    assert row is not None
    assert (row["participant"], row["pr"], row["slug"]) == ("alice", 31, "graph-coding")
    assert row["participant_id"] == fake.pulls[31]["user"]["id"]
    assert (row["entrant"], row["model"], row["method"]) == (
        "human", "gpt-test-1", "--help")
    per = row["per_problem"]
    assert per["lc997"]["passed"] == per["lc997"]["cases"] > 0  # correct
    assert per["lc1557"]["passed"] < per["lc1557"]["cases"]  # wrong answers
    s = row["scores"]
    assert s["passed"] == per["lc997"]["passed"] + per["lc1557"]["passed"]
    assert s["pass_rate"] == s["passed"] / s["cases"] and s["problems_solved"] == 1
    assert row["seed"] == seed_from_digest(row["digest"])  # cases from the files' digest
    assert row["declared"]["isolation"] == ["full"]
    assert [f.problem for f in result.feedback] == ["lc1557"]

    published = run_code_publish(code_arena, fake, result)
    rows = code_arena.rows()
    assert len(rows) == 1 and rows[0]["digest"] == result.digest
    page = code_arena.show("leaderboard/graph-coding.md") or ""
    assert "alice" in page and "human" in page and "| 1 |" in page
    assert "graph-coding" in (code_arena.show("leaderboard/README.md") or "")
    [answer] = fake.bot_comments(31)
    assert MARKER_PREFIX in answer and "Submission judged" in answer
    assert f"{100 * s['pass_rate']:.2f} %" in answer and "lc1557" in answer
    assert "Rank:** 1 of 1" in answer
    assert fake.labels[31] == ["gnncb: accepted"] and fake.pulls[31]["state"] == "closed"
    assert published.commented and published.closed and published.rank == 1


@pytest.mark.slow
def test_rerun_is_idempotent(code_arena: Arena, fake: FakeGitHub) -> None:
    fake.open_pr(32, "bob", code_files("bob"))
    result, _ = run_code_pr(code_arena, fake, 32)
    head = code_arena.head()
    # the same artifact published again: nothing recorded, nothing answered twice
    again = run_code_publish(code_arena, fake, result)
    assert again.push is not None and not again.push.pushed
    # the PR reopened and the whole workflow re-run
    fake.pulls[32]["state"] = "open"
    rerun, _ = run_code_pr(code_arena, fake, 32)
    assert (rerun.status, rerun.code) == ("skipped", "already-answered")
    assert code_arena.head() == head and len(code_arena.rows()) == 1
    assert len(fake.bot_comments(32)) == 1 and fake.pulls[32]["state"] == "closed"


@pytest.mark.slow
def test_interrupted_publish_is_finished_without_judging_again(code_arena: Arena,
                                                               fake: FakeGitHub) -> None:
    fake.open_pr(33, "carol", code_files("carol"))
    result = run_judge(code_arena, fake, 33)
    fake.fail("POST", r"/issues/33/comments$", 500, times=10)
    with pytest.raises(Exception, match="comment on #33"):
        run_code_publish(code_arena, fake, result)
    assert len(code_arena.rows()) == 1 and fake.bot_comments(33) == []
    fake.faults.clear()

    def never(*a: object, **k: object) -> None:
        raise AssertionError("the recorded row must not be judged again")

    again, published = run_code_pr(code_arena, fake, 33, judge=never)
    assert again.status == "accepted" and again.already_recorded
    assert len(code_arena.rows()) == 1 and len(fake.bot_comments(33)) == 1


@pytest.mark.slow
def test_same_files_again_are_not_a_second_entry(code_arena: Arena, fake: FakeGitHub) -> None:
    fake.open_pr(34, "dave", code_files("dave"))
    run_code_pr(code_arena, fake, 34)
    fake.open_pr(35, "dave", code_files("dave", metadata={"entrant": "human", "method": "again"}))
    result, published = run_code_pr(code_arena, fake, 35)
    assert result.status == "accepted" and result.duplicate and published.push is None
    assert len(code_arena.rows()) == 1
    [answer] = fake.bot_comments(35)
    assert "already judged and recorded in pull request #34" in answer


def test_forged_artifact_is_refused_by_publish(code_arena: Arena, fake: FakeGitHub,
                                               tmp_path) -> None:
    """The publish job trusts nothing in the artifact it can check without running code."""
    fake.open_pr(36, "erin", code_files("erin", {"lc997": LC997, "lc1557": LC1557_WRONG}))
    result = run_judge(code_arena, fake, 36)
    raw = json.loads(result.model_dump_json())
    forged = json.loads(json.dumps(raw))
    forged["row"]["scores"]["passed"] = forged["row"]["scores"]["cases"]
    forged["row"]["scores"]["pass_rate"] = 1.0
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged))
    with pytest.raises(Exception, match="case counts do not add up"):
        read_code_result(path)
    # an interval narrower than the counts give (claiming a certainty 2 problems cannot)
    forged = json.loads(json.dumps(raw))
    forged["row"]["intervals"]["pass_rate"]["low"] = forged["row"]["scores"]["pass_rate"]
    path.write_text(json.dumps(forged))
    with pytest.raises(Exception, match="interval is not the one its counts give"):
        read_code_result(path)
    # files swapped after judging: the blobs no longer hash to the judged digest
    swapped = CodeResult.model_validate({**raw, "files": {
        **raw["files"], "lc997.py": raw["files"]["lc1557.py"]}})
    with pytest.raises(Exception, match="do not hash to the judged digest"):
        publish_code_result(client(fake, WRITE_TOKEN), swapped, root=code_arena.clone(),
                            bot_login=BOT_LOGIN, sleep=Sleeps())
    assert code_arena.rows() == [] and fake.bot_comments(36) == []


def test_cli_score_then_publish(code_arena: Arena, fake: FakeGitHub, tmp_path,
                                monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    fake.open_pr(37, "frank", code_files("frank"))
    out = tmp_path / "artifact" / "result.json"
    common = ["--repo", fake.full_name, "--pr", "37", "--api-url", fake.base_url,
              "--bot-login", BOT_LOGIN]
    monkeypatch.setenv("GITHUB_TOKEN", READ_TOKEN)
    assert main(["ci", "code", "score", *common, "--root", str(code_arena.clone()),
                 "--out", str(out), "--per-cell", "1", "--jobs", "1"]) == 0
    assert "accepted" in capsys.readouterr().out
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o644  # readable by the artifact upload
    assert fake.writes() == []
    monkeypatch.setenv("GITHUB_TOKEN", WRITE_TOKEN)
    assert main(["ci", "code", "publish", *common, "--root", str(code_arena.clone()),
                 "--result", str(out), "--branch", "main"]) == 0
    assert [r["participant"] for r in code_arena.rows()] == ["frank"]
    assert fake.pulls[37]["state"] == "closed"


def test_solutions_see_neither_the_token_nor_the_repository(
        code_arena: Arena, fake: FakeGitHub, monkeypatch: pytest.MonkeyPatch) -> None:
    """The judge process holds GITHUB_TOKEN and the checkout; the sandboxed solution must not."""
    monkeypatch.setenv("GITHUB_TOKEN", READ_TOKEN)
    root = code_arena.clone("judge-root")
    probe = (
        "import os\n"
        f"SEEN = bool(os.environ.get('GITHUB_TOKEN')) or os.path.exists({str(root)!r})"
        f" or os.path.exists({str(root / 'leaderboard')!r})\n"
    ).encode() + LC997.replace(b"        score = [0] * n", b"        if SEEN:\n"
                               b"            return -7\n        score = [0] * n")
    fake.open_pr(38, "gina", code_files("gina", {"lc997": probe}))
    result = judge_code_pr(client(fake, READ_TOKEN), 38, root=root, bot_login=BOT_LOGIN,
                           per_cell=1, jobs=1)
    assert result.status == "accepted", result.reason
    per = result.row["per_problem"]["lc997"]
    assert per["passed"] == per["cases"] > 0  # the probe saw nothing, so every answer is right
