"""The sandbox's promises, each checked from inside a real run.

Tests that need real isolation skip (with the reason) on machines that cannot provide it, e.g.
a developer laptop without root; CI runs as root on Linux and runs them all.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from evaluator import sandbox
from evaluator.sandbox import (
    NO_ISOLATION,
    Isolation,
    Limits,
    SandboxError,
    SandboxUnavailable,
    prepare_workspace,
    run,
)
from evaluator.sandbox import cgroup as sandbox_cgroup
from evaluator.sandbox import judge as sandbox_judge
from tests.helpers.paths import REPO

pytestmark = pytest.mark.slow
ISOLATION = sandbox.detect_isolation()
needs_sandbox = pytest.mark.skipif(
    not ISOLATION.sandboxed, reason=f"no isolation on this machine: {ISOLATION.detail}"
)


def run_py(ws: Path, code: str, **kwargs) -> sandbox.SandboxResult:
    (ws / "solution.py").write_text(textwrap.dedent(code))
    return run([sys.executable, "solution.py"], workspace=ws, **kwargs)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path


# ---------------------------------------------------------------------------- isolation report


def test_isolation_level_names_what_is_missing():
    assert Isolation(True, True, True, True, "unshare+setuid").level == "full"
    assert NO_ISOLATION.level == "none"
    assert not NO_ISOLATION.sandboxed
    partial = Isolation(True, True, True, False, "x")
    assert partial.sandboxed
    assert partial.level == "partial: no unprivileged uid"
    assert Isolation(False, True, False, True, "x").level == "partial: no network, no filesystem"


def test_unisolated_run_is_reported_honestly(ws, monkeypatch):
    monkeypatch.setattr(sandbox_judge, "detect_isolation", lambda: NO_ISOLATION)
    monkeypatch.setenv("GNNCB_PRIVATE_KEY", "very-secret")
    result = run_py(ws, "import os; print(sorted(os.environ))")
    assert result.exit_reason == "ok"
    assert result.isolation.level == "none" and not result.isolation.sandboxed
    assert "GNNCB_PRIVATE_KEY" not in result.stdout_tail  # scrubbed even without a sandbox
    with pytest.raises(SandboxUnavailable, match="sandbox is required"):
        run_py(ws, "pass", require_sandbox=True)


def test_unisolated_run_still_has_a_deadline(ws, monkeypatch):
    monkeypatch.setattr(sandbox_judge, "detect_isolation", lambda: NO_ISOLATION)
    result = run_py(ws, "import time; time.sleep(60)", limits=Limits(wall_seconds=0.5))
    assert result.exit_reason == "timeout"
    assert result.returncode is None


# ---------------------------------------------------------------------------- basics


@needs_sandbox
def test_interpreter_runs_in_workspace_with_scrubbed_env(ws, monkeypatch):
    for name in ("GNNCB_PRIVATE_KEY", "OPENAI_API_KEY", "GITHUB_TOKEN"):
        monkeypatch.setenv(name, "secret-value-123")
    result = run_py(
        ws,
        """
        import json, os, sys
        print(json.dumps({"cwd": os.getcwd(), "env": dict(os.environ), "prefix": sys.prefix,
                          "uid": os.getuid()}))
        """,
        env={"EXTRA": "1", "OMP_NUM_THREADS": "2"},
        require_sandbox=True,
    )
    assert result.exit_reason == "ok", result.stderr_tail
    seen = json.loads(result.stdout_tail)
    assert seen["cwd"] == str(ws.resolve())
    assert seen["prefix"] == sys.prefix
    assert seen["uid"] != 0
    assert set(seen["env"]) == {
        "PATH", "HOME", "LANG", "LC_ALL", "PYTHONHASHSEED", "PYTHONDONTWRITEBYTECODE",
        "CUDA_VISIBLE_DEVICES", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
        "EXTRA",
    }  # fmt: skip
    assert seen["env"]["HOME"] == str(ws.resolve())
    assert seen["env"]["OMP_NUM_THREADS"] == "2" and seen["env"]["MKL_NUM_THREADS"] == "1"
    assert seen["env"]["CUDA_VISIBLE_DEVICES"] == ""
    assert "secret-value-123" not in result.stdout_tail
    assert result.isolation.level == "full"


@needs_sandbox
def test_exit_codes_signals_and_stdin(ws):
    echo = run_py(ws, "import sys; print(sys.stdin.read().upper())", stdin=b"graph")
    assert (echo.exit_reason, echo.stdout_tail) == ("ok", "GRAPH\n")
    failed = run_py(ws, "import sys; print('boom', file=sys.stderr); sys.exit(3)")
    assert (failed.exit_reason, failed.returncode) == ("error", 3)
    assert failed.stderr_tail == "boom\n"
    killed = run_py(ws, "import os, signal; os.kill(os.getpid(), signal.SIGTERM)")
    assert (killed.exit_reason, killed.returncode) == ("killed", -signal.SIGTERM)
    missing = run(["no-such-program-xyz"], workspace=ws)
    assert missing.exit_reason == "error" and "cannot start" in missing.stderr_tail


def test_output_decoded_with_replacement(ws):
    result = run_py(ws, r"import sys; sys.stdout.buffer.write(b'ok \xff\xfe end')")
    assert result.stdout_tail == "ok \ufffd\ufffd end"


# ---------------------------------------------------------------------------- filesystem


@needs_sandbox
def test_host_files_are_hidden_and_only_workspace_and_tmp_are_writable(tmp_path, ws):
    keys = tmp_path / "keys"
    keys.mkdir()
    pem = keys / "deploy-private.pem"
    pem.write_text("-----BEGIN PRIVATE KEY-----\n")
    pem.chmod(0o644)  # even a world-readable key must stay invisible
    data = tmp_path / "public"
    data.mkdir()
    (data / "train.csv").write_text("a,b\n")
    home = Path.home()
    probe = {
        "pem": str(pem),
        "repo_pyproject": str(REPO / "pyproject.toml"),
        "repo_package": str(REPO / "evaluator"),
        "shared": str(REPO.parent / "shared"),
        "home": str(home),
        "data": str(data / "train.csv"),
        "python_stdlib": os.__file__,
    }
    result = run_py(
        ws,
        f"""
        import json, os
        probe = {probe!r}
        seen = {{k: os.path.exists(v) for k, v in probe.items()}}
        seen["home_entries"] = sorted(os.listdir(probe["home"])) if seen["home"] else []
        seen["data_text"] = open(probe["data"]).read()
        for name, path in [("ws", "out.txt"), ("tmp", "/tmp/x"), ("usr", "/usr/x"),
                           ("etc", "/etc/x"), ("root", "/x"), ("data_w", probe["data"])]:
            try:
                with open(path, "w") as fh:
                    fh.write("x")
                seen["write_" + name] = True
            except OSError:
                seen["write_" + name] = False
        print(json.dumps(seen))
        """,
        readonly_paths=[data],
    )
    assert result.exit_reason == "ok", result.stderr_tail
    seen = json.loads(result.stdout_tail)
    assert seen["pem"] is False
    assert seen["repo_pyproject"] is False and seen["repo_package"] is False
    assert seen["shared"] is False
    assert seen["python_stdlib"] is True
    assert seen["data"] is True and seen["data_text"] == "a,b\n"
    # Only the ancestors of the Python installation may show up in the caller's home.
    allowed = {
        p.relative_to(home).parts[0] for p in sandbox.python_paths() if p.is_relative_to(home)
    }
    assert set(seen["home_entries"]) <= allowed
    assert seen["write_ws"] and seen["write_tmp"]
    assert not (
        seen["write_usr"] or seen["write_etc"] or seen["write_root"] or seen["write_data_w"]
    )
    out = ws / "out.txt"
    assert out.read_text() == "x"
    assert out.stat().st_uid == os.geteuid()  # results handed back to the caller
    assert (data / "train.csv").read_text() == "a,b\n"


@needs_sandbox
@pytest.mark.parametrize("quota", [True, False], ids=["copy", "chown"])
def test_workspace_symlink_does_not_chown_host_files(tmp_path, ws, quota):
    """A link to a host file left in the workspace is never followed: not by the copy back
    (default quota), and not by the chowns before and after a run on the host directory itself
    (workspace_bytes=None). The victim belongs to neither the judge nor a sandbox uid, so a
    chown through the link in either direction would show."""
    victim = tmp_path / "victim.txt"
    victim.write_text("host")
    os.chown(victim, 4242, 4343)
    victim.chmod(0o600)
    before = victim.stat()
    limits = Limits() if quota else Limits(workspace_bytes=None)
    result = run_py(ws, f"import os; os.symlink({str(victim)!r}, 'link')", limits=limits)
    assert result.exit_reason == "ok", result.stderr_tail
    assert (ws / "link").is_symlink()
    again = run_py(ws, "print('second run')", limits=limits)  # chowns through the tree again
    assert again.exit_reason == "ok"
    after = victim.stat()
    assert (after.st_uid, after.st_gid, after.st_mode) == (
        before.st_uid, before.st_gid, before.st_mode)
    assert victim.read_text() == "host"
    owner = ws.stat().st_uid
    assert all(os.lstat(p).st_uid == owner for p in [ws, *ws.iterdir()])


# ---------------------------------------------------------------------------- network


@needs_sandbox
def test_no_network_to_a_listening_local_port(ws):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.setblocking(False)
    port = server.getsockname()[1]
    try:
        result = run_py(
            ws,
            f"""
            import socket
            try:
                socket.create_connection(("127.0.0.1", {port}), timeout=3)
                print("connected")
            except OSError as exc:
                print("blocked", exc.errno)
            """,
        )
        with pytest.raises(BlockingIOError):
            server.accept()
    finally:
        server.close()
    assert result.exit_reason == "ok", result.stderr_tail
    assert result.stdout_tail.startswith("blocked")


# ---------------------------------------------------------------------------- limits


def processes_with(marker: str) -> dict[int, int]:
    """pid -> real uid of every process whose command line contains `marker` (from /proc)."""
    found = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if marker.encode() not in Path(f"/proc/{pid}/cmdline").read_bytes():
                continue
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        uid_line = next(line for line in status.splitlines() if line.startswith("Uid:"))
        found[int(pid)] = int(uid_line.split()[1])
    return found


def wait_for(predicate, seconds: float = 120.0) -> bool:
    """Poll until `predicate()` holds; generous bound, so a loaded machine only makes it slow."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def sleeper(marker: str) -> str:
    """Code that becomes a process with `marker` in its command line, sleeping forever."""
    return (f"os.execv(sys.executable, [sys.executable, '-c', "
            f"'import time\\nwhile True: time.sleep(0.05)', {marker!r}])")


