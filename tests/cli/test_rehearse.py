"""`gnncb rehearse`: a participant's dry run of the pull-request flow, through the real CLI, on a
participant's clone of a repository (the pipeline test bed's toy competitions, sealed to a key
the participant never gets). Each rehearsal makes its own throwaway key pair and runs both
jobs, so those tests take a few seconds of CPU each (marked slow); the mistakes caught before
anything runs are quick."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from evaluator.ci.rehearsal import standin_labels
from evaluator.competition.spec import load_spec
from tests.cli.helpers import run
from tests.helpers.arena import Arena, git
from tests.helpers.paths import REPO

SLUG = "toy-nodes"


@pytest.fixture(autouse=True)
def no_platform_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """The participant's shell: no platform key, no token, no repository in the environment."""
    for name in ("GNNCB_PRIVATE_KEY", "GNNCB_PRIVATE_KEY_PREVIOUS", "GITHUB_TOKEN", "GH_TOKEN",
                 "GNNCB_ROOT", "GITHUB_EVENT_NAME", "GITHUB_EVENT_PATH", "GITHUB_RUN_ID"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def checkout(arena: Arena) -> Path:
    """The participant's clone of the repository."""
    return arena.clone("participant")


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under `folder` (.git included) -> the SHA-256 of its bytes."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and not p.is_symlink()}


def perfect(checkout: Path) -> bytes:
    """Predictions equal to the rehearsal's stand-in labels (the hidden ones are unknown)."""
    folder = checkout / "competitions" / SLUG
    frame = standin_labels(folder, load_spec(folder), "test")
    return frame.to_csv(index=False, lineterminator="\n").encode()


def documented_command() -> list[str]:
    """The one command docs/participants.md gives, as words (without `gnncb`)."""
    text = (REPO / "docs" / "participants.md").read_text(encoding="utf-8")
    [line] = re.findall(r"^gnncb rehearse .*$", text, re.M)
    return shlex.split(line)[1:]


def rehearse(checkout: Path, predictions: Path, capsys: pytest.CaptureFixture[str],
             *extra: object, login: str = "Alice") -> tuple[int, str, str]:
    return run(["rehearse", "--root", checkout, "--competition", SLUG, "--participant", login,
                "--method", "2-layer GCN", *extra, predictions], capsys)


def origin_rows(origin: Path) -> list[dict]:
    text = subprocess.run(["git", "--git-dir", str(origin), "show",
                           "HEAD:leaderboard/ledger.jsonl"], capture_output=True, text=True,
                          check=True).stdout
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.mark.slow
def test_an_accepted_rehearsal_prints_the_bots_acceptance_and_leaves_the_checkout_alone(
        checkout: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    predictions = tmp_path / "predictions.csv"
    predictions.write_bytes(perfect(checkout))
    before = snapshot(checkout)
    kept = tmp_path / "kept-origin.git"
    words = [{"<slug>": SLUG, "<your-login>": "Alice", "predictions.csv": str(predictions)}.get(
        w, w) for w in documented_command()]  # the command the participant guide gives
    code, out, err = run([*words, "--root", checkout, "--keep", kept], capsys)
    assert code == 0, out + err
    assert "### ✅ Submission accepted: toy-nodes" in out
    assert "| accuracy | 1.0000 |" in out  # scored on the stand-in labels it was given
    assert 'label "gnncb: accepted"; the PR is closed' in out
    assert "not on the hidden labels" in out
    assert "[4/5] score job" in out and "[5/5] publish job" in out  # progress, step by step
    assert snapshot(checkout) == before  # nothing written into the participant's repository
    [row] = origin_rows(kept)
    assert row["participant"] == "alice" and row["slug"] == SLUG
    assert row["digest"][:12] in out
    # the kept origin holds no private key: the throwaway key died with the run
    blobs = subprocess.run(["git", "--git-dir", str(kept), "log", "-p", "--all"],
                           capture_output=True, text=True, check=True).stdout
    assert "PRIVATE KEY" not in blobs


@pytest.mark.slow
def test_a_bad_predictions_file_prints_the_rejection_the_bot_would_post(
        checkout: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = perfect(checkout).decode().splitlines()
    predictions = tmp_path / "predictions.csv"
    predictions.write_text("\n".join(lines[:5] + ["1234567,7"]) + "\n")  # short; a bad class
    before = snapshot(checkout)
    code, out, err = rehearse(checkout, predictions, capsys)
    assert code == 1, out + err
    assert "Submission rejected" in out and "invalid-predictions" in out
    assert "at line(s) 6" in out  # where: the bot's validation, with the line
    assert 'label "gnncb: rejected"; the PR is closed' in out
    assert "a rejection costs no submission" in out
    assert snapshot(checkout) == before


@pytest.mark.slow
def test_the_ledger_account_of_the_login_is_the_rehearsals_author(
        arena: Arena, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Alice submitted before, from GitHub account 4242: the rehearsal is that account (another
    id would be refused as a reused login), and her earlier submission counts against her."""
    arena.commit_rows([{
        "type": "submission", "slug": SLUG, "version": 1, "participant": "alice",
        "participant_id": 4242, "pr": 7, "entrant": "human", "digest": "d" * 64,
        "method": "earlier", "scores": {"accuracy": 0.5, "macro_f1": 0.5},
        "submitted_at": "2020-01-01T00:00:00Z", "scored_at": "2020-01-01T00:00:00Z"}])
    checkout = arena.clone("participant")
    predictions = tmp_path / "predictions.csv"
    predictions.write_bytes(perfect(checkout))
    kept = tmp_path / "kept.git"
    code, out, err = rehearse(checkout, predictions, capsys, "--keep", kept)
    assert code == 0, out + err
    assert "PR #8" in out  # after the ledger's last pull request
    row = origin_rows(kept)[-1]
    assert row["participant_id"] == 4242 and row["pr"] == 8
    assert "**Submissions left:** 1 for version 1" in out  # 3 per version, the earlier counts


@pytest.mark.slow
def test_two_rehearsals_in_two_processes_are_the_same_account(
        checkout: Path, tmp_path: Path) -> None:
    """The old bug: the stand-in's account id came from `hash(login)`, which changes with each
    interpreter's hash seed, so a second local rehearsal was another account."""
    predictions = tmp_path / "predictions.csv"
    predictions.write_bytes(perfect(checkout))
    ids = []
    for seed in ("1", "2"):
        kept = tmp_path / f"kept-{seed}.git"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GNNCB_", "GITHUB_"))}
        proc = subprocess.run(
            [sys.executable, "-m", "evaluator.cli", "rehearse", "--root", str(checkout),
             "--competition", SLUG, "--participant", "Alice", "--method", "GCN", "--keep",
             str(kept), str(predictions)],
            capture_output=True, text=True, cwd=tmp_path,
            env={**env, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO)}, check=False)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        [row] = origin_rows(kept)
        ids.append(row["participant_id"])
    assert ids[0] == ids[1] and isinstance(ids[0], int)


@pytest.mark.parametrize(("args", "expected"), [
    (["--competition", SLUG, "--participant", "alice", "--method", "m", "missing.csv"],
     "predictions file missing.csv does not exist; give the path of your predictions.csv"),
    (["--competition", "toy-node", "--participant", "alice", "--method", "m", "p.csv"],
     "toy-nodes"),
    (["--competition", SLUG, "--participant", "alice", "p.csv"], "--method"),
    (["--competition", SLUG, "--participant", "alice", "--metadata", "nope.json", "p.csv"],
     "--metadata nope.json does not exist"),
])
def test_mistakes_are_told_before_anything_runs(
        checkout: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, args: list[str], expected: str) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.csv").write_text("id,label\n")
    code, out, err = run(["rehearse", "--root", checkout, *args], capsys)
    assert code == 2
    assert expected in err
    assert "Traceback" not in err and "[1/5]" not in out


def test_a_folder_that_is_not_a_git_checkout_is_told_how_to_fix_it(
        checkout: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    copy = tmp_path / "no-git"
    shutil.copytree(checkout, copy, ignore=shutil.ignore_patterns(".git"))
    (tmp_path / "p.csv").write_bytes(perfect(checkout))
    code, _, err = rehearse(copy, tmp_path / "p.csv", capsys)
    assert code == 2
    assert "is not a git checkout" in err and "git clone" in err
    git(checkout, "status")  # the original clone is untouched and still a repository
