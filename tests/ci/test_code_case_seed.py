"""Secret code-track cases in the pull-request pipeline (issue 24, point 4): the keyed seed
phase derives the submission's seed, the keyless judge takes only that seed (and refuses to
judge without it once a secret is committed), publish refuses rows not drawn under the
repository's commitment; fake GitHub over HTTP, a real bare git repository, the real
sandboxed judge on one small problem."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.ci.code.result import read_code_result
from evaluator.ci.code.seed import read_case_seed
from evaluator.cli import main
from evaluator.codetrack.cases import seed_from_digest
from evaluator.codetrack.caseseed import version_secret
from tests.ci.helpers import LC997, code_files, needs_sandbox, run_code_publish, run_judge
from tests.helpers.arena import Arena, git
from tests.helpers.fake_github import BOT_LOGIN, READ_TOKEN, WRITE_TOKEN, FakeGitHub

MASTER = "case-secret-for-tests-" + "5" * 32


def commit_seed(arena: Arena, monkeypatch: pytest.MonkeyPatch) -> None:
    """A maintainer commits the case-seed commitment before submissions open."""
    work = arena.clone()
    monkeypatch.setenv("GNNCB_CODE_SEED", MASTER)
    assert main(["code", "commit-seed", "--root", str(work)]) == 0
    monkeypatch.delenv("GNNCB_CODE_SEED")
    git(work, "add", "competitions")
    git(work, "commit", "-q", "-m", "commit the case secret of graph-coding v1")
    git(work, "push", "-q", "origin", "main")


def _common(fake: FakeGitHub, pr: int) -> list[str]:
    return ["--repo", fake.full_name, "--pr", str(pr), "--api-url", fake.base_url,
            "--bot-login", BOT_LOGIN]


def seed_phase(arena: Arena, fake: FakeGitHub, pr: int, out: Path,
               monkeypatch: pytest.MonkeyPatch, capsys) -> str:
    monkeypatch.setenv("GITHUB_TOKEN", READ_TOKEN)
    monkeypatch.setenv("GNNCB_CODE_SEED", MASTER)
    capsys.readouterr()
    assert main(["ci", "code", "seed", *_common(fake, pr), "--root", str(arena.clone()),
                 "--out", str(out)]) == 0
    monkeypatch.delenv("GNNCB_CODE_SEED")  # the judge job never holds it
    printed = capsys.readouterr()
    return printed.out + printed.err


@needs_sandbox()
@pytest.mark.slow
def test_the_judge_uses_only_the_seed_the_keyed_job_derived(
        code_arena: Arena, fake: FakeGitHub, tmp_path: Path, monkeypatch, capsys) -> None:
    commit_seed(code_arena, monkeypatch)
    fake.open_pr(41, "Alice", code_files("Alice", {"lc997": LC997}))
    seed_file = tmp_path / "seed" / "seed.json"
    printed = seed_phase(code_arena, fake, 41, seed_file, monkeypatch, capsys)
    assert fake.writes() == []
    answer = read_case_seed(seed_file)
    assert answer is not None
    secret = version_secret(MASTER.encode(), "graph-coding", 1).hex()
    for text in (printed, seed_file.read_text()):  # the seed only, never the secret
        assert MASTER not in text and secret not in text and str(answer["seed"]) not in printed
    assert answer["seed"] != seed_from_digest(answer["digest"])

    # the judge without the keyed job's seed refuses to judge on predictable cases
    out = tmp_path / "artifact" / "result.json"
    monkeypatch.setenv("GITHUB_TOKEN", READ_TOKEN)
    capsys.readouterr()
    assert main(["ci", "code", "score", *_common(fake, 41), "--root", str(code_arena.clone()),
                 "--out", str(out), "--per-cell", "1", "--jobs", "1"]) == 2
    assert "no case seed was given" in capsys.readouterr().err
    assert not out.exists()

    assert main(["ci", "code", "score", *_common(fake, 41), "--root", str(code_arena.clone()),
                 "--out", str(out), "--per-cell", "1", "--jobs", "1",
                 "--case-seed", str(seed_file)]) == 0
    result = read_code_result(out)
    assert result.status == "accepted", result.reason
    row = result.row or {}
    assert row["seed"] == answer["seed"] and row["digest"] == answer["digest"]
    assert row["declared"]["seed_source"] == "secret+digest"
    assert row["case_commitment"] == answer["case_commitment"]
    assert set(row["cases_sha256"]) == {"lc997"}

    monkeypatch.setenv("GITHUB_TOKEN", WRITE_TOKEN)
    assert main(["ci", "code", "publish", *_common(fake, 41), "--root",
                 str(code_arena.clone()), "--result", str(out), "--branch", "main"]) == 0
    [recorded] = code_arena.rows()
    assert recorded["seed"] == answer["seed"] and recorded["case_commitment"]


@needs_sandbox()
@pytest.mark.slow
def test_publish_refuses_a_row_not_drawn_under_the_commitment(
        code_arena: Arena, fake: FakeGitHub, monkeypatch) -> None:
    """A judge that fell back to digest seeds (or a forged artifact) is not recorded."""
    fake.open_pr(42, "bob", code_files("bob", {"lc997": LC997}))
    result = run_judge(code_arena, fake, 42)  # before the secret was committed
    assert result.status == "accepted" and result.row
    assert result.row["seed"] == seed_from_digest(result.digest or "")
    commit_seed(code_arena, monkeypatch)
    with pytest.raises(Exception, match="refusing to record"):
        run_code_publish(code_arena, fake, result)
    assert code_arena.rows() == [] and fake.bot_comments(42) == []


def test_no_seed_for_a_pull_request_the_judge_refuses(
        code_arena: Arena, fake: FakeGitHub, tmp_path: Path, monkeypatch, capsys) -> None:
    """The seed job derives nothing for files that will not be judged and counted."""
    commit_seed(code_arena, monkeypatch)
    files = code_files("carol", {"lc997": LC997})
    files["competitions/graph-coding/submissions/carol/notes.txt"] = b"hello"
    fake.open_pr(43, "carol", files)
    out = tmp_path / "seed.json"
    seed_phase(code_arena, fake, 43, out, monkeypatch, capsys)
    answer = json.loads(out.read_text())
    assert answer["status"] == "rejected" and "seed" not in answer
    assert read_case_seed(out) is None