@needs_sandbox
def test_deadline_kills_escaped_double_forked_setsid_child(ws):
    """The escaped grandchild is seen alive from outside during the run, and no process of
    it is left once run() returns."""
    marker = f"gnncb-escapee-{uuid.uuid4().hex}"
    seen: dict[int, int] = {}

    def watch() -> None:
        wait_for(lambda: seen.update(processes_with(marker)) or bool(seen))

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    result = run_py(
        ws,
        f"""
        import os, sys, time
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                {sleeper(marker)}
            os._exit(0)
        while True:
            time.sleep(1)
        """,
        limits=Limits(wall_seconds=3),
    )
    assert result.exit_reason == "timeout"
    assert result.returncode is None
    assert seen, "the escaped child never ran (the run ended too early to test anything)"
    assert all(uid >= sandbox.UID_BASE for uid in seen.values())
    assert processes_with(marker) == {}


@needs_sandbox
def test_judge_death_ends_the_run(ws):
    """SIGKILL the judge while its run sleeps: PID 1 sees the judge gone and the whole tree
    ends. Waits are event-driven with generous bounds (a loaded machine is slow, not flaky)."""
    marker = f"gnncb-orphaned-{uuid.uuid4().hex}"
    (ws / "solution.py").write_text(f"import os, sys\n{sleeper(marker)}\n")
    judge_code = (
        "import sys; from pathlib import Path; from evaluator.sandbox import run, Limits; "
        f"run([sys.executable, 'solution.py'], workspace=Path({str(ws)!r}), "
        "limits=Limits(wall_seconds=600))"
    )
    judge = subprocess.Popen([sys.executable, "-c", judge_code], cwd=REPO)
    try:
        assert wait_for(lambda: processes_with(marker)), "the workload never started"
    finally:
        judge.kill()
        judge.wait()
    assert wait_for(lambda: not processes_with(marker)), "the workload outlived its judge"


