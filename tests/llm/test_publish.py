"""The workflow's last two steps, locally: score sealed runs (key) -> publish rows (no key) to a
real bare git "origin", through the same record/commit code as pull-request submissions."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from evaluator.cli import main
from tests.helpers.llm import API_KEY, MAJORITY, UNSANDBOXED_FLAGS, ScriptedLLM


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
                          cwd=cwd, check=True, capture_output=True, text=True).stdout


def make_origin(tmp_path: Path, competition: Path) -> Path:
    origin = tmp_path / "origin.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(origin)], check=True)
    work = tmp_path / "checkout"
    subprocess.run(["git", "clone", "-q", str(origin), str(work)], check=True,
                   capture_output=True)
    shutil.copytree(competition, work / "competitions" / competition.name)
    (work / "leaderboard").mkdir()
    (work / "leaderboard" / "ledger.jsonl").write_text("")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "init")
    git(work, "push", "-q", "origin", "HEAD:main")
    return work


@pytest.mark.slow
def test_score_then_publish_lands_rows_on_origin(keypair, demo_competition, tmp_path,
                                                 httpserver, monkeypatch, capsys):
    work = make_origin(tmp_path, demo_competition)
    competition = work / "competitions" / demo_competition.name
    monkeypatch.setenv("GNNCB_TEST_LLM_KEY", API_KEY)
    llm = ScriptedLLM(httpserver, [MAJORITY])
    runs = tmp_path / "runs"
    # matrix job: run and seal, no private key
    assert main(["llm", "run", "--competition", str(competition), "--model", "m1",
                 "--base-url", llm.base_url, "--api-key-env", "GNNCB_TEST_LLM_KEY",
                 "--public-key", str(keypair["public_path"]), "--no-score", "--runs", str(runs),
                 "--campaign", "wf", "--wall-seconds", "60", *UNSANDBOXED_FLAGS]) == 0
    # score job: private key, scratch ledger, rows file
    rows = tmp_path / "rows.jsonl"
    assert main(["llm", "score", "--runs", str(runs / "wf"), "--private-key",
                 str(keypair["private_path"]), "--ledger", str(tmp_path / "scratch.jsonl"),
                 "--rows-out", str(rows), "--competitions", str(competition.parent)]) == 0
    [row] = [json.loads(line) for line in rows.read_text().splitlines()]
    # publish job: no key, pushes one commit
    assert main(["llm", "publish", "--runs", str(runs / "wf"), "--rows", str(rows),
                 "--root", str(work)]) == 0
    assert "published 1 row(s)" in capsys.readouterr().out
    origin = tmp_path / "origin.git"
    ledger = subprocess.run(["git", "--git-dir", str(origin), "show",
                             "main:leaderboard/ledger.jsonl"], capture_output=True, text=True,
                            check=True).stdout
    [published] = [json.loads(line) for line in ledger.splitlines()]
    # the ledger links each line to the one before (issue 26's chain): the rest is the row
    assert {k: v for k, v in published.items() if k != "prev"} == row
    assert published["participant"] == "llm:m1"
    stored = subprocess.run(["git", "--git-dir", str(origin), "show",
                             f"main:leaderboard/envelopes/{row['digest']}.jwe"],
                            capture_output=True, check=True).stdout
    sealed = (runs / "wf" / "m1" / competition.name / "submission" / "predictions.csv.enc")
    assert stored.strip() == sealed.read_bytes().strip()
    page = subprocess.run(["git", "--git-dir", str(origin), "show",
                           f"main:leaderboard/{competition.name}.md"], capture_output=True,
                          text=True, check=True).stdout
    assert "llm\\:m1" in page or "llm:m1" in page
    # idempotent: publishing again records nothing
    assert main(["llm", "publish", "--runs", str(runs / "wf"), "--rows", str(rows),
                 "--root", str(work)]) == 0
    assert "nothing to publish" in capsys.readouterr().out


def test_publish_refuses_rows_that_are_not_llm_entrants(tmp_path, capsys):
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"type": "submission", "digest": "ab", "entrant": "human"}) + "\n")
    assert main(["llm", "publish", "--runs", str(tmp_path), "--rows", str(rows),
                 "--root", str(tmp_path)]) == 2
    assert "not an LLM entrant" in capsys.readouterr().err


def test_a_run_claiming_a_human_identity_is_rejected_before_decryption(
        keypair, demo_competition, tmp_path, httpserver, monkeypatch, capsys):
    monkeypatch.setenv("GNNCB_TEST_LLM_KEY", API_KEY)
    llm = ScriptedLLM(httpserver, [MAJORITY])
    runs = tmp_path / "runs"
    assert main(["llm", "run", "--competition", str(demo_competition), "--model", "m1",
                 "--base-url", llm.base_url, "--api-key-env", "GNNCB_TEST_LLM_KEY",
                 "--public-key", str(keypair["public_path"]), "--no-score", "--runs", str(runs),
                 "--wall-seconds", "60", *UNSANDBOXED_FLAGS]) == 0
    run = runs / "adhoc" / "m1" / demo_competition.name
    summary = json.loads((run / "summary.json").read_text())
    summary["participant"] = "alice"  # a forged summary, e.g. from a compromised matrix job
    (run / "summary.json").write_text(json.dumps(summary))
    assert main(["llm", "score", "--runs", str(runs / "adhoc"), "--private-key",
                 str(keypair["private_path"]), "--ledger", str(tmp_path / "l.jsonl"),
                 "--competitions", str(demo_competition.parent)]) == 0
    assert json.loads((run / "summary.json").read_text())["rejection"]["code"] == "not-llm"
    assert not (tmp_path / "l.jsonl").exists() or not (tmp_path / "l.jsonl").read_text()
    assert main(["llm", "run", "--competition", str(demo_competition), "--model", "m2",
                 "--participant", "alice", "--provider", "replay", "--recordings",
                 str(tmp_path), "--public-key", str(keypair["public_path"]), "--no-score",
                 "--runs", str(runs)]) == 2
    assert ("LLM-track participants are named llm:<model> or agent:<model>"
            in capsys.readouterr().err)


def test_the_keyed_score_step_takes_competitions_from_the_repository(
        keypair, demo_competition, tmp_path, httpserver, monkeypatch, capsys):
    """A matrix job's summary.json pointing at its own copy of the competition (here with an
    extra metric; in the attack, without public_fraction) does not choose what is scored."""
    work = make_origin(tmp_path, demo_competition)
    competition = work / "competitions" / demo_competition.name
    monkeypatch.setenv("GNNCB_TEST_LLM_KEY", API_KEY)
    llm = ScriptedLLM(httpserver, [MAJORITY])
    runs = tmp_path / "runs"
    assert main(["llm", "run", "--competition", str(competition), "--model", "m1",
                 "--base-url", llm.base_url, "--api-key-env", "GNNCB_TEST_LLM_KEY",
                 "--public-key", str(keypair["public_path"]), "--no-score", "--runs", str(runs),
                 "--campaign", "wf", "--wall-seconds", "60", *UNSANDBOXED_FLAGS]) == 0
    forged = tmp_path / "forged" / competition.name
    shutil.copytree(competition, forged)
    spec = (forged / "competition.yaml").read_text()
    (forged / "competition.yaml").write_text(spec.replace(
        "metrics:\n", "metrics:\n  probe:\n    fn: accuracy\n    split: test\n", 1))
    run = runs / "wf" / "m1" / competition.name
    summary = json.loads((run / "summary.json").read_text())
    summary["competition_dir"] = str(forged)
    (run / "summary.json").write_text(json.dumps(summary))
    monkeypatch.setenv("GNNCB_ROOT", str(work))  # the keyed job runs in the repository
    rows = tmp_path / "rows.jsonl"
    assert main(["llm", "score", "--runs", str(runs / "wf"), "--private-key",
                 str(keypair["private_path"]), "--ledger", str(tmp_path / "scratch.jsonl"),
                 "--rows-out", str(rows)]) == 0
    [row] = [json.loads(line) for line in rows.read_text().splitlines()]
    assert sorted(row["scores"]) == ["accuracy", "macro_f1"]  # the repository's spec
