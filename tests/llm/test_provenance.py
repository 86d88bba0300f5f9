"""The commit a campaign's prompt slots were read from, and a replay reading them back from it
(evaluator/llm/provenance.py), on a small git repository."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.errors import ConfigError
from evaluator.llm.provenance import recorded_folders, slots_commit
from tests.helpers.arena import git


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    folder = root / "competitions" / "c1"
    (folder / "data").mkdir(parents=True)
    (folder / "README.md").write_text("# C1, as recorded\n")
    (folder / "data" / "gone.csv").write_text("id\n1\n")
    (root / ".gitignore").write_text("generated.csv\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "recorded")
    return root


def test_a_recording_names_the_commit_only_when_it_holds_the_folders(repo: Path,
                                                                     tmp_path: Path) -> None:
    folder = repo / "competitions" / "c1"
    assert slots_commit([folder]) == git(repo, "rev-parse", "HEAD")
    (folder / "README.md").write_text("# C1, edited and not committed\n")
    assert slots_commit([folder]) is None  # no commit holds what the prompt will say
    git(repo, "checkout", "-q", "--", ".")
    (folder / "notes.txt").write_text("untracked\n")
    assert slots_commit([folder]) is None
    outside = tmp_path / "outside"
    outside.mkdir()
    assert slots_commit([outside]) is None


def test_a_replay_reads_the_changed_folder_back_from_the_commit(repo: Path,
                                                                tmp_path: Path) -> None:
    folder = repo / "competitions" / "c1"
    commit = git(repo, "rev-parse", "HEAD")
    (folder / "README.md").write_text("# C1, re-rendered since\n")
    (folder / "data" / "gone.csv").unlink()
    (folder / "data" / "added.csv").write_text("id\n2\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "moved on")
    (folder / "data" / "generated.csv").write_text("built locally\n")  # ignored by git
    said: list[str] = []
    [copy] = recorded_folders([folder], commit, tmp_path / "scratch", "c.json", said.append)
    assert copy != folder and copy.name == "c1"
    assert (copy / "README.md").read_text() == "# C1, as recorded\n"
    assert (copy / "data" / "gone.csv").read_text() == "id\n1\n"
    assert not (copy / "data" / "added.csv").exists()
    assert (copy / "data" / "generated.csv").read_text() == "built locally\n"
    assert (folder / "README.md").read_text() == "# C1, re-rendered since\n"  # untouched
    [note] = said
    assert commit[:12] in note and "README.md" in note and "c.json" in note
    # unchanged since the commit: the folder itself
    head = git(repo, "rev-parse", "HEAD")
    assert recorded_folders([folder], head, tmp_path / "s2", "c.json", said.append) == [folder]


def test_a_checkout_without_the_commit_is_told_what_to_fetch(repo: Path,
                                                             tmp_path: Path) -> None:
    missing = "0" * 40
    with pytest.raises(ConfigError, match=r"read at commit 000000000000.*fetch-depth: 0"):
        recorded_folders([repo / "competitions" / "c1"], missing, tmp_path, "c.json", print)
    with pytest.raises(ConfigError, match="not a full commit id"):
        recorded_folders([repo / "competitions" / "c1"], "HEAD~1", tmp_path, "c.json", print)


@pytest.mark.slow
def test_record_then_replay_after_the_readme_moved_on(keypair, demo_competition, tmp_path,
                                                      httpserver, monkeypatch, capsys) -> None:
    """Through `gnncb llm run`: a recording in a clean checkout names its commit; after the
    README is re-rendered and committed, the replay still sends the recorded prompt."""
    from evaluator.cli import main
    from tests.helpers.llm import API_KEY, NO_CODE, UNSANDBOXED_FLAGS, ScriptedLLM

    root = tmp_path / "checkout"
    folder = root / "competitions" / demo_competition.name
    folder.parent.mkdir(parents=True)
    demo_competition.rename(folder)
    (folder / "README.md").write_text("# Demo\n\nPredict each node's label.\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "recorded")
    monkeypatch.setenv("GNNCB_TEST_LLM_KEY", API_KEY)
    llm = ScriptedLLM(httpserver, [NO_CODE])
    recordings = tmp_path / "recordings"
    common = ["llm", "run", "--competition", str(folder), "--model", "m", "--repairs", "0",
              "--public-key", str(keypair["public_path"]), "--no-score", *UNSANDBOXED_FLAGS]
    assert main([*common, "--base-url", llm.base_url, "--api-key-env", "GNNCB_TEST_LLM_KEY",
                 "--record", str(recordings), "--runs", str(tmp_path / "live")]) == 1
    settings = json.loads((recordings / "campaign.json").read_text())["settings"]
    assert settings["slots_commit"] == git(root, "rev-parse", "HEAD")
    readme = folder / "README.md"
    readme.write_text(readme.read_text() + "\nA note rendered after the recording.\n")
    git(root, "commit", "-q", "-am", "re-rendered")
    capsys.readouterr()
    assert main([*common, "--provider", "replay", "--strict-replay", "--recordings",
                 str(recordings), "--runs", str(tmp_path / "replayed")]) == 1  # as recorded
    assert "its prompt slots are read from that commit" in capsys.readouterr().err
    summary = json.loads((tmp_path / "replayed" / "adhoc" / "m" / folder.name /
                          "summary.json").read_text())
    live = json.loads((tmp_path / "live" / "adhoc" / "m" / folder.name /
                       "summary.json").read_text())
    assert summary["status"] == "failed" and summary["prompt_hash"] == live["prompt_hash"]
    assert readme.read_text().endswith("A note rendered after the recording.\n")