@needs_sandbox
def test_concurrent_runs_get_their_own_uid(tmp_path):
    """Three runs are held alive together (each waits for a gate file the test creates only
    once it sees all three from /proc), so they overlap whatever the machine's load."""
    marker = f"gnncb-concurrent-{uuid.uuid4().hex}"
    gate = tmp_path / "gate"
    gate.mkdir()
    gate.chmod(0o755)
    spaces = []
    for i in range(3):
        spaces.append(tmp_path / f"ws{i}")
        spaces[-1].mkdir()
    code = ("import os, sys, time\n"
            f"while not os.path.exists({str(gate / 'open')!r}): time.sleep(0.05)\n"
            "print(os.getuid())\n")

    def one(w: Path) -> sandbox.SandboxResult:
        return run([sys.executable, "-c", code, marker], workspace=w, readonly_paths=[gate],
                   limits=Limits(wall_seconds=600))

    with ThreadPoolExecutor(3) as pool:
        futures = [pool.submit(one, w) for w in spaces]
        try:
            assert wait_for(lambda: len(processes_with(marker)) == 3), "not all three started"
            alive = processes_with(marker)
        finally:
            (gate / "open").write_text("")
        results = [f.result() for f in futures]
    assert all(r.exit_reason == "ok" for r in results), [r.stderr_tail for r in results]
    uids = {int(r.stdout_tail) for r in results}
    assert len(uids) == 3 and 0 not in uids
    assert set(alive.values()) == uids  # what the kernel showed while all three were alive


