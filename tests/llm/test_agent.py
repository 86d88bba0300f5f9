"""Agent mode: an external command works in the sandboxed workspace; its predictions.csv is
checked, fed back when invalid, sealed and scored like everyone else's."""

from __future__ import annotations

import json
import os
import stat
import textwrap
from pathlib import Path

import pytest

from evaluator import sandbox
from evaluator.cli import main
from tests.helpers.llm import UNSANDBOXED_FLAGS, needs_sandbox, read_json

# A scripted "agent": reads the frozen prompt, writes solution.py, runs it. Round 1 writes a
# partial file; round 2 reads FEEDBACK.md and fixes it.
AGENT = textwrap.dedent('''
    import os, pathlib, subprocess, sys

    prompt = pathlib.Path(os.environ["GNNCB_PROMPT_FILE"]).read_text()
    assert "You are solving a GNN coding competition" in prompt
    attempt = int(os.environ["GNNCB_ATTEMPT"])
    limit = "[:10]" if attempt == 1 else ""
    if attempt > 1:
        feedback = pathlib.Path(os.environ["GNNCB_FEEDBACK_FILE"]).read_text()
        print("FEEDBACK SEEN:", "test ids are missing" in feedback)
    pathlib.Path("solution.py").write_text(f"""
    import csv
    with open("data/test_ids.csv") as fh:
        ids = [row["id"] for row in csv.DictReader(fh)]{limit}
    with open("predictions.csv", "w") as out:
        out.write("id,label\\\\n")
        out.writelines(f"{{i}},1\\\\n" for i in ids)
    """)
    subprocess.run([sys.executable, "solution.py"], check=True)
    print("agent round", attempt, "of", os.environ["GNNCB_MAX_ATTEMPTS"])
''')


def _agent_args(keypair, competition: Path, tmp_path: Path, agent: Path, *extra: str):
    return ["llm", "run", "--competition", str(competition), "--provider", "agent",
            "--model", "scripted-agent", "--agent-command", f"python {agent}",
            "--agent-mount", str(agent), "--public-key", str(keypair["public_path"]),
            "--private-key", str(keypair["private_path"]),
            "--ledger", str(tmp_path / "ledger.jsonl"), "--runs", str(tmp_path / "runs"),
            "--wall-seconds", "60", *UNSANDBOXED_FLAGS, *extra]


@pytest.mark.slow
def test_scripted_agent_repairs_itself_and_lands_a_ledger_row(keypair, demo_competition,
                                                              tmp_path, capsys):
    agent = tmp_path / "agent.py"
    agent.write_text(AGENT)
    assert main(_agent_args(keypair, demo_competition, tmp_path, agent)) == 0
    assert "scored scripted-agent x demo-cancer-knn" in capsys.readouterr().out
    [row] = [json.loads(line) for line in (tmp_path / "ledger.jsonl").read_text().splitlines()]
    assert (row["entrant"], row["participant"], row["model"]) == (
        "llm-agent", "agent:scripted-agent", "scripted-agent")
    assert row["declared"]["llm"]["repair_depth"] == 1
    assert row["declared"]["llm"]["provider"] == "agent:python agent.py"

    run = tmp_path / "runs" / "adhoc" / "scripted-agent" / "demo-cancer-knn"
    first, second = (read_json(run / f"attempt-{i}" / "attempt.json") for i in (1, 2))
    assert first["failure"]["mode"] == "malformed_submission" and second["valid"]
    assert "test ids are missing" in (run / "attempt-2" / "prompt.md").read_text()
    assert "FEEDBACK SEEN: True" in (run / "attempt-2" / "stdout.txt").read_text()
    assert "[:10]" in (run / "attempt-1" / "solution.py").read_text()  # the agent's code, logged
    assert (run / "attempt-1" / "prompt.md").read_text() == (run / "prompt.md").read_text()
    assert not (run / "workspace").exists()


def test_agent_mount_must_exist(keypair, demo_competition, tmp_path, capsys):
    missing = tmp_path / "no-agent.py"
    assert main(_agent_args(keypair, demo_competition, tmp_path, missing)) == 2
    assert "--agent-mount" in capsys.readouterr().err


# An agent that, in round 1, leaves a trap where the judge writes FEEDBACK.md for round 2 (a
# link to a host file, a FIFO that would hang the writer, a directory 1,200 levels deep that
# would crash a recursive walk) and writes no predictions; round 2 reports what it found.
TRAP_AGENT = textwrap.dedent('''
    import os, pathlib, stat
    attempt = int(os.environ["GNNCB_ATTEMPT"])
    trap = {kind!r}
    if attempt == 1:
        if trap == "symlink":
            os.symlink({target!r}, "FEEDBACK.md")
        elif trap == "fifo":
            os.mkfifo("FEEDBACK.md")
        else:
            os.mkdir("FEEDBACK.md")
            fd = os.open("FEEDBACK.md", os.O_RDONLY)
            for _ in range(1200):
                os.mkdir("d", dir_fd=fd)
                fd = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.symlink({target!r}, "link", dir_fd=fd)
        os.symlink({target!r}, "PROMPT.md.next")
    else:
        info = os.lstat("FEEDBACK.md")
        print("REGULAR", stat.S_ISREG(info.st_mode))
        print("FEEDBACK HAS IDS", "predictions.csv" in pathlib.Path("FEEDBACK.md").read_text())
''')


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["symlink", "fifo", "deep-directory"])
@needs_sandbox
def test_feedback_write_back_follows_nothing_the_agent_left(keypair, demo_competition,
                                                             tmp_path, capsys, kind):
    host = tmp_path / "host-file.txt"
    host.write_text("untouched\n")
    os.chmod(host, 0o644)
    agent = tmp_path / "agent.py"
    agent.write_text(TRAP_AGENT.format(kind=kind, target=str(host)))
    code = main(_agent_args(keypair, demo_competition, tmp_path, agent, "--keep-workspaces",
                           "--repairs", "1"))
    assert code != 0 or "scored" not in capsys.readouterr().out  # no predictions: no score
    assert host.read_text() == "untouched\n"  # the judge did not write through the link
    run = tmp_path / "runs" / "adhoc" / "scripted-agent" / "demo-cancer-knn"
    second = (run / "attempt-2" / "stdout.txt").read_text()
    assert "REGULAR True" in second  # a fresh judge-written file replaced the trap
    assert "FEEDBACK HAS IDS True" in second
    # nothing the run left is owned by a sandbox uid, and no link survives in the kept copy
    kept = run / "workspace"
    if kept.exists():
        for path in _walk_all(kept):
            info = os.lstat(path)
            assert not sandbox.UID_BASE <= info.st_uid < sandbox.UID_BASE + sandbox.UID_SLOTS
            assert not stat.S_ISLNK(info.st_mode)


def _walk_all(top: Path) -> list[str]:
    out, stack = [], [str(top)]
    while stack:
        d = stack.pop()
        fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
        try:
            for name in os.listdir(fd):
                info = os.stat(name, dir_fd=fd, follow_symlinks=False)
                path = f"{d}/{name}"
                if len(path) < 3000:
                    out.append(path)
                    if stat.S_ISDIR(info.st_mode):
                        stack.append(path)
        finally:
            os.close(fd)
    return out
