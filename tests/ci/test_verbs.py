"""The verbs the workflow runs (`gnncb ci pr score|publish`) and the maintainer's ledger
corrections (`gnncb ledger withdraw|rescore`), through the real command line entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from evaluator.authoring.build import seal_labels
from evaluator.cli import main
from evaluator.competition.spec import load_spec
from evaluator.submission import keys
from tests.helpers.arena import Arena, git, ledger_rows, published_two, truth_for
from tests.helpers.fake_github import BOT_LOGIN, READ_TOKEN, WRITE_TOKEN, FakeGitHub
from tests.helpers.paths import REPO


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, arena: Arena) -> pytest.MonkeyPatch:
    for name in ("GITHUB_TOKEN", "GH_TOKEN", "GNNCB_PRIVATE_KEY", "GNNCB_PRIVATE_KEY_PREVIOUS",
                 "GITHUB_RUN_ID", "GITHUB_REPOSITORY", "GITHUB_ACTOR", "GITHUB_EVENT_PATH",
                 "GITHUB_EVENT_NAME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GNNCB_PRIVATE_KEY", arena.keypair.pem)
    return monkeypatch


def score_cli(arena: Arena, fake: FakeGitHub, env: pytest.MonkeyPatch, out: Path,
              pr: int = 1) -> int:
    env.setenv("GITHUB_TOKEN", READ_TOKEN)
    return main(["ci", "pr", "score", "--repo", fake.full_name, "--pr", str(pr), "--out",
                 str(out), "--root", str(arena.clone()), "--api-url", fake.base_url,
                 "--bot-login", BOT_LOGIN])


def publish_cli(arena: Arena, fake: FakeGitHub, env: pytest.MonkeyPatch, result: Path,
                pr: int = 1) -> int:
    env.setenv("GITHUB_TOKEN", WRITE_TOKEN)
    env.setenv("GITHUB_RUN_ID", "4242")
    env.setenv("GITHUB_REPOSITORY", fake.full_name)
    return main(["ci", "pr", "publish", "--repo", fake.full_name, "--pr", str(pr), "--result",
                 str(result), "--root", str(arena.clone()), "--api-url", fake.base_url,
                 "--bot-login", BOT_LOGIN])


def test_score_then_publish(arena: Arena, fake: FakeGitHub, env: pytest.MonkeyPatch,
                            tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake.open_pr(1, "alice", arena.files("toy-nodes", "alice", wrong=1))
    out = tmp_path / "artifact" / "result.json"
    assert score_cli(arena, fake, env, out) == 0
    assert json.loads(out.read_text())["status"] == "accepted"
    assert publish_cli(arena, fake, env, out) == 0
    assert [r["participant"] for r in arena.rows()] == ["alice"]
    assert "actions/runs/4242" in fake.bot_comments(1)[0]
    printed = capsys.readouterr()
    assert "PR #1 by alice: accepted" in printed.out
    assert "PRIVATE" not in printed.out + printed.err


def test_a_rejection_is_a_successful_run(arena: Arena, fake: FakeGitHub,
                                         env: pytest.MonkeyPatch, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    files = arena.files("toy-nodes", "alice")
    files["competitions/toy-nodes/submissions/alice/x\n::error::forged"] = b"x"
    fake.open_pr(1, "alice", files)
    assert score_cli(arena, fake, env, tmp_path / "r.json") == 0
    printed = capsys.readouterr().out
    assert "rejected (unsafe-path)" in printed
    assert "\n::error::" not in printed  # the hostile name cannot start a log line


@pytest.mark.slow
def test_key_rotation_uses_the_previous_key(arena: Arena, fake: FakeGitHub,
                                            env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    keys.generate(tmp_path / "new", bits=3072)
    env.setenv("GNNCB_PRIVATE_KEY", (tmp_path / "new" / "private.pem").read_text())
    fake.open_pr(1, "alice", arena.files("toy-nodes", "alice"))
    out = tmp_path / "r.json"
    assert score_cli(arena, fake, env, out) == 0
    assert json.loads(out.read_text())["code"] == "wrong-key"  # only the new key: refused
    fake.open_pr(2, "bob", arena.files("toy-nodes", "bob"))
    env.setenv("GNNCB_PRIVATE_KEY_PREVIOUS", arena.keypair.pem)
    assert score_cli(arena, fake, env, out, pr=2) == 0
    assert json.loads(out.read_text())["status"] == "accepted"


def test_platform_failure_exits_2_and_writes_nothing(arena: Arena, fake: FakeGitHub,
                                                     env: pytest.MonkeyPatch, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    fake.open_pr(1, "alice", arena.files("toy-nodes", "alice"))
    fake.fail("GET", r"/pulls/1$", 401, message="Bad credentials")
    out = tmp_path / "r.json"
    assert score_cli(arena, fake, env, out) == 2
    assert not out.exists()
    assert "HTTP 401" in capsys.readouterr().err
    env.delenv("GNNCB_PRIVATE_KEY")
    env.setenv("GITHUB_TOKEN", "")
    assert main(["ci", "pr", "score", "--repo", fake.full_name, "--pr", "1", "--out",
                 str(out), "--api-url", fake.base_url]) == 2


def test_a_hand_edited_ledger_line_stops_both_jobs_with_file_and_line(
        arena: Arena, fake: FakeGitHub, env: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A withdrawal whose digest a maintainer deleted by hand crashed the keyed job (and the
    publish job) with KeyError: now both stop with the line and what is wrong, and nothing is
    written or answered."""
    fake.open_pr(1, "alice", arena.files("toy-nodes", "alice"))
    out = tmp_path / "r.json"
    assert score_cli(arena, fake, env, out) == 0  # scored on a clean ledger
    arena.commit_rows([{"type": "withdrawal", "slug": "toy-nodes", "version": 1,
                        "reason": "edited by hand"}])
    capsys.readouterr()
    assert publish_cli(arena, fake, env, out) == 2
    err = capsys.readouterr().err
    want = "leaderboard/ledger.jsonl, line 1: withdrawal row without 'digest'; "
    assert want in err and "restore the line from git" in err and "Traceback" not in err, err
    assert fake.comments[1] == [] and len(arena.rows()) == 1
    fresh = tmp_path / "again.json"
    assert score_cli(arena, fake, env, fresh) == 2
    err = capsys.readouterr().err
    assert want in err and "Traceback" not in err, err
    assert not fresh.exists()