@needs_sandbox
def test_memory_limit_ends_with_memory(ws):
    hog = "blocks = []\nwhile True:\n    blocks.append(bytearray(16 * 1024**2))"
    result = run_py(ws, hog, limits=Limits(memory_bytes=256 * 1024**2))
    assert result.exit_reason == "memory"
    assert "MemoryError" in result.stderr_tail
    assert result.peak_rss_bytes < 256 * 1024**2


@needs_sandbox
def test_exit_reasons_come_from_the_kernel_not_the_output(ws):
    """Printing MemoryError or sending itself SIGXCPU does not make a run 'memory' or 'cpu'."""
    spoof = run_py(ws, "import sys\nprint('MemoryError: Cannot allocate memory', file=sys.stderr)"
                       "\nsys.exit(1)", limits=Limits(memory_bytes=256 * 1024**2))
    assert spoof.exit_reason == "error" and spoof.returncode == 1
    xcpu = run_py(ws, "import os, signal\nos.kill(os.getpid(), signal.SIGXCPU)",
                  limits=Limits(cpu_seconds=5))
    assert xcpu.exit_reason == "killed" and xcpu.returncode == -signal.SIGXCPU


@needs_sandbox
def test_reserved_but_unused_address_space_is_not_a_memory_end(ws):
    """220 MB of address space reserved (never touched) under a 256 MB limit, then exit(1):
    the peak RSS PID 1 measured is small, so the run ends 'error', not 'memory'."""
    result = run_py(ws, "import mmap, sys\nm = mmap.mmap(-1, 220 * 1024**2)\nsys.exit(1)",
                    limits=Limits(memory_bytes=256 * 1024**2))
    assert (result.exit_reason, result.returncode) == ("error", 1)
    assert result.peak_rss_bytes < 100 * 1024**2


