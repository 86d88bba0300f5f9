"""What an agent leaves between rounds (issue 23), through `gnncb llm run --provider agent`: a
workspace that no longer fits the quota is the model's failure (`failed`, exit reason
`quota`), not a platform `error` that a resumed campaign would clear and re-run; and on an
error path the run folder keeps no link or special file the agent planted.
"""

from __future__ import annotations

import os
import stat
import textwrap

import pytest

from evaluator.cli import main
from evaluator.llm import agent as agent_module
from evaluator.sandbox import SandboxError
from tests.helpers.llm import needs_sandbox, read_json
from tests.llm.test_agent import _agent_args, _walk_all

RUN = ("runs", "adhoc", "scripted-agent", "demo-cancer-knn")

INODE_AGENT = textwrap.dedent('''
    import os
    if int(os.environ["GNNCB_ATTEMPT"]) == 1:
        os.makedirs("flood", exist_ok=True)
        try:
            for i in range(200_000):
                open(f"flood/{i}", "w").close()
        except OSError as exc:
            print("full after", i, exc)
    else:
        print("round 2 started")
''')


@pytest.mark.slow
@needs_sandbox
def test_an_agent_that_fills_the_inodes_fails_as_the_model(keypair, demo_competition,
                                                            tmp_path):
    """Round 1 fills every inode; the judge adds FEEDBACK.md, so round 2's workspace holds one
    entry more than the quota: round 2 ends `quota` without starting, and the run is `failed`
    (before: the copy in raised SandboxError and the run was `error`)."""
    agent = tmp_path / "agent.py"
    agent.write_text(INODE_AGENT)
    main(_agent_args(keypair, demo_competition, tmp_path, agent, "--repairs", "1",
                     "--wall-seconds", "300"))
    run = tmp_path.joinpath(*RUN)
    summary = read_json(run / "summary.json")
    assert summary["status"] == "failed", summary.get("error")
    second = read_json(run / "attempt-2" / "attempt.json")
    assert second["exit_reason"] == "quota"
    assert "round 2 started" not in (run / "attempt-2" / "stdout.txt").read_text()
    assert "the program was not started" in (run / "attempt-2" / "stderr.txt").read_text()


TRAP_AGENT = textwrap.dedent('''
    import os
    os.symlink({target!r}, "hidden-labels.csv")
    os.symlink("/proc/self/environ", "environ")
    os.mkfifo("pipe")
    os.makedirs("deep/er", exist_ok=True)
    os.symlink({target!r}, "deep/er/key.pem")
''')


@pytest.mark.slow
@needs_sandbox
@pytest.mark.parametrize("keep", [False, True])
def test_an_error_leaves_no_link_in_the_run_folder(keypair, demo_competition, tmp_path,
                                                   monkeypatch, keep):
    """Round 1 plants links (to a host file standing in for a hidden label file or the
    deployment key, and to /proc/self/environ) and a FIFO; round 2 fails in the platform
    (SandboxError). The run is `error`, and the run folder (which the campaign workflow uploads
    as an artifact, following links) holds no link and no special file: the workspace is gone,
    or scrubbed with --keep-workspaces."""
    host = tmp_path / "secret.txt"
    host.write_text("secret\n")
    agent = tmp_path / "agent.py"
    agent.write_text(TRAP_AGENT.format(target=str(host)))
    real = agent_module.run_command
    calls = []

    def failing_second(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise SandboxError("sandbox setup failed: stand-in for a platform failure")
        return real(*args, **kwargs)

    monkeypatch.setattr(agent_module, "run_command", failing_second)
    extra = ["--repairs", "1", *(["--keep-workspaces"] if keep else [])]
    main(_agent_args(keypair, demo_competition, tmp_path, agent, *extra))
    run = tmp_path.joinpath(*RUN)
    assert read_json(run / "summary.json")["status"] == "error"
    assert len(calls) == 2
    for path in _walk_all(run):
        mode = os.lstat(path).st_mode
        assert stat.S_ISREG(mode) or stat.S_ISDIR(mode), path
    assert (run / "workspace").exists() == keep
    assert host.read_text() == "secret\n"
