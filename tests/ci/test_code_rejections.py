"""Code-track pull requests that must be refused: a clear answer naming the path, no ledger
change, and no participant code run (the judge is a spy that fails the test if called)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from evaluator.ci.code.score import judge_code_pr
from evaluator.ci.comment import MARKER_PREFIX
from evaluator.render.boards import md_escape
from tests.ci.helpers import (
    LC997,
    code_files,
    folder,
    run_code_pr,
    run_code_publish,
    run_judge,
)
from tests.helpers.arena import Arena, client, run_pr
from tests.helpers.fake_github import BOT_LOGIN, READ_TOKEN, FakeGitHub, Symlink

OWN = folder("alice")


def never_judge(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("participant code must not run for a rejected submission")


CASES: dict[str, tuple[dict[str, Any], str, str]] = {
    # name: (PR files, reason code, path the answer must name)
    "other participant's folder": (
        code_files("bob"), "other-participant", f"{folder('bob')}/solutions/lc997.py"),
    "path outside the submissions": (
        {**code_files("alice"), "competitions/graph-coding/README.md": b"# mine\n"},
        "outside-submission", "competitions/graph-coding/README.md"),
    "another competition's folder": (
        {**code_files("alice"),
         "competitions/toy-nodes/submissions/alice/metadata.json": b"{}"},
        "outside-submission", "competitions/toy-nodes/submissions/alice/metadata.json"),
    "unknown problem id": (
        code_files("alice", {"lc997": LC997, "lc99999": LC997}), "unknown-problem",
        f"{OWN}/solutions/lc99999.py"),
    "extra file": (
        {**code_files("alice"), f"{OWN}/solutions/helpers.txt": b"x\n"}, "extra-file",
        f"{OWN}/solutions/helpers.txt"),
    "nested solution": (
        {**code_files("alice"), f"{OWN}/solutions/util/lc997.py": LC997}, "extra-file",
        f"{OWN}/solutions/util/lc997.py"),
    "PR touching a workflow": (
        {**code_files("alice"), ".github/workflows/evaluate-code.yml": b"on: push\n"},
        "platform-path", ".github/workflows/evaluate-code.yml"),
    "PR touching the evaluator": (
        {**code_files("alice"), "evaluator/ci/code/score.py": b"# patched\n"},
        "platform-path", "evaluator/ci/code/score.py"),
    "shell metacharacters in a name": (
        {**code_files("alice"), f"{OWN}/solutions/$(id).py": LC997}, "unsafe-path",
        f"{OWN}/solutions/$(id).py"),
    "metadata only": (
        {f"{OWN}/metadata.json": b'{"entrant": "human"}'}, "missing-file", f"{OWN}/solutions/"),
    "symlink": (
        {**code_files("alice"), f"{OWN}/solutions/lc997.py": Symlink("../../../../../keys")},
        "symlink", f"{OWN}/solutions/lc997.py"),
    "oversize solution": (
        code_files("alice", {"lc997": LC997 + b"#" * (65 * 1024)}), "too-large",
        f"{OWN}/solutions/lc997.py"),
    "not UTF-8": (
        code_files("alice", {"lc997": LC997 + b"# \xff\xfe\n"}), "invalid-solution",
        f"{OWN}/solutions/lc997.py"),
    "baseline entrant claimed": (
        code_files("alice", metadata={"entrant": "baseline", "method": "m"}),
        "invalid-metadata", "entrant"),
    "LLM entrant claimed": (
        code_files("alice", metadata={"entrant": "llm-api", "method": "m", "model": "gpt"}),
        "invalid-metadata", "reserved for the platform's own runs"),
    "metadata naming someone else": (
        code_files("alice", metadata={"participant": "bob", "entrant": "human"}),
        "invalid-metadata", "bob"),
    "unknown metadata field": (
        code_files("alice", metadata={"entrant": "human", "score": 1.0}),
        "invalid-metadata", "score"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CASES))
def test_rejected_with_a_clear_answer_and_no_side_effect(code_arena: Arena, fake: FakeGitHub,
                                                         name: str) -> None:
    files, code, named = CASES[name]
    fake.open_pr(11, "alice", files)
    head = code_arena.head()
    result = run_judge(code_arena, fake, 11, judge=never_judge)
    assert (result.status, result.code) == ("rejected", code), result.reason
    assert fake.writes() == []  # the judging phase never writes
    published = run_code_publish(code_arena, fake, result)
    assert published.push is None and code_arena.head() == head  # nothing recorded
    [answer] = fake.bot_comments(11)
    assert MARKER_PREFIX in answer and "Submission rejected" in answer
    assert md_escape(named) in answer
    assert "How to fix" in answer
    assert fake.labels[11] == ["gnncb: rejected"] and fake.pulls[11]["state"] == "closed"


def test_every_offending_path_is_listed(code_arena: Arena, fake: FakeGitHub) -> None:
    files = {**code_files("alice"), f"{OWN}/notes.md": b"x", ".github/workflows/x.yml": b"x",
             f"{folder('bob')}/solutions/lc997.py": LC997}
    fake.open_pr(12, "alice", files)
    result = run_judge(code_arena, fake, 12, judge=never_judge)
    assert {p.path for p in result.problems} == {
        f"{OWN}/notes.md", ".github/workflows/x.yml", f"{folder('bob')}/solutions/lc997.py"}


def test_over_the_daily_limit_is_refused_before_judging(code_arena: Arena,
                                                        fake: FakeGitHub) -> None:
    now = datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    code_arena.commit_rows([
        {"type": "submission", "digest": f"{i:064x}", "slug": "graph-coding", "version": 1,
         "participant": "alice", "participant_id": None, "entrant": "human",
         "scores": {"pass_rate": 0.1, "problems_solved": 0}, "scored_at": now}
        for i in range(3)])
    fake.open_pr(13, "alice", code_files("alice"))
    result = run_judge(code_arena, fake, 13, judge=never_judge)
    assert (result.status, result.code) == ("rejected", "over-limit")
    assert "24 hours" in result.reason


def test_identical_files_of_another_participant_are_copied(code_arena: Arena,
                                                           fake: FakeGitHub) -> None:
    from evaluator.ci.code.fetch import digest_of

    digest = digest_of({"lc997.py": LC997, "lc1557.py": code_files("x")[
        f"{folder('x')}/solutions/lc1557.py"]})
    code_arena.commit_rows([{"type": "submission", "digest": digest, "slug": "graph-coding",
                             "version": 1, "participant": "bob", "entrant": "human",
                             "scores": {"pass_rate": 0.5, "problems_solved": 1},
                             "scored_at": "2026-01-01T00:00:00Z"}])
    fake.open_pr(14, "alice", code_files("alice"))
    result = run_judge(code_arena, fake, 14, judge=never_judge)
    assert (result.status, result.code) == ("rejected", "copied")


def test_wrong_base_and_bots_are_refused(code_arena: Arena, fake: FakeGitHub) -> None:
    fake.open_pr(15, "alice", code_files("alice"), base="dev")
    assert run_judge(code_arena, fake, 15, judge=never_judge).code == "wrong-base"
    fake.open_pr(16, "dependabot", code_files("dependabot"), author_type="Bot")
    assert run_judge(code_arena, fake, 16, judge=never_judge).code == "invalid-author"


def test_closed_pr_is_skipped_without_an_answer(code_arena: Arena, fake: FakeGitHub) -> None:
    fake.open_pr(17, "alice", code_files("alice"), state="closed")
    result, published = run_code_pr(code_arena, fake, 17, judge=never_judge)
    assert (result.status, result.code) == ("skipped", "closed")
    assert fake.bot_comments(17) == [] and fake.writes() == []


def test_a_rejection_is_answered_once_on_rerun(code_arena: Arena, fake: FakeGitHub) -> None:
    fake.open_pr(18, "alice", code_files("alice", {"lc99999": LC997}))
    run_code_pr(code_arena, fake, 18, judge=never_judge)
    fake.pulls[18]["state"] = "open"  # reopened: the workflow runs again
    result, _ = run_code_pr(code_arena, fake, 18, judge=never_judge)
    assert (result.status, result.code) == ("skipped", "already-answered")
    assert len(fake.bot_comments(18)) == 1 and fake.pulls[18]["state"] == "closed"


# -- routing between the two pipelines ---------------------------------------------------------


def test_encrypted_pipeline_leaves_code_track_prs_alone(code_arena: Arena,
                                                        fake: FakeGitHub) -> None:
    fake.open_pr(21, "alice", code_files("alice", metadata={"entrant": "human"}))
    result, published = run_pr(code_arena, fake, 21)
    assert (result.status, result.code) == ("skipped", "code-track")
    assert fake.bot_comments(21) == [] and fake.pulls[21]["state"] == "open"
    assert published.push is None and not published.closed


def test_a_mixed_pr_is_answered_once_by_whichever_pipeline_runs_first(
        code_arena: Arena, fake: FakeGitHub) -> None:
    files = {**code_files("alice"), **code_arena.files("toy-nodes", "alice")}
    fake.open_pr(22, "alice", files)
    encrypted, _ = run_pr(code_arena, fake, 22)
    assert encrypted.status == "rejected"  # graph-coding paths are not an encrypted submission
    fake.pulls[22]["state"] = "open"
    code, _ = run_code_pr(code_arena, fake, 22, judge=never_judge)
    assert (code.status, code.code) == ("skipped", "already-answered")
    assert len(fake.bot_comments(22)) == 1 and code_arena.rows() == []


def test_judge_phase_uses_only_the_read_token(code_arena: Arena, fake: FakeGitHub) -> None:
    fake.open_pr(23, "alice", code_files("alice", {"lc99999": LC997}))
    judge_code_pr(client(fake, READ_TOKEN), 23, root=code_arena.clone(), bot_login=BOT_LOGIN,
                  judge=never_judge)
    assert fake.log and {token for _, _, token in fake.log} == {READ_TOKEN}
    assert fake.writes() == []


def test_metadata_json_is_parsed_as_data(code_arena: Arena, fake: FakeGitHub) -> None:
    """A hostile metadata.json (deep nesting, huge number) is refused, never evaluated."""
    deep = ("[" * 2000 + "]" * 2000).encode()  # deeper than the interpreter's recursion limit
    fake.open_pr(24, "alice", {**code_files("alice"), f"{OWN}/metadata.json": deep})
    result = run_judge(code_arena, fake, 24, judge=never_judge)
    assert (result.status, result.code) == ("rejected", "invalid-metadata")
    big = json.dumps({"entrant": "human", "method": "x" * 5000}).encode()
    fake.open_pr(25, "alice", {**code_files("alice"), f"{OWN}/metadata.json": big})
    assert run_judge(code_arena, fake, 25, judge=never_judge).code == "too-large"


def test_judge_refuses_to_run_code_without_full_isolation(
        code_arena: Arena, fake: FakeGitHub, tmp_path, monkeypatch: pytest.MonkeyPatch,
        capsys) -> None:
    """A runner that cannot isolate fails the job (exit 2, no verdict, nothing recorded) rather
    than run participant code unsandboxed."""
    from evaluator import sandbox
    from evaluator.cli import main

    monkeypatch.setattr(sandbox, "detect_isolation", lambda: sandbox.Isolation(
        False, False, False, False, "none", detail="not running as root"))
    fake.open_pr(26, "alice", code_files("alice"))
    monkeypatch.setenv("GITHUB_TOKEN", READ_TOKEN)
    out = tmp_path / "result.json"
    code = main(["ci", "code", "score", "--repo", fake.full_name, "--pr", "26",
                 "--api-url", fake.base_url, "--bot-login", BOT_LOGIN,
                 "--root", str(code_arena.clone()), "--out", str(out)])
    assert code == 2 and not out.exists()
    assert "without full isolation" in capsys.readouterr().err
    assert fake.writes() == [] and fake.bot_comments(26) == [] and code_arena.rows() == []