@needs_sandbox
def test_self_sent_sigxcpu_near_the_limit_is_not_a_cpu_end(ws):
    """85% of a 2 s CPU limit used, then SIGXCPU sent to itself: the exact CPU clock PID 1
    read is below the limit, so the run ends 'killed', not 'cpu'."""
    result = run_py(ws, """
        import os, signal, time
        while time.process_time() < 1.7:
            pass
        os.kill(os.getpid(), signal.SIGXCPU)
    """, limits=Limits(cpu_seconds=2, wall_seconds=120))
    assert (result.exit_reason, result.returncode) == ("killed", -signal.SIGXCPU)
    assert result.cpu_seconds >= 1.7  # it did use the CPU: only the reason is not believed


@needs_sandbox
@pytest.mark.parametrize("kind", ["mmap-shared", "memfd", "dev-shm"])
def test_shared_memory_hogs_stop_at_the_limit(ws, kind):
    """MAP_SHARED anonymous memory and memfd are not counted by RLIMIT_DATA; RLIMIT_AS and
    the /tmp (= /dev/shm) tmpfs size stop them. 2 GiB is asked under a 256 MiB limit."""
    code = {
        "mmap-shared": "import mmap\nm = mmap.mmap(-1, 2 * 1024**3, flags=mmap.MAP_SHARED)\n"
                       "for i in range(0, len(m), 4096): m[i] = 1",
        "memfd": "import mmap, os\nfd = os.memfd_create('hog')\nos.ftruncate(fd, 2 * 1024**3)\n"
                 "m = mmap.mmap(fd, 2 * 1024**3)\nfor i in range(0, len(m), 4096): m[i] = 1",
        "dev-shm": "with open('/dev/shm/hog', 'wb') as fh:\n"
                   "    for _ in range(2048): fh.write(b'x' * 1024**2)",
    }[kind]
    result = run_py(ws, code + "\nprint('HELD IT ALL')",
                    limits=Limits(memory_bytes=256 * 1024**2, tmp_bytes=128 * 1024**2))
    assert "HELD IT ALL" not in result.stdout_tail
    assert result.exit_reason in ("memory", "error")
    assert result.peak_rss_bytes is None or result.peak_rss_bytes < 300 * 1024**2


RLIMIT_AS_PROBE = "import resource; print(resource.getrlimit(resource.RLIMIT_AS)[0])"


@needs_sandbox
def test_the_memory_mechanism_is_detected_at_run_time_and_recorded(ws):
    """A per-run cgroup v2 where this judge can make one, else RLIMIT_AS (this machine: no
    cgroup v2 memory controller, see docs/sandbox.md); each result says which it got."""
    parent, why = sandbox.cgroup_parent()
    limit = 300 * 1024**2
    result = run_py(ws, RLIMIT_AS_PROBE, limits=Limits(memory_bytes=limit))
    assert result.exit_reason == "ok", result.stderr_tail
    if parent is None:
        assert result.memory_mechanism == "rlimit-as+tmpfs"
        assert int(result.stdout_tail) == limit
        assert why and why in sandbox.cgroup_memory_status()
    else:
        assert result.memory_mechanism == "cgroup-v2"
        assert int(result.stdout_tail) == resource.RLIM_INFINITY