def test_publish_refuses_a_result_for_another_pr(arena: Arena, fake: FakeGitHub,
                                                 env: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    fake.open_pr(1, "alice", arena.files("toy-nodes", "alice"))
    fake.open_pr(2, "bob", arena.files("toy-nodes", "bob"))
    out = tmp_path / "r.json"
    assert score_cli(arena, fake, env, out) == 0
    assert publish_cli(arena, fake, env, out, pr=2) == 2
    forged = json.loads(out.read_text())
    forged["row"]["participant"] = "bob"
    out.write_text(json.dumps(forged))
    assert publish_cli(arena, fake, env, out) == 2  # row disagrees with the author
    assert arena.rows() == [] and fake.comments[1] == [] and fake.comments[2] == []


# -- maintainer corrections ----------------------------------------------------------------


def test_withdraw_appends_an_audit_line(arena: Arena, fake: FakeGitHub,
                                        env: pytest.MonkeyPatch) -> None:
    bob = published_two(arena, fake)[1]
    root = arena.clone()
    args = ["ledger", "withdraw", bob["digest"][:12], "--reason", "used the test labels",
            "--by", "maintainer", "--root", str(root)]
    assert main(args) == 0
    rows = ledger_rows(root)
    assert len(rows) == 3 and rows[:2] == arena.rows()  # history kept, one line appended
    assert rows[2]["type"] == "withdrawal" and rows[2]["digest"] == bob["digest"]
    assert (rows[2]["reason"], rows[2]["by"]) == ("used the test labels", "maintainer")
    page = (root / "leaderboard" / "toy-nodes.md").read_text()
    assert "alice" in page and "bob" not in page
    assert main(args) == 0 and len(ledger_rows(root)) == 3  # twice: nothing new
    assert main(["ledger", "withdraw", "0" * 12, "--reason", "x", "--root", str(root)]) == 2
    assert main(["ledger", "withdraw", "abc", "--reason", "x", "--root", str(root)]) == 2


@pytest.mark.slow
def test_rescore_after_a_label_fix(arena: Arena, fake: FakeGitHub, env: pytest.MonkeyPatch,
                                   tmp_path: Path) -> None:
    before = published_two(arena, fake)  # alice 0.9, bob 1.0
    root = arena.clone()
    competition = root / "competitions" / "toy-nodes"
    fixed = truth_for("toy-nodes")
    fixed.loc[:1, "label"] = 1 - fixed.loc[:1, "label"]  # two labels were wrong
    seal_labels(pd.DataFrame(fixed), load_spec(competition), "test", arena.keypair.public,
                competition / "hidden" / "test_labels.jwe")
    key_file = tmp_path / "private.pem"
    key_file.write_text(arena.keypair.pem)
    args = ["ledger", "rescore", "toy-nodes", "--private-key", str(key_file), "--root",
            str(root), "--reason", "labels 0-1 corrected", "--by", "maintainer"]
    assert main([*args, "--dry-run"]) == 0
    assert len(ledger_rows(root)) == 2
    assert main(args) == 0
    rows = ledger_rows(root)
    rescored = {r["target"]: r for r in rows if r["type"] == "rescore"}
    assert set(rescored) == {r["digest"] for r in before}
    assert rescored[before[0]["digest"]]["scores"]["accuracy"] == 1.0  # alice's 2 "errors"
    assert rescored[before[1]["digest"]]["scores"]["accuracy"] == 0.9
    assert rescored[before[1]["digest"]]["previous"]["accuracy"] == 1.0
    page = (root / "leaderboard" / "toy-nodes.md").read_text()
    assert page.index("alice") < page.index("bob")  # the leaderboard follows the ledger
    assert main(args) == 0 and len(ledger_rows(root)) == 4  # idempotent


@pytest.mark.slow
def test_rescore_needs_the_stored_envelopes(arena: Arena, fake: FakeGitHub,
                                            env: pytest.MonkeyPatch) -> None:
    rows = published_two(arena, fake)
    root = arena.clone()
    (root / "leaderboard" / "envelopes" / f"{rows[0]['digest']}.jwe").unlink()
    git(root, "commit", "-q", "-am", "lose an envelope")
    assert main(["ledger", "rescore", "toy-nodes", "--root", str(root)]) == 2
    assert main(["ledger", "rescore", "toy-nodes", "--root", str(root), "--skip-missing"]) == 0
    assert len(ledger_rows(root)) == 2  # labels unchanged: nothing to correct


@pytest.mark.slow
def test_pipeline_runs_without_the_heavy_extras(tmp_path: Path) -> None:
    """The workflows install core dependencies only: the CI verbs must not import torch,
    torch-geometric, RDKit or any test-only package."""
    import subprocess
    import sys

    (tmp_path / "sitecustomize.py").write_text(
        "import sys\n"
        "class Block:\n"
        "    names = {'torch', 'torch_geometric', 'rdkit', 'openai', 'jwcrypto', 'joserfc',\n"
        "             'hypothesis', 'pytest', 'pytest_httpserver'}\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in self.names:\n"
        "            raise ImportError('blocked: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n")
    repo = REPO
    code = ("import evaluator.ci.predictions.score, evaluator.ci.predictions.publish, "
            "evaluator.repo.corrections\n"
            "from evaluator.cli import main\n"
            "raise SystemExit(main(['ci', 'pr', 'score', '--help']))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={"PYTHONPATH": f"{tmp_path}:{repo}", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "--private-key" in proc.stdout
