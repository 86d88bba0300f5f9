"""Hostile model code: each attack ends with its documented outcome (docs/llm.md) and a log.

These need the real sandbox (root + unshare); elsewhere they skip, and the loop refuses to run
model code at all unless --allow-unsandboxed is given.
"""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

import pytest

from evaluator.cli import main
from tests.helpers.llm import (
    API_KEY,
    ScriptedLLM,
    answer,
    cli_args,
    needs_sandbox,
    read_json,
)

pytestmark = needs_sandbox
MODEL = "hostile-model"


def _run(keypair, competition, tmp_path, httpserver, code: str, **limits):
    """One attempt through the real entry point, `gnncb llm run`, against a local
    OpenAI-compatible server that answers with `code`."""
    llm = ScriptedLLM(httpserver, [answer("attack", code)])
    flags = {"wall_seconds": "--wall-seconds", "cpu_seconds": "--cpu-seconds"}
    extra = ["--model", MODEL, "--repairs", "0", "--keep-workspaces", "--no-score",
             "--wall-seconds", "20"]
    for key, value in limits.items():
        extra += (["--memory-mb", str(value // 1024**2)] if key == "memory_bytes"
                  else [flags[key], str(value)])
    with pytest.MonkeyPatch.context() as env:
        env.setenv("GNNCB_TEST_LLM_KEY", API_KEY)
        main(cli_args(keypair, competition, tmp_path, llm.base_url, *extra))
    run = tmp_path / "runs" / "adhoc" / MODEL / "demo-cancer-knn"
    return llm, read_json(run / "summary.json"), run, read_json(run / "attempt-1" / "attempt.json")


def _logs(run: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in run.rglob("*")
                     if p.is_file() and p.suffix in (".txt", ".md", ".json", ".csv"))


def test_network_is_unreachable(keypair, demo_competition, tmp_path, httpserver):
    port = httpserver.port
    llm, summary, run, attempt = _run(keypair, demo_competition, tmp_path, httpserver, f"""
        import socket
        for host, port in (("127.0.0.1", {port}), ("1.1.1.1", 53)):
            try:
                socket.create_connection((host, port), timeout=3).close()
                print("CONNECTED", host)
            except OSError as err:
                print("blocked", host, type(err).__name__)
        socket.create_connection(("pypi.org", 443), timeout=3)
    """)
    stdout = (run / "attempt-1" / "stdout.txt").read_text()
    assert "CONNECTED" not in stdout
    assert "blocked 127.0.0.1" in stdout and "blocked 1.1.1.1" in stdout
    assert attempt["exit_reason"] == "error"
    assert summary["status"] == "failed" and summary["failure"]["mode"] == "network"
    # only the model call (and the provider's own /v1/models probe) reached us
    calls = [req for req, _ in httpserver.log if not req.path.endswith("/models")]
    assert len(calls) == len(llm.requests) == 1


def test_private_key_and_secrets_are_not_readable(keypair, demo_competition, tmp_path,
                                                  httpserver, monkeypatch):
    pem = keypair["private_path"].read_text()
    monkeypatch.setenv("GNNCB_PRIVATE_KEY", pem)
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    key_path = keypair["private_path"]
    _, summary, run, attempt = _run(keypair, demo_competition, tmp_path, httpserver, f"""
        import os
        for path in ({str(key_path)!r}, "/work/shared/secrets/deploy-private.pem",
                     "hidden/test_labels.jwe", "../hidden/test_labels.jwe"):
            try:
                print("LEAKED", path, open(path).read()[:80])
            except OSError as err:
                print("blocked", path, type(err).__name__)
        print("ENV", sorted(os.environ))
        # last resort: point predictions.csv at the key, hoping the judge echoes it back
        os.symlink({str(key_path)!r}, "predictions.csv")
    """)
    stdout = (run / "attempt-1" / "stdout.txt").read_text()
    assert "LEAKED" not in stdout and stdout.count("blocked") == 4
    assert "GNNCB_PRIVATE_KEY" not in stdout and "OPENAI_API_KEY" not in stdout
    assert attempt["exit_reason"] == "ok" and not attempt["valid"]
    assert "symbolic link" in attempt["check"]
    assert summary["failure"]["mode"] == "malformed_submission"
    logs = _logs(tmp_path / "runs")
    assert "PRIVATE KEY" not in logs and API_KEY not in logs
    # the kept workspace is scrubbed of links a later reader would follow
    assert not [p for p in (run / "attempt-1" / "workspace").rglob("*") if p.is_symlink()]


def test_setsid_child_does_not_outlive_the_deadline(keypair, demo_competition, tmp_path,
                                                    httpserver):
    token = f"gnncb-orphan-{uuid.uuid4().hex}"
    _, summary, run, attempt = _run(keypair, demo_competition, tmp_path, httpserver, f"""
        import os, subprocess, sys, time
        subprocess.Popen([sys.executable, "-c",
                          "import time; time.sleep(3); open('late.txt', 'w').write('escaped')"
                          " # {token}"], start_new_session=True)
        os.setsid()
        while True:
            time.sleep(0.1)
    """, wall_seconds=2)
    assert attempt["exit_reason"] == "timeout"
    assert summary["failure"]["mode"] == "timeout"
    time.sleep(3.5)  # give an escaped child the time to write its file

    def alive() -> list[str]:
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if token.encode() in cmdline:
                found.append(pid)
        return found

    assert alive() == []
    assert not (run / "attempt-1" / "workspace" / "late.txt").exists()


def test_memory_hog_ends_with_memory(keypair, demo_competition, tmp_path, httpserver):
    _, summary, run, attempt = _run(keypair, demo_competition, tmp_path, httpserver, """
        blocks = []
        while True:
            blocks.append(bytearray(32 * 1024 * 1024))
    """, memory_bytes=256 * 1024**2)
    assert attempt["exit_reason"] == "memory"
    assert attempt["outcome"] == "ran out of memory (limit 256 MiB)"
    assert summary["failure"]["mode"] == "memory"
    assert "MemoryError" in (run / "attempt-1" / "stderr.txt").read_text()


@pytest.mark.slow
@pytest.mark.parametrize(("limits", "reason", "outcome"), [
    ({"wall_seconds": 2}, "timeout", "stopped at the wall-clock limit of 2 seconds"),
    ({"cpu_seconds": 1}, "cpu", "stopped at the CPU-time limit of 1 seconds"),
])
def test_infinite_loop_is_stopped(keypair, demo_competition, tmp_path, httpserver, limits,
                                  reason, outcome):
    _, summary, _, attempt = _run(keypair, demo_competition, tmp_path, httpserver, """
        while True:
            pass
    """, **limits)
    assert attempt["exit_reason"] == reason and attempt["outcome"] == outcome
    assert summary["status"] == "failed" and summary["failure"]["mode"] == "timeout"


@pytest.mark.slow
def test_inode_flood_ends_with_quota_and_leaves_the_host_bounded(keypair, demo_competition,
                                                                 tmp_path, httpserver):
    """300,000 files were once accepted; the workspace quota (100,000 inodes) stops them."""
    _, summary, run, attempt = _run(keypair, demo_competition, tmp_path, httpserver, """
        import os
        os.makedirs("flood", exist_ok=True)
        for i in range(300_000):
            open(f"flood/{i}", "w").close()
    """, wall_seconds=120)
    assert attempt["exit_reason"] == "quota"
    assert attempt["outcome"].startswith("filled its workspace quota")
    assert summary["status"] == "failed"
    kept = run / "attempt-1" / "workspace" / "flood"
    assert len(os.listdir(kept)) < 100_000


@pytest.mark.parametrize(("make", "kind"), [
    ("os.mkfifo('predictions.csv')", "FIFO"),
    ("socket.socket(socket.AF_UNIX).bind('predictions.csv')", "socket"),
])
def test_special_file_as_predictions_is_reported_as_refused(keypair, demo_competition,
                                                            tmp_path, httpserver, make, kind):
    """A FIFO or socket where predictions.csv belongs is refused by the copy back and the
    attempt says so (not "not written"); nothing is opened or followed."""
    _, summary, run, attempt = _run(keypair, demo_competition, tmp_path, httpserver, f"""
        import os, socket
        {make}
    """)
    assert attempt["exit_reason"] == "ok" and not attempt["valid"]
    assert attempt["check"].startswith(f"predictions.csv was left as a {kind}, not a regular "
                                       "file; the sandbox refused it")
    assert "not written" not in attempt["check"]
    assert summary["failure"]["mode"] == "malformed_submission"
    assert attempt["memory_mechanism"] in ("cgroup-v2", "rlimit-as+tmpfs")
    assert not (run / "attempt-1" / "workspace" / "predictions.csv").exists()