def test_cgroup_probe_refuses_what_cannot_bound_memory(tmp_path):
    """The probe reads the controllers and tries a child; nothing qualifies by its name."""
    plain = tmp_path / "no-memory"
    plain.mkdir()
    (plain / "cgroup.controllers").write_text("cpu io pids\n")
    assert "no memory controller" in sandbox_cgroup._probe_cgroup(plain)
    assert "cannot read" in sandbox_cgroup._probe_cgroup(tmp_path / "missing")
    ready = tmp_path / "ready"
    ready.mkdir()
    (ready / "cgroup.controllers").write_text("cpu memory\n")
    (ready / "cgroup.subtree_control").write_text("memory\n")
    # files that look right are not enough: a child of a real cgroup goes with its files
    assert sandbox_cgroup._probe_cgroup(ready) == "not a cgroup filesystem"
    assert sorted(p.name for p in ready.iterdir()) == [
        "cgroup.controllers", "cgroup.subtree_control"]  # the probe child is gone again


@needs_sandbox
def test_cgroup_path_with_a_stand_in_hierarchy(ws, tmp_path, monkeypatch):
    """The cgroup code path end to end against plain directories standing in for cgroupfs
    (the kernel's accounting is not exercised here): the run's cgroup gets memory.max, the
    workload enters it (writes "0" to cgroup.procs as root, before dropping privileges), runs
    without RLIMIT_AS, and the result records the mechanism."""
    parent = tmp_path / "cgroup"
    parent.mkdir()
    monkeypatch.setattr(sandbox_cgroup, "cgroup_parent", lambda: (parent, "stand-in"))
    limit = 300 * 1024**2
    result = run_py(ws, RLIMIT_AS_PROBE, limits=Limits(memory_bytes=limit))
    assert result.exit_reason == "ok", result.stderr_tail
    assert result.memory_mechanism == "cgroup-v2"
    assert int(result.stdout_tail) == resource.RLIM_INFINITY
    [group] = parent.iterdir()
    assert group.name.startswith("gnncb-run-")
    assert (group / "memory.max").read_text() == str(limit)
    assert (group / "cgroup.procs").read_text() == "0"


@needs_sandbox
def test_cpu_limit_ends_infinite_loop(ws):
    result = run_py(ws, "while True: pass", limits=Limits(cpu_seconds=1, wall_seconds=60))
    assert result.exit_reason == "cpu"
    # the kernel count (tick-sampled rusage) may trail the runtime the limit fired on
    assert 0.8 <= result.cpu_seconds < 10


@needs_sandbox
def test_process_limit_caps_forks(ws):
    result = run_py(
        ws,
        """
        import os, time
        n = 0
        try:
            while n < 1000:
                if os.fork() == 0:
                    time.sleep(30)
                    os._exit(0)
                n += 1
        except OSError:
            pass
        print(n)
        """,
        limits=Limits(max_processes=8, wall_seconds=30),
    )
    assert result.exit_reason == "ok", result.stderr_tail
    assert 0 < int(result.stdout_tail) < 8


@needs_sandbox
def test_fork_bomb_ends_and_judge_survives(ws):
    bomb = (
        "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    )
    result = run_py(ws, bomb, limits=Limits(max_processes=16, wall_seconds=1.5))
    assert result.exit_reason == "timeout"
    after = run_py(ws, "print('still fine')")
    assert after.stdout_tail == "still fine\n"


def test_huge_output_keeps_only_the_tail(ws):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = run_py(
        ws,
        """
        import sys
        chunk = b"." * (1 << 20)
        for _ in range(200):
            sys.stdout.buffer.write(chunk)
        sys.stdout.buffer.write(b"END\\n")
        """,
        limits=Limits(output_bytes=4096),
    )
    assert result.exit_reason == "ok"
    assert len(result.stdout_tail) == 4096
    assert result.stdout_tail.endswith("....END\n")
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 100 * 1024  # 200 MB went through; far less stayed in the judge


@needs_sandbox
def test_run_reports_usage(ws):
    result = run_py(ws, "x = bytearray(100 * 1024**2); sum(range(10**6))")
    assert result.exit_reason == "ok"
    assert result.peak_rss_bytes is not None and result.peak_rss_bytes >= 100 * 1024**2
    assert result.cpu_seconds > 0 and result.wall_seconds > 0


@pytest.mark.gnn
@pytest.mark.slow
@needs_sandbox
def test_torch_imports_under_default_limits(ws):
    pytest.importorskip("torch_geometric")
    # default memory/process/file limits; only the wall clock is widened: on a loaded 2-core
    # machine importing torch + torch_geometric alone can take longer than the default 60 s
    limits = sandbox.Limits(wall_seconds=900)
    result = run_py(ws, "import torch, torch_geometric; print(torch.ones(3).sum().item())",
                    limits=limits)
    assert result.exit_reason == "ok", result.stderr_tail
    assert result.stdout_tail == "3.0\n"


# ---------------------------------------------------------------------------- run() arguments


def test_run_rejects_bad_arguments(tmp_path, ws):
    with pytest.raises(SandboxError, match="argv is empty"):
        run([], workspace=ws)
    with pytest.raises(SandboxError, match="not a directory"):
        run(["true"], workspace=tmp_path / "missing")
    with pytest.raises(SandboxError, match="does not exist"):
        run(["true"], workspace=ws, readonly_paths=[tmp_path / "nope"])
    with pytest.raises(SandboxError, match="invalid environment variable"):
        run(["true"], workspace=ws, env={"A=B": "1"})
    with pytest.raises(SandboxError, match="whole host"):
        run(["true"], workspace=ws, readonly_paths=[Path("/")])
    for taken in (REPO, REPO.parent, Path(sys.prefix), Path("/")):
        with pytest.raises(SandboxError, match="fresh directory"):
            run(["true"], workspace=taken)
    with pytest.raises(SandboxError, match="wall_seconds"):
        Limits(wall_seconds=0)
    with pytest.raises(SandboxError, match="memory_bytes"):
        Limits(memory_bytes=-1)


# ---------------------------------------------------------------------------- prepare_workspace


def test_prepare_workspace_copies_files_and_dirs(tmp_path):
    src = tmp_path / "src"
    (src / "data").mkdir(parents=True)
    (src / "data" / "train.csv").write_text("x\n")
    (src / "data" / "alias.csv").symlink_to("train.csv")  # inside the tree: copied as a file
    (src / "solution.py").write_text("print(1)\n")
    dest = prepare_workspace(
        tmp_path / "ws", {"solution.py": src / "solution.py", "inputs/data": src / "data"}
    )
    assert (dest / "solution.py").read_text() == "print(1)\n"
    assert (dest / "inputs" / "data" / "train.csv").read_text() == "x\n"
    alias = dest / "inputs" / "data" / "alias.csv"
    assert alias.read_text() == "x\n" and not alias.is_symlink()


def test_prepare_workspace_refuses_links_out_and_bad_names(tmp_path):
    secret = tmp_path / "secret.pem"
    secret.write_text("key")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "key.pem").symlink_to(secret)
    with pytest.raises(SandboxError, match="outside"):
        prepare_workspace(tmp_path / "ws1", {"tree": tree})
    for bad in ("../escape", "/abs", ""):
        with pytest.raises(SandboxError, match="relative path"):
            prepare_workspace(tmp_path / f"ws-{len(bad)}", {bad: secret})
    loop = tmp_path / "loop"
    loop.mkdir()
    (loop / "self").symlink_to(".")
    with pytest.raises(SandboxError, match="loop"):
        prepare_workspace(tmp_path / "ws2", {"loop": loop})
    with pytest.raises(SandboxError, match="not found"):
        prepare_workspace(tmp_path / "ws3", {"x": tmp_path / "missing"})
    full = tmp_path / "full"
    full.mkdir()
    (full / "f").write_text("")
    with pytest.raises(SandboxError, match="not empty"):
        prepare_workspace(full, {})


@needs_sandbox
@pytest.mark.parametrize(("code", "what"), [
    ("with open('big', 'wb') as fh:\n    for _ in range(64): fh.write(b'x' * 1024**2)", "bytes"),
    ("for i in range(5000):\n    open(f'f{i}', 'w').close()", "inodes"),
])
def test_workspace_quota_ends_the_run_with_its_own_reason(ws, code, what):
    """Total bytes and inodes of a workspace are bounded (a tmpfs of that size inside the
    sandbox, copied back afterwards); filling it is exit reason 'quota'."""
    limits = Limits(workspace_bytes=16 * 1024**2, workspace_inodes=300)
    result = run_py(ws, code, limits=limits)
    assert result.exit_reason == "quota"
    assert result.workspace is not None and result.workspace["full"]
    used = sum(p.stat().st_size for p in ws.rglob("*") if p.is_file())
    assert used <= 16 * 1024**2 and len(list(ws.rglob("*"))) <= 300
    assert (ws / "solution.py").is_file()  # the copy back keeps what the run left


@needs_sandbox
def test_special_files_left_in_the_workspace_are_dropped(ws):
    """FIFOs and sockets never reach the host directory; everything there is the owner's."""
    result = run_py(ws, """
        import os, socket
        os.mkfifo("fifo")
        socket.socket(socket.AF_UNIX).bind("sock")
        os.symlink("/etc/shadow", "link")
        open("kept.txt", "w").write("data")
    """)
    assert result.exit_reason == "ok" and result.workspace["dropped"] == 2
    assert sorted(p.name for p in ws.iterdir()) == ["kept.txt", "link", "solution.py"]
    assert (ws / "link").is_symlink()  # copied as a link, never followed
    owner = ws.stat().st_uid
    assert all(os.lstat(p).st_uid == owner for p in ws.iterdir())


@needs_sandbox
@pytest.mark.parametrize("quota", [True, False], ids=["copy", "chown"])
def test_1200_deep_tree_ends_in_a_verdict_and_nothing_stays_sandbox_owned(ws, quota):
    """A 1,200-level directory chain (paths far beyond PATH_MAX): on the chown path
    (workspace_bytes=None) every level is handed back to the owner; with the quota's copy the
    levels below MAX_COPY_DEPTH are refused and named. Either way the run ends with a result,
    the output check gives its verdict, and the judge can scrub and delete the tree."""
    from evaluator.llm.execute import read_output
    from evaluator.sandbox import fdtree
    from evaluator.sandbox import fs as sandbox_fs

    limits = Limits() if quota else Limits(workspace_bytes=None)
    result = run_py(ws, """
        import os
        for _ in range(1200):
            os.mkdir("d")
            os.chdir("d")
        open("bottom.txt", "w").write("deep")
        os.mkfifo("fifo")
    """, limits=limits)
    assert result.exit_reason == "ok", result.stderr_tail
    assert read_output(ws, "predictions.csv", 1024) is None  # a verdict: not written
    owner, depth, uids = ws.stat().st_uid, 0, set()

    def visit(fd: int, name: str, info: os.stat_result) -> None:
        nonlocal depth
        uids.add(info.st_uid)
        depth += name == "d"

    sandbox_fs.walk(ws, visit)
    assert uids == {owner}  # nothing owned by a sandbox uid, at any depth
    if quota:
        assert depth == fdtree.MAX_COPY_DEPTH - 1  # the top counts as a level
        assert [what for _, what in result.workspace["refused"]] == [
            f"a directory deeper than {fdtree.MAX_COPY_DEPTH} levels"]
    else:
        assert depth == 1200
        assert sandbox_fs.scrub_tree(ws) == 1  # the FIFO at the bottom
    sandbox_fs.remove_tree(ws)
    assert not ws.exists()


@needs_sandbox
def test_hostname_is_the_sandboxes_own(ws):
    host = socket.gethostname()
    result = run_py(ws, """
        import os, socket
        print(socket.gethostname(), os.uname().nodename,
              open("/proc/sys/kernel/hostname").read().strip(), open("/etc/hostname").read())
    """)
    assert result.stdout_tail.split() == ["sandbox"] * 4
    assert host == "sandbox" or host not in result.stdout_tail
